/* src/engine/step_measure.c — MEASURE and DECIDE.
 *
 * MEASURE: health check, then the backend verifies and times the candidate in a child
 * process. A first result that must be repeated (decide_recheck: above the physical peak
 * at its clock, outside 0.5x..1.5x the best, or under rules 2 a gain above the floor but
 * within the spread) is measured again together with the best, and the second numbers
 * are recorded, the note saying so; above the peak twice is a DISCARD. The checkpoint
 * then keeps the measurement with its raw file's path and hash: the evidence DECIDE and
 * STORE insist on.
 * DECIDE: KEEP only when the gain exceeds the measured noise, or a confirmed gain the
 * floor (decide_keep_as against decide_reference, under the shape's rules version).
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "target/target.h"
#include "util/atomicio.h"
#include "util/hash.h"
#include "util/log.h"

static void to_rec(struct run *r, const struct cand_result *m, struct measure_rec *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->status = m->status;
    snprintf(rec->reason, sizeof rec->reason, "%s", m->reason);
    rec->p = (struct perf_numbers){m->tflops, m->median_ms, m->spread_pct, m->sm_clock_mhz,
                                   m->ratio, m->ratio_lo, m->ratio_hi};
    if (m->status != CAND_OK)
        rec->p = (struct perf_numbers){NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    perf_quantize(&rec->p);
    rec->hw_eff_pct = m->status == CAND_OK ? results_round(m->hw_eff_pct, RN_HW_EFF_PCT) : NAN;
    rec->max_err_over_tol = m->status == CAND_OK || m->status == CAND_INCORRECT ? m->max_err_over_tol : NAN;
    snprintf(rec->raw_rel, sizeof rec->raw_rel, "%s", m->raw_rel);
    snprintf(rec->raw_hash, sizeof rec->raw_hash, "%s", m->raw_hash);
    snprintf(rec->command, sizeof rec->command, "%s", m->command);
    snprintf(rec->health, sizeof rec->health, "%s", r->ck.health);
    /* tool output (runner errors, stderr) must not make the checkpoint unwritable */
    idea_text_sanitize(rec->reason);
    idea_text_sanitize(rec->command);
    idea_text_sanitize(rec->health);
}

/* A candidate whose measurement took the tuner process down this many times is not run
 * again: it is recorded as a crash, so the loop moves on instead of dying at every resume. */
#define IN_FLIGHT_MAX 2

/* The outcome of a candidate that never came back: a crash, with a raw file saying why (the
 * audit replays it like a runner that died). 0 or an engine_rc. */
static int lost_candidate(struct run *r, const char *tag, struct cand_result *m)
{
    char path[ENGINE_PATH_MAX];
    memset(m, 0, sizeof *m);
    m->status = CAND_CRASH;
    snprintf(m->reason, sizeof m->reason, "the tuner process died %d times while this candidate was measured "
             "(taken down with its runner?): recorded as a crash, not run again", r->ck.pending.in_flight);
    snprintf(m->raw_rel, sizeof m->raw_rel, "perf/%s/iter%03d-%s.json", r->ck.key, r->ck.pending.iter, tag);
    json_t *j = json_pack("{s:i, s:s, s:s, s:i}", "schema", 1, "status", "crash", "error", m->reason, "in_flight",
                          r->ck.pending.in_flight);
    char *text = j ? json_dumps(j, JSON_INDENT(1)) : NULL;
    json_decref(j);
    int rc = !text || path_fmt(path, "%s/%s", r->dir, m->raw_rel) || atomic_write_str(path, text) ||
             backend_hash_file(path, m->raw_hash);
    free(text);
    return rc ? run_fail(r, "cannot write '%s': %s", m->raw_rel, strerror(errno)) : 0;
}

/* An operand seed never used before in the shape (a KEEP's verification, an agent's
 * candidate): FNV-1a 64 of (seed, key, iteration, tag), 62 bits (a JSON integer), never
 * the shape's own seed. Deterministic, so a resumed run asks for the same set. */
static unsigned long long fresh_seed(const struct run *r, const char *tag)
{
    char it[32];
    snprintf(it, sizeof it, "%d", r->ck.pending.iter);
    uint64_t h = hash_fnv1a64(HASH_FNV1A64_INIT, &r->ck.seed, sizeof r->ck.seed);
    h = hash_fnv1a64_str(hash_fnv1a64_str(hash_fnv1a64_str(h, r->ck.key), it), tag);
    h &= (1ull << 62) - 1;
    return h == r->ck.seed ? h ^ 1 : h;
}

/* Where a measurement's time went: the backend says how much was verifying and timing. */
static void account(struct run *r, double wall_s, const struct cand_result *m)
{
    double v = m->verify_s > 0 ? m->verify_s : 0, t = m->time_s > 0 ? m->time_s : 0;
    r->spent_s[SPENT_VERIFY] += v;
    r->spent_s[SPENT_TIME] += t;
    r->spent_s[SPENT_OTHER] += wall_s > v + t ? wall_s - v - t : 0;
}

/* What one measurement is for. */
enum what {
    M_CAND,    /* the pending candidate: paired with the best under rules 3 and 4 */
    M_BEST,    /* the best, alone (the sanity rule's re-measurement) */
    M_VERIFY,  /* the candidate verified on an operand set never used in the shape, not timed */
    M_CONFIRM, /* rules 4: the candidate paired with the best again, every pair */
};

/* Health check, then one measurement (enum what). 0 with *rec filled, or an engine_rc. A
 * candidate's measurement with a backend that runs its code is bracketed by a durable
 * in-flight count (docs/engine.md, "Crash safety"). */
static int measure_one(struct run *r, const char *tag, enum what what, struct measure_rec *rec)
{
    bool best = what == M_BEST, verify_only = what == M_VERIFY;
    struct croq_config cfg, inc;
    struct cand_req q;
    struct cand_result m;
    char err[256];
    struct pending *p = &r->ck.pending;
    bool watch = !best && r->be->runs_candidates;
    if (watch && p->in_flight >= IN_FLIGHT_MAX) {
        log_warn("%s: iteration %d: the tuner died %d times while measuring this candidate; it is recorded as a "
                 "crash", r->ck.key, p->iter, p->in_flight);
        int rc = lost_candidate(r, tag, &m);
        p->in_flight = 0;
        if (!rc)
            to_rec(r, &m, rec);
        return rc;
    }
    int rc = health_wait(r, r->ck.pending.iter);
    if (rc)
        return rc;
    if (knobs_parse_signature(&cfg, best ? r->ck.best.config : r->ck.pending.config, err, sizeof err))
        return run_fail(r, "shape '%s': config: %s", r->ck.key, err);
    if (run_best_source(r)) /* measured alone, or as the incumbent beside the candidate */
        return ENGINE_FAILED;
    run_req(r, &q, tag, best, &cfg);
    q.iter = r->ck.pending.iter;
    q.no_time = verify_only;
    if (verify_only || (!best && r->ck.pending.agent))
        q.verify_seed = fresh_seed(r, tag);
    if (!best && !verify_only && r->ck.decide_rules >= 3 && r->ck.have_best) {
        if (knobs_parse_signature(&inc, r->ck.best.config, err, sizeof err))
            return run_fail(r, "shape '%s': best config: %s", r->ck.key, err);
        q.incumbent_cfg = &inc;
        q.incumbent_src_rel = r->ck.best.kernel;
        q.all_pairs = what == M_CONFIRM; /* a confirmation measures, it does not screen */
    }
    if (watch) { /* saved before the candidate runs: a death in it is on record */
        p->in_flight++;
        if (run_save(r))
            return ENGINE_FAILED;
    }
    double t0 = engine_mono_s();
    int brc = r->be->measure(r->be, &q, &m);
    account(r, engine_mono_s() - t0, &m);
    /* it came back, whatever it says: saved now, as an exit below (GPU unusable, another
     * model, an error) saves nothing else, and a count left on disk would let two orderly
     * exits read as two deaths of the tuner */
    p->in_flight = 0;
    if (watch && run_save(r))
        return ENGINE_FAILED;
    if (brc)
        return run_fail(r, "shape '%s' iteration %d: %s", r->ck.key, q.iter, m.reason);
    if (m.status == CAND_UNUSABLE) {
        run_fail(r, "the GPU is unusable: %s; shape '%s' continues with 'croqtuner resume --tuning %s' once it "
                 "is back", m.reason, r->ck.key, r->dir);
        return ENGINE_GPU_GONE;
    }
    /* A shape's numbers are compared with its best: all of them must come from one GPU
     * model. The first measurement that names its GPU (the baseline's) fixes it. */
    if (m.gpu[0] && r->ck.gpu[0] && strcmp(m.gpu, r->ck.gpu))
        return run_fail(r, "shape '%s' is measured on '%s' (its baseline and best), but this GPU is '%s': numbers "
                        "of another model are not comparable, so nothing of iteration %d was recorded; continue it "
                        "on a '%s', or tune the shape on this GPU in another --tuning directory", r->ck.key,
                        r->ck.gpu, m.gpu, q.iter, r->ck.gpu);
    /* Every backend refuses numbers it cannot stand behind (a failed measurement, with a raw
     * file that says so); what still fails here (a reply for another problem) is recorded
     * nowhere: the shape stops with the reason, and resume measures it again. */
    char bad[400];
    if (backend_result_check(&q, &m, bad, sizeof bad))
        return run_fail(r, "shape '%s' iteration %d: the measurement's numbers cannot be recorded: %s; nothing of it "
                        "was recorded", r->ck.key, q.iter, bad);
    if (m.gpu[0] && !r->ck.gpu[0])
        snprintf(r->ck.gpu, sizeof r->ck.gpu, "%s", m.gpu);
    to_rec(r, &m, rec);
    if (m.remark[0]) { /* e.g. a reply of another module refused and measured again: the row says so */
        size_t n = strlen(p->note);
        snprintf(p->note + n, sizeof p->note - n, "%s%s (%s)", n ? "; " : "", m.remark, tag);
        idea_text_sanitize(p->note);
    }
    return 0;
}

static void note_fmt(struct pending *p, const char *fmt, double a, double b, double c)
{
    size_t n = strlen(p->note);
    snprintf(p->note + n, sizeof p->note - n, fmt, a, b, c);
}

/* The sanity rule fired: measure candidate and best again; record the second run. */
static int remeasure(struct run *r, const char *why)
{
    struct pending *p = &r->ck.pending;
    int rc;
    p->remeasured = true;
    p->cand_first = p->cand;
    if ((rc = measure_one(r, "cand-re", M_CAND, &p->cand)))
        return rc;
    if (r->ck.have_best && (rc = measure_one(r, "best-re", M_BEST, &p->best_re)))
        return rc;
    p->best_remeasured = r->ck.have_best;
    size_t n = strlen(p->note); /* a remark of the measurements is kept */
    snprintf(p->note + n, sizeof p->note - n, "%sfirst run %.3f TFLOPS was %s: candidate", n ? "; " : "",
             p->cand_first.p.tflops, why);
    if (p->best_remeasured)
        note_fmt(p, " and best re-measured (best %.3f -> %.3f TFLOPS)", r->ck.best.p.tflops, p->best_re.p.tflops, 0);
    else
        note_fmt(p, " re-measured", 0, 0, 0);
    note_fmt(p, "; recorded numbers are the re-measurement", 0, 0, 0);
    return 0;
}

/* Outcome when the numbers need no comparison: failure, or physically impossible. */
static bool forced_outcome(struct run *r)
{
    struct pending *p = &r->ck.pending;
    if (p->cand.status != CAND_OK) {
        p->decision = decide_failure(p->cand.status);
        size_t n = strlen(p->note);
        snprintf(p->note + n, sizeof p->note - n, "%s%s", n ? "; " : "", p->cand.reason);
        return true;
    }
    if (p->remeasured && decide_above_peak(r->ck.sk.dtype, &p->cand_first.p) &&
        decide_above_peak(r->ck.sk.dtype, &p->cand.p)) {
        p->decision = DEC_DISCARD;
        double peak = backend_peak_tflops(r->ck.sk.dtype, p->cand.p.sm_clock_mhz);
        note_fmt(p, "; DISCARD: above the physical peak twice (%.3f > %.3f TFLOPS at %.0f MHz): the measurement "
                 "or the kernel is broken", p->cand.p.tflops, peak, p->cand.p.sm_clock_mhz);
        return true;
    }
    return false;
}

/* A measurement killed before its checkpoint leaves raw files that no record refers to.
 * A re-measurement file of this iteration would then read as evidence (croqtuner audit)
 * if the redone first measurement is not suspect, so it is moved aside, not deleted. */
static void set_aside_stale(struct run *r, int iter)
{
    static const char *const tags[] = {"cand-re", "best-re", "cand-fresh"};
    for (int i = 0; i < 3; i++) {
        char from[ENGINE_PATH_MAX], to[ENGINE_PATH_MAX];
        if (path_fmt(from, "%s/perf/%s/iter%03d-%s.json", r->dir, r->ck.key, iter, tags[i]) ||
            path_fmt(to, "%s.interrupted", from) || rename(from, to))
            continue;
        log_warn("%s: iteration %d: '%s' is from a measurement cut off by a crash: kept as '%s'", r->ck.key, iter,
                 from, to);
    }
}

static struct decide_verdict pending_verdict(struct run *r)
{
    struct pending *p = &r->ck.pending;
    /* ck.best is still the best the first measurement was compared with (STORE moves it) */
    struct decide_case c = {r->ck.decide_rules, r->ck.sk.dtype, decide_floor_pct(r->ck.decide_rules),
                            p->remeasured ? &p->cand_first.p : &p->cand.p, &p->cand.p, &r->ck.best.p,
                            p->best_remeasured && p->best_re.status == CAND_OK ? &p->best_re.p : NULL, p->remeasured};
    return decide_candidate(&c);
}

/* A further measurement of a candidate the decision so far keeps (tag, what): done, its
 * record in *rec and *checked set; a failure fixes the outcome (*forced) as that failure,
 * the note saying `failed` (what failed) after the screen's speedup. 0 or an engine_rc. */
static int keep_check(struct run *r, const char *tag, enum what what, struct measure_rec *rec, bool *checked,
                      const char *failed, bool *forced)
{
    struct pending *p = &r->ck.pending;
    int rc = measure_one(r, tag, what, rec);
    if (rc)
        return rc;
    *checked = true;
    if (rec->status == CAND_OK)
        return 0;
    p->decision = decide_failure(rec->status);
    size_t n = strlen(p->note);
    snprintf(p->note + n, sizeof p->note - n, "%sfaster than the best (speedup %.4f [%.4f, %.4f]), but %s failed: %s",
             n ? "; " : "", p->cand.p.ratio, p->cand.p.ratio_lo, p->cand.p.ratio_hi, failed, rec->reason);
    *forced = true;
    return 0;
}

/* Does the decision so far keep the candidate (rules 4: the screen and its confirmation)? */
static bool kept_so_far(struct run *r)
{
    struct pending *p = &r->ck.pending;
    if (!pending_verdict(r).keep)
        return false;
    if (!decide_needs_confirmation(r->ck.decide_rules))
        return true;
    return p->confirm_checked && p->confirm.status == CAND_OK && decide_confirmation(&p->confirm.p).keep &&
           decide_chain_plausible(r->ck.sk.dtype, decide_best_after_keep(r->ck.decide_rules, r->ck.best.p.tflops,
                                                                        &p->cand.p, &p->confirm.p));
}

/* Rules 4: a candidate the screen keeps is paired with the best again (every pair, an
 * independent sample: decide.c says why). Rules 3 and 4: a candidate the numbers keep is
 * verified once more, on an operand set never used in the shape, so no kernel is kept for
 * reproducing outputs it has seen. Either failure fixes the outcome (*forced). */
static int keep_checks(struct run *r, bool *forced)
{
    struct pending *p = &r->ck.pending;
    int rc;
    if (!r->ck.have_best)
        return 0;
    if (decide_needs_confirmation(r->ck.decide_rules) && pending_verdict(r).keep &&
        ((rc = keep_check(r, "cand-confirm", M_CONFIRM, &p->confirm, &p->confirm_checked, "its confirmation",
                          forced)) || *forced))
        return rc;
    if (r->ck.decide_rules >= 3 && kept_so_far(r))
        return keep_check(r, "cand-fresh", M_VERIFY, &p->fresh, &p->fresh_checked,
                          "the verification on a new operand set", forced);
    return 0;
}

int measure_pending(struct run *r, bool baseline)
{
    struct pending *p = &r->ck.pending;
    int rc;
    set_aside_stale(r, p->iter);
    p->note[0] = '\0';
    p->remeasured = p->best_remeasured = p->fresh_checked = p->confirm_checked = false;
    if ((rc = measure_one(r, "cand", M_CAND, &p->cand)))
        return rc;
    crashpoint("measure.first");
    if (baseline)
        r->ck.health_checked = true; /* the guard of BASELINE: a health check preceded it */
    const char *why = p->cand.status == CAND_OK
                          ? decide_recheck(r->ck.decide_rules, r->ck.sk.dtype, decide_floor_pct(r->ck.decide_rules), &p->cand.p,
                                           r->ck.have_best ? &r->ck.best.p : NULL)
                          : NULL;
    if (why && (rc = remeasure(r, why)))
        return rc;
    p->measured = true;
    bool forced = forced_outcome(r);
    if (!forced && !baseline && (rc = keep_checks(r, &forced)))
        return rc;
    if (baseline) {
        if (!forced)
            p->decision = DEC_BASELINE;
    } else {
        if (!forced)
            p->decision = DEC_DISCARD; /* placeholder until DECIDE; never stored as such */
        if (run_goto(r, forced ? PH_STORE : PH_DECIDE))
            return ENGINE_FAILED;
    }
    if (run_save(r))
        return ENGINE_FAILED;
    crashpoint("measure.saved");
    return 0;
}

int step_measure(struct run *r) { return measure_pending(r, false); }

static int check_file(struct run *r, const struct measure_rec *m)
{
    char path[ENGINE_PATH_MAX], h[BACKEND_HASH_MAX];
    if (!m->raw_rel[0])
        return 0;
    if (path_fmt(path, "%s/%s", r->dir, m->raw_rel) || backend_hash_file(path, h))
        return run_fail(r, "evidence '%s' of shape '%s' cannot be read (%s); nothing is decided without it",
                        m->raw_rel, r->ck.key, strerror(errno));
    if (strcmp(h, m->raw_hash))
        return run_fail(r, "evidence '%s' of shape '%s' changed after it was measured (hash %s, recorded %s); "
                        "nothing is decided on it", m->raw_rel, r->ck.key, h, m->raw_hash);
    return 0;
}

int evidence_check(struct run *r)
{
    struct pending *p = &r->ck.pending;
    if (!p->active || !p->measured)
        return run_fail(r, "shape '%s': no measurement to decide on (guard of DECIDE/STORE)", r->ck.key);
    if (check_file(r, &p->cand) || (p->remeasured && check_file(r, &p->cand_first)) ||
        (p->best_remeasured && check_file(r, &p->best_re)) || (p->confirm_checked && check_file(r, &p->confirm)) ||
        (p->fresh_checked && check_file(r, &p->fresh)))
        return ENGINE_FAILED;
    return 0;
}

/* KEEP or DISCARD from the recorded numbers (pure: resume recomputes the same). */
void decide_pending(struct run *r)
{
    struct pending *p = &r->ck.pending;
    struct decide_verdict v = pending_verdict(r);
    bool confirming = decide_needs_confirmation(r->ck.decide_rules) && v.keep;
    struct decide_verdict cv = confirming && p->confirm_checked ? decide_confirmation(&p->confirm.p)
                                                                : (struct decide_verdict){0};
    double chained = confirming && cv.keep ? decide_best_after_keep(r->ck.decide_rules, r->ck.best.p.tflops,
                                                                     &p->cand.p, &p->confirm.p) : NAN;
    bool implausible = confirming && cv.keep && !decide_chain_plausible(r->ck.sk.dtype, chained);
    p->decision = v.keep && (!confirming || cv.keep) && !implausible ? DEC_KEEP : DEC_DISCARD;
    size_t n = strlen(p->note);
    if (v.paired)
        snprintf(p->note + n, sizeof p->note - n,
                 "%sspeedup over the best %.4f, 95%% interval [%.4f, %.4f] (%s paired trials): lower bound %s %.4f "
                 "= 1 + %.0f%%", n ? "; " : "", p->cand.p.ratio, p->cand.p.ratio_lo, p->cand.p.ratio_hi,
                 "alternating", v.keep ? ">" : "<=", v.threshold, decide_floor_pct(r->ck.decide_rules));
    else if (v.confirming)
        snprintf(p->note + n, sizeof p->note - n, "%s%.3f %s %.3f = best %.3f x (1 + %.0f%%): the gain %s",
                 n ? "; " : "", p->cand.p.tflops, v.keep ? ">" : "<=", v.threshold, v.ref->tflops,
                 DECIDE_NOISE_FLOOR_PCT, v.keep ? "held in both measurements" : "did not hold when measured again");
    else
        snprintf(p->note + n, sizeof p->note - n,
                 "%s%.3f %s %.3f = best %.3f x (1 + max(spread %.2f%%, %.2f%%, %.0f%%))", n ? "; " : "",
                 p->cand.p.tflops, v.keep ? ">" : "<=", v.threshold, v.ref->tflops, p->cand.p.spread_pct,
                 v.ref->spread_pct, DECIDE_NOISE_FLOOR_PCT);
    n = strlen(p->note);
    if (confirming)
        snprintf(p->note + n, sizeof p->note - n,
                 "; paired again to confirm: %.4f [%.4f, %.4f], lower bound %s %.4f%s", p->confirm.p.ratio,
                 p->confirm.p.ratio_lo, p->confirm.p.ratio_hi, cv.keep ? ">" : "<=", cv.threshold,
                 !cv.keep ? ": not confirmed" : implausible ? "" : ": the gain recorded is the confirmation's");
    n = strlen(p->note);
    if (implausible)
        snprintf(p->note + n, sizeof p->note - n, "; but the best would then be %.3f TFLOPS, above the physical peak "
                 "%.3f: the pairings are broken, not kept", chained, backend_peak_tflops(r->ck.sk.dtype, croq_target()->boost_mhz));
    n = strlen(p->note);
    if (p->decision == DEC_KEEP && p->fresh_checked)
        snprintf(p->note + n, sizeof p->note - n, "; verified again on a new operand set");
}

int step_decide(struct run *r)
{
    if (!r->ck.have_best)
        return run_fail(r, "shape '%s': nothing to compare with (guard of DECIDE: no best)", r->ck.key);
    if (evidence_check(r))
        return ENGINE_FAILED;
    decide_pending(r);
    return run_goto(r, PH_STORE);
}
