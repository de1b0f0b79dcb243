/* src/engine/audit.c — `croqtuner audit`: every recorded iteration re-derived from its
 * evidence, by someone who does not trust the process that wrote it.
 *
 * The engine's guards hold while it runs; this checks the finished artifacts afterwards,
 * so a row edited by hand, a source swapped after the fact, a deleted or rewritten raw
 * measurement, or a decision the numbers do not support is found by anyone with the
 * tuning directory (docs/engine.md, "Audit"). Per row of results.tsv:
 *   - its idea-log line says the same (iteration, config, source hash, decision, TFLOPS);
 *   - srcs/<key>/iterNNN.cu (whole, or regenerated from its recipe iterNNN.gen.json)
 *     hashes to the row's source_hash, and a recipe is of the row's config, inside the
 *     knobs of the generator it names (its snapshot's knobs.def, src/knobs/space.h);
 *   - its bottleneck is its profile record's, its idea category a known one, and the
 *     idea log's line says the same text; an engine idea is the checkpoint's strategy's
 *     (search_idea_strategy);
 *   - its config is valid; an engine row's config was never tried before (results or
 *     attempts), an agent row's source has tokens no earlier source had (comments and
 *     whitespace aside: util/srcnorm.h), its config being the launch contract it claims;
 *   - perf/<key>/iterNNN-cand.json (iterNNN-cand-re.json when decide_recheck fired, with
 *     iterNNN-best-re.json of the best's config) is there, and the row's numbers are
 *     exactly its quantized numbers, or the row's failure decision matches the raw status;
 *   - the decision and best_tflops are what decide_candidate gives on those numbers,
 *     replayed from the baseline under the rules version of results.tsv line 1 (which
 *     the attempts log and the checkpoint must repeat);
 * then state.json's best and the published best kernel agree with the replay. state.json
 * and the checkpoint are also read as strictly as status and resume read them (a file
 * they refuse is a problem here), and the checkpoint's best must be results.tsv's
 * (checkpoint_check_best).
 */
#include "run.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifacts/srcstore.h"
#include "util/paired.h"
#include "util/atomicio.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/regfile.h"

struct audit {
    const char *dir, *key;
    FILE *out;
    int problems;
    int dtype;
    double floor_pct; /* DECIDE's noise floor to replay with */
    int rules;        /* DECIDE_RULES the shape was decided under (results.tsv line 1) */
    struct croq_shape shape;
    int last; /* the last iteration to check: rows after it are not committed yet (resume) */
    const char *l2; /* the shape's L2 state ("warm" / "cold"); NULL: not known (resume's check) */
    char strategy[24]; /* the checkpoint's search strategy; "": not known */
    /* check_knobs runs ('croqtuner audit'; resume's check of the committed rows leaves it
     * out: such a row is an older croqtuner's mislabel, not an edit, and need not stop
     * the shape); the knob space of the generator the last recipe it read names */
    bool knobs;
    char space_of[GENERATOR_ID_MAX];
    int space_rc; /* 0 read; else this binary's generator, or none readable: nothing to check */
    struct knob_space space;
};

static void problem(struct audit *a, int iter, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Text from the directory (a key that failed key_parse) printed with its control bytes
 * replaced, so a hostile name cannot drive the terminal. */
static void put_safe(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

static void problem(struct audit *a, int iter, const char *fmt, ...)
{
    va_list ap;
    put_safe(a->out, a->key);
    if (iter >= 0)
        fprintf(a->out, " iter %d", iter);
    fputs(": ", a->out);
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
    bool verified;    /* status "ok" and verification passed (a verification-only file) */
    char status[32];
    char config[CROQ_SIG_MAX]; /* the sim backend's raw files name it; "" otherwise */
    struct perf_numbers p;
};

static double num(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(json_object_get(o, a), b);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

void paired_from_raw(json_t *pj, struct perf_numbers *p)
{
    double c[PAIRED_MAX], inc[PAIRED_MAX];
    json_t *ca = json_object_get(pj, "candidate_ms"), *ia = json_object_get(pj, "incumbent_ms");
    size_t n = json_array_size(ca);
    if (!pj || n != json_array_size(ia) || n > PAIRED_MAX)
        return;
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(ca, i), *y = json_array_get(ia, i);
        if (!json_is_number(x) || !json_is_number(y))
            return;
        c[i] = json_number_value(x), inc[i] = json_number_value(y);
    }
    struct paired_stats st;
    if (paired_stats_compute(c, inc, (int)n, &st) == 0)
        p->ratio = st.median, p->ratio_lo = st.lo, p->ratio_hi = st.hi;
}

static void raw_read(struct audit *a, int iter, const char *tag, struct raw *m)
{
    char path[ENGINE_PATH_MAX], err[600];
    memset(m, 0, sizeof *m);
    if (path_fmt(path, "%s/perf/%s/iter%03d-%s.json", a->dir, a->key, iter, tag) || access(path, F_OK))
        return;
    m->present = true;
    /* only regular files are read (regfile.h): a FIFO or /dev/zero planted in the
     * directory must not hang the audit or exhaust memory */
    json_t *o = regfile_is(path) ? regfile_load_json(path, 0, err, sizeof err) : NULL;
    if (!o) {
        problem(a, iter, "raw measurement iter%03d-%s.json %s", iter, tag,
                regfile_is(path) ? "cannot be parsed" : "is not a regular file");
        snprintf(m->status, sizeof m->status, "unreadable");
        return;
    }
    const char *st = json_string_value(json_object_get(o, "status"));
    const char *cfg = json_string_value(json_object_get(o, "config"));
    const char *l2 = json_string_value(json_object_get(o, "l2"));
    if (a->l2 && l2 && strcmp(l2, a->l2) && st && !strcmp(st, "ok"))
        problem(a, iter, "iter%03d-%s.json was timed with a %s L2, the shape with a %s one", iter, tag, l2, a->l2);
    snprintf(m->status, sizeof m->status, "%s", st ? st : "?");
    snprintf(m->config, sizeof m->config, "%s", cfg ? cfg : "");
    m->p = (struct perf_numbers){num(o, "timing", "tflops"), num(o, "timing", "median_ms"),
                                 num(o, "timing", "spread_pct"), num(o, "gpu_state", "sm_clock_median_mhz"),
                                 NAN, NAN, NAN};
    paired_from_raw(json_object_get(o, "paired"), &m->p);
    perf_quantize(&m->p);
    m->verified = !strcmp(m->status, "ok") && json_is_true(json_object_get(json_object_get(o, "verify"), "passed"));
    m->ok = m->verified && isfinite(m->p.tflops);
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

/* The row's source: the whole file, or (kept as a recipe, src/artifacts/srcstore.h) the
 * bytes its recipe regenerates, which must be of the row's config and hash to the row's
 * hash. A source that cannot be regenerated (another codegen version, a generator whose
 * snapshot is gone) is named as such: its record cannot be checked. */
static void check_source(struct audit *a, const struct result_row *row)
{
    char want[BACKEND_REL_MAX], path[ENGINE_PATH_MAX], h[BACKEND_HASH_MAX], err[700];
    struct srcstore_recipe rc;
    snprintf(want, sizeof want, "srcs/%s/iter%03d.cu", a->key, row->iter);
    if (strcmp(row->kernel, want)) {
        problem(a, row->iter, "kernel column '%s' is not '%s'", row->kernel, want);
        return;
    }
    if (path_fmt(path, "%s/%s", a->dir, want))
        return;
    if (access(path, F_OK) == 0) {
        if (!regfile_is(path) || backend_hash_file(path, h))
            problem(a, row->iter, "source %s cannot be read: %s", want, strerror(errno));
        else if (strcmp(h, row->source_hash))
            problem(a, row->iter, "source %s hashes to %s, the row says %s", want, h, row->source_hash);
        return;
    }
    int r = srcstore_recipe_read(a->dir, want, &rc, err, sizeof err);
    if (r) {
        problem(a, row->iter, "source %s: %s", want, r > 0 ? "missing, and no recipe (.gen.json) to regenerate it" : err);
        return;
    }
    if (strcmp(rc.config, row->config))
        problem(a, row->iter, "the recipe of %s is of config %s, the row says %s", want, rc.config, row->config);
    if (strcmp(rc.source_hash, row->source_hash))
        problem(a, row->iter, "the recipe of %s says hash %s, the row says %s", want, rc.source_hash, row->source_hash);
    char *src;
    size_t len;
    if (srcstore_regenerate(a->dir, &rc, &src, &len, err, sizeof err)) {
        problem(a, row->iter, "source %s (a recipe) cannot be checked: %s", want, err);
        return;
    }
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, src, len), h);
    free(src);
    if (strcmp(h, row->source_hash))
        problem(a, row->iter, "source %s regenerated from its recipe (generator %s) hashes to %s, the row says %s",
                want, rc.generator, h, row->source_hash);
}

/* The row's recipe's config lies in the knob space of the generator the recipe names
 * (src/knobs/space.h): a knob or value that generator's kernels do not implement was
 * measured as another configuration under a false name (src/engine/generator_pin.c).
 * Rows without a recipe (an agent's source), recipes of this binary's generator (its own
 * table) and generators whose snapshot cannot be read (check_source names them) are not
 * checked here. */
static void check_knobs(struct audit *a, const struct result_row *row)
{
    char rel[BACKEND_REL_MAX], err[700], why[CROQ_WHY_MAX + 128];
    struct srcstore_recipe rc;
    struct croq_config cfg;
    if (!a->knobs)
        return;
    snprintf(rel, sizeof rel, "srcs/%s/iter%03d.cu", a->key, row->iter);
    if (srcstore_recipe_read(a->dir, rel, &rc, err, sizeof err) ||
        knobs_parse_signature(&cfg, rc.config, err, sizeof err))
        return; /* none, or check_source and check_config name what is wrong with it */
    if (strcmp(a->space_of, rc.generator)) {
        struct generator g;
        generator_current(&g);
        snprintf(a->space_of, sizeof a->space_of, "%s", rc.generator);
        a->space_rc = 1;
        if (strcmp(g.id, rc.generator) && !generator_load(a->dir, rc.generator, &g, err, sizeof err)) {
            a->space_rc = generator_knob_space(g.files, g.codegen_version, &a->space, err, sizeof err);
            generator_release(&g);
            if (a->space_rc < 0)
                problem(a, row->iter, "the knobs of generator %s cannot be read: %s", rc.generator, err);
        }
    }
    if (a->space_rc == 0 && !knob_space_allows(&a->space, &cfg, why, sizeof why))
        problem(a, row->iter, "config outside the knobs of the generator that wrote it: %s", why);
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

/* What makes a row new (docs/agent.md): an engine row's config was never tried before
 * (results or attempts: the proposer's promise); an agent row's source has tokens no
 * earlier candidate or failed compile had (util/srcnorm.h), its config being only the
 * launch contract it claims. tok_res / tok_att: the token hashes of every row's source. */
struct row_sources {
    const struct result_log *res, *att;
    char (*tok_res)[BACKEND_HASH_MAX], (*tok_att)[BACKEND_HASH_MAX];
};

static void check_new_source(struct audit *a, const struct row_sources *rs, size_t i)
{
    const struct result_row *row = &rs->res->rows[i];
    const char *mine = rs->tok_res[i];
    if (!mine[0])
        return; /* check_source names the missing source */
    for (size_t j = 0; j < i; j++)
        if (!strcmp(rs->tok_res[j], mine))
            problem(a, row->iter, "the agent's source has the same tokens as iteration %d's", rs->res->rows[j].iter);
    for (size_t j = 0; j < rs->att->n; j++)
        if (rs->att->rows[j].iter <= row->iter && !strcmp(rs->tok_att[j], mine))
            problem(a, row->iter, "the agent's source has the same tokens as a failed compile of iteration %d "
                    "(attempts.tsv)", rs->att->rows[j].iter);
}

/* The row's config: valid, canonical, of the shape's dtype; for an engine row, tried once
 * over results and attempts; for an agent row, a new source instead. */
static void check_config(struct audit *a, const struct result_row *row, const struct row_sources *rs, size_t i,
                         bool agent)
{
    const struct result_log *res = rs->res, *att = rs->att;
    struct croq_config cfg;
    char err[256], sig[CROQ_SIG_MAX];
    if (knobs_parse_signature(&cfg, row->config, err, sizeof err)) {
        problem(a, row->iter, "config is not a valid configuration: %s", err);
    } else {
        /* the engine writes signatures in table order: any other spelling hides a repeat */
        knobs_signature(&cfg, sig);
        if (strcmp(sig, row->config))
            problem(a, row->iter, "config is not in the engine's canonical form (%s)", sig);
        if (cfg.dtype != a->dtype)
            problem(a, row->iter, "config is for %s, the shape is %s", croq_dtype_name(cfg.dtype),
                    croq_dtype_name(a->dtype));
    }
    if (agent) {
        check_new_source(a, rs, i);
        return;
    }
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
    char best_config[CROQ_SIG_MAX];
};

/* The re-measurement rule (decide_recheck) fires exactly when a re-measurement exists. */
static void check_sanity(struct audit *a, int iter, const struct raw *cand, const struct raw *re,
                         const struct replay *rp)
{
    const char *why =
        cand->ok ? decide_recheck(a->rules, a->dtype, a->floor_pct, &cand->p, rp->have_best ? &rp->best : NULL)
                 : NULL;
    if (why && !re->present)
        problem(a, iter, "first measurement %.3f TFLOPS was %s but was not re-measured", cand->p.tflops, why);
    if (!why && re->present)
        problem(a, iter, "re-measured (iter%03d-cand-re.json) without a suspect first measurement", iter);
}

/* MEASURE re-measures the best whenever it re-measures a candidate and a best exists, and
 * the decision leans on that file: it must be there, and be of the best's config (the sim
 * backend's raw files name it; the runner's do not). */
static void check_best_re(struct audit *a, int iter, const struct raw *re, const struct raw *best_re,
                          const struct replay *rp)
{
    if (re->present && rp->have_best && !best_re->present)
        problem(a, iter, "the candidate was re-measured but the best was not (no iter%03d-best-re.json)", iter);
    if (best_re->present && best_re->config[0] && rp->have_best && strcmp(best_re->config, rp->best_config))
        problem(a, iter, "iter%03d-best-re.json is a measurement of another config than the best (iteration %d)",
                iter, rp->best_iter);
}

/* The row's numbers are the recorded measurement's, or it has none when that failed. */
static void check_recorded(struct audit *a, const struct result_row *row, const struct raw *m, const char *tag)
{
    if (m->ok && !row->measured)
        problem(a, row->iter, "the raw measurement is ok but the row has no numbers");
    else if (!m->ok && row->measured)
        problem(a, row->iter, "the row has numbers but its raw measurement says '%s'", m->status);
    else if (m->ok)
        check_numbers(a, row, m, tag);
    if (m->config[0] && strcmp(m->config, row->config))
        problem(a, row->iter, "the raw measurement iter%03d-%s.json is of another config", row->iter, tag);
}

/* Rules 4: a KEEP by the screen was paired again (iterNNN-cand-confirm.json), and that
 * confirmation decides; nothing else has that file. *confirm gets its numbers (recomputed
 * from its trials) when it kept the candidate. */
static enum decision check_confirm(struct audit *a, int iter, enum decision by_screen, struct raw *confirm)
{
    raw_read(a, iter, "cand-confirm", confirm);
    if (!decide_needs_confirmation(a->rules) || by_screen != DEC_KEEP) {
        if (confirm->present)
            problem(a, iter, "iter%03d-cand-confirm.json exists but the screen gives no KEEP to confirm", iter);
        return by_screen;
    }
    if (!confirm->present) {
        problem(a, iter, "a KEEP by the screen without its confirmation (no iter%03d-cand-confirm.json)", iter);
        return by_screen;
    }
    if (!confirm->ok)
        return failure_of(confirm);
    if (!isfinite(confirm->p.ratio))
        problem(a, iter, "iter%03d-cand-confirm.json holds no paired timing", iter);
    return decide_confirmation(&confirm->p).keep ? DEC_KEEP : DEC_DISCARD;
}

/* Rules 3: a KEEP by the numbers was verified again on a new operand set
 * (iterNNN-cand-fresh.json), and its failure is the row's outcome; nothing else has that
 * file. */
static enum decision check_fresh(struct audit *a, int iter, enum decision by_numbers)
{
    struct raw f;
    raw_read(a, iter, "cand-fresh", &f);
    if (a->rules < 3 || by_numbers != DEC_KEEP) {
        if (f.present)
            problem(a, iter, "iter%03d-cand-fresh.json exists but the numbers give no KEEP to verify", iter);
        return by_numbers;
    }
    if (!f.present) {
        problem(a, iter, "a KEEP without its verification on a new operand set (no iter%03d-cand-fresh.json)", iter);
        return by_numbers;
    }
    return f.verified ? DEC_KEEP : failure_of(&f);
}

/* MEASURE, DECIDE and STORE's update of the best (step_measure.c, step_store.c
 * apply_decision), replayed: what the engine must have decided for this row. */
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
    if (best_re.present && !re.present)
        problem(a, row->iter, "the best was re-measured (iter%03d-best-re.json) but the candidate was not", row->iter);
    check_best_re(a, row->iter, &re, &best_re, rp);
    check_sanity(a, row->iter, &cand, &re, rp);
    const struct raw *m = re.present ? &re : &cand;
    check_recorded(a, row, m, re.present ? "cand-re" : "cand");
    enum decision d;
    if (!m->ok)
        d = failure_of(m);
    else if (re.present && decide_above_peak(a->dtype, &cand.p) && decide_above_peak(a->dtype, &m->p))
        d = DEC_DISCARD; /* above the physical peak twice: broken, whatever the comparison */
    else if (row->iter == 0)
        d = DEC_BASELINE;
    else if (!rp->have_best) {
        problem(a, row->iter, "a candidate measured without a best to compare with");
        return row->decision;
    } else {
        struct decide_case c = {a->rules, a->dtype, a->floor_pct, &cand.p, &m->p, &rp->best,
                                best_re.ok ? &best_re.p : NULL, re.present};
        d = decide_candidate(&c).keep ? DEC_KEEP : DEC_DISCARD;
        if (a->rules >= 3 && !isfinite(m->p.ratio))
            problem(a, row->iter, "decided under rules 3 but iter%03d-%s.json holds no paired timing", row->iter,
                    re.present ? "cand-re" : "cand");
    }
    struct raw confirm;
    d = check_confirm(a, row->iter, d, &confirm);
    if (d == DEC_KEEP && decide_needs_confirmation(a->rules) && rp->have_best &&
        !decide_chain_plausible(a->dtype, decide_best_after_keep(a->rules, rp->best.tflops, &m->p, &confirm.p)))
        d = DEC_DISCARD; /* the chain would pass the physical peak (step_measure.c decide_pending) */
    d = check_fresh(a, row->iter, d);
    if (d == DEC_KEEP || d == DEC_BASELINE) {
        double before = rp->have_best ? rp->best.tflops : NAN;
        *rp = (struct replay){true, m->p, row->iter, ""};
        if (d == DEC_KEEP) /* rules 4: the old best times the confirmed speedup (step_store.c) */
            rp->best.tflops = decide_best_after_keep(a->rules, before, &m->p, confirm.ok ? &confirm.p : NULL);
        rp->best.ratio = rp->best.ratio_lo = rp->best.ratio_hi = NAN; /* as STORE does */
        snprintf(rp->best_config, sizeof rp->best_config, "%s", row->config);
    } else if (best_re.ok && rp->have_best && decide_rebase_on_discard(a->rules))
        rp->best = best_re.p; /* rules 1: the re-measured best is the reference from now on */
    return d;
}

/* A configuration that became the best must be one the knob rules allow for the shape
 * (a discarded one may predate a rule: the 768^3 H200 run tried kernel=1 stages=1). */
static void check_usable(struct audit *a, const struct result_row *row, enum decision d)
{
    struct croq_config cfg;
    char why[CROQ_WHY_MAX];
    if ((d == DEC_KEEP || d == DEC_BASELINE) && !knobs_parse_signature(&cfg, row->config, why, sizeof why) &&
        !knobs_validate(&cfg, &a->shape, why, sizeof why))
        problem(a, row->iter, "the best config breaks the knob rules for the shape: %s", why);
}

/* Text from a file, for a message: cut to fit and its control bytes replaced. */
static const char *shown(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    for (; s[n] && n + 1 < cap; n++)
        buf[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
    buf[n] = '\0';
    return buf;
}

/* The bottleneck IDEATE read for a row: the category of the profile of the best it
 * started from (the sim and replay backends' perf/<key>/iterBBB-profile.json, ncu's
 * perf/<key>/iterBBB-profile/profile.json), "unknown" when that profile failed. false
 * when there is no readable profile record. */
static bool profiled_bottleneck(struct audit *a, int best_iter, char *out, size_t cap)
{
    char path[ENGINE_PATH_MAX], err[600];
    const char *form[] = {"%s/perf/%s/iter%03d-profile.json", "%s/perf/%s/iter%03d-profile/profile.json"};
    for (int i = 0; i < 2; i++) {
        if (path_fmt(path, form[i], a->dir, a->key, best_iter) || !regfile_is(path))
            continue;
        json_t *o = regfile_load_json(path, 0, err, sizeof err);
        const char *cat = json_string_value(json_object_get(o, "category"));
        json_t *ok = json_object_get(o, "ok"); /* absent in the model backends' records: always ok */
        bool have = cat != NULL;
        if (have)
            snprintf(out, cap, "%s", ok && !json_is_true(ok) ? "unknown" : cat);
        json_decref(o);
        return have;
    }
    return false;
}

/* The row's text columns that can be checked (the report shows them): the baseline has
 * no bottleneck and no idea category; every later row's bottleneck is a known name and
 * the one its profile record gives (the best's before the row: rp), its idea category is
 * one the proposer and propose know; and the idea-log line says the same bottleneck,
 * category and idea. */
static void check_text(struct audit *a, const struct result_row *row, const struct idea_log *ideas, size_t i,
                       const struct replay *rp)
{
    char b1[64], b2[64], want[32];
    if (row->iter == 0) {
        if (row->bottleneck[0] || row->category[0])
            problem(a, 0, "the baseline row has bottleneck '%s' and category '%s'; the baseline has neither",
                    shown(row->bottleneck, b1, sizeof b1), shown(row->category, b2, sizeof b2));
    } else {
        if (idea_category_parse(row->category) < 0) {
            char names[128] = "";
            for (int c = 0; c < IDEA_CAT_COUNT; c++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", c ? ", " : "",
                         idea_category_name((enum idea_category)c));
            problem(a, row->iter, "category '%s' is not one of %s", shown(row->category, b1, sizeof b1), names);
        }
        if (bottleneck_parse(row->bottleneck) == BN_UNKNOWN && strcmp(row->bottleneck, "unknown"))
            problem(a, row->iter, "bottleneck '%s' is not a bottleneck category",
                    shown(row->bottleneck, b1, sizeof b1));
        else if (rp->have_best && !profiled_bottleneck(a, rp->best_iter, want, sizeof want))
            problem(a, row->iter, "no profile record of the best it was proposed from (iteration %d) to check "
                    "bottleneck '%s' against", rp->best_iter, row->bottleneck);
        else if (rp->have_best && strcmp(want, row->bottleneck))
            problem(a, row->iter, "bottleneck '%s', but the profile of the best it was proposed from (iteration %d) "
                    "says '%s'", row->bottleneck, rp->best_iter, shown(want, b1, sizeof b1));
    }
    if (i >= ideas->n)
        return; /* check_idea names it */
    const struct idea_record *e = &ideas->recs[i];
    /* an engine idea is its strategy's (src/search: random's and grid's ideas say what they
     * are; every other text is the heuristic's), so a checkpoint edited to another strategy
     * mid-run, which the command line refuses, shows here */
    if (row->iter >= 1 && a->strategy[0] && strcmp(e->origin, "agent")) {
        const char *by = search_idea_strategy(row->idea);
        if (strcmp(by, a->strategy) && strcmp(a->strategy, "agent"))
            problem(a, row->iter, "its idea is the %s strategy's, but the checkpoint records strategy '%s'", by,
                    a->strategy);
    }
    if (strcmp(e->bottleneck, row->bottleneck) || strcmp(e->category, row->category) || strcmp(e->idea, row->idea))
        problem(a, row->iter, "idea-log line %zu gives another bottleneck, category or idea text (%s, %s)", i + 1,
                shown(e->bottleneck, b1, sizeof b1), shown(e->category, b2, sizeof b2));
}

static void audit_rows_with(struct audit *a, const struct row_sources *rs, const struct idea_log *ideas,
                            struct replay *rp)
{
    const struct result_log *res = rs->res;
    for (size_t i = 0; i < res->n && res->rows[i].iter <= a->last; i++) {
        const struct result_row *row = &res->rows[i];
        if (row->iter != (int)i) {
            problem(a, row->iter, "row %zu holds iteration %d (rows must be 0, 1, 2, ...)", i + 1, row->iter);
            return; /* everything after would be misattributed */
        }
        check_idea(a, row, ideas, i);
        check_source(a, row);
        check_knobs(a, row);
        check_config(a, row, rs, i, i < ideas->n && !strcmp(ideas->recs[i].origin, "agent"));
        check_text(a, row, ideas, i, rp); /* before replay_row moves the best past this row */
        enum decision want = replay_row(a, row, rp);
        if (want != row->decision)
            problem(a, row->iter, "decision %s, but its evidence gives %s", decision_name(row->decision),
                    decision_name(want));
        check_usable(a, row, want);
        double best = rp->have_best ? rp->best.tflops : NAN;
        if (!same(row->best_tflops, best))
            problem(a, row->iter, "best_tflops %.3f, but the replay gives %.3f", row->best_tflops, best);
    }
    if (a->last == INT_MAX && ideas->n > res->n)
        problem(a, -1, "idea-log.jsonl has %zu lines for %zu rows", ideas->n, res->n);
}

static void audit_rows(struct audit *a, const struct result_log *res, const struct idea_log *ideas,
                       const struct result_log *att, struct replay *rp)
{
    struct row_sources rs = {res, att, source_token_hashes(a->dir, res), source_token_hashes(a->dir, att)};
    audit_rows_with(a, &rs, ideas, rp);
    free(rs.tok_res);
    free(rs.tok_att);
}

/* The published best kernel, when there is one (a done shape must have it), is the best
 * iteration's source (whole, or regenerated from its recipe). */
static void audit_published(struct audit *a, const struct state_shape *entry, const struct result_row *row)
{
    char pub[ENGINE_PATH_MAX], err[700];
    if (path_fmt(pub, "%s/kernels/gemm_sp_%s/%s_best.cu", a->dir, croq_dtype_name(a->dtype), a->key))
        return;
    bool exists = access(pub, F_OK) == 0;
    if (!exists && !state_shape_done(entry))
        return;
    size_t n1 = 0, n2 = 0;
    char *x = exists && regfile_is(pub) ? read_file(pub, &n1) : NULL, *y = NULL;
    if (srcstore_read(a->dir, row->kernel, &y, &n2, err, sizeof err))
        problem(a, -1, "the best's source cannot be compared with the published kernel: %s", err);
    else if (!x || n1 != n2 || memcmp(x, y, n1))
        problem(a, -1, "kernels/gemm_sp_%s/%s_best.cu is not %s", croq_dtype_name(a->dtype), a->key, row->kernel);
    free(x);
    free(y);
}

/* The final ladder's raw file, re-derived: its entries are the checkpoint's (iterations,
 * configurations) and ones ladder_pick gives, each entry's numbers are what its trials
 * give (backend_ladder_summarise, perf_quantize), and the winner is ladder_winner's. The
 * winner's row index into *winner_row (-1 when the ladder timed nothing). */
static void audit_ladder(struct audit *a, const struct ladder_rec *l, const struct replay *rp,
                         const struct result_log *res, const struct idea_log *ideas, int *winner_row)
{
    char path[ENGINE_PATH_MAX], h[BACKEND_HASH_MAX], err[600];
    int pick[LADDER_MAX];
    *winner_row = -1;
    bool *agent = ladder_agent_rows(res, ideas);
    int np = ladder_pick(res, agent, rp->best_iter, a->dtype, pick);
    free(agent);
    for (int i = 0; i < l->n; i++) {
        bool in = false;
        for (int k = 0; k < np; k++)
            in |= pick[k] == l->e[i].iter;
        const struct result_row *row = l->e[i].iter < (int)res->n ? &res->rows[l->e[i].iter] : NULL;
        if (!in)
            problem(a, -1, "the final ladder timed iteration %d, which the ladder's rule does not pick", l->e[i].iter);
        else if (!row || strcmp(row->config, l->e[i].config) || strcmp(row->kernel, l->e[i].kernel) ||
                 strcmp(row->source_hash, l->e[i].source_hash))
            problem(a, -1, "the final ladder's entry of iteration %d is not that row's configuration and source",
                    l->e[i].iter);
    }
    if (!l->raw_rel[0])
        return; /* nothing ran (no best, one configuration, a backend without a ladder): nothing registered */
    if (l->n < np && !strstr(l->raw_rel, "ladder-final-2.json"))
        problem(a, -1, "the final ladder timed %d of the %d configurations its rule picks, without a failed first "
                "attempt (ladder-final-2.json)", l->n, np);
    if (path_fmt(path, "%s/%s", a->dir, l->raw_rel) || !regfile_is(path) || backend_hash_file(path, h)) {
        problem(a, -1, "the final ladder's raw file %s cannot be read", l->raw_rel);
        return;
    }
    if (strcmp(h, l->raw_hash))
        problem(a, -1, "the final ladder's raw file %s hashes to %s, the checkpoint says %s", l->raw_rel, h, l->raw_hash);
    json_t *o = regfile_load_json(path, 0, err, sizeof err), *es = json_object_get(o, "entries"), *v;
    const char *st = json_string_value(json_object_get(o, "status"));
    struct ladder_req q = {.dir = a->dir, .key = a->key, .shape = a->shape, .n = l->n};
    struct ladder_result lr = {.n = l->n};
    if (!o || !json_is_array(es) || (int)json_array_size(es) != l->n || !st) {
        problem(a, -1, "the final ladder's raw file %s does not list the checkpoint's %d entries", l->raw_rel, l->n);
        json_decref(o);
        return;
    }
    bool ok = !strcmp(st, "ok");
    if (ok != l->ok)
        problem(a, -1, "the final ladder's raw file says '%s', the checkpoint %s", st, l->ok ? "ok" : "failed");
    size_t i;
    json_array_foreach(es, i, v) {
        json_t *t = json_object_get(v, "trial_ms"), *c = json_object_get(v, "sm_clock_mhz");
        struct ladder_entry_result *e = &lr.e[i];
        e->status = CAND_OK;
        if (json_integer_value(json_object_get(v, "iter")) != l->e[i].iter)
            problem(a, -1, "the final ladder's raw entry %zu is not iteration %d", i, l->e[i].iter);
        for (size_t k = 0; k < json_array_size(t) && k < LADDER_MAX_ROUNDS; k++) {
            e->trial_ms[k] = json_number_value(json_array_get(t, k));
            json_t *ck = json_array_get(c, k);
            e->trial_clock_mhz[k] = json_is_integer(ck) ? (int)json_integer_value(ck) : -1;
            e->trials = (int)k + 1;
        }
    }
    json_decref(o);
    if (!ok)
        return;
    backend_ladder_summarise(&q, &lr);
    double med[LADDER_MAX];
    for (int k = 0; k < l->n; k++) {
        struct perf_numbers p = {lr.e[k].tflops, lr.e[k].median_ms, lr.e[k].spread_pct, lr.e[k].sm_clock_mhz,
                                 NAN, NAN, NAN};
        perf_quantize(&p);
        med[k] = decide_round(lr.e[k].rel, 6);
        if (decide_above_peak(a->dtype, &p) || !(p.tflops > 0))
            problem(a, -1, "the final ladder's iteration %d measured %.3f TFLOPS, above the physical peak at %.0f MHz: "
                    "the engine leaves such an entry out", l->e[k].iter, p.tflops, p.sm_clock_mhz);
        if (!same(p.tflops, l->e[k].tflops) || !same(p.median_ms, l->e[k].median_ms) ||
            !same(p.sm_clock_mhz, l->e[k].sm_clock_mhz) || !same(med[k], l->e[k].rel))
            problem(a, -1, "the final ladder's numbers of iteration %d (%.3f TFLOPS) are not its trials' (%.3f)",
                    l->e[k].iter, l->e[k].tflops, p.tflops);
    }
    int w = ladder_winner(med, l->n);
    if (w != l->winner)
        problem(a, -1, "the final ladder's winner is entry %d, its trials give %d", l->winner, w);
    else if (w >= 0)
        *winner_row = l->e[w].iter;
}

/* state.json's "ladder" summary is the checkpoint's record (status and the report show it). */
static void audit_state_ladder(struct audit *a, const struct state_shape *e, const struct ladder_rec *l, int best_iter,
                               double best_tflops)
{
    const struct state_ladder *s = &e->ladder;
    bool ok = e->have_ladder && s->ok == l->ok && s->rounds == l->rounds && s->steady == l->steady &&
              s->n == l->n && s->winner_iter == (l->ok ? l->e[l->winner].iter : -1) &&
              s->tuning_best_iter == best_iter && same(s->tuning_best_tflops, best_tflops) && !strcmp(s->note, l->note);
    for (int i = 0; ok && i < l->n; i++)
        ok = s->e[i].iter == l->e[i].iter && same(s->e[i].tflops, l->e[i].tflops) &&
             same(s->e[i].median_ms, l->e[i].median_ms) && same(s->e[i].spread_pct, l->e[i].spread_pct) &&
             same(s->e[i].sm_clock_mhz, l->e[i].sm_clock_mhz) && same(s->e[i].rel, l->e[i].rel);
    if (!ok)
        problem(a, -1, "state.json's \"ladder\" is not the checkpoint's final ladder");
}

/* state.json's iteration and best, and the published best kernel, are the replay's: the
 * tuning's best, or the final ladder's winner with the ladder's numbers when the
 * checkpoint records a ladder that timed its entries. */
static void audit_best(struct audit *a, const struct state_shape *entry, const struct replay *rp,
                       const struct result_log *res, const struct idea_log *ideas)
{
    const struct state_best *b = &entry->best;
    long long it = entry->iteration; /* -1 too when absent: the check below names it */
    char err[700];
    if (it != (long long)res->n - 1)
        problem(a, -1, "state.json says iteration %lld, results.tsv holds %zu rows (0..%zu)%s", it, res->n,
                res->n - 1, it + 2 == (long long)res->n ? ": a crash before STORE finished; resume adopts the row" : "");
    if (!rp->have_best) {
        if (entry->have_best)
            problem(a, -1, "state.json has a best but no row produced one");
        return;
    }
    struct checkpoint ck;
    int crc = checkpoint_load(a->dir, a->key, &ck, err, sizeof err); /* its problems: check_checkpoint */
    bool laddered = crc == 0 && ck.ladder.done && ck.iteration == (int)res->n - 1;
    if (entry->have_ladder && !laddered)
        problem(a, -1, "state.json records a final ladder the checkpoint does not");
    int want_iter = rp->best_iter, wrow = -1;
    double want_tflops = rp->best.tflops;
    if (laddered) {
        audit_ladder(a, &ck.ladder, rp, res, ideas, &wrow);
        if (wrow >= 0) {
            want_iter = wrow;
            want_tflops = ck.ladder.e[ck.ladder.winner].tflops;
        }
    }
    const struct result_row *row = &res->rows[want_iter];
    if (!entry->have_best || b->iter != want_iter || isnan(b->tflops) || b->tflops != want_tflops ||
        !b->config[0] || strcmp(b->config, row->config) || strcmp(b->kernel, row->kernel) ||
        b->from_ladder != (wrow >= 0) ||
        (wrow >= 0 && !same(b->sm_clock_mhz, ck.ladder.e[ck.ladder.winner].sm_clock_mhz)))
        problem(a, -1, "state.json's best is not iteration %d (%s) at %.3f TFLOPS%s", want_iter, row->kernel,
                want_tflops, wrow >= 0 ? " and the ladder's clock (the final ladder's winner)" : "");
    if (laddered)
        audit_state_ladder(a, entry, &ck.ladder, ck.best.iter, ck.best.p.tflops);
    if (crc == 0)
        checkpoint_release(&ck);
    audit_published(a, entry, row);
}

static int load_logs(struct audit *a, struct result_log *res, struct idea_log *ideas, struct result_log *att)
{
    char path[ENGINE_PATH_MAX], err[512] = "path too long";
    memset(res, 0, sizeof *res), memset(ideas, 0, sizeof *ideas), memset(att, 0, sizeof *att);
    const char *leaf[] = {"results.tsv", "idea-log.jsonl", "attempts.tsv"};
    for (int i = 0; i < 3; i++) {
        int rc = path_fmt(path, "%s/logs/%s/%s", a->dir, a->key, leaf[i]) ? -1
                 : access(path, F_OK)                                     ? 1
                 : !regfile_is(path) ? (snprintf(err, sizeof err, "not a regular file"), -1)
                 : i == 1         ? idea_log_read(path, ideas, err, sizeof err)
                                  : result_log_read(path, i ? att : res, err, sizeof err);
        if (rc < 0 || (rc == 1 && i == 0)) {
            problem(a, -1, "logs/%s/%s: %s", a->key, leaf[i], rc == 1 ? "missing" : err);
            return -1;
        }
    }
    return 0;
}

/* One version of the decision rules per shape: results.tsv's (what the replay uses), the
 * attempts log's and the checkpoint's must agree (a checkpoint without the field, like a
 * log without it, predates versioning: 1). */
static void check_rules(struct audit *a, const struct result_log *res, const struct result_log *att)
{
    char err[600];
    long long rules;
    if (att->backend[0] && att->decide_rules != res->decide_rules)
        problem(a, -1, "attempts.tsv says decision rules %d, results.tsv %d", att->decide_rules, res->decide_rules);
    int rc = checkpoint_decide_rules(a->dir, a->key, &rules, err, sizeof err);
    if (rc < 0)
        problem(a, -1, "%s", err);
    if (rc == 0 && rules != res->decide_rules)
        problem(a, -1, "the checkpoint says decision rules %lld, results.tsv %d (the replay uses results.tsv's)",
                rules, res->decide_rules);
}

/* The checkpoint is read as resume reads it (strictly), and its best must be the one
 * results.tsv committed: anything resume would refuse is a problem here too. */
static void check_checkpoint(struct audit *a, const struct result_log *res)
{
    char err[700];
    struct checkpoint ck;
    int rc = checkpoint_load(a->dir, a->key, &ck, err, sizeof err);
    if (rc == 0)
        snprintf(a->strategy, sizeof a->strategy, "%s", ck.strategy);
    if (rc < 0)
        problem(a, -1, "%s", err);
    else if (rc == 0 && (checkpoint_check_best(&ck, res, err, sizeof err) ||
                         checkpoint_check_ladder(&ck, res, err, sizeof err)))
        problem(a, -1, "checkpoints/%s.json: %s", a->key, err);
    checkpoint_release(&ck);
}

static void audit_shape(struct audit *a, const struct state_shape *entry)
{
    a->l2 = entry->cold_l2 ? "cold" : "warm";
    a->strategy[0] = '\0';
    struct result_log res, att;
    struct idea_log ideas;
    struct replay rp = {.best_iter = -1};
    if (load_logs(a, &res, &ideas, &att) == 0) {
        a->rules = res.decide_rules;
        if (a->floor_pct < 0) /* no --noise-floor: the floor of the shape's rules */
            a->floor_pct = decide_floor_pct(a->rules);
        check_rules(a, &res, &att);
        check_checkpoint(a, &res);
        audit_rows(a, &res, &ideas, &att, &rp);
        audit_best(a, entry, &rp, &res, &ideas);
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

/* A shape's logs with no state.json entry: a shape dropped from state.json takes its
 * rows out of every report, so it is named (resume restores it from its checkpoint). */
static int unlisted_logs(const char *dir, json_t *state, FILE *out)
{
    char path[ENGINE_PATH_MAX];
    int n = 0;
    DIR *d = path_fmt(path, "%s/logs", dir) ? NULL : opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        struct state_shape s;
        if (e->d_name[0] == '.' || state_shape_get(state, e->d_name, &s))
            continue;
        put_safe(out, e->d_name);
        fprintf(out, ": logs/ holds this shape but state.json does not ('croqtuner resume' restores it from its "
                     "checkpoint)\n");
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

int engine_audit(const char *dir, const char *only, double noise_floor_pct, FILE *out)
{
    char path[ENGINE_PATH_MAX], err[600];
    if (path_fmt(path, "%s/state.json", dir))
        return -1;
    json_t *state = state_load_unchecked(dir, err, sizeof err);
    if (!state) {
        fprintf(out, "%s\n", err);
        return -1;
    }
    int problems = 0, seen = 0;
    /* what status and resume refuse (a duplicate member, an unknown enum, a number out of
     * range) is a problem; the shapes are still audited one by one below */
    json_t *strict = state_load(dir, err, sizeof err);
    if (!strict)
        fprintf(out, "%s\n", err), problems++;
    size_t nr;
    const char **refused = strict ? state_refused_keys(strict, &nr) : NULL;
    for (size_t i = 0; refused && i < nr; i++) { /* the shape is unreadable for them, the file is not */
        if (only && strcmp(only, refused[i]))
            continue;
        state_shape_refused(strict, refused[i], err, sizeof err);
        fprintf(out, "%s: its state.json entry is refused by status and resume: %s\n", refused[i], err);
        problems++;
    }
    free(refused);
    json_decref(strict);
    size_t n;
    const char **keys = state_shape_keys(state, &n);
    for (size_t i = 0; i < n; i++) {
        const char *key = keys[i];
        struct shape_key sk;
        struct state_shape entry;
        if (only && strcmp(only, key))
            continue;
        seen++;
        state_shape_get(state, key, &entry);
        struct audit a = {.dir = dir, .key = key, .out = out, .floor_pct = noise_floor_pct, .rules = 1, .last = INT_MAX,
                          .knobs = true};
        if (key_parse(key, &sk, err, sizeof err)) {
            problem(&a, -1, "not a shape key: %s", err);
        } else {
            a.dtype = sk.dtype, a.shape = sk.shape;
            audit_shape(&a, &entry);
        }
        problems += a.problems;
    }
    free(keys);
    if (only && !seen)
        fprintf(out, "%s: no shape '%s' in state.json\n", path, only), problems++;
    if (!only)
        problems += unlisted_logs(dir, state, out);
    json_decref(state);
    return problems;
}

int audit_committed(const char *dir, const struct shape_key *k, const char *key, int last_iter, char *err,
                    size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) {
        snprintf(err, errlen, "cannot check the logs of '%s': out of memory", key);
        return 1;
    }
    struct audit a = {.dir = dir, .key = key, .out = out, .dtype = k->dtype, .floor_pct = -1, .rules = 1,
                      .shape = k->shape, .last = last_iter};
    struct result_log res, att;
    struct idea_log ideas;
    struct replay rp = {.best_iter = -1};
    if (load_logs(&a, &res, &ideas, &att) == 0) {
        a.rules = res.decide_rules;
        a.floor_pct = decide_floor_pct(a.rules); /* the floor the engine decided with */
        check_rules(&a, &res, &att);
        audit_rows(&a, &res, &ideas, &att, &rp);
    }
    result_log_release(&res);
    result_log_release(&att);
    idea_log_release(&ideas);
    fclose(out);
    /* the first problems, one line each, joined */
    for (char *p = text; p && *p; p++)
        if (*p == '\n')
            *p = p[1] ? ';' : '\0';
    snprintf(err, errlen, "%s", text ? text : "");
    free(text);
    return a.problems;
}
