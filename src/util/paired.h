/* src/util/paired.h — the statistics of a paired timing (docs/runner-protocol.md,
 * "serve"): a candidate and the incumbent timed in alternating trials of one worker
 * process, so a clock or power change moves both of a pair alike.
 *
 * Per pair i the speedup r_i = incumbent_ms[i] / candidate_ms[i] (> 1: the candidate is
 * faster). The result is their median and a distribution-free confidence interval of the
 * median from order statistics (the sign test): [r_(k), r_(n+1-k)] of the sorted ratios
 * with the largest k for which P(Binomial(n, 1/2) <= k - 1) <= (1 - PAIRED_CONFIDENCE) / 2,
 * so the interval covers the true median with probability >= PAIRED_CONFIDENCE whatever
 * the distribution of the noise (10 pairs: [r_(2), r_(9)], 97.9%). No normality is
 * assumed: a trial disturbed by a clock step is one outlier, not a wider Gaussian.
 *
 * Pure functions of the numbers: the gpu backend computes them from the trial times the
 * worker printed (7 significant digits, as parsed back), the sim backend from the ones it
 * wrote, and the audit from the raw file, so all three get the same doubles. `compare`
 * computes them per round of its interleaved subjects (ours as the candidate, each vendor as
 * the incumbent), whose order within a round paired_round_order gives.
 * Thread-safe (no state).
 */
#ifndef CROQ_UTIL_PAIRED_H
#define CROQ_UTIL_PAIRED_H

#define PAIRED_MAX 100      /* pairs at most (the runner's trial limit) */
#define PAIRED_MIN_PAIRS 6  /* fewer cannot give a 95% interval from order statistics */
#define PAIRED_CONFIDENCE 0.95
#define PAIRED_DEFAULT_PAIRS 10

struct paired_stats {
    int n;                     /* pairs */
    double ratio[PAIRED_MAX];  /* r_i in trial order */
    double median;             /* median of r_i */
    double lo, hi;             /* the confidence interval of the median */
    int k;                     /* lo = k-th smallest, hi = k-th largest (1-based) */
    double coverage;           /* 1 - 2 P(Binomial(n, 1/2) <= k - 1) */
};

/* Ratios, median and interval of n pairs of per-launch times (ms, > 0 and finite).
 * 0, or -1 when n is outside PAIRED_MIN_PAIRS..PAIRED_MAX or a time is not a positive
 * finite number (out is then zeroed). */
int paired_stats_compute(const double *candidate_ms, const double *incumbent_ms, int n, struct paired_stats *out);

/* The median of v[0..n) as the runner computes it: the middle of the sorted values, or the
 * mean of the two middle ones for an even count; NAN unless 1 <= n <= PAIRED_MAX. v is not
 * changed. */
double paired_median(const double *v, int n);

/* The order of n kernels (0..n-1) in round `round` (0, 1, ...) of a timing that times each
 * kernel once per round, as a Williams design: over every n rounds (2n for an odd n, the
 * second n mirrored) each kernel takes each position of a round equally often and directly
 * follows every other kernel within a round equally often, so no kernel is always timed right
 * after the same one (whose heat and power draw set the clock it starts at). n = 2 is the
 * alternation A B, B A. order: n entries, a permutation of 0..n-1. n < 1 writes nothing. */
void paired_round_order(int n, int round, int *order);

#endif
