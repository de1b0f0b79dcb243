/* src/scale/pool.c — `croqtuner sweep --gpus 0,1,...`: one worker process per GPU.
 *
 * The workers are forks of this process, not new programs: each runs worker_run with
 * its GPU made the only visible one (CUDA_VISIBLE_DEVICES; CUDA_DEVICE_ORDER=PCI_BUS_ID
 * so the id means what nvidia-smi and NVML call that GPU), and everything it starts
 * (nvcc, croq-runner, ncu) inherits that environment, so device 0 of the runner is the
 * worker's GPU. Forks stay in the terminal's process group: Ctrl-C stops them all, and
 * whatever stops one of them leaves a stale claim that the others take over. A worker
 * never outlives the sweep: killed with it (PR_SET_PDEATHSIG, also for kill -9 of the
 * sweep, which no handler sees), it leaves what a killed worker leaves, and `resume`
 * finishes the sweep in its waves; a worker running on without its parent would finish
 * the sweep unseen, with state.json saying it still runs.
 */
#include "scale.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "util/log.h"

static bool gpu_id_valid(const char *s)
{
    bool uuid = !strncmp(s, "GPU-", 4) || !strncmp(s, "MIG-", 4);
    if (!*s)
        return false;
    for (const char *c = s; *c; c++)
        if (!(isdigit((unsigned char)*c) || (uuid && (isalnum((unsigned char)*c) || *c == '-' || *c == '/'))))
            return false;
    return true;
}

int scale_gpus_parse(const char *s, struct scale_opts *o, char *err, size_t errlen)
{
    o->n_gpus = 0;
    for (const char *p = s;; p++) {
        size_t len = strcspn(p, ",");
        char id[SCALE_GPU_MAX];
        if (len >= sizeof id || o->n_gpus == SCALE_WORKERS_MAX) {
            snprintf(err, errlen, "'%s': at most %d ids of at most %zu characters", s, SCALE_WORKERS_MAX,
                     sizeof id - 1);
            return -1;
        }
        snprintf(id, sizeof id, "%.*s", (int)len, p);
        if (!gpu_id_valid(id)) {
            snprintf(err, errlen, "'%s': '%s' is not a GPU index or a GPU-/MIG- UUID", s, id);
            return -1;
        }
        for (int i = 0; i < o->n_gpus; i++)
            if (!strcmp(o->gpus[i], id)) {
                snprintf(err, errlen, "'%s': GPU '%s' is listed twice", s, id);
                return -1;
            }
        snprintf(o->gpus[o->n_gpus++], SCALE_GPU_MAX, "%s", id);
        p += len;
        if (!*p)
            return 0;
    }
}

/* This process as a worker: identity, GPU, and the Slurm job it belongs to. */
static int worker_id_make(struct worker_id *w, const char *gpu)
{
    char err[300];
    const char *aj = getenv("SLURM_ARRAY_JOB_ID"), *at = getenv("SLURM_ARRAY_TASK_ID"), *j = getenv("SLURM_JOB_ID");
    memset(w, 0, sizeof *w);
    if (proc_ident_self(&w->self, err, sizeof err)) {
        log_error("%s", err);
        return -1;
    }
    snprintf(w->gpu, sizeof w->gpu, "%s", gpu ? gpu : "");
    if (aj && at)
        snprintf(w->job, sizeof w->job, "%.20s_%.20s", aj, at);
    else if (j)
        snprintf(w->job, sizeof w->job, "%.40s", j);
    return 0;
}

/* Die with the sweep (parent: its pid, taken before the fork). The parent may have died
 * between the fork and prctl, which would then never fire: getppid() after it closes
 * that window (an orphan has been reparented by then). */
static void die_with_parent(pid_t parent)
{
#ifdef __linux__
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
        log_warn("worker %ld: cannot tie its life to the sweep's (prctl: %s): killing the sweep with "
                 "kill -9 leaves it running",
                 (long)getpid(), strerror(errno));
#endif
    if (getppid() != parent)
        _exit(ENGINE_FAILED);
}

static noreturn void worker_child(const struct engine_opts *o, const struct scale_plan *p, const char *gpu,
                                  pid_t parent)
{
    struct worker_id w;
    die_with_parent(parent);
    if (gpu) {
        setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
        setenv("CUDA_VISIBLE_DEVICES", gpu, 1);
        setenv("CROQ_GPU", gpu, 1); /* for the record: which GPU this worker was given */
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* workers share the terminal: whole lines */
    int rc = worker_id_make(&w, gpu) ? ENGINE_FAILED : worker_run(o, p, &w);
    fflush(NULL);
    _exit(rc);
}

struct pool {
    pid_t pid[SCALE_WORKERS_MAX];
    const char *gpu[SCALE_WORKERS_MAX];
    int n;
    int busy, gone, died; /* workers stopped by their GPU, killed by a signal */
};

static int pool_start(struct pool *pl, const struct engine_opts *o, const struct scale_plan *p,
                      const struct scale_opts *so)
{
    int n = so->n_gpus ? so->n_gpus : so->workers;
    pid_t self = getpid();
    fflush(NULL); /* nothing buffered may be written twice */
    for (int i = 0; i < n; i++) {
        pl->gpu[i] = so->n_gpus ? so->gpus[i] : NULL;
        pl->pid[i] = fork();
        if (pl->pid[i] == 0)
            worker_child(o, p, pl->gpu[i], self);
        if (pl->pid[i] < 0) {
            log_error("cannot start worker %d: %s", i, strerror(errno));
            return -1; /* the ones started go on; the caller waits for them */
        }
        pl->n++;
    }
    return 0;
}

static void pool_note(struct pool *pl, int i, int status)
{
    const char *g = pl->gpu[i] ? pl->gpu[i] : "-";
    if (WIFSIGNALED(status)) {
        pl->died++;
        log_warn("worker %ld (GPU %s) was killed by signal %d (%s); its claim is stale: the next worker that "
                 "looks takes its shape over",
                 (long)pl->pid[i], g, WTERMSIG(status), strsignal(WTERMSIG(status)));
        return;
    }
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : ENGINE_FAILED;
    pl->busy += rc == ENGINE_GPU_BUSY;
    pl->gone += rc == ENGINE_GPU_GONE;
    if (rc == ENGINE_GPU_BUSY || rc == ENGINE_GPU_GONE)
        log_warn("worker %ld stopped: GPU %s %s", (long)pl->pid[i], g,
                 rc == ENGINE_GPU_BUSY ? "stayed busy" : "is unusable");
}

static void pool_wait(struct pool *pl)
{
    for (int left = pl->n; left > 0;) {
        int status;
        pid_t r = waitpid(-1, &status, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        for (int i = 0; i < pl->n; i++)
            if (pl->pid[i] == r) {
                pool_note(pl, i, status);
                left--;
            }
    }
}

static int clear_failed(json_t *root, void *arg, char *err, size_t errlen)
{
    (void)arg;
    (void)err;
    (void)errlen;
    state_failed_clear(root);
    return 0;
}

/* A new run: shapes that failed in an earlier one are tried again (as a sequential
 * sweep would), and the sweep is recorded for resume. */
int scale_sweep_begin(const struct engine_opts *o, int dtype, int mode)
{
    char err[600];
    if (state_update(o->dir, clear_failed, NULL, err, sizeof err) < 0) {
        log_error("%s", err);
        return -1;
    }
    return sweep_record(o, dtype, mode, "running", true) ? -1 : 0;
}

int scale_outcome(const char *dir, const struct scale_plan *p, size_t *pending, size_t *failed)
{
    char err[600];
    size_t widest;
    struct state_failed *f;
    json_t *st = state_load(dir, err, sizeof err);
    if (!st) {
        log_error("%s", err);
        return -1;
    }
    plan_pending(p, st, pending, &widest);
    *failed = state_failed_list(st, &f);
    for (size_t i = 0; i < *failed; i++)
        log_error("shape '%s' failed: %s", f[i].key, f[i].why);
    free(f);
    json_decref(st);
    return 0;
}

/* After the workers: the sweep's status in state.json and the outcome. */
static int waves_end(const struct engine_opts *o, int dtype, int mode, const struct scale_plan *p,
                     const struct pool *pl)
{
    size_t pending, failed;
    if (scale_outcome(o->dir, p, &pending, &failed))
        return ENGINE_FAILED;
    if (!pending || pl->busy || pl->gone)
        return sweep_end(o, dtype, mode, SWEEP_WAVES,
                         !pending ? ENGINE_DONE : pl->gone ? ENGINE_GPU_GONE : ENGINE_GPU_BUSY, pending, failed);
    log_error("sweep incomplete: %zu shape(s) left and no worker running (%d killed); run the same command again "
              "(claims of dead workers are taken over)", pending, pl->died);
    return ENGINE_FAILED;
}

int scale_sweep(const struct engine_opts *o, int dtype, int mode, const struct scale_opts *so)
{
    struct scale_plan p;
    struct pool pl;
    char err[600];
    memset(&pl, 0, sizeof pl);
    if (plan_build(o->shapes, dtype, mode, o->last_wave, true, &p, err, sizeof err)) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    int rc = sweep_plan_take(o, o->shapes); /* an array task's --shapes is the snapshot itself */
    if (rc || (!so->array_task && scale_sweep_begin(o, dtype, mode))) {
        plan_release(&p);
        return rc ? rc : ENGINE_FAILED;
    }
    if (!o->quiet) {
        printf("sweep: %d worker(s)", so->n_gpus ? so->n_gpus : so->workers);
        for (int i = 0; i < so->n_gpus; i++)
            printf("%s%s", i ? ", " : " on GPU ", so->gpus[i]);
        printf("; live: croqtuner status --tuning %s\n", o->dir);
    }
    pool_start(&pl, o, &p, so); /* if a fork failed, the workers started still do everything */
    pool_wait(&pl);
    rc = waves_end(o, dtype, mode, &p, &pl);
    plan_release(&p);
    return rc;
}

int scale_sweep_resume(const struct engine_opts *o, int dtype, int mode)
{
    struct scale_plan p;
    struct pool pl;
    struct worker_id w;
    char err[600];
    memset(&pl, 0, sizeof pl);
    if (plan_build(o->shapes, dtype, mode, o->last_wave, false, &p, err, sizeof err)) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    int rc = sweep_plan_take(o, o->shapes);
    if (rc) {
        plan_release(&p);
        return rc;
    }
    rc = scale_sweep_begin(o, dtype, mode) || worker_id_make(&w, NULL) ? ENGINE_FAILED : worker_run(o, &p, &w);
    pl.busy = rc == ENGINE_GPU_BUSY;
    pl.gone = rc == ENGINE_GPU_GONE;
    int end = waves_end(o, dtype, mode, &p, &pl);
    plan_release(&p);
    return rc == ENGINE_GPU_BUSY || rc == ENGINE_GPU_GONE ? rc : end;
}
