/* src/measure/service.h — the tuner's side of `croq-runner serve` (docs/runner-protocol.md,
 * "serve"): one long-lived worker per (dtype, shape, seed, device), spoken to one JSON line
 * per request, with the same isolation as a one-shot `run`:
 *
 *   - every request has a deadline (poll on the worker's stdout and stderr); when it
 *     passes, the worker's process group (our own child and its children, nothing else)
 *     is killed with SIGKILL and the request's outcome is MEASURE_TIMEOUT;
 *   - a worker that ends without a whole reply line (EOF, half a line, killed by a signal,
 *     an exit status) gives the outcome measure.h lists for a one-shot `run` that died the
 *     same way (the same function decides: spawn_runner_classify);
 *   - a reply with launch_error ends the worker (the kernel's fault poisoned its context);
 *   - a reply is the request's only when it answers it: its "id" is the request's (ids
 *     count up over the service's life, never reused) and its "cubin", when it names one,
 *     is the request's. A late reply to an earlier request (its id below the one in flight)
 *     is dropped, kept in the request's stderr text and logged, and the wait goes on under
 *     the same deadline. A line that answers no request of ours (no id, an id never sent,
 *     the right id with another cubin, not JSON) drops the worker, and the request is
 *     repeated once on a new worker (the incumbent set again there); a second such line
 *     makes the outcome MEASURE_FOREIGN_REPLY: the tuner's side is broken, never the
 *     candidate's outcome. Output between requests is judged the same way before the next
 *     request: a late reply is dropped, anything else whole drops the worker;
 *   - the next request after any of these starts a new worker (counted in restarts).
 * The worker keeps the context, the operand sets and the incumbent's loaded module, so a
 * candidate costs its own verification and timing only.
 *
 * Not thread-safe: one service per thread. Ignores SIGPIPE in the process (a worker that
 * died must show as a failed write, not end the tuner).
 */
#ifndef CROQ_MEASURE_SERVICE_H
#define CROQ_MEASURE_SERVICE_H

#include <stdbool.h>

#include "measure.h"

#define SERVICE_PROTOCOL 1

struct service_opts {
    const char *runner;        /* NULL: measure_runner_path's search (measure.h) */
    int dtype;                 /* the worker's problem */
    struct croq_shape shape;
    unsigned long long seed;   /* the base operand set: every timing runs on it */
    int device;                /* CUDA ordinal */
    const char *reference;     /* "auto" (NULL), "cpu", "cublas" */
    double start_timeout_s;    /* <= 0: 60 s for the worker's ready line (context creation) */
};

struct service_req {
    const char *cubin;
    const char *incumbent;     /* time paired with this cubin (made the worker's incumbent first
                                  when it is not already); NULL: the candidate alone */
    unsigned long long verify_seed; /* the operand set of the first verification (the base
                                  seed, or one never used before: the engine says which) */
    bool no_time;              /* verify only */
    bool cold_l2;              /* operands rotated through buffers larger than the L2 */
    int pairs;                 /* trials per kernel; 0: PAIRED_DEFAULT_PAIRS */
    double min_trial_ms;       /* 0: the worker's default (20 ms) */
    int max_iters;             /* launches per trial at most; 0: the worker's default (500) */
    long warmup_launches;      /* the warm-up runs at least this many launches of each kernel
                                  (besides settling by time); 0: by time alone */
    double stop_below;         /* > 0: paired trials stop once the speedup interval's upper
                                  end is below this (after PAIRED_MIN_PAIRS pairs) */
    double timeout_s;          /* <= 0: service_default_timeout */
};

struct measure_service;

/* A service for o (strings copied). No worker starts before the first request. */
struct measure_service *service_new(const struct service_opts *o);
/* Quit the worker (EOF on its stdin, then SIGKILL of its group after 2 s) and free. */
void service_free(struct measure_service *s);

/* Start the worker now if none runs: a probe of the GPU (and the runner) before work that
 * needs them, e.g. bench checks before it compiles. r is reset; r->status is MEASURE_OK
 * when the worker is up (the next request uses it), else why not (MEASURE_NO_GPU,
 * MEASURE_NO_RUNNER, ... with r->error). -1 only on a local failure (pipe, fork), with
 * r->error. Release r with measure_result_release. */
int service_start(struct measure_service *s, struct measure_result *r);
/* Verify (and time) q->cubin in the worker, starting one if none runs. r is reset; its
 * raw_json is the reply line (keep it as the raw file), stderr_text what the worker wrote
 * to stderr while serving it, command a reproducing description, wall_s / limit_s the
 * request's. Returns 0 when the outcome is in r->status; -1 only on a local failure
 * (pipe, fork), with r->error. Release r with measure_result_release. */
int service_measure(struct measure_service *s, const struct service_req *q, struct measure_result *r);

/* A generous deadline for one request, seconds: 20 s + 4x (the warm-up's 2 s limit,
 * 2 x pairs trials of the minimum trial time plus one launch at 100 TFLOPS each,
 * 2 x warmup_launches launches at 100 TFLOPS, and two operand sets with their references
 * at 50 M elements/s). */
double service_default_timeout(const struct croq_shape *shape, const struct service_req *q);

/* The next paired request sets its incumbent in the worker again, even when it is the same
 * path as now (its cubin was rebuilt: the module the worker holds may not be the new one). */
void service_forget_incumbent(struct measure_service *s);

/* The final ladder (docs/runner-protocol.md, "serve", op ladder): n cubins verified and
 * timed together in rotating rounds. r is reset; r->status is the reply's status (a
 * verification failure: incorrect, the reply's "failed" naming the kernel), or how the
 * worker ended, as for service_measure; r->raw_json is the reply line (parse it with
 * measure_ladder_parse). A stale or foreign line: as service_measure (repeated once,
 * then MEASURE_FOREIGN_REPLY). 0, or -1 on a local failure. */
struct service_ladder_req {
    const char *const *cubins;
    int n;                     /* 1..16 */
    int rounds;                /* 0: 12 */
    bool cold_l2;
    double min_trial_ms;       /* 0: the worker's default (20 ms) */
    double timeout_s;          /* <= 0: service_ladder_timeout */
};
int service_ladder(struct measure_service *s, const struct service_ladder_req *q, struct measure_result *r);
/* 30 s + 4x (2 s of warm-up, n x (rounds + 2) trials of min_trial_ms plus a launch at 100
 * TFLOPS, 4 verification launches each, and the base operand set with its reference at 50
 * M elements/s). */
double service_ladder_timeout(const struct croq_shape *shape, const struct service_ladder_req *q);

/* The worker's pid (its process group), 0 when none runs: the health check counts it as
 * ours. */
int service_pid(const struct measure_service *s);
/* CLOCK_MONOTONIC seconds when the worker last finished GPU work for us (0: never). */
double service_last_busy_s(const struct measure_service *s);
/* Workers started so far, and how many of them ended abnormally (timeout, crash, fault). */
int service_starts(const struct measure_service *s);
int service_losses(const struct measure_service *s);

#endif
