/* runner/timing.h — the trial every timing of the runner is made of (ours, cuSPARSELt,
 * cuBLAS, `serve`; the warm-up and the choice of launches per trial: pairtime.h), so
 * their numbers compare: per trial, event, `iters` launches back to back, event; the
 * per-launch time of a trial is elapsed / iters.
 *   median_ms = median over trials; spread_pct = (max - min) / median * 100.
 * NVML is sampled once per trial after the trial's launches are enqueued and before
 * its stop event is waited for, i.e. while the GPU is still running them, so the
 * clock and throttle reasons describe the busy GPU (a sample after the sync would
 * often see it idle and already clocking down).
 * Nothing is prepared inside the timed region: tensor maps, attributes, buffers and
 * plans are built before the first trial.
 */
#ifndef CROQ_RUNNER_TIMING_H
#define CROQ_RUNNER_TIMING_H

#include "health/nvml.h"
#include "runner.h"

#define TIMING_MAX_TRIALS 100

struct timing_opts {
    int warmup, iters, trials;
    int warmup_ms;  /* the warm-up's time limit: 0 the default (2000), < 0 none: only
                       `warmup` launches (a profile's one warm launch, --warmup-ms 0) */
};

struct timing_result {
    int trials;
    double trial_ms[TIMING_MAX_TRIALS]; /* per-launch ms of each trial */
    double median_ms, spread_pct;
    double tflops;                      /* 2*M*N*K / median / 1e12 (dense-equivalent) */
    struct gpu_snapshot snap[TIMING_MAX_TRIALS];
    int sm_clock_median_mhz;            /* -1 when NVML gave no clock */
};

/* Enqueue one launch on g->stream. 0, or -1 with the failure recorded. */
typedef int (*timing_launch_fn)(void *ctx);

/* One trial: event, iters launches of fn, event; snap sampled while they run; then
 * synchronised and checked. *ms_per_launch = elapsed / iters. ev: two created events. */
int timing_trial(const struct gpu *g, int iters, timing_launch_fn fn, void *ctx, CUevent ev[2],
                 double *ms_per_launch, struct gpu_snapshot *snap);
/* median_ms, spread_pct, tflops and sm_clock_median_mhz from r->trials trial_ms[] and
 * snap[] (flops = 2*M*N*K); the paired timing of `serve` (pairtime.h) fills those itself. */
void timing_summarise(struct timing_result *r, double flops);

/* {"warmup", "iters", "trials": [ms...], "median_ms", "spread_pct", "tflops"} */
json_t *timing_json(const struct timing_opts *o, const struct timing_result *r);
/* {"nvml", "sm_clock_mhz": [per trial], "sm_clock_median_mhz", "sm_clock_max_mhz",
 *  "temp_c" (max), "throttle_reasons" (union), "power_w" (max), "processes"} */
json_t *timing_gpu_state_json(const struct timing_result *r);

/* The sparse tensor-core peak, dense-equivalent TFLOPS, of the target
 * (src/target/target.def: H200 SXM datasheet 1979 f16 / 3958 fp8 "with sparsity" at the
 * 1980 MHz boost clock), scaled linearly with the SM clock: target_peak_tflops. */
/* {"sparse_tflops_at_clock", "hw_eff_pct", "clock_mhz", "clock_source", "plausible"}:
 * plausible is false when tflops beats the peak at the device's max clock, which no
 * correct kernel and measurement can (sparse-gemm-sm90.md 1). */
json_t *peak_json(int dtype, const struct timing_result *r);

#endif
