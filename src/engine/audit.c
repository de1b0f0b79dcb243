/* src/engine/audit.c — `croqtuner audit`: every recorded iteration re-derived from its
 * evidence, by someone who does not trust the process that wrote it.
 *
 * The engine's guards hold while it runs; this checks the finished artifacts afterwards,
 * so a row edited by hand, a source swapped after the fact, a deleted or rewritten raw
 * measurement, or a decision the numbers do not support is found by anyone with the
 * tuning directory (docs/engine.md, "Audit"). Per row of results.tsv:
 *   - its idea-log line says the same (iteration, config, source hash, decision, TFLOPS);
 *   - srcs/<key>/iterNNN.cu exists and hashes to the row's source_hash;
 *   - its config is valid and was never tried before (results or attempts);
 *   - perf/<key>/iterNNN-cand.json (iterNNN-cand-re.json when the sanity rule fired)
 *     is there, and the row's numbers are exactly its quantized numbers, or the row's
 *     failure decision matches the raw status;
 *   - the decision and best_tflops are what decide_keep gives on those numbers, replayed
 *     from the baseline with the best's re-measurements (iterNNN-best-re.json);
 * then state.json's best and the published best kernel agree with the replay.
 */
#include "engine.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicio.h"

struct audit {
    const char *dir, *key;
    FILE *out;
    int problems;
    int dtype;
    double floor_pct; /* DECIDE's noise floor to replay with */
};

static void problem(struct audit *a, int iter, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(struct audit *a, int iter, const char *fmt, ...)
{
    va_list ap;
    if (iter >= 0)
        fprintf(a->out, "%s iter %d: ", a->key, iter);
    else
        fprintf(a->out, "%s: ", a->key);
    va_start(ap, fmt);
    vfprintf(a->out, fmt, ap);
    va_end(ap);
    fputc('\n', a->out);
    a->problems++;
}

/* One raw measurement file, read the way the backends wrote it (runner JSON, or the
 * sim backend's, or what the GPU backend knew of a runner that died). */
struct raw {
    bool present, ok; /* ok: status "ok", verification passed, timing present */
    char status[32];
    struct perf_numbers p;
};

static double num(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(json_object_get(o, a), b);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void raw_read(struct audit *a, int iter, const char *tag, struct raw *m)
{
    char path[ENGINE_PATH_MAX];
    memset(m, 0, sizeof *m);
    if (path_fmt(path, "%s/perf/%s/iter%03d-%s.json", a->dir, a->key, iter, tag))
        return;
    json_t *o = json_load_file(path, 0, NULL);
    if (!o)
        return;
    m->present = true;
    const char *st = json_string_value(json_object_get(o, "status"));
    snprintf(m->status, sizeof m->status, "%s", st ? st : "?");
    m->p = (struct perf_numbers){num(o, "timing", "tflops"), num(o, "timing", "median_ms"),
                                 num(o, "timing", "spread_pct"), num(o, "gpu_state", "sm_clock_median_mhz")};
    perf_quantize(&m->p);
    m->ok = !strcmp(m->status, "ok") && json_is_true(json_object_get(json_object_get(o, "verify"), "passed")) &&
            isfinite(m->p.tflops);
    json_decref(o);
}

/* The failure decision the engine derives from a raw status (gpu.c map_status,
 * decide_failure). */
static enum decision failure_of(const struct raw *m)
{
    if (!strcmp(m->status, "incorrect"))
        return DEC_DISCARD_INCORRECT;
    if (!strcmp(m->status, "timeout"))
        return DEC_DISCARD_TIMEOUT;
    return DEC_DISCARD_RUNTIME_CRASH;
}

static bool same(double x, double y) { return (isnan(x) && isnan(y)) || x == y; }

static void check_numbers(struct audit *a, const struct result_row *row, const struct raw *m, const char *tag)
{
    const double got[] = {row->tflops, row->median_ms, row->spread_pct, row->sm_clock_mhz};
    const double want[] = {m->p.tflops, m->p.median_ms, m->p.spread_pct, m->p.sm_clock_mhz};
    const char *names[] = {"tflops", "median_ms", "spread_pct", "sm_clock_mhz"};
    for (int i = 0; i < 4; i++)
        if (!same(got[i], want[i]))
            problem(a, row->iter, "%s %.6g is not the raw measurement's %.6g (iter%03d-%s.json)", names[i], got[i],
                    want[i], row->iter, tag);
}

static void check_source(struct audit *a, const struct result_row *row)
{
    char want[BACKEND_REL_MAX], path[ENGINE_PATH_MAX], h[BACKEND_HASH_MAX];
    snprintf(want, sizeof want, "srcs/%s/iter%03d.cu", a->key, row->iter);
    if (strcmp(row->kernel, want))
        problem(a, row->iter, "kernel column '%s' is not '%s'", row->kernel, want);
    else if (path_fmt(path, "%s/%s", a->dir, want) || backend_hash_file(path, h))
        problem(a, row->iter, "source %s cannot be read: %s", want, strerror(errno));
    else if (strcmp(h, row->source_hash))
        problem(a, row->iter, "source %s hashes to %s, the row says %s", want, h, row->source_hash);
}

static void check_idea(struct audit *a, const struct result_row *row, const struct idea_log *ideas, size_t i)
{
    if (i >= ideas->n) {
        problem(a, row->iter, "no idea-log line");
        return;
    }
    const struct idea_record *e = &ideas->recs[i];
    if (e->iter != row->iter || strcmp(e->config, row->config) || strcmp(e->source_hash, row->source_hash) ||
        e->decision != row->decision || !same(e->tflops, row->tflops) || !same(e->best_tflops, row->best_tflops))
        problem(a, row->iter, "idea-log line %zu disagrees with the row (iter %d, %s, %.3f TFLOPS)", i + 1, e->iter,
                decision_name(e->decision), e->tflops);
}

/* Each configuration once, over results and attempts (the proposer's promise). */
static void check_new(struct audit *a, const struct result_row *row, const struct result_log *res, size_t i,
                      const struct result_log *att)
{
    struct croq_config cfg;
    char err[256];
    if (knobs_parse_signature(&cfg, row->config, err, sizeof err))
        problem(a, row->iter, "config is not a valid configuration: %s", err);
    for (size_t j = 0; j < i; j++)
        if (!strcmp(res->rows[j].config, row->config))
            problem(a, row->iter, "config repeats iteration %d", res->rows[j].iter);
    for (size_t j = 0; j < att->n; j++)
        if (!strcmp(att->rows[j].config, row->config))
            problem(a, row->iter, "config also failed to compile at iteration %d (attempts.tsv)", att->rows[j].iter);
}

/* The replay of MEASURE and DECIDE (step_measure.c): the best's numbers before a row,
 * updated to after it. */
struct replay {
    bool have_best;
    struct perf_numbers best;
    int best_iter;
};

/* The sanity rule (decide_suspect) fires exactly when a re-measurement exists. */
static void check_sanity(struct audit *a, int iter, const struct raw *cand, const struct raw *re,
                         const struct replay *rp)
{
    const char *why = cand->ok ? decide_suspect(a->dtype, &cand->p, rp->have_best ? &rp->best : NULL) : NULL;
    if (why && !re->present)
        problem(a, iter, "first measurement %.3f TFLOPS was %s but was not re-measured", cand->p.tflops, why);
    if (!why && re->present)
        problem(a, iter, "re-measured (iter%03d-cand-re.json) without a suspect first measurement", iter);
}

/* What the engine must have decided for this row, given its evidence. */
static enum decision replay_row(struct audit *a, const struct result_row *row, struct replay *rp)
{
    struct raw cand, re, best_re;
    raw_read(a, row->iter, "cand", &cand);
    raw_read(a, row->iter, "cand-re", &re);
    raw_read(a, row->iter, "best-re", &best_re);
    if (!cand.present) {
        problem(a, row->iter, "no raw measurement perf/%s/iter%03d-cand.json", a->key, row->iter);
        return row->decision;
    }
    check_sanity(a, row->iter, &cand, &re, rp);
    const struct raw *m = re.present ? &re : &cand;
    if (!m->ok) {
        if (row->measured)
            problem(a, row->iter, "the row has numbers but its raw measurement says '%s'", m->status);
        return failure_of(m);
    }
    if (!row->measured) {
        problem(a, row->iter, "the raw measurement is ok but the row has no numbers");
        return row->decision;
    }
    check_numbers(a, row, m, re.present ? "cand-re" : "cand");
    if (row->iter == 0) {
        *rp = (struct replay){true, m->p, 0};
        return DEC_BASELINE;
    }
    if (!rp->have_best) {
        problem(a, row->iter, "a candidate measured without a best to compare with");
        return row->decision;
    }
    if (best_re.ok)
        rp->best = best_re.p; /* the best's re-measurement is its reference from now on */
    if (re.present && decide_above_peak(a->dtype, &cand.p) && decide_above_peak(a->dtype, &m->p))
        return DEC_DISCARD;
    if (!decide_keep_floor(&m->p, &rp->best, a->floor_pct, NULL))
        return DEC_DISCARD;
    rp->best = m->p, rp->best_iter = row->iter;
    return DEC_KEEP;
}

static void audit_rows(struct audit *a, const struct result_log *res, const struct idea_log *ideas,
                       const struct result_log *att, struct replay *rp)
{
    for (size_t i = 0; i < res->n; i++) {
        const struct result_row *row = &res->rows[i];
        if (row->iter != (int)i) {
            problem(a, row->iter, "row %zu holds iteration %d (rows must be 0, 1, 2, ...)", i + 1, row->iter);
            return; /* everything after would be misattributed */
        }
        check_idea(a, row, ideas, i);
        check_source(a, row);
        check_new(a, row, res, i, att);
        enum decision want = replay_row(a, row, rp);
        if (want != row->decision)
            problem(a, row->iter, "decision %s, but its evidence gives %s", decision_name(row->decision),
                    decision_name(want));
        double best = rp->have_best ? rp->best.tflops : NAN;
        if (!same(row->best_tflops, best))
            problem(a, row->iter, "best_tflops %.3f, but the replay gives %.3f", row->best_tflops, best);
    }
    if (ideas->n > res->n)
        problem(a, -1, "idea-log.jsonl has %zu lines for %zu rows", ideas->n, res->n);
}

/* state.json's best, and the published best kernel of a done shape, are the replay's. */
static void audit_best(struct audit *a, json_t *entry, const struct replay *rp, const struct result_log *res)
{
    json_t *b = json_object_get(entry, "best");
    if (!rp->have_best) {
        if (json_is_object(b))
            problem(a, -1, "state.json has a best but no row produced one");
        return;
    }
    const struct result_row *row = &res->rows[rp->best_iter];
    json_t *t = json_object_get(b, "tflops");
    const char *cfg = json_string_value(json_object_get(b, "config"));
    if (json_integer_value(json_object_get(b, "iter")) != rp->best_iter || !json_is_number(t) ||
        json_number_value(t) != rp->best.tflops || !cfg || strcmp(cfg, row->config))
        problem(a, -1, "state.json's best is not iteration %d at %.3f TFLOPS", rp->best_iter, rp->best.tflops);
    const char *status = json_string_value(json_object_get(entry, "status"));
    if (!status || strcmp(status, "done"))
        return;
    char pub[ENGINE_PATH_MAX], src[ENGINE_PATH_MAX];
    size_t n1, n2;
    if (path_fmt(pub, "%s/kernels/gemm_sp_%s/%s_best.cu", a->dir, croq_dtype_name(a->dtype), a->key) ||
        path_fmt(src, "%s/%s", a->dir, row->kernel))
        return;
    char *x = read_file(pub, &n1), *y = read_file(src, &n2);
    if (!x || !y || n1 != n2 || memcmp(x, y, n1))
        problem(a, -1, "kernels/gemm_sp_%s/%s_best.cu is not %s", croq_dtype_name(a->dtype), a->key, row->kernel);
    free(x);
    free(y);
}

static int load_logs(struct audit *a, struct result_log *res, struct idea_log *ideas, struct result_log *att)
{
    char path[ENGINE_PATH_MAX], err[512];
    memset(res, 0, sizeof *res), memset(ideas, 0, sizeof *ideas), memset(att, 0, sizeof *att);
    const char *leaf[] = {"results.tsv", "idea-log.jsonl", "attempts.tsv"};
    for (int i = 0; i < 3; i++) {
        int rc = path_fmt(path, "%s/logs/%s/%s", a->dir, a->key, leaf[i]) ? -1
                 : i == 1 ? idea_log_read(path, ideas, err, sizeof err)
                          : result_log_read(path, i ? att : res, err, sizeof err);
        if (rc < 0 || (rc == 1 && i == 0)) {
            problem(a, -1, "logs/%s/%s: %s", a->key, leaf[i], rc == 1 ? "missing" : err);
            return -1;
        }
    }
    return 0;
}

static void audit_shape(struct audit *a, json_t *entry)
{
    struct result_log res, att;
    struct idea_log ideas;
    struct replay rp = {.best_iter = -1};
    if (load_logs(a, &res, &ideas, &att) == 0) {
        audit_rows(a, &res, &ideas, &att, &rp);
        audit_best(a, entry, &rp, &res);
        if (res.torn || ideas.torn)
            problem(a, -1, "a log ends in a torn line (a tuner is running, or resume has not run)");
        if (a->problems)
            fprintf(a->out, "%s: %zu rows checked, %d problem(s)\n", a->key, res.n, a->problems);
        else
            fprintf(a->out, "%s: %zu rows re-derived from their evidence\n", a->key, res.n);
    }
    result_log_release(&res);
    result_log_release(&att);
    idea_log_release(&ideas);
}

int engine_audit(const char *dir, const char *only, double noise_floor_pct, FILE *out)
{
    char path[ENGINE_PATH_MAX], err[256];
    json_error_t je;
    if (path_fmt(path, "%s/state.json", dir))
        return -1;
    json_t *state = json_load_file(path, 0, &je);
    json_t *shapes = json_object_get(state, "shapes");
    if (!json_is_object(shapes)) {
        fprintf(out, "%s: %s\n", path, state ? "no 'shapes' object" : je.text);
        json_decref(state);
        return -1;
    }
    int problems = 0, seen = 0;
    const char *key;
    json_t *entry;
    json_object_foreach(shapes, key, entry) {
        struct shape_key sk;
        if (only && strcmp(only, key))
            continue;
        seen++;
        struct audit a = {dir, key, out, 0, 0, noise_floor_pct};
        if (key_parse(key, &sk, err, sizeof err)) {
            problem(&a, -1, "not a shape key: %s", err);
        } else {
            a.dtype = sk.dtype;
            audit_shape(&a, entry);
        }
        problems += a.problems;
    }
    if (only && !seen)
        fprintf(out, "%s: no shape '%s' in state.json\n", path, only), problems++;
    json_decref(state);
    return problems;
}
