/* src/cli/cmd_status.c — `croqtuner status`: where every shape stands, and what a
 * running tuner is doing right now. */
#include <stdio.h>

#include "commands.h"
#include "engine/engine.h"
#include "util/args.h"
#include "util/atomicio.h"
#include "util/log.h"

static const char status_usage[] =
    "usage: croqtuner status [--json] [--tuning DIR]\n"
    "\n"
    "Every shape of the tuning directory (state.json): status, mode, phase,\n"
    "iteration/budget, baseline and best TFLOPS, why it stopped. For a shape a process is\n"
    "tuning now, a line 'now:' with its iteration, best, last decision, ETA, and a wait\n"
    "for a busy GPU. --json prints the same as one JSON object ('live' holds the\n"
    "progress of a running shape, null otherwise).\n"
    "\n"
    "Exit status: 0, 1 the state cannot be read (the reason is printed), 2 bad usage.\n";

int cmd_status(int argc, char **argv)
{
    const char *dir = "tuning", *v;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        int r;
        if (args_flag(argv, i, "--help") || args_flag(argv, i, "-h")) {
            fputs(status_usage, stdout);
            return 0;
        } else if (args_flag(argv, i, "--json")) {
            json = true;
        } else if ((r = args_value(argc, argv, &i, "--tuning", &v)) > 0) {
            dir = v;
        } else {
            if (r == 0)
                log_error("status: unknown option '%s' (see 'croqtuner status --help')", argv[i]);
            return 2;
        }
    }
    if (!is_dir(dir)) { /* a mistyped path is an error, not "no shapes" */
        log_error("status: no tuning directory '%s'", dir);
        return 1;
    }
    return engine_exit_code(engine_status(dir, json, stdout));
}
