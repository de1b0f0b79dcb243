/* src/cli/cmd_sweep.c — `croqtuner sweep`: tune every shape of shapes.json for a
 * dtype (or both), in the engine's order, until all are done or the GPU is unusable. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "engine/engine.h"
#include "shapes/shapes.h"
#include "scale/scale.h"
#include "util/opts.h"
#include "util/log.h"

static const char sweep_usage[] =
    "usage: croqtuner sweep --dtype f16|e4m3|all [--mode scratch|best] [--backend gpu|sim]\n"
    "                       [--tuning DIR] [--seed S] [--iters N] [--waves N] [--shapes FILE] [--git]\n"
    "                       [--busy-limit MIN] [--quiet] [--gpus ID,ID,... | --workers N]\n"
    "\n"
    "Tune the shapes of shapes.json: its scenario shapes (134 in the project's) and its\n"
    "typical far shapes.\n"
    "Without --mode (docs/engine.md, 'Sweeps'):\n"
    "  1. the typical far shapes from scratch (150 iterations each),\n"
    "  2. the other far shapes, then 3. the near shapes, from the current best of the\n"
    "     nearest tuned shape (30 iterations each),\n"
    "  4. shapes whose from-best run is flagged needs_scratch, from scratch.\n"
    "With --dtype all each step runs for f16, then e4m3, before the next step: the typical\n"
    "shapes of both dtypes come first. --waves N runs steps 1..N only (--waves 1: the\n"
    "typical shapes; as in plan-sim, the steps are the waves of a parallel sweep); the\n"
    "sweep is recorded with it, so resume stops there too, and the same sweep given a\n"
    "larger N (or none) later goes on with the remaining steps. A sweep of --waves N ends\n"
    "with 'sweep done' and exit 0 once steps 1..N are done; status and resume then count\n"
    "those steps only.\n"
    "--mode scratch|best runs steps 1-3 in that mode only. Finished shapes are skipped, so\n"
    "running the same sweep again (or 'croqtuner resume') continues it. --iters N\n"
    "replaces every budget (tests). shapes.json: --shapes, else $CROQ_SHAPES, else the\n"
    "shared data directory next to the source tree.\n"
    "\n"
    "In parallel (docs/scale.md): --gpus 0,1,3 runs one worker process per GPU (each\n"
    "sees only its GPU: CUDA_VISIBLE_DEVICES); --workers N runs N workers without a GPU\n"
    "of their own (the sim backend). Workers claim shapes under the tuning directory's\n"
    "lock; the plan runs in waves (typical, far, near, needs_scratch, per dtype), each\n"
    "shape starting from the earlier waves, so any number of workers gives the same\n"
    "results. A worker that dies leaves a stale claim that another takes over; running\n"
    "the command again continues. 'croqtuner status' shows the workers.\n"
    "\n"
    "The tuning directory keeps a copy of the shapes.json its first sweep was started\n"
    "with (plan/shapes.json): status and resume read it, and a later sweep given a file\n"
    "of other bytes is refused, naming both.\n"
    "\n"
    "Exit status: 0 all done (with --waves N: steps 1..N), 1 a shape failed or the GPU is unusable / stayed busy (the\n"
    "message says which; 'croqtuner resume' continues), 2 bad usage, or a tuning\n"
    "directory of another backend or another shapes.json (refused once, before any shape\n"
    "starts).\n";

static int gpus_value(const char *v, void *dst, char *err, size_t errlen)
{
    return scale_gpus_parse(v, dst, err, errlen);
}

int cmd_sweep(int argc, char **argv)
{
    struct engine_opts o;
    struct scale_opts so = {.n_gpus = 0};
    const char *dt = NULL, *mode = NULL;
    char err[512], found[PATH_MAX], real[PATH_MAX];
    engine_opts_default(&o);
    /* --array-task is set by the scripts of 'croqtuner slurm': the task joins the run
     * 'slurm' recorded */
    struct opt t[ENGINE_OPTS_N + 5] = {
        {.name = "--dtype", .type = OPT_CUSTOM, .dst = &dt, .check = cli_dtype_all_value},
        {.name = "--mode", .type = OPT_CUSTOM, .dst = &mode, .check = cli_mode_value},
        {.name = "--gpus", .type = OPT_CUSTOM, .dst = &so, .check = gpus_value},
        {.name = "--workers", .type = OPT_INT, .dst = &so.workers, .lo = 1, .hi = SCALE_WORKERS_MAX},
        {.name = "--array-task", .type = OPT_FLAG, .dst = &so.array_task, .flags = OPT_HIDDEN},
    };
    struct opt_spec spec = {"sweep", sweep_usage, t, 5};
    /* --l2 is taken to be refused with the reason below */
    spec.n += engine_opts_table(&o, EO_TUNING | EO_BACKEND | EO_SEED | EO_ITERS | EO_WAVES | EO_BUSY | EO_SHAPES | EO_GIT |
                                        EO_QUIET,
                                EO_L2 | EO_RUNNER, t + spec.n);
    int prc = opts_parse(&spec, argc, argv);
    if (prc)
        return prc == 1 ? 0 : 2;
    engine_opts_given(&spec, &o);
    if (o.l2) { /* the sweep record has no L2 state: resume and workers would time warm */
        log_error("sweep: --l2 is for one shape (tune --l2 cold); a sweep times with a warm L2");
        return 2;
    }
    if (!dt) {
        log_error("sweep: --dtype f16, e4m3 or all is required");
        return 2;
    }
    int dtype = !strcmp(dt, "all") ? -1 : croq_dtype_parse(dt), m = mode ? mode_parse(mode) : -1;
    if (!o.shapes) {
        if (shapes_find_file(found, sizeof found, err, sizeof err)) {
            log_error("sweep: %s (give --shapes FILE)", err);
            return 2; /* a missing input file: bad usage, as in bench and knobs */
        }
        o.shapes = found;
    }
    /* absolute for the messages that name it (the plan itself is copied into the tuning
     * directory: sweep_plan_take) */
    if (!realpath(o.shapes, real)) {
        log_error("sweep: cannot find '%s'", o.shapes);
        return 2;
    }
    o.shapes = real;
    if (so.n_gpus && so.workers) {
        log_error("sweep: --gpus and --workers exclude each other");
        return 2;
    }
    if (so.array_task && !so.n_gpus && !so.workers) {
        log_error("sweep: --array-task needs --gpus or --workers");
        return 2;
    }
    if (so.n_gpus || so.workers) /* in parallel: docs/scale.md */
        return engine_exit_code(scale_sweep(&o, dtype, m, &so));
    return engine_exit_code(sweep_serial(&o, dtype, m));
}
