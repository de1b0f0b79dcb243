/* src/bench/cli_opts.c — shared measurement options of bench and compare. */
#include "cli_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/opts.h"

/* base 0 as strtoull: "0x10" is 16 */
static int seed_value(const char *v, void *dst, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 0);
    if (errno || end == v || *end || v[0] == '-' || v[0] == '+' || v[0] == ' ') {
        snprintf(err, errlen, "'%s' is not an unsigned integer", v);
        return -1;
    }
    *(unsigned long long *)dst = s;
    return 0;
}

static int l2_value(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "warm") && strcmp(v, "cold")) {
        snprintf(err, errlen, "'%s' is not warm or cold", v);
        return -1;
    }
    *(bool *)dst = !strcmp(v, "cold");
    return 0;
}

size_t cli_measure_table(struct measure_opts *o, struct opt *t)
{
    const struct opt rows[CLI_MEASURE_OPTS_N] = {
        {.name = "--seed", .type = OPT_CUSTOM, .dst = &o->seed, .check = seed_value},
        {.name = "--warmup", .type = OPT_INT, .dst = &o->warmup, .lo = 0, .hi = 100000},
        {.name = "--iters", .type = OPT_INT, .dst = &o->iters, .lo = 1, .hi = 100000},
        {.name = "--trials", .type = OPT_INT, .dst = &o->trials, .lo = 1, .hi = 100},
        {.name = "--device", .type = OPT_INT, .dst = &o->device, .lo = 0, .hi = 63},
        {.name = "--reference", .type = OPT_ENUM, .dst = &o->reference, .choices = "auto|cpu|cublas"},
        {.name = "--l2", .type = OPT_CUSTOM, .dst = &o->cold_l2, .check = l2_value},
        {.name = "--runner", .type = OPT_STR, .dst = &o->runner},
        {.name = "--timeout", .type = OPT_DOUBLE, .dst = &o->timeout_s},
    };
    memcpy(t, rows, sizeof rows);
    return CLI_MEASURE_OPTS_N;
}
