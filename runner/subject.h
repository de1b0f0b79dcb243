/* runner/subject.h — one thing being measured (our kernel or a vendor library call)
 * and the common check-then-time procedure applied to every one of them:
 *   poison C (NaN) -> one launch -> synchronise + check -> compare every element ->
 *   only if correct: time (pairtime.h: warm-up to steady clock and power, launches per
 *   trial from the kernel's duration, the same for every subject and for `serve`) ->
 *   compare again (the timed launches rewrote C
 *   from the same inputs; a race or a bad workspace reset shows here).
 * Cold L2 (bench_env.cold_l2, compare --l2 cold): the timed launches rotate over copies of
 * the subject's inputs and outputs (coldl2.h, the rule serve's rotation follows); the
 * verified launch is the same as warm, and the check after timing is of the first copy's
 * output (poisoned before the warm-up, so every copy's launch must have written it).
 */
#ifndef CROQ_RUNNER_SUBJECT_H
#define CROQ_RUNNER_SUBJECT_H

#include "coldl2.h"
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
    bool cold;                 /* timed with a cold L2 over rot_copies copies */
    int rot_copies;
    size_t l2_bytes;
    json_t *extra;             /* subject-specific JSON (abi, algorithm), owned */
};

/* Everything one measurement needs. */
struct bench_env {
    const struct gpu *g;
    const struct operands *o;
    const struct reference *r;  /* NULL: no verification (run --no-verify) */
    struct timing_opts topts;
    bool time_it;
    bool cold_l2;               /* time with a cold L2 (compare --l2 cold) */
};

/* What a subject launches: fn(ctx) enqueues one launch that writes f16 C [M][N] at d_c.
 * Under a cold L2 the timed launches are cold_fn(cold_ctx), each taking the next copy of
 * rot (cold_rot_next); cold_c is the output of rot's copy 0. */
struct subject_kernel {
    timing_launch_fn fn;
    void *ctx;
    CUdeviceptr d_c;
    timing_launch_fn cold_fn;  /* NULL: the subject cannot be timed cold (internal_error) */
    void *cold_ctx;
    CUdeviceptr cold_c;
    struct cold_rot *rot;      /* its next copy is reset to 0 before the timing */
};

/* Run the procedure above on k. Returns 0 if the subject ended ok (s->status == RS_OK),
 * else -1 with s->status / s->error set and the global failure cleared (so the next
 * subject starts clean). */
int subject_measure(const struct bench_env *env, const struct subject_kernel *k, struct subject *s);

/* The procedure's steps, for `compare`, which verifies every subject, then times them all
 * in interleaved rounds (pairtime.h rounds_time) and checks each again. Each returns 0, or
 * -1 with s->status / s->error set and the global failure cleared, as subject_measure.
 *   subject_verify: poison C, one launch, synchronise, compare every element;
 *   subject_timed_kernel: *pk = what the timed launches run (cold L2: the rotation, reset to
 *     its copy 0, whose output is poisoned; s->cold and the rotation's facts are set);
 *   subject_set_timing: the subject's trials t (iters launches each) after the warm-up w;
 *   subject_verify_after: compare the timed launches' output (copy 0's when cold). */
int subject_verify(const struct bench_env *env, const struct subject_kernel *k, struct subject *s);
int subject_timed_kernel(const struct bench_env *env, const struct subject_kernel *k, struct subject *s,
                         struct pair_kernel *pk);
void subject_set_timing(const struct bench_env *env, struct subject *s, const struct timing_result *t,
                        const struct warmup_rec *w, int iters);
int subject_verify_after(const struct bench_env *env, const struct subject_kernel *k, struct subject *s);
/* A subject that was to be timed but was not, because of another one: status and why
 * ("not timed: ...", cut to fit s->error). */
void subject_not_timed(struct subject *s, enum runner_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* `compare`'s timing of several subjects, shared with croqsparse-check's oracle: the
 * subjects s[idx[j]] (j < n; each verified with subject_verify, its launch pk[j] from
 * subject_timed_kernel, k the same indices) timed together in `rounds` interleaved rounds
 * (pairtime.h rounds_time, in `order`, pair opts from env), each one's timing set and its
 * output verified again (subject_verify_after, a failure in its status). When a trial
 * fails (each ends synchronised, so a fault shows in its own subject's) that subject takes
 * the failure and the others are not timed, saying whose; a failure in the shared warm-up
 * leaves every one not timed; the context may be poisoned either way. *lt: the rounds (the
 * warm-up for the caller's record). 0, or -1 when the rounds failed. */
int subjects_time_rounds(const struct bench_env *env, const struct subject_kernel *k, struct subject *s,
                         const int *idx, const struct pair_kernel *pk, int n, int rounds, enum round_order order,
                         struct ladder_timing *lt);
/* The timing options of env->topts as pair_opts: --trials trials of at least 20 ms and at
 * most --iters launches, after a warm-up of at least --warmup launches that lasts until
 * clock and power settle (--warmup-ms its limit; < 0: no timed warm-up). */
void subject_pair_opts(const struct bench_env *env, struct pair_opts *po);
/* Move the recorded failure (check.h) into s and clear it. */
void subject_take_failure(struct subject *s);
void subject_release(struct subject *s);

/* {"name", "available", "note", "status", "error", "verify", "verify_after_timing",
 *  "timing", "gpu_state", "peak", "l2" and, when cold, "rotation": {"copies", "l2_bytes"},
 *  + extra's keys} */
json_t *subject_json(const struct subject *s, const struct bench_env *env);

#endif
