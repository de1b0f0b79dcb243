/* runner/subject.h — one thing being measured (our kernel or a vendor library call)
 * and the common check-then-time procedure applied to every one of them:
 *   poison C (NaN) -> one launch -> synchronise + check -> compare every element ->
 *   only if correct: time (pairtime.h: warm-up to steady clock and power, launches per
 *   trial from the kernel's duration, the same for every subject and for `serve`) ->
 *   compare again (the timed launches rewrote C
 *   from the same inputs; a race or a bad workspace reset shows here).
 */
#ifndef CROQ_RUNNER_SUBJECT_H
#define CROQ_RUNNER_SUBJECT_H

#include "pairtime.h"

struct subject {
    const char *name;          /* "ours", "cusparselt_default", "cusparselt_search", "cublas" */
    bool available;            /* false: library missing or this case unsupported */
    char note[1024];           /* why unavailable, or what was run ("algorithm 3 of 7") */
    enum runner_status status; /* of this subject alone */
    char error[1024];
    bool verified;             /* a verification ran (v is filled) */
    struct verify_result v;
    bool verified_after_timing;
    struct verify_result v_after;
    bool timed;
    struct timing_result t;
    struct timing_opts t_used;  /* warm-up launches, launches per trial, trials: what ran */
    struct warmup_rec w;
    json_t *extra;             /* subject-specific JSON (abi, algorithm), owned */
};

/* Everything one measurement needs. */
struct bench_env {
    const struct gpu *g;
    const struct operands *o;
    const struct reference *r;  /* NULL: no verification (run --no-verify) */
    struct timing_opts topts;
    bool time_it;
};

/* Run the procedure above on fn(ctx), which writes f16 C [M][N] to d_c. Returns 0 if
 * the subject ended ok (s->status == RS_OK), else -1 with s->status / s->error set
 * and the global failure cleared (so the next subject starts clean). */
int subject_measure(const struct bench_env *env, timing_launch_fn fn, void *ctx, CUdeviceptr d_c,
                    struct subject *s);
/* Move the recorded failure (check.h) into s and clear it. */
void subject_take_failure(struct subject *s);
void subject_release(struct subject *s);

/* {"name", "available", "note", "status", "error", "verify", "verify_after_timing",
 *  "timing", "gpu_state", "peak", "tflops", "median_ms", "spread_pct", + extra's keys} */
json_t *subject_json(const struct subject *s, const struct bench_env *env);

#endif
