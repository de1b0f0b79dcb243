/* src/cli/cmd_slurm.c — `croqtuner slurm`: write (and with --submit, submit) an sbatch
 * job array whose tasks are workers of one parallel sweep, plus the merge job that runs
 * after it; `croqtuner slurm --merge` is that merge job (src/scale, docs/scale.md). */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "engine/engine.h"
#include "shapes/shapes.h"
#include "scale/scale.h"
#include "util/opts.h"
#include "util/atomicio.h"
#include "util/log.h"

static const char slurm_usage[] =
    "usage: croqtuner slurm --dtype f16|e4m3|all [--mode scratch|best] [--partition P]\n"
    "                       [--gpus-per-task N] [--cpus-per-task N] [--time [D-]HH:MM:SS]\n"
    "                       [--tasks N] [--out FILE] [--submit] [--tuning DIR] [--shapes FILE]\n"
    "                       [--backend gpu|sim] [--seed S] [--iters N] [--waves N]\n"
    "       croqtuner slurm --merge [--tuning DIR]\n"
    "\n"
    "Write an sbatch script for a Slurm job array over the pending shapes of a sweep\n"
    "(the same plan as 'croqtuner sweep --gpus', docs/scale.md), and a merge script for a\n"
    "job that runs after the whole array. The tuning directory must be on a file system\n"
    "every node mounts, with working flock (NFSv4, Lustre -o flock, GPFS, BeeGFS).\n"
    "\n"
    "  --gpus-per-task N  GPUs per array task, one worker each (default 1; 0: no GPU is\n"
    "                     requested, one worker per task: the sim backend)\n"
    "  --cpus-per-task N  default 4 per GPU (nvcc runs beside the tuner), 1 without GPU\n"
    "  --tasks N          at most N array tasks (default: enough for the widest pending\n"
    "                     wave; any number works: workers claim shapes, not indices)\n"
    "  --out FILE         the array script (default DIR/slurm/sweep.sbatch); the merge\n"
    "                     script is FILE with '-merge' before its extension\n"
    "  --submit           sbatch the array, then the merge with --dependency=afterany\n"
    "  --merge            (the merge job) drop claims of dead tasks, reconcile unfinished\n"
    "                     shapes, record the sweep done or list what is left (exit 1)\n"
    "\n"
    "Exit status: 0 written (submitted; merge: the sweep is done), 1 failure, 2 bad usage.\n";

struct slurm_args {
    const char *dtype, *mode;
    bool merge;
};

static bool partition_valid(const char *s)
{
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("_-.,", *c))
            return false;
    return *s != '\0';
}

static int partition_value(const char *v, void *dst, char *err, size_t errlen)
{
    if (!partition_valid(v)) {
        snprintf(err, errlen, "'%s' is not a partition name", v);
        return -1;
    }
    *(const char **)dst = v;
    return 0;
}

static int time_value(const char *v, void *dst, char *err, size_t errlen)
{
    if (!slurm_time_valid(v)) {
        snprintf(err, errlen, "'%s' is not [D-]HH:MM:SS", v);
        return -1;
    }
    *(const char **)dst = v;
    return 0;
}

/* Absolute paths: the jobs run on other nodes, from other directories. The options
 * point into this for the rest of the command. */
struct slurm_paths {
    char dir[PATH_MAX], shapes[PATH_MAX], out[PATH_MAX], exe[PATH_MAX], found[PATH_MAX];
};

/* 0, -2 shapes.json not found (bad usage), -1 another failure (message printed). */
static int absolutize(struct engine_opts *o, struct slurm_opts *so, struct slurm_paths *ps)
{
    char err[512];
    if (!o->shapes) {
        if (shapes_find_file(ps->found, sizeof ps->found, err, sizeof err)) {
            log_error("slurm: %s (give --shapes FILE)", err);
            return -2;
        }
        o->shapes = ps->found;
    }
    if (!realpath(o->shapes, ps->shapes)) {
        log_error("slurm: cannot find '%s'", o->shapes);
        return -2;
    }
    if (mkdir_p(o->dir) || !realpath(o->dir, ps->dir) || !realpath("/proc/self/exe", ps->exe)) {
        log_error("slurm: cannot create the tuning directory '%s'", o->dir);
        return -1;
    }
    int n = so->out ? snprintf(ps->out, sizeof ps->out, "%s", so->out)
                    : snprintf(ps->out, sizeof ps->out, "%.*s/slurm/sweep.sbatch", PATH_MAX - 32, ps->dir);
    if (n < 0 || (size_t)n >= sizeof ps->out) {
        log_error("slurm: --out path too long");
        return -1;
    }
    o->dir = ps->dir;
    o->shapes = ps->shapes;
    so->out = ps->out;
    so->croqtuner = ps->exe;
    return 0;
}

static int slurm_run(struct engine_opts *o, struct slurm_opts *so, const struct slurm_args *a,
                     struct slurm_paths *ps)
{
    if (!a->dtype) {
        log_error("slurm: --dtype f16, e4m3 or all is required");
        return 2;
    }
    int dtype = !strcmp(a->dtype, "all") ? -1 : croq_dtype_parse(a->dtype);
    int mode = a->mode ? mode_parse(a->mode) : -1;
    int ar = absolutize(o, so, ps);
    if (ar) /* -2: no shapes.json, a missing input file: bad usage, as in sweep and bench */
        return ar == -2 ? 2 : 1;
    return engine_exit_code(slurm_generate(o, dtype, mode, so));
}

int cmd_slurm(int argc, char **argv)
{
    struct engine_opts o;
    struct slurm_opts so = {.gpus_per_task = 1};
    struct slurm_args a = {0};
    struct slurm_paths ps;
    engine_opts_default(&o);
    struct opt t[ENGINE_OPTS_N + 10] = {
        {.name = "--dtype", .type = OPT_CUSTOM, .dst = &a.dtype, .check = cli_dtype_all_value},
        {.name = "--mode", .type = OPT_CUSTOM, .dst = &a.mode, .check = cli_mode_value},
        {.name = "--partition", .type = OPT_CUSTOM, .dst = &so.partition, .check = partition_value},
        {.name = "--time", .type = OPT_CUSTOM, .dst = &so.time, .check = time_value},
        {.name = "--gpus-per-task", .type = OPT_INT, .dst = &so.gpus_per_task, .lo = 0, .hi = 16},
        {.name = "--cpus-per-task", .type = OPT_INT, .dst = &so.cpus_per_task, .lo = 1, .hi = 512},
        {.name = "--tasks", .type = OPT_INT, .dst = &so.tasks, .lo = 1, .hi = 10000},
        {.name = "--out", .type = OPT_OUTFILE, .dst = &so.out},
        {.name = "--submit", .type = OPT_FLAG, .dst = &so.submit},
        {.name = "--merge", .type = OPT_FLAG, .dst = &a.merge},
    };
    struct opt_spec spec = {"slurm", slurm_usage, t, 10};
    /* --runner goes into the tasks' command line (src/scale/slurm.c) */
    spec.n += engine_opts_table(&o, EO_TUNING | EO_SHAPES | EO_BACKEND | EO_SEED | EO_ITERS | EO_WAVES, EO_RUNNER,
                                t + spec.n);
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    engine_opts_given(&spec, &o);
    if (!a.merge)
        return slurm_run(&o, &so, &a, &ps);
    if (o.last_wave) { /* the merge follows the recorded sweep: another --waves would be ignored */
        log_error("slurm: --merge follows the sweep's recorded waves; --waves is for writing the scripts");
        return 2;
    }
    if (!is_dir(o.dir)) {
        log_error("slurm: no tuning directory '%s'", o.dir);
        return 1;
    }
    return engine_exit_code(slurm_merge(&o));
}
