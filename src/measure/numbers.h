/* src/measure/numbers.h — the check every measured number passes before anything records
 * it (docs/runner-protocol.md, "Numbers"): finite, in its range, and consistent with the
 * trials it was computed from, as croq-runner computes and prints them. One function for
 * every source of numbers: the worker's replies (parse_run.c, so a reply that fails is
 * bad_output naming the field and the value), the model backends' results
 * (src/backend/backend.c) and a measurement reaching the engine (backend_result_check).
 *
 * Ranges: per-trial and median times, TFLOPS and the incumbent's median and TFLOPS > 0;
 * spread >= 0; hw_eff >= 0; the SM clock unknown (NAN) or in [1, 10000] MHz (NVML reports
 * whole MHz); max_err_over_tol of a passed verification in [0, 1] (every element within
 * its tolerance: runner/verify.c); paired speedups > 0 with lo <= median <= hi.
 * Given the per-pair speedups they come from (compare's paired, which prints ratios, not
 * times), median, lo and hi are recomputed from them (paired_stats_compute, 6..100 pairs).
 * Consistency (where the inputs are given): median = the trials' median (the middle one,
 * or the mean of the two middle ones: runner/timing.c), spread = (max - min) / median in %,
 * TFLOPS = flops / median, hw_eff = TFLOPS / the peak at the clock in %, the paired
 * candidate's times = the timing's trials.
 *
 * Tolerance: the runner prints every real with 7 significant digits (runner/output.c,
 * JSON_REAL_PRECISION(7)), so a printed value is within 5e-7 of its own (relative), and a
 * value recomputed here from printed inputs (TFLOPS from the printed median, the mean of
 * two printed middle trials) within about 1.5e-6 of the printed one. MEASURE_REL_TOL (1e-5)
 * leaves margin for that and still refuses any number that does not come from these
 * trials. A spread is a difference of two trials, so its tolerance is also absolute:
 * MEASURE_REL_TOL x 100 x (max + min) / median percentage points.
 *
 * Pure; thread-safe.
 */
#ifndef CROQ_MEASURE_NUMBERS_H
#define CROQ_MEASURE_NUMBERS_H

#include <stddef.h>

#define MEASURE_REL_TOL 1e-5
#define MEASURE_CLOCK_MAX_MHZ 10000.0

/* What one measurement claims. Every member that is not known is NAN (doubles) or 0
 * (counts, flops), and is then neither range-checked (where unknown is allowed: clock,
 * hw_eff, ratios, the incumbent's summary) nor compared. */
struct measure_numbers {
    double flops;               /* 2MNK of the problem timed; 0: unknown (TFLOPS not compared) */
    int n_trials;               /* 0: no per-trial times (median and spread not compared) */
    const double *trial_ms;     /* per-launch ms of each trial */
    double median_ms, spread_pct, tflops;
    double sm_clock_mhz;        /* NAN: unknown */
    double hw_eff_pct;          /* NAN: unknown */
    double peak_tflops;         /* the peak hw_eff is a share of; NAN: not compared */
    double max_err_over_tol;    /* of a passed verification; NAN: not given (refused) */
    /* paired timing */
    int pairs;                  /* 0: not paired */
    const double *cand_ms, *inc_ms;
    double inc_median_ms, inc_tflops; /* NAN: not given */
    double ratio, ratio_lo, ratio_hi; /* NAN: not given */
    int n_ratios;               /* 0: the per-pair speedups are not given */
    const double *ratios;       /* the per-pair speedups ratio, lo and hi were computed from */
};

/* A struct with nothing known (NAN, 0, NULL). */
void measure_numbers_init(struct measure_numbers *x);

/* Which parts to check: the timing (median, spread, TFLOPS, clock, hw_eff, trials, paired),
 * the verification (max_err_over_tol), and the paired speedups alone (ratio, lo, hi, the
 * per-pair ratios: part of the timing's check too). */
enum { MEASURE_CHECK_TIMING = 1, MEASURE_CHECK_VERIFY = 2, MEASURE_CHECK_RATIOS = 4 };

/* 0 when every given number passes, else -1 with the first failure in why, naming the
 * field as the runner's JSON does and the value: "timing.tflops nan is not a positive
 * number", "timing.median_ms 0.002 is not the median of timing.trials (0.0021)". */
int measure_numbers_check(const struct measure_numbers *x, unsigned what, char *why, size_t len);

#endif
