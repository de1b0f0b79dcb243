/* src/cli/cmd_tune.c — `croqtuner tune`: tune one shape with the engine (src/engine),
 * options from its table (src/util/opts.h; the engine's shared ones: engine_opts.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "backend/backend.h"
#include "engine/engine.h"
#include "search/search.h"
#include "util/opts.h"
#include "util/log.h"

static const char tune_usage[] =
    "usage: croqtuner tune --dtype f16|e4m3 --shape MxNxK --mode scratch|best [--iters N]\n"
    "                      [--backend gpu|sim|replay [--dataset FILE]] [--tuning DIR] [--seed S]\n"
    "                      [--git] [--agent] [--l2 warm|cold] [--strategy NAME]\n"
    "                      [--busy-limit MIN] [--shapes FILE] [--quiet]\n"
    "\n"
    "Tune one shape: baseline, then PROFILE -> IDEATE -> IMPLEMENT -> MEASURE -> DECIDE ->\n"
    "STORE until the budget is spent, then the final ladder (docs/engine.md). Every step's\n"
    "artifacts go to the tuning directory (docs/artifacts.md); a shape that exists there is\n"
    "continued.\n"
    "\n"
    "DECIDE (rules 4): the candidate and the best are timed in alternating trials of one\n"
    "worker; a candidate whose 95% interval of the speedup lies above 1.01 is paired with the\n"
    "best again, every pair, and kept iff that confirmation's interval lies above 1, then\n"
    "verified on operands never used before. The gain recorded is the confirmation's: the\n"
    "best's TFLOPS are the old best's times it. The final ladder times the best, the last 5\n"
    "kept and the 5 highest recorded configurations together in rotating rounds; its winner\n"
    "is the registered best, shown with the ladder's TFLOPS and clock.\n"
    "\n"
    "  --mode scratch   from the baseline kernel, key <dtype>_MxNxK_fs\n"
    "  --mode best      from the best config of the nearest tuned shape of the dtype\n"
    "                   (log-distance of M, N, K), key <dtype>_MxNxK\n"
    "  --iters N        iteration budget instead of the mode's (shapes.json\n"
    "                   iteration_budgets: 150 from scratch, 30 from best)\n"
    "  --shapes FILE    shapes.json for the budget of a new shape without --iters\n"
    "                   (default $CROQ_SHAPES, else the shared data directory)\n"
    "  --backend        gpu (croq-runner on the GPU; the default for a new shape) or sim\n"
    "                   (deterministic simulated GPU for tests; artifacts say backend=sim);\n"
    "                   a shape keeps the backend it started with; or replay: measurements\n"
    "                   served from an explore dataset (--dataset FILE, docs/explore.md;\n"
    "                   with --backend replay always; the shape reopens the one it recorded)\n"
    "  --tuning DIR     tuning directory (default ./tuning)\n"
    "  --seed S         operand and noise seed of a new shape (default 1)\n"
    "  --git            commit the shape's artifacts after every stored iteration\n"
    "  --l2 warm|cold   time with the operands resident in the L2 (warm, the default) or\n"
    "                   rotated through copies larger than the L2 (cold); fixed per shape\n"
    "                   when it starts, recorded in its checkpoint and every raw file\n"
    "  --agent          agent-driven: stop at IDEATE and wait for 'croqtuner propose'\n"
    "                   (docs/agent.md)\n"
    "  --strategy NAME  how IDEATE chooses configurations (docs/search.md; the strategies\n"
    "                   below, default heuristic; agent is --agent): fixed when the shape\n"
    "                   starts and recorded in its checkpoint, another one for a started\n"
    "                   shape is refused\n"
    "  --busy-limit MIN stop when another process kept the GPU busy this long (default 30);\n"
    "                   croqtuner only waits for other processes, it never stops them\n"
    "  --quiet          no progress lines\n"
    "\n"
    "The proposer does not change schedule (ping-pong) or stream_k (late knobs:\n"
    "docs/proposer.md) until it has H200 measurements; to try schedule=1 or stream_k=1,\n"
    "use --agent and give it with 'croqtuner propose --set schedule=1 ...'\n"
    "(docs/agent.md), or bench/explore it.\n"
    "\n"
    "Exit status: 0 done (or, with --agent, waiting for propose), 1 failure or the GPU\n"
    "is unusable / stayed busy (the message says which), 2 bad usage.\n";

/* Print a usage error; -1. */
static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_error("%s", msg);
    return -1;
}

struct tune_args {
    const char *dtype, *mode, *strategy;
    struct cli_shape shape;
};

void cli_print_strategies(FILE *out)
{
    fputs("\nSearch strategies (--strategy):\n", out);
    for (size_t i = 0; i < search_count(); i++)
        fprintf(out, "  %-10s %s\n", search_at(i)->name, search_at(i)->summary);
}

/* Shape, dtype and mode, validated before anything can become a path. */
static int tune_key(const struct tune_args *a, struct shape_key *k)
{
    char why[CROQ_WHY_MAX];
    if (!a->dtype || !a->shape.text || !a->mode)
        return bad("tune: --dtype, --shape and --mode are required (see 'croqtuner tune --help')");
    k->dtype = croq_dtype_parse(a->dtype);
    k->shape = a->shape.s;
    if (!shape_validate(k->dtype, &k->shape, why, sizeof why))
        return bad("--shape: %s", why);
    k->mode = (enum tune_mode)mode_parse(a->mode);
    return 0;
}

int cmd_tune(int argc, char **argv)
{
    struct engine_opts o;
    struct tune_args a = {0};
    struct shape_key k;
    engine_opts_default(&o);
    struct opt t[ENGINE_OPTS_N + 5] = {
        {.name = "--dtype", .type = OPT_CUSTOM, .dst = &a.dtype, .check = cli_dtype_value},
        {.name = "--shape", .type = OPT_CUSTOM, .dst = &a.shape, .check = cli_shape_value},
        {.name = "--mode", .type = OPT_CUSTOM, .dst = &a.mode, .check = cli_mode_value},
        {.name = "--agent", .type = OPT_FLAG, .dst = &o.agent},
        {.name = "--strategy", .type = OPT_STR, .dst = &a.strategy},
    };
    struct opt_spec spec = {"tune", tune_usage, t, 5};
    spec.n += engine_opts_table(&o, EO_TUNING | EO_BACKEND | EO_DATASET | EO_SEED | EO_ITERS | EO_BUSY | EO_SHAPES |
                                        EO_L2 | EO_GIT | EO_QUIET,
                                EO_RUNNER, t + spec.n);
    int rc = opts_parse(&spec, argc, argv);
    if (rc == 1)
        cli_print_strategies(stdout);
    if (rc)
        return rc == 1 ? 0 : 2;
    engine_opts_given(&spec, &o);
    if (tune_key(&a, &k))
        return 2;
    if (o.backend && !strcmp(o.backend, "replay") && !o.dataset) {
        log_error("tune: --backend replay needs --dataset FILE (an explore dataset of the shape; docs/explore.md)");
        return 2;
    }
    if (o.backend && strcmp(o.backend, "replay") && o.dataset) { /* it would be ignored */
        log_error("tune: --dataset is the replay backend's; --backend %s measures without one", o.backend);
        return 2;
    }
    if (a.strategy) {
        const struct search_strategy *s = search_open(a.strategy);
        char names[200];
        search_names(names, sizeof names);
        if (!s) {
            log_error("tune: --strategy: '%s' is not a search strategy (%s)", a.strategy, names);
            return 2;
        }
        if (s->next) /* the engine's own; the agent's is the agent flag */
            o.strategy = s->name;
        else
            o.agent = true;
    }
    return engine_exit_code(engine_tune(&o, &k));
}
