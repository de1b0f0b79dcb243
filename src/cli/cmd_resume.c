/* src/cli/cmd_resume.c — `croqtuner resume`: continue everything unfinished in a
 * tuning directory. */
#include <stdio.h>

#include "commands.h"
#include "engine/engine.h"
#include "scale/scale.h"
#include "util/opts.h"
#include "util/atomicio.h"
#include "util/log.h"

static const char resume_usage[] =
    "usage: croqtuner resume [--tuning DIR] [--dataset FILE] [--shapes FILE] [--busy-limit MIN] [--git]\n"
    "                        [--quiet]\n"
    "\n"
    "Continue every shape of the tuning directory that is not finished: an active shape\n"
    "from its checkpoint (after reconciling its logs with it: a crash at any point is\n"
    "recovered, docs/engine.md), a shape marked done below its budget from its best;\n"
    "then the sweep that was running there, if any (a parallel sweep first, in its waves,\n"
    "so it ends as it would have uninterrupted). Each shape keeps the backend and seed\n"
    "it was started with. Agent-driven shapes finish a pending candidate and wait again.\n"
    "A sweep run with --waves N is finished once its waves 1..N are: resume does not go\n"
    "past them (it says every shape is done, and that later waves hold shapes not done);\n"
    "run the sweep command again without --waves, or with a larger N, for the others.\n"
    "\n"
    "  --dataset FILE   the explore dataset a replay shape was started with (tune\n"
    "                   --backend replay --dataset FILE), if it moved: its checkpoint\n"
    "                   records the file's path and a hash of its records, and resume\n"
    "                   reopens that path without it. A dataset of another shape, or one\n"
    "                   whose records changed since (explored further), is refused\n"
    "  --shapes FILE    checked against the sweep's plan, the copy of its shapes.json kept in\n"
    "                   the directory (plan/shapes.json): another file is refused (exit 2).\n"
    "                   A sweep recorded before directories kept one (state.json naming an\n"
    "                   absolute path) reads that path, else FILE, else $CROQ_SHAPES, and\n"
    "                   keeps its copy then\n"
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
    /* --backend, --seed, --iters and --l2 are taken to be refused with the reason */
    struct opt t[ENGINE_OPTS_N];
    struct opt_spec spec = {"resume", resume_usage, t, 0};
    spec.n = engine_opts_table(&o, EO_TUNING | EO_DATASET | EO_SHAPES | EO_BUSY | EO_GIT | EO_QUIET,
                               EO_BACKEND | EO_SEED | EO_ITERS | EO_L2 | EO_WAVES | EO_RUNNER, t);
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    engine_opts_given(&spec, &o);
    if (o.backend || o.seed_given || o.iters || o.l2) {
        log_error("resume: --backend, --seed, --iters and --l2 are fixed per shape when it starts");
        return 2;
    }
    if (o.last_wave) { /* taken silently, the recorded sweep's own waves would run instead */
        log_error("resume: --waves is fixed per sweep when it starts (its record's last_wave): give the sweep "
                  "command --waves N to run other waves");
        return 2;
    }
    if (!is_dir(o.dir)) { /* a mistyped path is an error, not "nothing to resume" */
        log_error("resume: no tuning directory '%s'", o.dir);
        return 1;
    }
    return engine_exit_code(sweep_resume(&o));
}
