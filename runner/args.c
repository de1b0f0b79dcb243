/* runner/args.c — croq-runner's options, one table row each. Bad input is a bad_args
 * failure with the offending option quoted, never a guess. */
#include "runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum arg_kind { ARG_STR, ARG_INT, ARG_U64, ARG_FLAG, ARG_SHAPE, ARG_DTYPE, ARG_REF, ARG_L2 };

/* Which subcommands take an option. */
#define CMD_RUN 1
#define CMD_COMPARE 2
#define CMD_HEALTH 4
#define CMD_SUITE 8
#define CMD_SERVE 16
#define CMD_MEASURE (CMD_RUN | CMD_COMPARE | CMD_SUITE | CMD_SERVE)

struct arg_spec {
    const char *name;
    enum arg_kind kind;
    int cmds;
    size_t offset;  /* into struct runner_opts */
    long lo, hi;    /* ARG_INT bounds */
};

#define OFF(f) offsetof(struct runner_opts, f)
static const struct arg_spec specs[] = {
    {"--cubin", ARG_STR, CMD_RUN | CMD_COMPARE, OFF(cubin), 0, 0},
    {"--cubins", ARG_STR, CMD_SUITE, OFF(cubins), 0, 0},
    {"--shape", ARG_SHAPE, CMD_MEASURE, OFF(shape), 0, 0},
    {"--dtype", ARG_DTYPE, CMD_MEASURE, OFF(dtype), 0, 0},
    {"--seed", ARG_U64, CMD_MEASURE, OFF(seed), 0, 0},
    {"--warmup", ARG_INT, CMD_RUN | CMD_COMPARE | CMD_SUITE, OFF(warmup), 0, 100000},
    {"--iters", ARG_INT, CMD_RUN | CMD_COMPARE | CMD_SUITE, OFF(iters), 1, 100000},
    {"--trials", ARG_INT, CMD_RUN | CMD_COMPARE | CMD_SUITE, OFF(trials), 1, 100},
    {"--warmup-ms", ARG_INT, CMD_RUN | CMD_COMPARE | CMD_SUITE, OFF(warmup_ms), 0, 60000},
    {"--no-time", ARG_FLAG, CMD_RUN | CMD_SUITE, OFF(no_time), 0, 0},
    {"--no-verify", ARG_FLAG, CMD_RUN, OFF(no_verify), 0, 0},
    {"--scaled", ARG_FLAG, CMD_RUN, OFF(scaled), 0, 0},
    {"--reference", ARG_REF, CMD_MEASURE, OFF(reference), 0, 0},
    {"--device", ARG_INT, CMD_MEASURE | CMD_HEALTH, OFF(device), 0, 63},
    {"--l2", ARG_L2, CMD_COMPARE, OFF(cold_l2), 0, 0},
    {"--slt-config", ARG_INT, CMD_COMPARE, OFF(slt_config), 0, 100000},
    {"--slt-split-k", ARG_INT, CMD_COMPARE, OFF(slt_split_k), 1, 100000},
};

static int cmd_bit(const char *cmd)
{
    return !strcmp(cmd, "run") ? CMD_RUN : !strcmp(cmd, "compare") ? CMD_COMPARE
         : !strcmp(cmd, "health") ? CMD_HEALTH : !strcmp(cmd, "suite") ? CMD_SUITE
         : !strcmp(cmd, "serve") ? CMD_SERVE : 0;
}

static int parse_long(const char *s, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return errno || end == s || *end ? -1 : 0;
}

static int parse_value(const struct arg_spec *a, const char *val, struct runner_opts *o)
{
    void *dst = (char *)o + a->offset;
    long v;
    char *end;
    switch (a->kind) {
    case ARG_STR:
        *(const char **)dst = val;
        return 0;
    case ARG_INT:
        if (parse_long(val, &v) || v < a->lo || v > a->hi) {
            runner_fail(RS_BAD_ARGS, "option '%s': '%s' is not an integer in [%ld, %ld]",
                        a->name, val, a->lo, a->hi);
            return -1;
        }
        *(int *)dst = (int)v;
        return 0;
    case ARG_U64:
        errno = 0;
        *(uint64_t *)dst = strtoull(val, &end, 0);
        if (errno || end == val || *end || val[0] == '-') {
            runner_fail(RS_BAD_ARGS, "option '%s': '%s' is not an unsigned integer", a->name, val);
            return -1;
        }
        return 0;
    case ARG_SHAPE:
        if (shape_parse(val, &o->shape)) {
            runner_fail(RS_BAD_ARGS, "option '--shape': '%s' is not MxNxK with positive integers", val);
            return -1;
        }
        o->have_shape = true;
        return 0;
    case ARG_DTYPE:
        if ((*(int *)dst = croq_dtype_parse(val)) < 0) {
            runner_fail(RS_BAD_ARGS, "option '--dtype': unknown dtype '%s' (f16, e4m3)", val);
            return -1;
        }
        return 0;
    case ARG_REF:
        if (!strcmp(val, "auto")) o->reference = REF_AUTO;
        else if (!strcmp(val, "cpu")) o->reference = REF_CPU;
        else if (!strcmp(val, "cublas")) o->reference = REF_CUBLAS;
        else {
            runner_fail(RS_BAD_ARGS, "option '--reference': '%s' is not auto, cpu or cublas", val);
            return -1;
        }
        return 0;
    case ARG_L2:
        if (strcmp(val, "warm") && strcmp(val, "cold")) {
            runner_fail(RS_BAD_ARGS, "option '--l2': '%s' is not warm or cold", val);
            return -1;
        }
        *(bool *)dst = !strcmp(val, "cold");
        return 0;
    case ARG_FLAG:
        break;
    }
    return 0;
}

static const struct arg_spec *find_spec(const char *name)
{
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (!strcmp(specs[i].name, name))
            return &specs[i];
    return NULL;
}

static void opts_default(struct runner_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dtype = -1;
    o->seed = 1;
    o->warmup = 10;
    o->iters = 500;
    o->trials = 5;
    o->warmup_ms = 2000;
    o->reference = REF_AUTO;
    o->slt_config = -1;
    o->slt_split_k = -1;
}

int args_parse(int argc, char **argv, struct runner_opts *o)
{
    int cmd = cmd_bit(argv[0]);
    opts_default(o);
    for (int i = 1; i < argc; i++) {
        const struct arg_spec *a = find_spec(argv[i]);
        if (!a || !(a->cmds & cmd)) {
            runner_fail(RS_BAD_ARGS, "%s: unknown option '%s'", argv[0], argv[i]);
            return -1;
        }
        if (a->kind == ARG_FLAG) {
            *(bool *)((char *)o + a->offset) = true;
            continue;
        }
        if (i + 1 >= argc) {
            runner_fail(RS_BAD_ARGS, "option '%s' needs a value", a->name);
            return -1;
        }
        TRY(parse_value(a, argv[++i], o));
    }
    if (o->warmup_ms == 0)
        o->warmup_ms = -1; /* --warmup-ms 0: launches only (timing_opts) */
    if ((cmd & CMD_MEASURE) && !o->have_shape) {
        runner_fail(RS_BAD_ARGS, "%s: '--shape MxNxK' is required", argv[0]);
        return -1;
    }
    if (cmd == CMD_RUN && !o->cubin) {
        runner_fail(RS_BAD_ARGS, "run: '--cubin FILE' is required");
        return -1;
    }
    if ((cmd & (CMD_COMPARE | CMD_SUITE | CMD_SERVE)) && o->dtype < 0) {
        runner_fail(RS_BAD_ARGS, "%s: '--dtype f16|e4m3' is required", argv[0]);
        return -1;
    }
    if (o->slt_split_k >= 0 && o->slt_config < 0) {
        runner_fail(RS_BAD_ARGS, "compare: '--slt-split-k' needs '--slt-config ID' (a searched plan picks its own)");
        return -1;
    }
    if (cmd == CMD_SUITE && !o->cubins) {
        runner_fail(RS_BAD_ARGS, "suite: '--cubins FILE' is required");
        return -1;
    }
    return 0;
}
