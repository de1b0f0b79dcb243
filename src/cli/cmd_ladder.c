/* src/cli/cmd_ladder.c — `croqtuner ladder`: the final ladder for done shapes that have
 * none, or (--retime) the kept configurations of one shape timed again side by side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "engine/engine.h"
#include "util/opts.h"
#include "util/atomicio.h"
#include "util/log.h"

static const char ladder_usage[] =
    "usage: croqtuner ladder [--tuning DIR] [--key KEY] [--quiet]\n"
    "       croqtuner ladder --retime --key KEY [--tuning DIR] [--repeat N] [--rounds R]\n"
    "\n"
    "Without --retime: every done shape of the tuning directory (or only KEY) that has a\n"
    "best and no final ladder gets one, as a shape finishing today does (docs/engine.md,\n"
    "\"Final ladder\"): its best, its last 5 kept and its 5 highest recorded configurations\n"
    "are timed together in one worker, in rotating rounds after one warm-up to a steady\n"
    "clock, and the winner becomes the registered best (kernels/, state.json, status, the\n"
    "report, export) with the ladder's TFLOPS and clock. A shape still being tuned gets its\n"
    "ladder when it finishes. Crash-safe like tuning: 'croqtuner resume' finishes a ladder\n"
    "that was cut off.\n"
    "\n"
    "--retime: the configurations of KEY's kept rows (baseline and KEEPs, the last 16) timed\n"
    "together N times (default 2), R rounds each (default 12), printed beside the gains the\n"
    "rows recorded (each KEEP's paired speedup over the best before it: the screen's and,\n"
    "under decision rules 4, the confirmation's). It opens the shape as resume does (a row\n"
    "a crash left unstored is adopted) but records no measurement; the raw files are\n"
    "perf/KEY/ladder-retime-<i>.json.\n"
    "\n"
    "Exit status: 0 done, 1 failure or the GPU is unusable / stayed busy, 2 bad usage (KEY\n"
    "names no shape of the directory).\n";

int cmd_ladder(int argc, char **argv)
{
    struct engine_opts o;
    const char *key = NULL;
    bool retime = false;
    long repeat = 2, rounds = 12;
    engine_opts_default(&o);
    struct opt t[ENGINE_OPTS_N + 4] = {
        {.name = "--retime", .type = OPT_FLAG, .dst = &retime},
        {.name = "--key", .type = OPT_CUSTOM, .dst = &key, .check = cli_key_value},
        {.name = "--repeat", .type = OPT_LONG, .dst = &repeat, .lo = 1, .hi = 8},
        {.name = "--rounds", .type = OPT_LONG, .dst = &rounds, .lo = 1, .hi = 64},
    };
    struct opt_spec spec = {"ladder", ladder_usage, t, 4};
    /* --backend, --seed, --iters and --l2 are taken to be refused with the reason */
    spec.n += engine_opts_table(&o, EO_TUNING | EO_QUIET,
                                EO_BACKEND | EO_SEED | EO_ITERS | EO_L2 | EO_RUNNER | EO_BUSY | EO_GIT | EO_DATASET,
                                t + spec.n);
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    engine_opts_given(&spec, &o);
    if (o.backend || o.seed_given || o.iters || o.l2) {
        log_error("ladder: --backend, --seed, --iters and --l2 are fixed per shape when it starts");
        return 2;
    }
    if (retime && !key) {
        log_error("ladder --retime: --key KEY is required");
        return 2;
    }
    if (!is_dir(o.dir)) {
        log_error("ladder: no tuning directory '%s'", o.dir);
        return 1;
    }
    if (key && cli_key_held("ladder", o.dir, key))
        return 2;
    if (retime)
        return engine_exit_code(engine_retime(&o, key, (int)repeat, (int)rounds, stdout));
    int ran = 0;
    rc = engine_ladder(&o, key, &ran);
    if (!o.quiet && !ran && rc == 0)
        printf("no done shape without a final ladder in '%s'\n", o.dir);
    return engine_exit_code(rc);
}
