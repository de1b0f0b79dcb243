/* src/measure/measure.h — the tuner's side of docs/runner-protocol.md: run
 * croq-runner as a child process with a time limit and turn what it printed (or how it
 * died) into a struct.
 *
 * Runner location: opts.runner, else $CROQ_RUNNER, else "croq-runner" in the
 * directory of /proc/self/exe (where CMake puts both binaries), else "croq-runner"
 * looked up in PATH.
 *
 * Outcome mapping (measure_status):
 *   runner printed its JSON         -> its "status" (ok, incorrect, launch_error, ...)
 *   killed by the time limit        -> MEASURE_TIMEOUT   ("timed out after 41.0 s")
 *   killed by a signal, no JSON     -> MEASURE_CRASH     ("signal 11 (Segmentation fault)")
 *   exited non-zero, no JSON        -> MEASURE_CRASH     ("exit 1: <last stderr line>"),
 *                                      except a dynamic-loader failure (exit 127,
 *                                      "error while loading shared libraries": no
 *                                      driver) -> MEASURE_NO_GPU
 *   could not be started            -> MEASURE_NO_RUNNER
 *   exited 0 with unusable output   -> MEASURE_BAD_OUTPUT (which field, in error)
 * Units: ms, TFLOPS (dense-equivalent 2MNK/t), MHz, degrees C, W. Unknown numbers
 * are NAN.
 */
#ifndef CROQ_MEASURE_MEASURE_H
#define CROQ_MEASURE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#include "knobs/knobs.h"
#include "util/paired.h"
#include "../../kernels/module_id.h"

enum measure_status {
    MEASURE_OK = 0,
    MEASURE_INCORRECT,         /* runner: verification failed */
    MEASURE_LAUNCH_ERROR,      /* runner: launch refused or kernel fault */
    MEASURE_BAD_MODULE,        /* runner: cubin unusable (ABI, dtype, missing) */
    MEASURE_BAD_ARGS,          /* runner: our command line was wrong (a tuner bug) */
    MEASURE_UNSUPPORTED_SHAPE, /* runner: the shape breaks a rule */
    MEASURE_NO_GPU,            /* runner: no usable GPU / driver */
    MEASURE_INTERNAL_ERROR,    /* runner: its own failure (out of memory, reference) */
    MEASURE_CRASH,             /* no JSON: died by a signal or exited abnormally */
    MEASURE_TIMEOUT,           /* killed by the time limit */
    MEASURE_NO_RUNNER,         /* croq-runner could not be started */
    MEASURE_BAD_OUTPUT,        /* exited without a usable JSON object */
    MEASURE_FOREIGN_REPLY,     /* the worker's replies do not answer the request (a stale or
                                  foreign line, twice): the tuner's side, never a candidate's */
    MEASURE_STATUS_COUNT
};
/* "ok", "incorrect", "launch_error", "bad_module", "bad_args", "unsupported_shape",
 * "no_gpu", "internal_error", "crash", "timeout", "no_runner", "bad_output",
 * "foreign_reply". */
const char *measure_status_name(enum measure_status s);
/* The runner status names above -> enum; -1 for anything else. */
int measure_status_parse(const char *s);

struct measure_opts {
    const char *runner;       /* NULL: see the header comment */
    const char *cubin;
    struct croq_shape shape;
    int dtype;                /* -1: do not pass --dtype (the module's dtype is used) */
    unsigned long long seed;
    int warmup, iters, trials;
    bool no_time;             /* verify only */
    const char *reference;    /* "auto" (NULL), "cpu", "cublas" */
    int device;               /* CUDA ordinal */
    bool cold_l2;             /* compare: every subject timed over copies of its operands larger
                                 than the L2 (croq-runner compare --l2 cold); `run` has no cold
                                 timing and ignores it (the service's is service_req.cold_l2) */
    double timeout_s;         /* <= 0: measure_default_timeout() */
};

/* The measurement worker's defaults: seed 1, warmup 0, iters 500, trials 10, dtype -1, device 0. */
void measure_opts_default(struct measure_opts *o);

/* A generous wall-clock limit for one `run`: 30 s fixed (process start, context,
 * module load) + 4x the launches' work at 100 TFLOPS (a very slow kernel):
 * 2MNK * (warmup + iters*trials + 3) / 100e12 + 4x the host-side data work at 50 M
 * elements/s: (MK + NK + 2MN) / 50e6. `compare` measures 4 subjects plus a cuSPARSELt
 * search: 5x the variable part. Seconds. */
double measure_default_timeout(const struct measure_opts *o, bool compare);

/* Resolve the runner path (see the header comment) into out. Never fails: the last
 * resort is the bare name for a PATH lookup. */
void measure_runner_path(const char *override, char *out, size_t len);

#define MEASURE_MAX_TRIALS 100
#define MEASURE_LISTED 8

struct measure_mismatch {
    long row, col;
    double got, want, tol;    /* NAN when the runner wrote "nan" */
};

struct measure_verify {
    bool present;
    bool passed;
    char reference[16];       /* "cpu" or "cublas" */
    char phase[16];           /* "first_launch" or "after_timing" */
    long long checked, mismatches, nan_or_unwritten;
    double max_abs_err, max_err_over_tol;
    int listed;
    struct measure_mismatch first[MEASURE_LISTED];
};

struct measure_timing {
    bool present;
    int warmup, iters, n_trials;
    double trial_ms[MEASURE_MAX_TRIALS]; /* per-launch ms of each trial */
    double median_ms, spread_pct, tflops;
};

struct measure_gpu_state {
    bool present;
    char nvml[160];           /* "ok" or why NVML gave nothing */
    double sm_clock_median_mhz, sm_clock_max_mhz, temp_c, power_w;
    char throttle[160];       /* reason names joined by ',' ("" = none or unknown) */
    int n_processes;          /* compute processes on the GPU during timing, -1 unknown */
};

struct measure_peak {
    bool present;
    double sparse_tflops_at_clock, hw_eff_pct, clock_mhz;
    bool plausible;           /* false: above the peak at the max clock (broken) */
};

/* The runner's "abi" object: the launch fields of kernels/abi_fields.h, plus what the
 * runner derives (grid, regs, local_bytes). */
#define MEASURE_ABI_FIELD(name, what) int name;
struct measure_abi {
    bool present;
    CROQ_ABI_LAUNCH_FIELDS(MEASURE_ABI_FIELD)
    int grid[3];
    int regs, local_bytes;    /* -1 when absent */
};
#undef MEASURE_ABI_FIELD

/* The paired block of a `serve` measurement (docs/runner-protocol.md): both kernels'
 * trials as printed, and their statistics (paired.h) computed here from those numbers. */
struct measure_paired {
    bool present;
    int n;                    /* trials of each kernel */
    double cand_ms[MEASURE_MAX_TRIALS], inc_ms[MEASURE_MAX_TRIALS];
    int cand_iters, inc_iters;
    double inc_median_ms, inc_tflops;
    bool stats_ok;            /* n >= PAIRED_MIN_PAIRS and every time positive */
    struct paired_stats st;
};

/* The warm-up of a `serve` timing: how long, and whether clock and power settled. */
struct measure_warmup {
    bool present;
    double ms;
    long long launches;
    bool sampled, steady;
    double sm_clock_mhz, power_w; /* at its last sample, NAN unknown */
};

struct measure_result {
    enum measure_status status;
    char error[1024];         /* why not ok (runner's "error", or how it died) */
    char gpu[96];
    int sm_count;             /* the runner's device's SMs; 0 unknown */
    int dtype;                /* enum croq_dtype, -1 unknown */
    long m, n, k;
    struct measure_verify verify;
    struct measure_timing timing;
    struct measure_gpu_state gpu_state;
    struct measure_peak peak;
    struct measure_abi abi;
    struct measure_paired paired;   /* serve only */
    struct measure_warmup warmup;   /* serve only */
    char l2[8];                     /* serve: "warm" or "cold"; "" for run */
    /* The identity the loaded module carries (kernels/abi.h, CROQ_MODULE_ID_SYMBOL): the
     * measured one's, and under paired timing the incumbent's; "" when the module has none
     * or the reply did not say */
    char module_id[CROQ_MODULE_ID_HEX + 1];
    char incumbent_module_id[CROQ_MODULE_ID_HEX + 1];
    double verify_s, time_s;        /* serve: the worker's seconds verifying / timing (phase_s);
                                       NAN unknown */
    /* process facts (measure_run; for the service: of the worker while it served this) */
    int exit_code;            /* -1 when not exited normally */
    int term_signal;
    bool timed_out;
    double wall_s, limit_s;
    char *raw_json;           /* the runner's stdout, malloc'd; NULL if none. Store it. */
    char *stderr_text;        /* the runner's stderr (diagnostics), malloc'd; NULL if none */
    char command[2048];       /* the runner argv joined by spaces (to reproduce) */
};

/* The text to keep as the raw measurement file of r (malloc'd): the runner's JSON as it
 * printed it when it parses and its "status" is r's outcome; otherwise a JSON record of
 * the outcome as croqtuner knows it (schema, status, error, exit_code, term_signal,
 * timed_out, stderr) with the runner's output, if any, as the string "stdout". So the
 * file always parses and always says what was decided from it (a runner killed after
 * half a line, or after a whole "ok" line, is a crash, not an unparsable file). */
char *measure_raw_record(const struct measure_result *r);
/* Run `croq-runner run ...` for o and fill r (r is reset first). Returns 0 when the
 * outcome is in r->status, whatever it is; -1 only on a local failure (fork, pipe),
 * with errno and r->error set. Always call measure_result_release. */
int measure_run(const struct measure_opts *o, struct measure_result *r);

/* Parse one runner `run` JSON text into r (fields only; r->raw_json untouched).
 * 0, or -1 with r->status = MEASURE_BAD_OUTPUT and r->error naming the problem
 * ("runner output: 'timing.median_ms' missing"). An ok status needs a passed
 * verify block, and timing unless it is a verify-only run (no "timing" and
 * "verify" present is accepted as --no-time). */
int measure_parse(const char *json, struct measure_result *r);

void measure_result_release(struct measure_result *r);

/* Does the module's croq_abi, as the runner reported it, launch what cfg claims? The
 * configuration is a source's launch contract (an agent's own kernel: docs/agent.md):
 * threads, tile_m/n/k, split_k, persistent (2 for stream_k=1, kernels/abi.h) and
 * cluster_m/n must be what cfg gives (knobs_threads and the knobs); shared memory is the kernel's own business and not
 * compared. true when they match or a is not present (nothing to compare); else false
 * with the first difference in why ("croq_abi tile_n=128, the configuration claims
 * 256"). Pure; thread-safe. */
bool measure_abi_matches(const struct measure_abi *a, const struct croq_config *cfg, char *why, size_t whylen);

/* ---- the final ladder (serve op ladder; parse_ladder.c) ---- */

#define MEASURE_LADDER_MAX 16
struct measure_ladder {
    int n;                    /* kernels the reply lists, in the request's order */
    int failed;               /* the reply's "failed" (the kernel a verification failed on), -1 */
    bool steady;              /* its warm-up settled */
    struct {
        char module_id[CROQ_MODULE_ID_HEX + 1]; /* "" when the module has none */
        int trials;           /* 0: not timed */
        double trial_ms[MEASURE_MAX_TRIALS];    /* per-launch ms of each round, > 0 */
        int clock_mhz[MEASURE_MAX_TRIALS];      /* NVML SM clock of each trial, -1 unknown */
    } k[MEASURE_LADDER_MAX];
};
/* The trials and identities of a ladder reply. 0, or -1 with err naming the member (a
 * time that is not a positive finite number, a malformed module id, ...). */
int measure_ladder_parse(const char *json, struct measure_ladder *out, char *err, size_t errlen);

/* ---- compare (croq-runner compare) ---- */

enum { MEASURE_CMP_SLT_DEFAULT, MEASURE_CMP_SLT_SEARCH, MEASURE_CMP_CUBLAS, MEASURE_CMP_OURS,
       MEASURE_CMP_COUNT };
/* Runner result names, in the enum's order: "cusparselt_default", "cusparselt_search",
 * "cublas", "ours". */
extern const char *const measure_cmp_names[MEASURE_CMP_COUNT];

struct measure_cmp_entry {
    bool present;             /* the runner reported it */
    bool available;           /* false: library missing / case unsupported (see note) */
    char status[32];          /* runner status name of this entry, or "unavailable" */
    char note[256];
    char error[512];
    bool verified;            /* a verify block with passed = true */
    double max_err_over_tol;
    double tflops, median_ms, spread_pct, sm_clock_mhz, hw_eff_pct; /* NAN if not timed */
};

/* How the runner timed the subjects (docs/runner-protocol.md, "compare"). */
enum measure_cmp_protocol {
    MEASURE_PROTO_BLOCKS,      /* one subject after the other, each its own warm-up and trials
                                  (a runner whose reply has no "protocol") */
    MEASURE_PROTO_INTERLEAVED, /* one warm-up, then rounds of one trial of every subject */
};
/* "blocks", "interleaved" */
const char *measure_cmp_protocol_name(enum measure_cmp_protocol p);
/* The protocol named text (exactly one of the names above). 0, or -1 for anything else. */
int measure_cmp_protocol_parse(const char *text, enum measure_cmp_protocol *out);

/* Ours over one vendor, round by round (src/util/paired.h): the median of the per-round
 * speed ratios (the vendor's time / ours: above 1 ours is faster) and its sign-test
 * interval [lo, hi]; NAN and n 0 when the runner gave none. */
struct measure_cmp_paired {
    double median, lo, hi;
    int n;
};

struct measure_compare {
    struct measure_result run; /* status, error, gpu, problem and process facts */
    struct measure_cmp_entry e[MEASURE_CMP_COUNT];
    double ours_over_slt_search, ours_over_slt_default, ours_over_cublas,
           slt_search_over_cublas; /* NAN when not computable */
    enum measure_cmp_protocol protocol;
    int rounds;                /* interleaved: the rounds asked for (--trials); 0 otherwise */
    struct measure_cmp_paired paired[MEASURE_CMP_COUNT]; /* ours over the vendor of that index
                                                            ([MEASURE_CMP_OURS] unused) */
};

/* Run `croq-runner compare` (o->cubin optional, o->dtype required). Same return
 * convention as measure_run; release with measure_compare_release. */
int measure_compare_run(const struct measure_opts *o, struct measure_compare *c);
/* Parse compare JSON into c (c->run's fields plus the entries). 0 or -1 as
 * measure_parse. */
int measure_compare_parse(const char *json, struct measure_compare *c);
void measure_compare_release(struct measure_compare *c);

#endif
