/* src/cli/cmd_propose.c — `croqtuner propose`: an external agent submits one idea with
 * its kernel source to a shape waiting at IDEATE (docs/agent.md). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "engine/engine.h"
#include "util/opts.h"
#include "util/log.h"

#define PROPOSE_MAX_SETS 64

static const char propose_usage[] =
    "usage: croqtuner propose --tuning DIR --key KEY --idea TEXT --category C --src FILE\n"
    "                         [--set knob=value ...] [--dataset FILE] [--json]\n"
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
    "  --dataset FILE  the explore dataset a replay shape was started with, if it moved\n"
    "                  (its checkpoint records the path, and a hash of the records it must\n"
    "                  hold); an idea the dataset never measured is stored as DISCARD\n"
    "                  (not in the dataset)\n"
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
    const char *sets[PROPOSE_MAX_SETS];
    int nsets = 0;
    engine_opts_default(&o);
    struct opt t[ENGINE_OPTS_N + 6] = {
        {.name = "--key", .type = OPT_CUSTOM, .dst = &p.key, .check = cli_key_value},
        {.name = "--idea", .type = OPT_STR, .dst = &p.idea},
        {.name = "--category", .type = OPT_ENUM, .dst = &p.category, .choices = "macro|structural|variant|micro"},
        /* read by the engine: a source it cannot read is refused (exit 1) like a bad one */
        {.name = "--src", .type = OPT_STR, .dst = &p.src_path},
        {.name = "--set", .type = OPT_STR, .dst = sets, .max = PROPOSE_MAX_SETS, .count = &nsets},
        {.name = "--json", .type = OPT_FLAG, .dst = &p.json},
    };
    struct opt_spec spec = {"propose", propose_usage, t, 6};
    /* --backend, --seed and --iters are taken to be refused with the reason */
    spec.n += engine_opts_table(&o, EO_TUNING | EO_DATASET, EO_BACKEND | EO_SEED | EO_ITERS, t + spec.n);
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    engine_opts_given(&spec, &o);
    p.n_sets = nsets;
    if (!p.key || !p.idea || !p.category || !p.src_path) {
        log_error("propose: --key, --idea, --category and --src are required");
        return 2;
    }
    if (o.backend || o.seed_given || o.iters) {
        log_error("propose: --backend, --seed and --iters belong to 'tune'");
        return 2;
    }
    p.sets = sets;
    return engine_exit_code(engine_propose(&o, &p));
}
