/* src/scale/slurm.c — `croqtuner slurm`: an sbatch script for a job array whose tasks
 * are workers of one parallel sweep on a shared tuning directory, and a merge script
 * for a job that runs after the whole array (afterany). Each task runs
 * `croqtuner sweep --array-task --gpus "$CUDA_VISIBLE_DEVICES"`: one worker per GPU
 * Slurm gave it, claiming shapes with the same code as a local `sweep --gpus`, so the
 * array can be smaller than the number of shapes and a task that dies (node failure,
 * time limit) leaves its shape to the others. Slurm schedules; croqtuner only claims.
 */
#include "scale.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/atomicio.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/utctime.h"

static bool digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return n > 0;
}

bool slurm_time_valid(const char *s)
{
    const char *dash = strchr(s, '-');
    if (dash) {
        if (!digits(s, (size_t)(dash - s)) || dash - s > 3)
            return false;
        s = dash + 1;
    }
    size_t len = strlen(s);
    if (len < 8 || len > 9 || s[len - 3] != ':' || s[len - 6] != ':')
        return false;
    size_t h = len - 6; /* 2 or 3 hour digits */
    return digits(s, h) && digits(s + h + 1, 2) && digits(s + h + 4, 2) && (s[h + 1] - '0') < 6 &&
           (s[h + 4] - '0') < 6;
}

void slurm_shell_quote(struct strbuf *sb, const char *s)
{
    strbuf_adds(sb, "'");
    for (; *s; s++) {
        if (*s == '\'')
            strbuf_adds(sb, "'\\''"); /* close, an escaped quote, reopen */
        else
            strbuf_add(sb, s, 1);
    }
    strbuf_adds(sb, "'");
}

/* #SBATCH lines are split on blanks by sbatch, with no shell quoting: a path there
 * must not need any. */
static int sbatch_safe(const char *what, const char *s, char *err, size_t errlen)
{
    for (const char *c = s; *c; c++)
        if (isspace((unsigned char)*c) || iscntrl((unsigned char)*c) || strchr("\"'\\%$`#", *c)) {
            snprintf(err, errlen, "%s '%s' cannot be written into #SBATCH lines (blanks, quotes, '%%', '$', '#' "
                     "or control characters); choose another path", what, s);
            return -1;
        }
    return 0;
}

int slurm_merge_path(const char *out, char merge[ENGINE_PATH_MAX])
{
    const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : out))
        return path_fmt(merge, "%s-merge", out);
    return path_fmt(merge, "%.*s-merge%s", (int)(dot - out), out, dot);
}

static void header(struct strbuf *sb, const char *name, const struct slurm_opts *so, int cpus)
{
    strbuf_addf(sb, "#SBATCH --job-name=%s\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n", name, cpus);
    if (so->partition)
        strbuf_addf(sb, "#SBATCH --partition=%s\n", so->partition);
}

static void arg(struct strbuf *sb, const char *name, const char *value)
{
    strbuf_addf(sb, " %s ", name);
    slurm_shell_quote(sb, value);
}

/* The worker command of an array task: the sweep's options, as given to `slurm`. */
static void sweep_command(struct strbuf *sb, const struct engine_opts *o, int dtype, int mode,
                          const struct slurm_opts *so)
{
    char num[32];
    slurm_shell_quote(sb, so->croqtuner);
    strbuf_adds(sb, " sweep --array-task");
    arg(sb, "--tuning", o->dir);
    arg(sb, "--shapes", o->shapes);
    arg(sb, "--dtype", dtype < 0 ? "all" : croq_dtype_name(dtype));
    if (mode >= 0)
        arg(sb, "--mode", mode == MODE_FROM_SCRATCH ? "scratch" : "best");
    arg(sb, "--backend", o->backend ? o->backend : "gpu");
    if (o->seed_given) {
        snprintf(num, sizeof num, "%llu", o->seed);
        arg(sb, "--seed", num);
    }
    if (o->iters) {
        snprintf(num, sizeof num, "%d", o->iters);
        arg(sb, "--iters", num);
    }
    if (o->last_wave) {
        snprintf(num, sizeof num, "%d", o->last_wave);
        arg(sb, "--waves", num);
    }
    if (o->sim_delay_ms) {
        snprintf(num, sizeof num, "%d", o->sim_delay_ms);
        arg(sb, "--sim-delay-ms", num);
    }
    if (o->sim_faults)
        arg(sb, "--sim-faults", o->sim_faults);
    if (o->runner)
        arg(sb, "--runner", o->runner);
    if (o->git)
        strbuf_adds(sb, " --git");
}

/* The comment at the head of the array script: what it is and how to submit it. */
static void array_comment(struct strbuf *sb, const struct slurm_opts *so, int tasks, const char *merge)
{
    char now[32];
    utc_now(now);
    strbuf_addf(sb, "#!/bin/bash\n# croqtuner sweep as a Slurm job array (docs/scale.md), written by 'croqtuner "
                "slurm' at %s.\n", now);
    strbuf_addf(sb, "# %d task(s); each runs one worker per GPU it is given; the workers claim shapes\n"
                "# from the shared tuning directory, so any task may tune any shape and a task\n"
                "# that dies leaves its shape to the others. Submit it and the merge job after it:\n"
                "#   croqtuner slurm <the same options> --submit\n# or by hand:\n#   jid=$(sbatch --parsable ",
                tasks);
    slurm_shell_quote(sb, so->out);
    strbuf_adds(sb, ") && sbatch --dependency=afterany:${jid%%;*} ");
    slurm_shell_quote(sb, merge);
    strbuf_adds(sb, "\n");
}

char *slurm_array_script(const struct engine_opts *o, int dtype, int mode, const struct slurm_opts *so, int tasks,
                         char *err, size_t errlen)
{
    struct strbuf sb = STRBUF_INIT;
    char merge[ENGINE_PATH_MAX];
    int g = so->gpus_per_task, cpus = so->cpus_per_task ? so->cpus_per_task : g ? 4 * g : 1;
    if (sbatch_safe("tuning directory", o->dir, err, errlen) || slurm_merge_path(so->out, merge))
        return NULL;
    array_comment(&sb, so, tasks, merge);
    header(&sb, "croqtuner-sweep", so, cpus);
    strbuf_addf(&sb, "#SBATCH --array=0-%d\n", tasks - 1);
    if (g)
        strbuf_addf(&sb, "#SBATCH --gpus-per-task=%d\n", g);
    if (so->time)
        strbuf_addf(&sb, "#SBATCH --time=%s\n", so->time);
    strbuf_addf(&sb, "#SBATCH --output=%s/slurm/%%A_%%a.out\nset -eu\n", o->dir);
    /* Slurm says which GPUs the task has in CUDA_VISIBLE_DEVICES: one worker each */
    if (g)
        strbuf_adds(&sb, "gpus=${CUDA_VISIBLE_DEVICES:-}\nif [ -z \"$gpus\" ]; then\n"
                         "    echo \"croqtuner: Slurm gave task ${SLURM_ARRAY_TASK_ID:-?} no GPU (CUDA_VISIBLE_DEVICES "
                         "is empty)\" >&2\n    exit 1\nfi\n");
    strbuf_adds(&sb, "exec ");
    sweep_command(&sb, o, dtype, mode, so);
    strbuf_adds(&sb, g ? " --gpus \"$gpus\"\n" : " --workers 1\n");
    return strbuf_detach(&sb);
}

char *slurm_merge_script(const struct engine_opts *o, const struct slurm_opts *so, char *err, size_t errlen)
{
    struct strbuf sb = STRBUF_INIT;
    if (sbatch_safe("tuning directory", o->dir, err, errlen))
        return NULL;
    strbuf_adds(&sb, "#!/bin/bash\n# croqtuner: the merge step after a sweep's job array (docs/scale.md): drops\n"
                     "# the claims of dead tasks, brings unfinished shapes level with their checkpoints,\n"
                     "# records the sweep done or lists what is left. Needs no GPU.\n");
    header(&sb, "croqtuner-merge", so, 1);
    strbuf_addf(&sb, "#SBATCH --time=00:30:00\n#SBATCH --output=%s/slurm/%%j-merge.out\nset -eu\nexec ", o->dir);
    slurm_shell_quote(&sb, so->croqtuner);
    strbuf_adds(&sb, " slurm --merge");
    arg(&sb, "--tuning", o->dir);
    strbuf_adds(&sb, "\n");
    return strbuf_detach(&sb);
}

/* `sbatch --parsable ARGS...`: the job id, or -1 with the reason printed. */
static int sbatch_submit(const char *const *argv, char id[64])
{
    struct spawn_opts so = {.argv = argv, .timeout_s = 120};
    struct spawn_result r;
    char how[160];
    if (spawn_run(&so, &r)) {
        log_error("cannot run 'sbatch': %s", strerror(errno));
        return -1;
    }
    spawn_describe(&r, how, sizeof how);
    size_t n = strcspn(r.out, ";\n"); /* "<id>[;<cluster>]" */
    bool ok = !r.exec_failed && !r.timed_out && r.exit_code == 0 && n > 0 && digits(r.out, n) && n < 64;
    if (ok)
        snprintf(id, 64, "%.*s", (int)n, r.out);
    else
        log_error("'sbatch' failed (%s): %.300s", how, *r.err ? r.err : r.out);
    spawn_result_release(&r);
    return ok ? 0 : -1;
}

static int submit(const char *out, const char *merge)
{
    char jid[64], mid[64], dep[96];
    const char *a1[] = {"sbatch", "--parsable", out, NULL};
    if (sbatch_submit(a1, jid))
        return -1;
    snprintf(dep, sizeof dep, "--dependency=afterany:%s", jid);
    const char *a2[] = {"sbatch", "--parsable", dep, merge, NULL};
    if (sbatch_submit(a2, mid)) {
        log_error("the array job %s was submitted, the merge job was not: submit it with 'sbatch %s %s'", jid, dep,
                  merge);
        return -1;
    }
    printf("submitted array job %s and merge job %s (after it)\n", jid, mid);
    return 0;
}

static int write_script(const char *path, const char *text)
{
    if (atomic_write_out(path, text, strlen(text)) || chmod(path, 0755)) {
        log_error("cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Pending shapes and the array size: one task per ceil(widest wave / GPUs per task),
 * at most what --tasks allows. 0 when nothing is pending, -1 on error. */
static int array_size(const struct engine_opts *o, int dtype, int mode, const struct slurm_opts *so,
                      size_t *pending)
{
    struct scale_plan p;
    char err[600];
    size_t widest;
    if (plan_build(o->shapes, dtype, mode, o->last_wave, true, &p, err, sizeof err)) {
        log_error("%s", err);
        return -1;
    }
    json_t *st = state_load(o->dir, err, sizeof err);
    if (!st) {
        log_error("%s", err);
        plan_release(&p);
        return -1;
    }
    plan_pending(&p, st, pending, &widest);
    json_decref(st);
    plan_release(&p);
    size_t per = so->gpus_per_task > 0 ? (size_t)so->gpus_per_task : 1;
    size_t t = (widest + per - 1) / per;
    if (so->tasks > 0 && (size_t)so->tasks < t)
        t = (size_t)so->tasks;
    return *pending ? (int)(t ? t : 1) : 0;
}

static int scripts_write(const struct engine_opts *o, int dtype, int mode, const struct slurm_opts *so, int tasks,
                         const char *merge)
{
    char err[800], sub[ENGINE_PATH_MAX];
    char *a = slurm_array_script(o, dtype, mode, so, tasks, err, sizeof err);
    char *m = a ? slurm_merge_script(o, so, err, sizeof err) : NULL;
    int rc = -1;
    if (!a || !m)
        log_error("%s", err);
    else if (path_fmt(sub, "%s/slurm", o->dir) || mkdir_p(sub))
        log_error("cannot create '%s/slurm': %s", o->dir, strerror(errno));
    else
        rc = write_script(so->out, a) || write_script(merge, m) ? -1 : 0;
    free(a);
    free(m);
    return rc;
}

int slurm_generate(const struct engine_opts *o, int dtype, int mode, const struct slurm_opts *so)
{
    char merge[ENGINE_PATH_MAX], snap[ENGINE_PATH_MAX];
    size_t pending;
    int tasks = array_size(o, dtype, mode, so, &pending);
    if (tasks < 0)
        return ENGINE_FAILED;
    int rc = sweep_plan_take(o, o->shapes);
    if (rc)
        return rc;
    /* the tasks follow the directory's copy of the plan, whatever becomes of o->shapes */
    struct engine_opts wo = *o;
    if (path_fmt(snap, "%s/" STATE_PLAN_FILE, o->dir))
        return ENGINE_FAILED;
    wo.shapes = snap;
    o = &wo;
    if (!tasks) {
        printf("nothing to submit: every shape of this sweep is done in '%s'\n", o->dir);
        return ENGINE_DONE;
    }
    if (slurm_merge_path(so->out, merge) || scripts_write(o, dtype, mode, so, tasks, merge))
        return ENGINE_FAILED;
    if (scale_sweep_begin(o, dtype, mode)) /* the array tasks join this run */
        return ENGINE_FAILED;
    printf("wrote %s (array of %d task(s), %d GPU(s) each, for %zu pending shape(s)) and %s (merge)\n", so->out,
           tasks, so->gpus_per_task, pending, merge);
    if (so->submit)
        return submit(so->out, merge) ? ENGINE_FAILED : ENGINE_DONE;
    printf("submit: croqtuner slurm <the same options> --submit, or see the head of %s\n", so->out);
    return ENGINE_DONE;
}
