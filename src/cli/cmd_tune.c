/* src/cli/cmd_tune.c — `croqtuner tune`: tune one shape with the engine (src/engine),
 * and the option parsing the engine's commands share (tune, sweep, resume, propose). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "backend/backend.h"
#include "engine/engine.h"
#include "search/search.h"
#include "util/args.h"
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
    "                   give it again to resume)\n"
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
    "The proposer does not change schedule (ping-pong, a late knob: docs/proposer.md)\n"
    "until it has H200 measurements; to try schedule=1, use --agent and give it with\n"
    "'croqtuner propose --set schedule=1 ...' (docs/agent.md), or bench/explore it.\n"
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

/* The engine options every engine command accepts. 1 taken, 0 not ours, -1 bad. */
int engine_opt_parse(int argc, char **argv, int *i, struct engine_opts *o)
{
    const char *v;
    double d;
    long l;
    int r;
    if ((r = args_value(argc, argv, i, "--tuning", &v)) > 0)
        o->dir = v;
    else if (!r && (r = args_value(argc, argv, i, "--backend", &v)) > 0) {
        if (!backend_name_known(v))
            return bad("--backend: '%s' is not gpu, sim or replay", v);
        o->backend = v;
    } else if (!r && (r = args_value(argc, argv, i, "--dataset", &v)) > 0) {
        o->dataset = v;
    } else if (!r && (r = args_value(argc, argv, i, "--seed", &v)) > 0) {
        if (args_long("--seed", v, &l))
            return -1;
        if (l < 0)
            return bad("--seed: expected a non-negative integer, got %ld", l);
        o->seed = (unsigned long long)l;
        o->seed_given = true;
    } else if (!r && (r = args_value(argc, argv, i, "--iters", &v)) > 0) {
        if (args_long("--iters", v, &l)) /* it said why */
            return -1;
        if (l < 1 || l > 100000)
            return bad("--iters: expected 1..100000, got %ld", l);
        o->iters = (int)l;
    } else if (!r && (r = args_value(argc, argv, i, "--busy-limit", &v)) > 0) {
        if (args_double("--busy-limit", v, &d))
            return -1;
        if (d < 0)
            return bad("--busy-limit: expected minutes >= 0");
        o->busy_limit_s = d * 60;
    } else if (!r && (r = args_value(argc, argv, i, "--backoff-s", &v)) > 0) { /* tests */
        if (args_double("--backoff-s", v, &d))
            return -1;
        if (d < 0)
            return bad("--backoff-s: expected seconds >= 0");
        o->backoff_s = d;
    } else if (!r && (r = args_value(argc, argv, i, "--sim-faults", &v)) > 0) { /* tests */
        o->sim_faults = v;
    } else if (!r && (r = args_value(argc, argv, i, "--inject-fault", &v)) > 0) { /* tests */
        o->inject_faults = v;
    } else if (!r && (r = args_value(argc, argv, i, "--sim-delay-ms", &v)) > 0) { /* tests */
        if (args_long("--sim-delay-ms", v, &l))
            return -1;
        if (l < 0 || l > 60000)
            return bad("--sim-delay-ms: expected 0..60000");
        o->sim_delay_ms = (int)l;
    } else if (!r && (r = args_value(argc, argv, i, "--runner", &v)) > 0) {
        o->runner = v;
    } else if (!r && (r = args_value(argc, argv, i, "--shapes", &v)) > 0) {
        o->shapes = v;
    } else if (!r && (r = args_value(argc, argv, i, "--l2", &v)) > 0) {
        if (strcmp(v, "warm") && strcmp(v, "cold"))
            return bad("--l2: '%s' is not warm or cold", v);
        o->l2 = v;
    } else if (!r && args_flag(argv, *i, "--git")) {
        o->git = true;
        r = 1;
    } else if (!r && args_flag(argv, *i, "--quiet")) {
        o->quiet = true;
        r = 1;
    }
    return r;
}

void cli_print_strategies(FILE *out)
{
    fputs("\nSearch strategies (--strategy):\n", out);
    for (size_t i = 0; i < search_count(); i++)
        fprintf(out, "  %-10s %s\n", search_at(i)->name, search_at(i)->summary);
}

int engine_exit_code(int rc)
{
    return rc == ENGINE_DONE || rc == ENGINE_WAITING ? 0 : 1;
}

struct tune_args {
    const char *dtype, *shape, *mode, *strategy;
};

static int tune_value(int argc, char **argv, int *i, struct tune_args *a)
{
    const char *v;
    int r;
    if ((r = args_value(argc, argv, i, "--dtype", &v)) > 0)
        a->dtype = v;
    else if (!r && (r = args_value(argc, argv, i, "--shape", &v)) > 0)
        a->shape = v;
    else if (!r && (r = args_value(argc, argv, i, "--mode", &v)) > 0)
        a->mode = v;
    else if (!r && (r = args_value(argc, argv, i, "--strategy", &v)) > 0)
        a->strategy = v;
    return r;
}

/* Shape, dtype and mode, validated before anything can become a path. */
static int tune_key(const struct tune_args *a, struct shape_key *k)
{
    char why[CROQ_WHY_MAX];
    if (!a->dtype || !a->shape || !a->mode)
        return bad("tune: --dtype, --shape and --mode are required (see 'croqtuner tune --help')");
    if ((k->dtype = croq_dtype_parse(a->dtype)) < 0)
        return bad("--dtype: '%s' is not f16 or e4m3", a->dtype);
    if (shape_parse(a->shape, &k->shape))
        return bad("--shape: '%s' is not MxNxK with positive integers", a->shape);
    if (!shape_validate(k->dtype, &k->shape, why, sizeof why))
        return bad("--shape: %s", why);
    int m = mode_parse(a->mode);
    if (m < 0)
        return bad("--mode: '%s' is not scratch or best", a->mode);
    k->mode = (enum tune_mode)m;
    return 0;
}

int cmd_tune(int argc, char **argv)
{
    struct engine_opts o;
    struct tune_args a = {0};
    struct shape_key k;
    engine_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        int r;
        if (args_flag(argv, i, "--help") || args_flag(argv, i, "-h")) {
            fputs(tune_usage, stdout);
            cli_print_strategies(stdout);
            return 0;
        } else if (args_flag(argv, i, "--agent")) {
            o.agent = true;
        } else if ((r = engine_opt_parse(argc, argv, &i, &o)) < 0 || (!r && (r = tune_value(argc, argv, &i, &a)) < 0)) {
            return 2;
        } else if (!r) {
            log_error("tune: unknown option '%s' (see 'croqtuner tune --help')", argv[i]);
            return 2;
        }
    }
    if (tune_key(&a, &k))
        return 2;
    if (a.strategy) {
        const struct search_strategy *s = search_open(a.strategy);
        char names[200];
        search_names(names, sizeof names);
        if (!s) {
            bad("--strategy: '%s' is not a search strategy (%s)", a.strategy, names);
            return 2;
        }
        if (s->next) /* the engine's own; the agent's is the agent flag */
            o.strategy = s->name;
        else
            o.agent = true;
    }
    return engine_exit_code(engine_tune(&o, &k));
}
