/* src/cli/cmd_propose.c — `croqtuner propose`: an external agent submits one idea with
 * its kernel source to a shape waiting at IDEATE (docs/agent.md). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "engine/engine.h"
#include "util/args.h"
#include "util/log.h"

#define PROPOSE_MAX_SETS 64

static const char propose_usage[] =
    "usage: croqtuner propose --tuning DIR --key KEY --idea TEXT --category C --src FILE\n"
    "                         [--set knob=value ...] [--json]\n"
    "\n"
    "Submit one idea to a shape in agent mode ('croqtuner tune ... --agent') that waits at\n"
    "IDEATE. The engine builds FILE, verifies and times it in a child process after a\n"
    "GPU health check, decides KEEP/DISCARD by its noise rule, stores it like its own\n"
    "candidates, profiles a new best and waits again. The configuration is the current\n"
    "best with the --set changes; it must validate for the shape, and it is the launch\n"
    "contract FILE's croq_abi must keep (checked on the GPU). It may repeat: the idea is\n"
    "the code.\n"
    "\n"
    "  --key KEY       the shape, e.g. f16_4096x8192x8192_fs (see 'croqtuner status')\n"
    "  --idea TEXT     one idea, UTF-8 (any characters; stored escaped)\n"
    "  --category C    macro, structural, variant or micro\n"
    "  --src FILE      the self-contained kernel source (kernels/abi.h contract)\n"
    "  --set k=v       knob changes from the current best (repeatable; a whole signature\n"
    "                  'dtype=f16,kernel=1,...' as status prints it is accepted too)\n"
    "  --json          print the outcome as JSON\n"
    "\n"
    "Refused (exit 1, nothing stored): the shape is not waiting at IDEATE in agent mode,\n"
    "the source was tried before (byte-identical, or the same tokens: comments and\n"
    "whitespace do not count), invalid knobs or text.\n"
    "Exit status: 0 the idea was built and stored (whatever the decision, including a\n"
    "compile failure), 1 refused or failed, 2 bad usage.\n";

int cmd_propose(int argc, char **argv)
{
    struct engine_opts o;
    struct proposal p = {0};
    const char *sets[PROPOSE_MAX_SETS], *v;
    engine_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        int r;
        if (args_flag(argv, i, "--help") || args_flag(argv, i, "-h")) {
            fputs(propose_usage, stdout);
            return 0;
        } else if (args_flag(argv, i, "--json")) {
            p.json = true;
        } else if ((r = args_value(argc, argv, &i, "--key", &v)) > 0) {
            p.key = v;
        } else if (!r && (r = args_value(argc, argv, &i, "--idea", &v)) > 0) {
            p.idea = v;
        } else if (!r && (r = args_value(argc, argv, &i, "--category", &v)) > 0) {
            p.category = v;
        } else if (!r && (r = args_value(argc, argv, &i, "--src", &v)) > 0) {
            p.src_path = v;
        } else if (!r && (r = args_value(argc, argv, &i, "--set", &v)) > 0) {
            if (p.n_sets == PROPOSE_MAX_SETS) {
                log_error("propose: at most %d --set options", PROPOSE_MAX_SETS);
                return 2;
            }
            sets[p.n_sets++] = v;
        } else if (r < 0 || (r = engine_opt_parse(argc, argv, &i, &o)) < 0) {
            return 2;
        } else if (!r) {
            log_error("propose: unknown option '%s' (see 'croqtuner propose --help')", argv[i]);
            return 2;
        }
    }
    if (!p.key || !p.idea || !p.category || !p.src_path) {
        log_error("propose: --key, --idea, --category and --src are required");
        return 2;
    }
    if (o.backend || o.seed_given || o.iters) {
        log_error("propose: --backend, --seed and --iters belong to 'tune'");
        return 2;
    }
    struct shape_key sk;
    char err[256];
    if (key_parse(p.key, &sk, err, sizeof err)) {
        log_error("propose: --key: %s (keys come from 'croqtuner status')", err);
        return 2;
    }
    p.sets = sets;
    return engine_exit_code(engine_propose(&o, &p));
}
