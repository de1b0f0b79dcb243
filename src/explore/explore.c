/* src/explore/explore.c — the explore loop (explore.h): grid minus dataset, builds ahead
 * in child processes, measurements in grid order, one dataset record per configuration. */
#include "explore.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "codegen/codegen.h"
#include "dataset/dataset.h"
#include "search/grid.h"
#include "bench/kernel.h"
#include "util/atomicio.h"
#include "util/log.h"
#include "util/regfile.h"
#include "util/spawn.h"
#include "util/utctime.h"

#define BACKOFF_FIRST_S 5.0
#define BACKOFF_MAX_S 300.0

/* What a build child reports through its pipe: one write, well under PIPE_BUF. */
struct build_msg {
    struct cand_result res;
    int rc;
    double wall_s;
};

struct job {
    struct croq_config cfg;
    int index;    /* in the grid: names the source and the raw files */
    pid_t pid;    /* build child; 0 not started, -1 reaped */
    int fd;       /* read end of its pipe */
    struct build_msg msg;
};

struct ex {
    const struct explore_opts *o;
    struct backend *be;
    char dir[4096], key[128];
    struct job *jobs;
    int n, next_build, running;
};

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (s > 0 && nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

static void req_of(struct ex *x, const struct job *j, const char *tag, char *src_rel, size_t len, struct cand_req *q)
{
    snprintf(src_rel, len, "srcs/%s/c%05d.cu", x->key, j->index);
    *q = (struct cand_req){.dir = x->dir, .key = x->key, .iter = j->index + 1, .tag = tag, .is_candidate = true,
                           .cfg = &j->cfg, .shape = x->o->shape, .src_rel = src_rel, .seed = x->o->seed};
}

/* Generate the source and fork its build. 0, or -1 (cannot write the source / fork). */
static int start_build(struct ex *x, struct job *j)
{
    char rel[256], path[4400], dir[4400], err[512];
    struct cand_req q;
    req_of(x, j, "explore", rel, sizeof rel, &q);
    snprintf(dir, sizeof dir, "%s/srcs/%s", x->dir, x->key);
    snprintf(path, sizeof path, "%s/%s", x->dir, rel);
    struct codegen_opts co = {.note = "croqtuner explore", .err = err, .errlen = sizeof err};
    if (mkdir_p(dir) || codegen_write(&j->cfg, &co, path)) {
        log_error("explore: cannot write the source '%s': %s", path, errno ? strerror(errno) : err);
        return -1;
    }
    int pid, fd;
    /* its own group: a run that stops early ends it with its nvcc */
    int forked = spawn_fork_piped(true, &pid, &fd);
    if (forked < 0)
        return -1;
    if (forked == 0) {
        struct build_msg m;
        memset(&m, 0, sizeof m);
        double t0 = mono_s();
        m.rc = x->be->build(x->be, &q, &m.res);
        m.wall_s = mono_s() - t0;
        ssize_t w = write(fd, &m, sizeof m);
        _exit(w == (ssize_t)sizeof m ? 0 : 1);
    }
    j->pid = pid;
    j->fd = fd;
    x->running++;
    return 0;
}

/* Reap j's build child (blocking) and read its report. */
static void finish_build(struct ex *x, struct job *j)
{
    int status;
    ssize_t r;
    while ((r = read(j->fd, &j->msg, sizeof j->msg)) < 0 && errno == EINTR)
        ;
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(j->fd);
    if (r != (ssize_t)sizeof j->msg) {
        memset(&j->msg, 0, sizeof j->msg);
        j->msg.rc = -1;
        snprintf(j->msg.res.reason, sizeof j->msg.res.reason, "the build process ended without a report (status %d)",
                 status);
    }
    j->pid = -1;
    x->running--;
}

static int fill_builds(struct ex *x)
{
    while (x->running < x->o->jobs && x->next_build < x->n)
        if (start_build(x, &x->jobs[x->next_build++]))
            return -1;
    return 0;
}

/* End the build groups still running (our own children) and reap them. */
static void stop_builds(struct ex *x)
{
    for (int i = 0; i < x->next_build; i++)
        if (x->jobs[i].pid > 0) {
            kill(-x->jobs[i].pid, SIGTERM);
            finish_build(x, &x->jobs[i]);
        }
}

/* Health: 0 ok, 1 unusable or busy past the limit (said why). */
static int health_ok(struct ex *x, const struct job *j)
{
    char rel[256];
    struct cand_req q;
    req_of(x, j, "health", rel, sizeof rel, &q);
    double waited = 0, delay = BACKOFF_FIRST_S;
    for (;;) {
        struct backend_health h;
        if (x->be->health(x->be, &q, &h)) {
            log_error("explore: health check failed: %s", h.why);
            return 1;
        }
        if (h.state == HEALTH_OK)
            return 0;
        if (h.state == HEALTH_UNUSABLE) {
            log_error("explore: the GPU is unusable: %s; run the same command again to continue", h.why);
            return 1;
        }
        if (waited >= x->o->busy_limit_s) {
            log_error("explore: the GPU has been busy for %.0f s (%s); croqtuner never stops other users' processes, "
                      "so it stops here: run the same command again to continue", waited, h.why);
            return 1;
        }
        double d = fmin(delay, x->o->busy_limit_s - waited);
        log_warn("explore: GPU busy: %s; waiting %.3g s", h.why, d);
        sleep_s(d);
        waited += d;
        delay = fmin(delay * 2, BACKOFF_MAX_S);
    }
}

static void trials_from_raw(const json_t *raw, struct ds_record *rec)
{
    const json_t *t = json_object_get(json_object_get(raw, "timing"), "trials");
    for (size_t i = 0; json_is_array(t) && i < json_array_size(t) && rec->n_trials < DS_MAX_TRIALS; i++)
        if (json_is_number(json_array_get(t, i)))
            rec->trial_ms[rec->n_trials++] = json_number_value(json_array_get(t, i));
    const json_t *c = json_object_get(json_object_get(raw, "gpu_state"), "sm_clock_mhz");
    for (size_t i = 0; json_is_array(c) && i < json_array_size(c) && rec->n_trial_clocks < DS_MAX_TRIALS; i++)
        if (json_is_number(json_array_get(c, i)))
            rec->trial_clock_mhz[rec->n_trial_clocks++] = json_number_value(json_array_get(c, i));
    const json_t *v = json_object_get(raw, "verify"), *abi = json_object_get(raw, "abi");
    rec->verify_passed = json_is_true(json_object_get(v, "passed"));
    const char *ref = json_string_value(json_object_get(v, "reference"));
    snprintf(rec->verify_reference, sizeof rec->verify_reference, "%s", ref ? ref : "");
    const json_t *regs = json_object_get(abi, "regs"), *smem = json_object_get(abi, "smem_bytes");
    rec->regs = json_is_integer(regs) ? (int)json_integer_value(regs) : -1;
    rec->smem_bytes = json_is_integer(smem) ? (int)json_integer_value(smem) : -1;
    const char *gpu = json_string_value(json_object_get(raw, "gpu"));
    if (gpu)
        snprintf(rec->gpu, sizeof rec->gpu, "%s", gpu);
}

/* Measure j (built) and append its record. 0, or -1 (local failure: said why). */
static int measure_one(struct ex *x, struct job *j, struct explore_stats *st, int done_before, int total)
{
    struct ds_record rec;
    struct cand_result m;
    char rel[256], err[512];
    struct cand_req q;
    memset(&rec, 0, sizeof rec);
    rec.cfg = j->cfg;
    knobs_signature(&j->cfg, rec.sig);
    rec.tflops = rec.median_ms = rec.spread_pct = rec.sm_clock_mhz = rec.hw_eff_pct = rec.max_err_over_tol = NAN;
    rec.regs = rec.smem_bytes = -1;
    rec.seed = x->o->seed;
    rec.compile_s = j->msg.wall_s;
    snprintf(rec.backend, sizeof rec.backend, "%s", x->be->name);
    snprintf(rec.gpu, sizeof rec.gpu, "%s", strcmp(x->be->name, "sim") ? "unknown" : "sim");
    json_t *raw = NULL;
    if (j->msg.rc) {
        log_error("explore: building config %d: %s", j->index, j->msg.res.reason);
        return -1;
    }
    if (j->msg.res.status != CAND_OK) {
        m = j->msg.res;
    } else {
        req_of(x, j, "explore", rel, sizeof rel, &q);
        if (x->be->measure(x->be, &q, &m)) {
            log_error("explore: measuring config %d: %s", j->index, m.reason);
            return -1;
        }
        if (m.status == CAND_UNUSABLE) {
            log_error("explore: the GPU is unusable: %s; run the same command again to continue", m.reason);
            return 1;
        }
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", x->dir, m.raw_rel);
        json_error_t je;
        if (m.raw_rel[0]) /* read once, O_NONBLOCK (regfile.h): nothing in its place can block */
            raw = regfile_load_json_je(path, 0, &je);
        if (raw)
            trials_from_raw(raw, &rec);
    }
    utc_now(rec.date);
    snprintf(rec.status, sizeof rec.status, "%s", cand_status_name(m.status));
    snprintf(rec.reason, sizeof rec.reason, "%s", m.status == CAND_OK ? "" : m.reason);
    if (m.status == CAND_OK) {
        rec.tflops = m.tflops, rec.median_ms = m.median_ms, rec.spread_pct = m.spread_pct;
        rec.sm_clock_mhz = m.sm_clock_mhz, rec.hw_eff_pct = m.hw_eff_pct, rec.max_err_over_tol = m.max_err_over_tol;
        if (rec.n_trials == 0) { /* a raw file without trials: the median stands for them */
            rec.trial_ms[0] = m.median_ms;
            rec.n_trials = 1;
        }
    }
    int rc = dataset_append(x->o->out, &rec, x->o->dtype, &x->o->shape, raw, err, sizeof err);
    json_decref(raw);
    if (rc) {
        log_error("explore: %s", err);
        return -1;
    }
    st->measured++;
    if (m.status == CAND_OK)
        st->ok++;
    else
        st->failed++;
    if (!x->o->quiet) {
        char name[CROQ_LABEL_MAX];
        knobs_label(&j->cfg, name);
        if (m.status == CAND_OK)
            fprintf(stderr, "explore [%d/%d] %8.1f TFLOPS  spread %4.1f%%  %s\n", done_before + st->measured, total,
                    m.tflops, m.spread_pct, name);
        else
            fprintf(stderr, "explore [%d/%d] %s: %.120s  %s\n", done_before + st->measured, total, rec.status,
                    m.reason, name);
    }
    return 0;
}

/* The dataset as it is: records checked against dtype, shape and backend, a torn tail moved to
 * FILE.torn. 0, 1 (local failure) or 2 (the file is of another problem or damaged). */
static int open_dataset(const struct explore_opts *o, struct dataset *ds)
{
    char err[1024];
    size_t outlen = strlen(o->out);
    if (!o->list && outlen > 3 && !strcmp(o->out + outlen - 3, ".gz")) { /* it would be plain JSONL under a gzip name */
        log_error("explore: --out '%s': explore writes plain JSONL; give a name without .gz (gzip the dataset "
                  "afterwards: every reader takes both)", o->out);
        return 2;
    }
    if (dataset_load(o->out, true, ds, err, sizeof err)) {
        log_error("explore: %s", err);
        return 2;
    }
    if (ds->n && (ds->dtype != o->dtype || memcmp(&ds->shape, &o->shape, sizeof o->shape))) {
        log_error("explore: '%s' holds %s %ldx%ldx%ld, not %s %ldx%ldx%ld: give another --out", o->out,
                  croq_dtype_name(ds->dtype), ds->shape.m, ds->shape.n, ds->shape.k, croq_dtype_name(o->dtype),
                  o->shape.m, o->shape.n, o->shape.k);
        return 2;
    }
    /* like tune (a shape keeps its backend), a dataset keeps the one it was started with */
    if (ds->n && strcmp(ds->backend, o->be.name)) {
        log_error("explore: '%s' holds records of the '%s' backend, not '%s': give another --out (one dataset, "
                  "one backend)", o->out, ds->backend, o->be.name);
        return 2;
    }
    /* a gzip file is read, never changed: appending plain lines (or cutting a torn one at
     * a length of its inflated text) would leave neither a gzip file nor JSONL */
    if (ds->compressed) {
        if (o->list)
            return 0;
        log_error("explore: '%s' is gzip-compressed: explore appends to a plain JSONL file (gunzip it to continue it, "
                  "or give another --out)", o->out);
        return 2;
    }
    if (!ds->torn)
        return 0;
    /* a record cut by a crash: keep its bytes beside the file, then cut it */
    size_t len;
    char *text = read_file(o->out, &len), torn[4200];
    snprintf(torn, sizeof torn, "%s.torn", o->out);
    int rc = !text || append_record(torn, text + ds->valid_bytes, len - ds->valid_bytes) ||
             truncate(o->out, (off_t)ds->valid_bytes) ? 1 : 0;
    if (rc)
        log_error("explore: cannot set aside the torn last line of '%s': %s", o->out, strerror(errno));
    else
        log_warn("explore: the last line of '%s' was cut by a crash: moved to '%s'", o->out, torn);
    free(text);
    return rc;
}

static int run_jobs(struct ex *x, struct explore_stats *st, int already)
{
    double t0 = mono_s();
    int rc = 0;
    for (int i = 0; i < x->n && !rc; i++) {
        if (x->o->time_limit_s > 0 && mono_s() - t0 > x->o->time_limit_s)
            break;
        if (fill_builds(x)) {
            rc = -1;
            break;
        }
        struct job *j = &x->jobs[i];
        if (j->pid > 0)
            finish_build(x, j);
        if (fill_builds(x)) {
            rc = -1;
            break;
        }
        if ((rc = health_ok(x, j)))
            break;
        rc = measure_one(x, j, st, already, st->grid);
    }
    stop_builds(x);
    st->left = x->n - st->measured;
    return rc < 0 ? 1 : rc;
}

int explore_run(const struct explore_opts *o, struct explore_stats *st)
{
    char err[1024];
    struct grid g;
    struct dataset ds;
    struct kernel_workdir wd;
    memset(st, 0, sizeof *st);
    if (grid_load(&g, o->grid, o->dtype, &o->shape, o->seed, err, sizeof err)) {
        log_error("explore: %s", err);
        grid_release(&g);
        return 2;
    }
    int rc = open_dataset(o, &ds);
    if (rc) {
        dataset_release(&ds);
        grid_release(&g);
        return rc;
    }
    struct ex x = {.o = o};
    x.jobs = xmalloc(((size_t)g.n + 1) * sizeof *x.jobs);
    for (int i = 0; i < g.n; i++) {
        if (dataset_find(&ds, &g.cfg[i])) {
            st->already++;
            continue;
        }
        x.jobs[x.n++] = (struct job){.cfg = g.cfg[i], .index = i};
    }
    st->grid = g.n;
    st->invalid = g.n_invalid;
    snprintf(x.key, sizeof x.key, "explore_%s_%ldx%ldx%ld", croq_dtype_name(o->dtype), o->shape.m, o->shape.n,
             o->shape.k);
    if (!o->quiet)
        fprintf(stderr, "explore: %s: %d valid configurations in %d block(s) (%d invalid skipped), %d already in '%s', %d "
             "to measure\n", x.key, g.n, g.n_blocks, g.n_invalid, st->already, o->out, x.n);
    for (int i = 0; o->list && i < x.n; i++) {
        char sig[CROQ_SIG_MAX];
        knobs_signature(&x.jobs[i].cfg, sig);
        printf("%d\t%s\n", g.block[x.jobs[i].index] + 1, sig);
    }
    dataset_release(&ds);
    grid_release(&g);
    if (!x.n || o->list) {
        st->left = x.n;
        free(x.jobs);
        return 0;
    }
    if (!(x.be = backend_open(&o->be, err, sizeof err))) {
        log_error("explore: %s", err);
        free(x.jobs);
        return 2;
    }
    if (kernel_workdir_open(&wd, o->work, err, sizeof err)) {
        log_error("explore: %s", err);
        backend_close(x.be);
        free(x.jobs);
        return 1;
    }
    snprintf(x.dir, sizeof x.dir, "%s", wd.path);
    rc = run_jobs(&x, st, st->already);
    if (!rc && st->left)
        log_warn("explore: stopped by the time limit with %d of %d configurations left; run the same command again "
                 "to continue", st->left, st->grid);
    kernel_workdir_release(&wd);
    backend_close(x.be);
    free(x.jobs);
    return rc;
}
