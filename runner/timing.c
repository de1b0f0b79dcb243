/* runner/timing.c — warmup, trials of event-timed back-to-back launches, median. */
#include "timing.h"

#include <stdlib.h>
#include <string.h>

#include "target/target.h"
#include "util/paired.h"

int timing_trial(const struct gpu *g, int iters, timing_launch_fn fn, void *ctx, CUevent ev[2],
                 double *ms_per_launch, struct gpu_snapshot *snap)
{
    float ms = 0;
    CU_CHECK(RS_LAUNCH_ERROR, cuEventRecord(ev[0], g->stream));
    for (int i = 0; i < iters; i++)
        TRY(fn(ctx));
    CU_CHECK(RS_LAUNCH_ERROR, cuEventRecord(ev[1], g->stream));
    /* The GPU is still executing the queue: sample it busy (see timing.h). */
    nvml_snapshot(g->nvml_index, snap);
    CU_CHECK(RS_LAUNCH_ERROR, cuEventSynchronize(ev[1]));
    CU_CHECK(RS_LAUNCH_ERROR, cuEventElapsedTime(&ms, ev[0], ev[1]));
    /* A fault inside the trial is sticky and shows here at the latest. */
    CU_CHECK(RS_LAUNCH_ERROR, cuCtxSynchronize());
    *ms_per_launch = (double)ms / iters;
    return 0;
}

void timing_summarise(struct timing_result *r, double flops)
{
    double lo = r->trial_ms[0], hi = r->trial_ms[0];
    double clocks[TIMING_MAX_TRIALS];
    int nc = 0;
    for (int i = 0; i < r->trials; i++) {
        lo = r->trial_ms[i] < lo ? r->trial_ms[i] : lo;
        hi = r->trial_ms[i] > hi ? r->trial_ms[i] : hi;
        if (r->snap[i].sm_clock_mhz > 0)
            clocks[nc++] = r->snap[i].sm_clock_mhz;
    }
    r->median_ms = paired_median(r->trial_ms, r->trials);
    r->spread_pct = r->median_ms > 0 ? (hi - lo) / r->median_ms * 100.0 : 0;
    r->tflops = r->median_ms > 0 ? flops / (r->median_ms * 1e-3) / 1e12 : 0;
    r->sm_clock_median_mhz = nc ? (int)(paired_median(clocks, nc) + 0.5) : -1;
}

json_t *timing_json(const struct timing_opts *o, const struct timing_result *r)
{
    json_t *trials = json_array();
    for (int i = 0; i < r->trials; i++)
        json_array_append_new(trials, json_real(r->trial_ms[i]));
    return json_pack("{s:i, s:i, s:o, s:f, s:f, s:f}", "warmup", o->warmup, "iters", o->iters,
                     "trials", trials, "median_ms", r->median_ms, "spread_pct", r->spread_pct,
                     "tflops", r->tflops);
}

/* Aggregates over the per-trial samples: the worst case of each. */
static void worst(const struct timing_result *r, int *temp, double *power, long long *reasons, int *max_clock)
{
    *temp = -1, *power = -1, *reasons = -1, *max_clock = -1;
    for (int i = 0; i < r->trials; i++) {
        const struct gpu_snapshot *s = &r->snap[i];
        *temp = s->temp_c > *temp ? s->temp_c : *temp;
        *power = s->power_w > *power ? s->power_w : *power;
        *max_clock = s->sm_clock_max_mhz > *max_clock ? s->sm_clock_max_mhz : *max_clock;
        if (s->reasons >= 0)
            *reasons = (*reasons < 0 ? 0 : *reasons) | s->reasons;
    }
}

json_t *timing_gpu_state_json(const struct timing_result *r)
{
    int temp, max_clock;
    double power;
    long long reasons;
    json_t *clocks = json_array();
    for (int i = 0; i < r->trials; i++)
        json_array_append_new(clocks, r->snap[i].sm_clock_mhz < 0 ? json_null() : json_integer(r->snap[i].sm_clock_mhz));
    worst(r, &temp, &power, &reasons, &max_clock);
    const struct gpu_snapshot *last = &r->snap[r->trials ? r->trials - 1 : 0];
    json_t *last_json = nvml_snapshot_json(last);
    json_t *o = json_object();
    json_object_set_new(o, "nvml", json_string(r->trials ? last->status : "not sampled"));
    json_object_set_new(o, "sm_clock_mhz", clocks);
    json_object_set_new(o, "sm_clock_median_mhz", r->sm_clock_median_mhz < 0 ? json_null() : json_integer(r->sm_clock_median_mhz));
    json_object_set_new(o, "sm_clock_max_mhz", max_clock < 0 ? json_null() : json_integer(max_clock));
    json_object_set_new(o, "temp_c", temp < 0 ? json_null() : json_integer(temp));
    json_object_set_new(o, "throttle_reasons", nvml_reasons_json(reasons));
    json_object_set_new(o, "power_w", power < 0 ? json_null() : json_real(power));
    json_object_set(o, "processes", json_object_get(last_json, "processes"));
    json_decref(last_json);
    return o;
}

json_t *peak_json(int dtype, const struct timing_result *r)
{
    int temp, max_clock;
    double power;
    long long reasons;
    worst(r, &temp, &power, &reasons, &max_clock);
    bool measured = r->sm_clock_median_mhz > 0;
    const struct croq_target *t = croq_target();
    double clock = measured ? r->sm_clock_median_mhz : t->boost_mhz;
    double at_clock = target_peak_tflops(t, dtype, clock);
    double at_max = target_peak_tflops(t, dtype, max_clock > 0 ? max_clock : t->boost_mhz);
    return json_pack("{s:f, s:f, s:f, s:s, s:f, s:b}", "sparse_tflops_at_clock", at_clock,
                     "hw_eff_pct", at_clock > 0 ? r->tflops / at_clock * 100.0 : 0.0, "clock_mhz", clock,
                     "clock_source", measured ? "nvml" : "assumed_boost", "sparse_tflops_at_max_clock",
                     at_max, "plausible", r->tflops <= at_max);
}
