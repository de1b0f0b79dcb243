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
#include "util/args.h"
#include "util/atomicio.h"
#include "util/log.h"

static const char slurm_usage[] =
    "usage: croqtuner slurm --dtype f16|e4m3|all [--mode scratch|best] [--partition P]\n"
    "                       [--gpus-per-task N] [--cpus-per-task N] [--time [D-]HH:MM:SS]\n"
    "                       [--tasks N] [--out FILE] [--submit] [--tuning DIR] [--shapes FILE]\n"
    "                       [--backend gpu|sim] [--seed S] [--iters N]\n"
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

static int bad_count(const char *opt, const char *v, long lo, long hi, int *out)
{
    long l;
    if (args_long(opt, v, &l))
        return -1;
    if (l < lo || l > hi) {
        log_error("slurm: %s: expected %ld..%ld", opt, lo, hi);
        return -1;
    }
    *out = (int)l;
    return 0;
}

static bool partition_valid(const char *s)
{
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("_-.,", *c))
            return false;
    return *s != '\0';
}

/* The options of this command. 1 taken, 0 not one of them, -1 bad. */
static int slurm_opt_parse(int argc, char **argv, int *i, struct slurm_opts *so, struct slurm_args *a)
{
    const char *v;
    int r;
    if ((r = args_value(argc, argv, i, "--dtype", &v)) > 0)
        a->dtype = v;
    else if (!r && (r = args_value(argc, argv, i, "--mode", &v)) > 0)
        a->mode = v;
    else if (!r && (r = args_value(argc, argv, i, "--partition", &v)) > 0) {
        if (!partition_valid(v)) {
            log_error("slurm: --partition '%s' is not a partition name", v);
            return -1;
        }
        so->partition = v;
    } else if (!r && (r = args_value(argc, argv, i, "--time", &v)) > 0) {
        if (!slurm_time_valid(v)) {
            log_error("slurm: --time '%s' is not [D-]HH:MM:SS", v);
            return -1;
        }
        so->time = v;
    } else if (!r && (r = args_value(argc, argv, i, "--gpus-per-task", &v)) > 0)
        r = bad_count("--gpus-per-task", v, 0, 16, &so->gpus_per_task) ? -1 : 1;
    else if (!r && (r = args_value(argc, argv, i, "--cpus-per-task", &v)) > 0)
        r = bad_count("--cpus-per-task", v, 1, 512, &so->cpus_per_task) ? -1 : 1;
    else if (!r && (r = args_value(argc, argv, i, "--tasks", &v)) > 0)
        r = bad_count("--tasks", v, 1, 10000, &so->tasks) ? -1 : 1;
    else if (!r && (r = args_value(argc, argv, i, "--out", &v)) > 0)
        so->out = v;
    else if (!r && args_flag(argv, *i, "--submit")) {
        so->submit = true;
        r = 1;
    } else if (!r && args_flag(argv, *i, "--merge")) {
        a->merge = true;
        r = 1;
    }
    return r;
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
    int dtype = a->dtype && !strcmp(a->dtype, "all") ? -1 : croq_dtype_parse(a->dtype);
    int mode = a->mode ? mode_parse(a->mode) : -1;
    if (!a->dtype || (dtype < 0 && strcmp(a->dtype, "all"))) {
        log_error("slurm: --dtype f16, e4m3 or all is required");
        return 2;
    }
    if (a->mode && mode < 0) {
        log_error("slurm: --mode '%s' is not scratch or best", a->mode);
        return 2;
    }
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
    for (int i = 1; i < argc; i++) {
        int r;
        if (args_flag(argv, i, "--help") || args_flag(argv, i, "-h")) {
            fputs(slurm_usage, stdout);
            return 0;
        } else if ((r = slurm_opt_parse(argc, argv, &i, &so, &a)) < 0 ||
                   (!r && (r = engine_opt_parse(argc, argv, &i, &o)) < 0)) {
            return 2;
        } else if (!r) {
            log_error("slurm: unknown option '%s' (see 'croqtuner slurm --help')", argv[i]);
            return 2;
        }
    }
    if (!a.merge)
        return slurm_run(&o, &so, &a, &ps);
    if (!is_dir(o.dir)) {
        log_error("slurm: no tuning directory '%s'", o.dir);
        return 1;
    }
    return engine_exit_code(slurm_merge(&o));
}
