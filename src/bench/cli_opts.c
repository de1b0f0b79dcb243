/* src/bench/cli_opts.c — shared measurement options of bench and compare. */
#include "cli_opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/args.h"
#include "util/log.h"

const char cli_measure_help[] =
    "  --seed S          operand seed (default 1)\n"
    "  --warmup N        at least N launches in the warm-up, which lasts until the SM clock\n"
    "                    and the power settle (default 0: settling alone, as the tuner)\n"
    "  --iters N         at most N back-to-back launches per timed trial of >= 20 ms (default 500)\n"
    "  --trials N        timed trials; the median is reported (default 10, as the tuner)\n"
    "  --reference R     auto (default), cpu (f64) or cublas (f32 accumulate)\n"
    "  --l2 warm|cold    warm (default, as the tuner): every launch reads the same operands, which\n"
    "                    stay in the L2 as far as they fit; cold: the timed launches rotate over\n"
    "                    copies of the operands that together move more than twice the L2\n"
    "  --device N        CUDA device ordinal (default 0)\n"
    "  --runner PATH     croq-runner to use (default $CROQ_RUNNER, else next to croqtuner)\n"
    "  --timeout S       time limit of one runner process (default: 30 s + a bound from the shape)\n";

static int int_in(const char *opt, const char *v, long lo, long hi, int *out)
{
    long x;
    if (args_long(opt, v, &x))
        return -1;
    if (x < lo || x > hi) {
        log_error("option '%s': %ld is outside [%ld, %ld]", opt, x, lo, hi);
        return -1;
    }
    *out = (int)x;
    return 0;
}

static int seed_value(const char *v, unsigned long long *out)
{
    char *end;
    errno = 0;
    *out = strtoull(v, &end, 0);
    if (errno || end == v || *end || v[0] == '-') {
        log_error("option '--seed': '%s' is not an unsigned integer", v);
        return -1;
    }
    return 0;
}

static int l2_value(const char *v, bool *cold)
{
    if (strcmp(v, "warm") && strcmp(v, "cold")) {
        log_error("option '--l2': '%s' is not warm or cold", v);
        return -1;
    }
    *cold = !strcmp(v, "cold");
    return 0;
}

static int reference_value(const char *v, const char **out)
{
    if (strcmp(v, "auto") && strcmp(v, "cpu") && strcmp(v, "cublas")) {
        log_error("option '--reference': '%s' is not auto, cpu or cublas", v);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_measure_opt(int argc, char **argv, int *i, struct measure_opts *o)
{
    const char *v;
    int r;
#define TAKE(name) ((r = args_value(argc, argv, i, name, &v)) != 0)
    if (TAKE("--seed")) return r < 0 || seed_value(v, &o->seed) ? -1 : 1;
    if (TAKE("--warmup")) return r < 0 || int_in("--warmup", v, 0, 100000, &o->warmup) ? -1 : 1;
    if (TAKE("--iters")) return r < 0 || int_in("--iters", v, 1, 100000, &o->iters) ? -1 : 1;
    if (TAKE("--trials")) return r < 0 || int_in("--trials", v, 1, 100, &o->trials) ? -1 : 1;
    if (TAKE("--device")) return r < 0 || int_in("--device", v, 0, 63, &o->device) ? -1 : 1;
    if (TAKE("--reference")) return r < 0 || reference_value(v, &o->reference) ? -1 : 1;
    if (TAKE("--l2")) return r < 0 || l2_value(v, &o->cold_l2) ? -1 : 1;
    if (TAKE("--runner")) return r < 0 ? -1 : (o->runner = v, 1);
    if (TAKE("--timeout")) return r < 0 || args_double("--timeout", v, &o->timeout_s) ? -1 : 1;
#undef TAKE
    return 0;
}
