/* src/cli/cmd_ladder.c — `croqtuner ladder`: the final ladder for done shapes that have
 * none, or (--retime) the kept configurations of one shape timed again side by side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "engine/engine.h"
#include "util/args.h"
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
    "Exit status: 0 done, 1 failure or the GPU is unusable / stayed busy, 2 bad usage.\n";

int cmd_ladder(int argc, char **argv)
{
    struct engine_opts o;
    const char *key = NULL, *v;
    bool retime = false;
    long repeat = 2, rounds = 12;
    engine_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        int r;
        if (args_flag(argv, i, "--help") || args_flag(argv, i, "-h")) {
            fputs(ladder_usage, stdout);
            return 0;
        } else if (args_flag(argv, i, "--retime")) {
            retime = true;
        } else if ((r = args_value(argc, argv, &i, "--key", &v)) != 0) {
            if (r < 0)
                return 2;
            key = v;
        } else if ((r = args_value(argc, argv, &i, "--repeat", &v)) != 0) {
            if (r < 0 || args_long("--repeat", v, &repeat))
                return 2;
        } else if ((r = args_value(argc, argv, &i, "--rounds", &v)) != 0) {
            if (r < 0 || args_long("--rounds", v, &rounds))
                return 2;
        } else if ((r = engine_opt_parse(argc, argv, &i, &o)) < 0) {
            return 2;
        } else if (!r) {
            log_error("ladder: unknown option '%s' (see 'croqtuner ladder --help')", argv[i]);
            return 2;
        }
    }
    if (o.backend || o.seed_given || o.iters || o.l2) {
        log_error("ladder: --backend, --seed, --iters and --l2 are fixed per shape when it starts");
        return 2;
    }
    if (retime && !key) {
        log_error("ladder --retime: --key KEY is required");
        return 2;
    }
    if (repeat < 1 || repeat > 8 || rounds < 1 || rounds > 64) {
        log_error("ladder: --repeat 1..8 and --rounds 1..64");
        return 2;
    }
    if (!is_dir(o.dir)) {
        log_error("ladder: no tuning directory '%s'", o.dir);
        return 1;
    }
    if (retime)
        return engine_exit_code(engine_retime(&o, key, (int)repeat, (int)rounds, stdout));
    int ran = 0, rc = engine_ladder(&o, key, &ran);
    if (!o.quiet && !ran && rc == 0)
        printf("no done shape without a final ladder in '%s'\n", o.dir);
    return engine_exit_code(rc);
}
