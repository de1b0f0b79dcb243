/* src/measure/numbers.c — ranges and consistency of a measurement's numbers (numbers.h). */
#include "numbers.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/paired.h"

void measure_numbers_init(struct measure_numbers *x)
{
    memset(x, 0, sizeof *x);
    x->median_ms = x->spread_pct = x->tflops = x->sm_clock_mhz = x->hw_eff_pct = x->peak_tflops = NAN;
    x->max_err_over_tol = x->inc_median_ms = x->inc_tflops = x->ratio = x->ratio_lo = x->ratio_hi = NAN;
}

struct chk {
    char *why;
    size_t len;
    bool failed;
};

static void fail(struct chk *c, const char *fmt, ...)
{
    if (c->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, c->len, fmt, ap);
    va_end(ap);
    c->failed = true;
}

static bool positive(struct chk *c, const char *field, double v)
{
    if (isfinite(v) && v > 0)
        return true;
    fail(c, "%s %.7g is not a positive number", field, v);
    return false;
}

static bool non_negative(struct chk *c, const char *field, double v)
{
    if (isfinite(v) && v >= 0)
        return true;
    fail(c, "%s %.7g is not a number >= 0", field, v);
    return false;
}

static bool close_to(double got, double want, double abs_tol)
{
    return fabs(got - want) <= MEASURE_REL_TOL * fmax(fabs(got), fabs(want)) + abs_tol;
}

/* n per-launch times: each positive; idx_of names the field of element i. */
static bool times_ok(struct chk *c, const char *field, const double *t, int n)
{
    char name[64];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s[%d]", field, i);
        if (!positive(c, name, t[i]))
            return false;
    }
    return true;
}

static void check_trials(struct chk *c, const struct measure_numbers *x)
{
    if (x->n_trials < 1 || x->n_trials > PAIRED_MAX || !x->trial_ms) {
        if (x->n_trials)
            fail(c, "timing.trials holds %d trials (1..%d)", x->n_trials, PAIRED_MAX);
        return;
    }
    if (!times_ok(c, "timing.trials", x->trial_ms, x->n_trials))
        return;
    double lo = x->trial_ms[0], hi = x->trial_ms[0];
    for (int i = 1; i < x->n_trials; i++)
        lo = fmin(lo, x->trial_ms[i]), hi = fmax(hi, x->trial_ms[i]);
    double med = paired_median(x->trial_ms, x->n_trials);
    if (!close_to(x->median_ms, med, 0))
        fail(c, "timing.median_ms %.7g is not the median of timing.trials (%.7g)", x->median_ms, med);
    double spread = (hi - lo) / med * 100.0;
    if (!close_to(x->spread_pct, spread, MEASURE_REL_TOL * 100.0 * (hi + lo) / med))
        fail(c, "timing.spread_pct %.7g is not (max - min) / median of timing.trials (%.7g)", x->spread_pct, spread);
}

static void check_paired(struct chk *c, const struct measure_numbers *x)
{
    if (x->pairs < 1)
        return;
    if (x->pairs > PAIRED_MAX || !x->cand_ms || !x->inc_ms) {
        fail(c, "paired holds %d pairs (1..%d)", x->pairs, PAIRED_MAX);
        return;
    }
    if (!times_ok(c, "paired.candidate_ms", x->cand_ms, x->pairs) ||
        !times_ok(c, "paired.incumbent_ms", x->inc_ms, x->pairs))
        return;
    if (x->n_trials && x->trial_ms) { /* the candidate's paired trials are its timing */
        bool same = x->n_trials == x->pairs;
        for (int i = 0; same && i < x->pairs; i++)
            same = close_to(x->cand_ms[i], x->trial_ms[i], 0);
        if (!same)
            fail(c, "paired.candidate_ms are not the trials of timing.trials");
    }
    double med = paired_median(x->inc_ms, x->pairs);
    if (!isnan(x->inc_median_ms) && positive(c, "paired.incumbent_median_ms", x->inc_median_ms) &&
        !close_to(x->inc_median_ms, med, 0))
        fail(c, "paired.incumbent_median_ms %.7g is not the median of paired.incumbent_ms (%.7g)", x->inc_median_ms,
             med);
    if (!isnan(x->inc_tflops) && positive(c, "paired.incumbent_tflops", x->inc_tflops) && x->flops > 0 &&
        !close_to(x->inc_tflops, x->flops / med / 1e9, 0))
        fail(c, "paired.incumbent_tflops %.7g is not 2MNK / the incumbent's median (%.7g)", x->inc_tflops,
             x->flops / med / 1e9);
}

static void check_ratios(struct chk *c, const struct measure_numbers *x)
{
    if (isnan(x->ratio) && isnan(x->ratio_lo) && isnan(x->ratio_hi))
        return;
    if (positive(c, "paired.ratio_median", x->ratio) && positive(c, "paired.ratio_lo", x->ratio_lo) &&
        positive(c, "paired.ratio_hi", x->ratio_hi) && !(x->ratio_lo <= x->ratio && x->ratio <= x->ratio_hi))
        fail(c, "paired.ratio_median %.7g is not within [ratio_lo %.7g, ratio_hi %.7g]", x->ratio, x->ratio_lo,
             x->ratio_hi);
    if (c->failed || !x->n_ratios)
        return;
    /* r_i = incumbent_i / candidate_i: over candidate times of 1 the ratios are the times */
    struct paired_stats st;
    double ones[PAIRED_MAX];
    if (x->n_ratios < PAIRED_MIN_PAIRS || x->n_ratios > PAIRED_MAX || !x->ratios) {
        fail(c, "paired.ratios holds %d ratios (%d..%d)", x->n_ratios, PAIRED_MIN_PAIRS, PAIRED_MAX);
        return;
    }
    if (!times_ok(c, "paired.ratios", x->ratios, x->n_ratios))
        return;
    for (int i = 0; i < x->n_ratios; i++)
        ones[i] = 1.0;
    if (paired_stats_compute(ones, x->ratios, x->n_ratios, &st)) {
        fail(c, "paired.ratios do not give a median and an interval");
        return;
    }
    if (!close_to(x->ratio, st.median, 0))
        fail(c, "paired.ratio_median %.7g is not the median of paired.ratios (%.7g)", x->ratio, st.median);
    else if (!close_to(x->ratio_lo, st.lo, 0) || !close_to(x->ratio_hi, st.hi, 0))
        fail(c, "paired [ratio_lo %.7g, ratio_hi %.7g] is not the sign-test interval of paired.ratios ([%.7g, %.7g])",
             x->ratio_lo, x->ratio_hi, st.lo, st.hi);
}

static void check_timing(struct chk *c, const struct measure_numbers *x)
{
    bool med_ok = positive(c, "timing.median_ms", x->median_ms);
    non_negative(c, "timing.spread_pct", x->spread_pct);
    bool tf_ok = positive(c, "timing.tflops", x->tflops);
    if (!c->failed)
        check_trials(c, x);
    /* 2MNK / median: flops per ms / 1e9 = TFLOPS */
    if (med_ok && tf_ok && x->flops > 0 && !close_to(x->tflops, x->flops / x->median_ms / 1e9, 0))
        fail(c, "timing.tflops %.7g is not 2MNK / timing.median_ms (%.7g)", x->tflops, x->flops / x->median_ms / 1e9);
    if (!isnan(x->sm_clock_mhz) && !(x->sm_clock_mhz >= 1 && x->sm_clock_mhz <= MEASURE_CLOCK_MAX_MHZ))
        fail(c, "gpu_state.sm_clock_median_mhz %.7g is not in [1, %.0f] MHz", x->sm_clock_mhz, MEASURE_CLOCK_MAX_MHZ);
    if (!isnan(x->hw_eff_pct) && non_negative(c, "peak.hw_eff_pct", x->hw_eff_pct) && tf_ok &&
        isfinite(x->peak_tflops) && x->peak_tflops > 0 &&
        !close_to(x->hw_eff_pct, x->tflops / x->peak_tflops * 100.0, 0))
        fail(c, "peak.hw_eff_pct %.7g is not timing.tflops / the peak at the clock (%.7g)", x->hw_eff_pct,
             x->tflops / x->peak_tflops * 100.0);
    if (!c->failed)
        check_paired(c, x);
    check_ratios(c, x);
}

int measure_numbers_check(const struct measure_numbers *x, unsigned what, char *why, size_t len)
{
    struct chk c = {why, len, false};
    if (len)
        why[0] = '\0';
    if (what & MEASURE_CHECK_VERIFY) {
        double e = x->max_err_over_tol;
        if (!(isfinite(e) && e >= 0 && e <= 1))
            fail(&c, "verify.max_err_over_tol %.7g of a passed verification is not in [0, 1]", e);
    }
    if (what & MEASURE_CHECK_TIMING)
        check_timing(&c, x);
    else if (what & MEASURE_CHECK_RATIOS)
        check_ratios(&c, x);
    return c.failed ? -1 : 0;
}
