/* src/engine/decide.c — the numeric rules of MEASURE and DECIDE (docs/engine.md,
 * "Noise and sanity"). Pure functions: the engine and the tests call the same code.
 */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "target/target.h"

#define SUSPECT_HIGH 1.5 /* a jump this large is more likely a broken run than a win */
#define SUSPECT_LOW 0.5  /* ... or a disturbed one */
/* DECIDE_NOISE_FLOOR_PCT (decide.h), the smallest gain taken as real. Within-run spread
 * understates process-to-process drift: on the H200 (2026-11-29, results/h200/
 * tuning-f16-768) the same kernel measured 132.24 then 130.37 TFLOPS in two runner
 * processes (1.4%), and a 1% floor then kept a change (l2_a 0 -> 64 on 768^3) that
 * cannot matter there. */

bool decide_above_peak(int dtype, const struct perf_numbers *p)
{
    double clock = isfinite(p->sm_clock_mhz) && p->sm_clock_mhz > 0 ? p->sm_clock_mhz : croq_target()->boost_mhz;
    return p->tflops > backend_peak_tflops(dtype, clock);
}

const char *decide_suspect(int dtype, const struct perf_numbers *cand, const struct perf_numbers *best)
{
    if (decide_above_peak(dtype, cand))
        return "above the physical peak at the measured clock";
    if (best && best->tflops > 0) {
        if (cand->tflops > SUSPECT_HIGH * best->tflops)
            return "more than 1.5x the best";
        if (cand->tflops < SUSPECT_LOW * best->tflops)
            return "less than 0.5x the best";
    }
    return NULL;
}

static double spread_or_floor(double s, double floor) { return isfinite(s) && s > floor ? s : floor; }

bool decide_keep_floor(const struct perf_numbers *cand, const struct perf_numbers *best, double floor_pct,
                       double *threshold)
{
    double margin = fmax(spread_or_floor(cand->spread_pct, floor_pct), spread_or_floor(best->spread_pct, floor_pct));
    double t = best->tflops * (1.0 + margin / 100.0);
    if (threshold)
        *threshold = t;
    return cand->tflops > t;
}

/* Why confirm rather than widen the margin: at large shapes the H200's power cap moves the
 * SM clock between timing trials, so the spread (max - min over 5 trials) reached 8-10%
 * and the noise rule discarded a +4.9% gain (results/h200/README.md, f16 4096x8192x8192,
 * 2026-11-29). A spread that wide says how far one trial strays, not how far the median
 * does. Two medians from two runner processes that both beat the best by more than the
 * process-to-process drift (the floor) are the evidence the spread could not give. */
bool decide_confirming(int rules, int dtype, double floor_pct, const struct perf_numbers *cand,
                       const struct perf_numbers *best)
{
    return rules == 2 && best && !decide_suspect(dtype, cand, best) &&
           cand->tflops > best->tflops * (1.0 + floor_pct / 100.0) &&
           !decide_keep_floor(cand, best, floor_pct, NULL);
}

/* Why rules 3 repeats only a measurement above the peak: its 0.5x / 1.5x rules guarded a
 * comparison of two medians from two processes; paired trials compare in one process, and
 * on the H200 (2026-12-01) "below 0.5x the best" re-measured most of the slow kernels of a
 * from-scratch run (147-306 against 678 TFLOPS) for nothing. Above the peak stays: a
 * kernel or a measurement that breaks physics must not be kept on one reading. */
const char *decide_recheck(int rules, int dtype, double floor_pct, const struct perf_numbers *cand,
                           const struct perf_numbers *best)
{
    if (rules >= 3)
        return decide_above_peak(dtype, cand) ? "above the physical peak at the measured clock" : NULL;
    const char *why = decide_suspect(dtype, cand, best);
    if (!why && decide_confirming(rules, dtype, floor_pct, cand, best))
        why = "a gain above the floor but within the measured spread";
    return why;
}

/* Why the higher of the two under rules 2: with confirmations the best is re-measured
 * often, and taking each re-measurement as the new reference let it sink step by step
 * until slower candidates were kept (simulated runs whose trials jitter by tens of percent:
 * 21 KEEPs below the best they replaced in 60 runs, against 0 under rules 1). */
const struct perf_numbers *decide_reference(int rules, const struct perf_numbers *best,
                                            const struct perf_numbers *best_re)
{
    if (!best_re)
        return best;
    return rules >= 2 && best->tflops > best_re->tflops ? best : best_re;
}

bool decide_rebase_on_discard(int rules) { return rules < 2; }

bool decide_keep_as(bool confirming, const struct perf_numbers *cand, const struct perf_numbers *ref,
                    double floor_pct, double *threshold)
{
    if (!confirming)
        return decide_keep_floor(cand, ref, floor_pct, threshold);
    double t = ref->tflops * (1.0 + floor_pct / 100.0);
    if (threshold)
        *threshold = t;
    return cand->tflops > t;
}

double decide_floor_pct(int rules) { return rules >= 3 ? DECIDE_PAIRED_FLOOR_PCT : DECIDE_NOISE_FLOOR_PCT; }

/* Why the lower bound: the interval is where the median speedup lies with 95% confidence
 * given the pair-to-pair noise of this very measurement, so "lo > 1 + floor" keeps a gain
 * only when even its pessimistic end clears the floor. The floor (1%) is below the rules 2
 * one (2%, process-to-process drift) because both kernels share the process, the operands
 * and the clock history; it stays above zero for what pairing cannot cancel (a warm-up
 * that favours whichever kernel runs second is cancelled by the alternating order, a
 * systematic bias of a few tenths of a percent is not). */
static struct decide_verdict decide_paired(const struct decide_case *c)
{
    struct decide_verdict v = {.paired = true, .ref = c->best, .threshold = 1.0 + c->floor_pct / 100.0};
    v.keep = isfinite(c->cand->ratio_lo) && c->cand->ratio_lo > v.threshold;
    return v;
}

struct decide_verdict decide_candidate(const struct decide_case *c)
{
    if (c->rules >= 3)
        return decide_paired(c);
    struct decide_verdict v = {.paired = false};
    v.ref = decide_reference(c->rules, c->best, c->best_re);
    v.confirming = c->remeasured && decide_confirming(c->rules, c->dtype, c->floor_pct, c->first, c->best);
    v.keep = decide_keep_as(v.confirming, c->cand, v.ref, c->floor_pct, &v.threshold);
    return v;
}

bool decide_needs_confirmation(int rules) { return rules >= 4; }

/* Why a second pairing, and why its lower bound only against 1: the screen kept the
 * candidate because its interval cleared 1 + 1% on that very sample, and out of ~150
 * candidates the ones that clear it are more often those whose sample happened to come out
 * high: the kept gains, taken from the screen, add up to more than the kernels gained (H200,
 * 2026-12-01, issue 22: a chain of screen ratios claimed 1.057 where the kernels re-timed
 * side by side differed by 1.016-1.038). The confirmation chose nothing, so its median is
 * an honest estimate of the gain; asking its interval to lie above 1 keeps only gains that
 * are real, and the shape records the gain at the size the confirmation measured. */
struct decide_verdict decide_confirmation(const struct perf_numbers *confirm)
{
    struct decide_verdict v = {.paired = true, .threshold = 1.0 + DECIDE_CONFIRM_FLOOR_PCT / 100.0};
    v.keep = isfinite(confirm->ratio_lo) && confirm->ratio_lo > v.threshold;
    return v;
}

double decide_best_after_keep(int rules, double best_tflops, const struct perf_numbers *cand,
                              const struct perf_numbers *confirm)
{
    if (rules < 4 || !confirm)
        return cand->tflops;
    struct perf_numbers p = {.tflops = best_tflops * confirm->ratio, .median_ms = NAN, .spread_pct = NAN,
                             .sm_clock_mhz = NAN, .ratio = NAN, .ratio_lo = NAN, .ratio_hi = NAN};
    perf_quantize(&p);
    return p.tflops;
}

bool decide_chain_plausible(int dtype, double chained)
{
    return isfinite(chained) && chained > 0 && chained <= backend_peak_tflops(dtype, croq_target()->boost_mhz);
}

enum decision decide_failure(enum cand_status s)
{
    switch (s) {
    case CAND_INCORRECT:
        return DEC_DISCARD_INCORRECT;
    case CAND_TIMEOUT:
        return DEC_DISCARD_TIMEOUT;
    default:
        return DEC_DISCARD_RUNTIME_CRASH;
    }
}

double decide_round(double x, int decimals)
{
    char buf[64];
    if (!isfinite(x))
        return x;
    snprintf(buf, sizeof buf, "%.*f", decimals, x);
    return strtod(buf, NULL);
}

/* The records' precision (src/artifacts/results.h, results_round): fixed decimals, and
 * at least 4 significant digits for the positive quantities, so a tiny shape's TFLOPS do
 * not round to 0; unchanged for every value >= 1 TFLOPS / 0.001 ms / 0.001 speedup. */
void perf_quantize(struct perf_numbers *p)
{
    p->tflops = results_round(p->tflops, RN_TFLOPS);
    p->median_ms = results_round(p->median_ms, RN_MEDIAN_MS);
    p->spread_pct = results_round(p->spread_pct, RN_SPREAD_PCT);
    p->sm_clock_mhz = results_round(p->sm_clock_mhz, RN_SM_CLOCK);
    p->ratio = results_round(p->ratio, RN_RATIO);
    p->ratio_lo = results_round(p->ratio_lo, RN_RATIO);
    p->ratio_hi = results_round(p->ratio_hi, RN_RATIO);
}
