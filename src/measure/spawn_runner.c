/* src/measure/spawn_runner.c — argv, spawn, and the no-JSON outcomes. */
#include "spawn_runner.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_common.h"
#include "util/log.h"
#include "util/spawn.h"

#define ARGV_MAX 32

struct argv_buf {
    const char *v[ARGV_MAX];
    int n;
    char num[8][32]; /* storage for formatted numbers */
    int nnum;
};

static void add(struct argv_buf *a, const char *s) { a->v[a->n++] = s; }

static void add_num(struct argv_buf *a, const char *opt, const char *fmt, unsigned long long v)
{
    char *buf = a->num[a->nnum++];
    snprintf(buf, sizeof a->num[0], fmt, v);
    add(a, opt);
    add(a, buf);
}

static void build_argv(struct argv_buf *a, const char *runner, const char *command,
                       const struct measure_opts *o, char *shape, size_t shape_len)
{
    memset(a, 0, sizeof *a);
    add(a, runner);
    add(a, command);
    if (o->cubin) {
        add(a, "--cubin");
        add(a, o->cubin);
    }
    snprintf(shape, shape_len, "%ldx%ldx%ld", o->shape.m, o->shape.n, o->shape.k);
    add(a, "--shape");
    add(a, shape);
    if (o->dtype >= 0) {
        add(a, "--dtype");
        add(a, croq_dtype_name(o->dtype));
    }
    add_num(a, "--seed", "%llu", o->seed);
    add_num(a, "--warmup", "%llu", (unsigned long long)o->warmup);
    add_num(a, "--iters", "%llu", (unsigned long long)o->iters);
    add_num(a, "--trials", "%llu", (unsigned long long)o->trials);
    add_num(a, "--device", "%llu", (unsigned long long)o->device);
    if (o->reference) {
        add(a, "--reference");
        add(a, o->reference);
    }
    if (o->no_time && !strcmp(command, "run")) /* compare always times */
        add(a, "--no-time");
    if (o->cold_l2 && !strcmp(command, "compare")) {
        add(a, "--l2");
        add(a, "cold");
    }
    a->v[a->n] = NULL;
}

static void join_command(const struct argv_buf *a, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < a->n && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", i ? " " : "", a->v[i]);
}

/* The last non-empty line of the runner's stderr: usually the reason it died. */
static void last_line(const char *text, char *out, size_t len)
{
    const char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == ' '))
        end--;
    const char *start = end;
    while (start > text && start[-1] != '\n')
        start--;
    snprintf(out, len, "%.*s", (int)(end - start), start);
}

bool spawn_runner_classify(const struct spawn_result *s, struct measure_result *r)
{
    char desc[256], tail[512];
    spawn_describe(s, desc, sizeof desc);
    last_line(s->err ? s->err : "", tail, sizeof tail);
    if (s->exec_failed) {
        r->status = MEASURE_NO_RUNNER;
        snprintf(r->error, sizeof r->error, "cannot start runner '%.512s': %s", r->command, strerror(s->exec_errno));
    } else if (s->timed_out) {
        r->status = MEASURE_TIMEOUT;
        snprintf(r->error, sizeof r->error, "%s", desc);
    } else if (s->term_signal) {
        r->status = MEASURE_CRASH;
        snprintf(r->error, sizeof r->error, "%s%s%s", desc, tail[0] ? ": " : "", tail);
    } else if (s->exit_code == 127 && strstr(s->err ? s->err : "", "error while loading shared libraries")) {
        /* The dynamic loader could not find libcuda & co: a machine problem. */
        r->status = MEASURE_NO_GPU;
        snprintf(r->error, sizeof r->error, "runner cannot load its libraries: %s", tail);
    } else {
        return false;
    }
    return true;
}

void spawn_runner_reconcile(struct measure_result *r)
{
    if (r->status != MEASURE_BAD_OUTPUT || r->exit_code == 0)
        return;
    char why[sizeof r->error];
    snprintf(why, sizeof why, "%s", r->error);
    r->status = MEASURE_CRASH;
    snprintf(r->error, sizeof r->error, "exit %d without a result (%.900s)", r->exit_code, why);
}

int spawn_runner(const char *command, const struct measure_opts *o, double timeout_s,
                 struct measure_result *r, bool *parse)
{
    char runner[PATH_MAX], shape[96];
    struct argv_buf a;
    struct spawn_result s;
    *parse = false;
    measure_runner_path(o->runner, runner, sizeof runner);
    build_argv(&a, runner, command, o, shape, sizeof shape);
    join_command(&a, r->command, sizeof r->command);
    struct spawn_opts so = {.argv = a.v, .timeout_s = timeout_s};
    r->limit_s = timeout_s;
    memset(&s, 0, sizeof s);
    if (spawn_run(&so, &s)) {
        snprintf(r->error, sizeof r->error, "cannot run '%.512s': %s", runner, strerror(errno));
        return -1;
    }
    r->exit_code = s.exit_code;
    r->term_signal = s.term_signal;
    r->timed_out = s.timed_out;
    r->wall_s = s.wall_s;
    r->raw_json = s.out && *s.out ? xstrdup(s.out) : NULL;
    r->stderr_text = s.err && *s.err ? xstrdup(s.err) : NULL;
    *parse = !spawn_runner_classify(&s, r);
    spawn_result_release(&s);
    return 0;
}
