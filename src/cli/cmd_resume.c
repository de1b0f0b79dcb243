/* src/cli/cmd_resume.c — `croqtuner resume`: continue everything unfinished in a
 * tuning directory. */
#include <stdio.h>

#include "commands.h"
#include "engine/engine.h"
#include "scale/scale.h"
#include "util/args.h"
#include "util/atomicio.h"
#include "util/log.h"

static const char resume_usage[] =
    "usage: croqtuner resume [--tuning DIR] [--dataset FILE] [--busy-limit MIN] [--git] [--quiet]\n"
    "\n"
    "Continue every shape of the tuning directory that is not finished: an active shape\n"
    "from its checkpoint (after reconciling its logs with it: a crash at any point is\n"
    "recovered, docs/engine.md), a shape marked done below its budget from its best;\n"
    "then the sweep that was running there, if any (a parallel sweep first, in its waves,\n"
    "so it ends as it would have uninterrupted). Each shape keeps the backend and seed\n"
    "it was started with. Agent-driven shapes finish a pending candidate and wait again.\n"
    "\n"
    "  --dataset FILE   the explore dataset a replay shape was started with (tune\n"
    "                   --backend replay --dataset FILE): the directory does not record it,\n"
    "                   so give it again; a dataset of another shape is refused\n"
    "\n"
    "A directory that records no shape yet (a tune or sweep killed before its first\n"
    "state.json write) has nothing to resume: resume says so and exits 1; run the tune\n"
    "or sweep command again.\n"
    "\n"
    "Exit status: 0 done, 1 failure, nothing recorded, or the GPU is unusable / stayed\n"
    "busy, 2 bad usage.\n";

int cmd_resume(int argc, char **argv)
{
    struct engine_opts o;
    engine_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        int r;
        if (args_flag(argv, i, "--help") || args_flag(argv, i, "-h")) {
            fputs(resume_usage, stdout);
            return 0;
        }
        if ((r = engine_opt_parse(argc, argv, &i, &o)) < 0)
            return 2;
        if (!r) {
            log_error("resume: unknown option '%s' (see 'croqtuner resume --help')", argv[i]);
            return 2;
        }
    }
    if (o.backend || o.seed_given || o.iters || o.l2) {
        log_error("resume: --backend, --seed, --iters and --l2 are fixed per shape when it starts");
        return 2;
    }
    if (!is_dir(o.dir)) { /* a mistyped path is an error, not "nothing to resume" */
        log_error("resume: no tuning directory '%s'", o.dir);
        return 1;
    }
    return engine_exit_code(sweep_resume(&o));
}
