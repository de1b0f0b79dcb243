/* src/cli/engine_opts.c — the options the engine's commands share (struct engine_opts:
 * tune, sweep, resume, propose, ladder, slurm) as rows of their option tables, the value
 * checks several commands' tables use (--busy-limit, --shape, --dtype, --mode, --key), and the
 * exit status of an engine outcome. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "commands.h"
#include "artifacts/state.h"
#include "engine/engine.h"
#include "util/atomicio.h"
#include "util/log.h"
#include "util/opts.h"

/* --busy-limit MIN: stored in seconds */
int cli_busy_minutes(const char *v, void *dst, char *err, size_t errlen)
{
    struct opt o = {.name = "--busy-limit", .type = OPT_DOUBLE, .dst = dst};
    double *s = dst;
    if (opts_value(&o, v, err, errlen))
        return -1;
    if (*s < 0) {
        snprintf(err, errlen, "expected minutes >= 0");
        return -1;
    }
    *s *= 60;
    return 0;
}

int cli_shape_value(const char *v, void *dst, char *err, size_t errlen)
{
    struct cli_shape *sh = dst;
    if (shape_parse(v, &sh->s)) {
        snprintf(err, errlen, "bad shape '%s': expected MxNxK with positive integers (e.g. 4096x8192x8192)", v);
        return -1;
    }
    sh->text = v;
    return 0;
}

int cli_dtype_value(const char *v, void *dst, char *err, size_t errlen)
{
    if (croq_dtype_parse(v) < 0) {
        snprintf(err, errlen, "unknown dtype '%s' (f16 or e4m3)", v);
        return -1;
    }
    *(const char **)dst = v;
    return 0;
}

int cli_dtype_all_value(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "all") && croq_dtype_parse(v) < 0) {
        snprintf(err, errlen, "unknown dtype '%s' (f16, e4m3 or all)", v);
        return -1;
    }
    *(const char **)dst = v;
    return 0;
}

int cli_mode_value(const char *v, void *dst, char *err, size_t errlen)
{
    if (mode_parse(v) < 0) {
        snprintf(err, errlen, "'%s' is not scratch or best", v);
        return -1;
    }
    *(const char **)dst = v;
    return 0;
}

int cli_key_value(const char *v, void *dst, char *err, size_t errlen)
{
    struct shape_key sk;
    char why[256];
    if (key_parse(v, &sk, why, sizeof why)) {
        snprintf(err, errlen, "%s (keys come from 'croqtuner status')", why);
        return -1;
    }
    *(const char **)dst = v;
    return 0;
}

int cli_key_held(const char *cmd, const char *dir, const char *key)
{
    char logs[4200], ck[4200];
    snprintf(logs, sizeof logs, "%s/logs/%s", dir, key);
    snprintf(ck, sizeof ck, "%s/checkpoints/%s.json", dir, key);
    if (!is_dir(logs) && access(ck, F_OK)) {
        log_error("%s: no shape %s in '%s' (keys come from 'croqtuner status')", cmd, key, dir);
        return 2;
    }
    return 0;
}

static int nonneg_seconds(const char *v, void *dst, char *err, size_t errlen)
{
    struct opt o = {.name = "--backoff-s", .type = OPT_DOUBLE, .dst = dst};
    if (opts_value(&o, v, err, errlen))
        return -1;
    if (*(double *)dst < 0) {
        snprintf(err, errlen, "expected seconds >= 0");
        return -1;
    }
    return 0;
}

size_t engine_opts_table(struct engine_opts *o, unsigned shown, unsigned taken, struct opt *t)
{
    const struct {
        struct opt row;
        unsigned eo; /* its EO_* bit: documented by the commands that show it; 0: tests only */
    } rows[ENGINE_OPTS_N] = {
        {{.name = "--tuning", .type = OPT_OUTDIR, .dst = &o->dir}, EO_TUNING},
        {{.name = "--backend", .type = OPT_ENUM, .dst = &o->backend, .choices = "gpu|sim|replay"}, EO_BACKEND},
        {{.name = "--dataset", .type = OPT_FILE, .dst = &o->dataset}, EO_DATASET},
        {{.name = "--seed", .type = OPT_U64, .dst = &o->seed}, EO_SEED},
        {{.name = "--iters", .type = OPT_INT, .dst = &o->iters, .lo = 1, .hi = 100000}, EO_ITERS},
        {{.name = "--waves", .type = OPT_INT, .dst = &o->last_wave, .lo = 1, .hi = STATE_SWEEP_WAVES}, EO_WAVES},
        {{.name = "--busy-limit", .type = OPT_CUSTOM, .dst = &o->busy_limit_s, .check = cli_busy_minutes}, EO_BUSY},
        {{.name = "--shapes", .type = OPT_FILE, .dst = &o->shapes}, EO_SHAPES},
        {{.name = "--l2", .type = OPT_ENUM, .dst = &o->l2, .choices = "warm|cold"}, EO_L2},
        {{.name = "--git", .type = OPT_FLAG, .dst = &o->git}, EO_GIT},
        {{.name = "--quiet", .type = OPT_FLAG, .dst = &o->quiet}, EO_QUIET},
        {{.name = "--runner", .type = OPT_STR, .dst = &o->runner}, EO_RUNNER},
        {{.name = "--backoff-s", .type = OPT_CUSTOM, .dst = &o->backoff_s, .check = nonneg_seconds}, 0},
        {{.name = "--sim-faults", .type = OPT_STR, .dst = &o->sim_faults}, 0},
        {{.name = "--inject-fault", .type = OPT_STR, .dst = &o->inject_faults}, 0},
        {{.name = "--sim-delay-ms", .type = OPT_INT, .dst = &o->sim_delay_ms, .lo = 0, .hi = 60000}, 0},
    };
    size_t n = 0;
    for (size_t k = 0; k < ENGINE_OPTS_N; k++) {
        if (rows[k].eo && !(rows[k].eo & (shown | taken)))
            continue; /* taken, the command would ignore it */
        t[n] = rows[k].row;
        t[n++].flags = rows[k].eo & shown ? 0 : OPT_HIDDEN;
    }
    return n;
}

void engine_opts_given(const struct opt_spec *spec, struct engine_opts *o)
{
    o->seed_given = opts_given(spec, "--seed");
}

int engine_exit_code(int rc)
{
    return rc == ENGINE_DONE || rc == ENGINE_WAITING ? 0 : rc == ENGINE_USAGE ? 2 : 1;
}

/* The real path of path's deepest existing ancestor (path itself when it exists), with the
 * rest appended: what path will name once written. 0, or -1 when no ancestor resolves. */
static int resolved(const char *path, char out[PATH_MAX])
{
    char head[PATH_MAX];
    if (snprintf(head, sizeof head, "%s", path) >= (int)sizeof head)
        return -1;
    const char *tail = "";
    for (;;) {
        char r[PATH_MAX];
        if (realpath(head[0] ? head : ".", r))
            return snprintf(out, PATH_MAX, "%s%s%s", r, *tail ? "/" : "", tail) >= PATH_MAX ? -1 : 0;
        char *slash = strrchr(head, '/');
        if (!slash)
            tail = path, head[0] = '\0';
        else if (slash == head)
            return -1;
        else
            *slash = '\0', tail = path + (slash - head) + 1;
    }
}

int cli_out_outside_tuning(const char *cmd, const char *opt, const char *out, const char *const *dirs, size_t n)
{
    char o[PATH_MAX], d[PATH_MAX];
    /* a new file is left to the command (the tests write a recipe's whole source beside it,
     * as a directory older than recipes holds it); an existing one would be replaced */
    if (!out || access(out, F_OK) || resolved(out, o))
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        if (!dirs[i] || resolved(dirs[i], d) || !(len = strlen(d)) ||
            strncmp(o, d, len) || (o[len] != '/' && o[len] != '\0'))
            continue;
        log_error("%s: option '%s': '%s' is a file of the tuning directory '%s', one of the tuning's records "
                  "(docs/artifacts.md), and is not replaced; write elsewhere", cmd, opt, out, dirs[i]);
        return 2;
    }
    return 0;
}
