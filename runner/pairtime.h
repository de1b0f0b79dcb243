/* runner/pairtime.h — the adaptive, paired timing of `croq-runner serve`
 * (docs/runner-protocol.md, "serve"):
 *
 *   1. warm-up by time: chunks of ~10 ms of launches (candidate, then incumbent) until the
 *      SM clock and the board power have settled (the mean of the last 4 samples within
 *      1% (clock) and 5% (power) of the 4 before, after at least warmup_min_ms), or
 *      warmup_max_ms; every sample is kept, and whether it settled;
 *   2. launches per trial from each kernel's duration measured in the warm-up: enough for
 *      min_trial_ms, at most max_iters;
 *   3. `pairs` trials of each kernel, alternating C I, I C, C I, ... (the order flips every
 *      pair so a steady drift moves both alike), each an event-timed run of back-to-back
 *      launches with NVML sampled while it runs (timing.h).
 * Without an incumbent, step 3 is `pairs` trials of the candidate alone. Trial times are
 * rounded to the 7 significant digits the JSON carries, so every summary computed from the
 * printed numbers (src/util/paired.h) is the one computed here.
 */
#ifndef CROQ_RUNNER_PAIRTIME_H
#define CROQ_RUNNER_PAIRTIME_H

#include "timing.h"

struct pair_opts {
    int pairs;            /* trials per kernel, 1..TIMING_MAX_TRIALS */
    double min_trial_ms;  /* a trial runs at least this long ... */
    int max_iters;        /* ... with at most this many launches */
    double warmup_min_ms, warmup_max_ms;
    long warmup_min_launches; /* and at least this many warm-up launches */
    double stop_below;    /* > 0: stop after any pair >= PAIRED_MIN_PAIRS once the interval's
                             upper end is below this speedup (a clear loser; 0: all pairs) */
};
/* Defaults: 10 pairs, 20 ms, 500 launches, warm-up 150..2000 ms and >= 0 launches. */
void pair_opts_default(struct pair_opts *o);

#define WARM_SAMPLES_MAX 256
struct warm_sample {
    double t_ms;          /* since the warm-up began */
    int clock_mhz;        /* -1 unknown */
    double power_w;       /* -1 unknown */
};
struct warmup_rec {
    double ms;            /* wall time of the warm-up */
    long launches;
    bool sampled;         /* NVML gave clocks: steadiness was judged on them */
    bool steady;          /* settled before warmup_max_ms */
    int n;
    struct warm_sample s[WARM_SAMPLES_MAX];
};

#define PAIR_MAX_KERNELS 16 /* a ladder's kernels at most (LADDER_MAX, src/backend/backend.h) */

struct pair_kernel {
    timing_launch_fn fn;  /* enqueue one launch */
    void *ctx;
};

struct pair_result {
    bool paired;                 /* an incumbent was timed */
    struct warmup_rec w;
    struct timing_result cand, inc;
    int cand_iters, inc_iters;   /* launches per trial */
    double cand_est_ms, inc_est_ms; /* per-launch estimates from the warm-up */
};

/* inc NULL: the candidate alone. flops = 2*M*N*K. launch_error when a launch is refused
 * or faults (the context is then poisoned). */
int pair_run(const struct gpu *g, const struct pair_opts *o, double flops, const struct pair_kernel *cand,
             const struct pair_kernel *inc, struct pair_result *r);

/* {"ms", "launches", "sampled", "steady", "sm_clock_mhz", "power_w" (the last sample),
 *  "samples": [[t_ms, clock, power], ...]} */
json_t *pair_warmup_json(const struct warmup_rec *w);
/* {"candidate_ms": [...], "incumbent_ms": [...], "candidate_iters", "incumbent_iters",
 *  "order": "alternating", "incumbent_median_ms", "incumbent_tflops",
 *  "incumbent_sm_clock_mhz": [...], "ratios", "ratio_median", "ratio_lo", "ratio_hi",
 *  "confidence"} (the summary is src/util/paired.h on the printed times). */
json_t *pair_json(const struct pair_result *r);

/* The final ladder's timing (docs/runner-protocol.md, "serve", op ladder): one warm-up
 * over all n kernels (as above), launches per trial from each one's estimate, then
 * `rounds` rounds of one trial of every kernel, round r starting with kernel r mod n.
 * Trial times rounded as above. launch_error as pair_run. */
struct ladder_timing {
    int n;
    int failed;    /* the kernel whose trial failed (each trial ends synchronised, so a fault
                      shows in its own kernel's trial), -1: none, or in the warm-up */
    struct warmup_rec w;
    int iters[PAIR_MAX_KERNELS];
    struct timing_result t[PAIR_MAX_KERNELS];
};
int ladder_time(const struct gpu *g, const struct pair_opts *o, double flops, const struct pair_kernel *k, int n,
                int rounds, struct ladder_timing *r);
/* The same with the order of the kernels within a round chosen: ROUND_ROTATE is
 * ladder_time's; ROUND_BALANCED the Williams design of src/util/paired.h
 * (paired_round_order), in which no kernel always follows the same one: `compare`'s
 * interleaved subjects (docs/runner-protocol.md, "compare"). */
enum round_order { ROUND_ROTATE, ROUND_BALANCED };
int rounds_time(const struct gpu *g, const struct pair_opts *o, double flops, const struct pair_kernel *k, int n,
                int rounds, enum round_order order, struct ladder_timing *r);
/* {"iters", "trial_ms": [...], "sm_clock_mhz": [per trial, null unknown], "median_ms", "tflops",
 *  "gpu_state": timing_gpu_state_json of its trials (temperature, power, throttle reasons)}
 * of kernel i */
json_t *ladder_timing_json(const struct ladder_timing *r, int i);

#endif
