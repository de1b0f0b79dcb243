/* src/cli/cmd_sweep.c — `croqtuner sweep`: tune every shape of shapes.json for a
 * dtype (or both), in the engine's order, until all are done or the GPU is unusable. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "engine/engine.h"
#include "measure/shapeset.h"
#include "util/args.h"
#include "util/log.h"

static const char sweep_usage[] =
    "usage: croqtuner sweep --dtype f16|e4m3|all [--mode scratch|best] [--backend gpu|sim]\n"
    "                       [--tuning DIR] [--seed S] [--iters N] [--shapes FILE] [--git]\n"
    "                       [--busy-limit MIN] [--quiet]\n"
    "\n"
    "Tune the shapes of shapes.json: the 134 scenario shapes and the typical far shapes.\n"
    "Without --mode (docs/engine.md, 'Sweeps'):\n"
    "  1. the typical far shapes from scratch (150 iterations each),\n"
    "  2. the other far shapes, then 3. the near shapes, from the current best of the\n"
    "     nearest tuned shape (30 iterations each),\n"
    "  4. shapes whose from-best run is flagged needs_scratch, from scratch.\n"
    "--mode scratch|best runs steps 1-3 in that mode only. Finished shapes are skipped, so\n"
    "running the same sweep again (or 'croqtuner resume') continues it. --iters N\n"
    "replaces every budget (tests). shapes.json: --shapes, else $CROQ_SHAPES, else the\n"
    "shared data directory next to the source tree.\n"
    "\n"
    "Exit status: 0 all done, 1 a shape failed or the GPU is unusable / stayed busy (the\n"
    "message says which; 'croqtuner resume' continues), 2 bad usage.\n";

int cmd_sweep(int argc, char **argv)
{
    struct engine_opts o;
    const char *dt = NULL, *mode = NULL, *v;
    char err[512], found[PATH_MAX], real[PATH_MAX];
    engine_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        int r;
        if (args_flag(argv, i, "--help") || args_flag(argv, i, "-h")) {
            fputs(sweep_usage, stdout);
            return 0;
        } else if ((r = args_value(argc, argv, &i, "--dtype", &v)) > 0) {
            dt = v;
        } else if (!r && (r = args_value(argc, argv, &i, "--mode", &v)) > 0) {
            mode = v;
        } else if (r < 0 || (r = engine_opt_parse(argc, argv, &i, &o)) < 0) {
            return 2;
        } else if (!r) {
            log_error("sweep: unknown option '%s' (see 'croqtuner sweep --help')", argv[i]);
            return 2;
        }
    }
    int dtype = dt && !strcmp(dt, "all") ? -1 : croq_dtype_parse(dt);
    if (!dt || (dtype < 0 && strcmp(dt, "all"))) {
        log_error("sweep: --dtype f16, e4m3 or all is required");
        return 2;
    }
    int m = mode ? mode_parse(mode) : -1;
    if (mode && m < 0) {
        log_error("sweep: --mode '%s' is not scratch or best", mode);
        return 2;
    }
    if (!o.shapes) {
        if (shapeset_find_file(found, sizeof found, err, sizeof err)) {
            log_error("sweep: %s (give --shapes FILE)", err);
            return 1;
        }
        o.shapes = found;
    }
    /* recorded in state.json for resume, which may run from another directory */
    if (!realpath(o.shapes, real)) {
        log_error("sweep: cannot find '%s'", o.shapes);
        return 1;
    }
    o.shapes = real;
    return engine_exit_code(engine_sweep(&o, dtype, m));
}
