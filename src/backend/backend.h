/* src/backend/backend.h — what the tuning engine needs from "a GPU": a health check,
 * building one candidate, measuring it in isolation, profiling it.
 *
 * Three implementations:
 *   sim    (sim.c)    a deterministic model of the knobs and the shape with seeded noise, a
 *                     simulated SM clock and profile category, and injectable faults; for
 *                     CI and for tests of the engine. Everything it writes says backend=sim.
 *   gpu    (gpu.c)    codegen'd source -> src/build (nvcc) -> croq-runner through
 *                     src/measure (a child process with a time limit) -> src/profile (ncu);
 *                     health from src/health/nvml.h; compile-ahead in detached processes.
 *   replay (replay.c) measurements served from an explore dataset (src/dataset): a whole
 *                     tuning run on the CPU in about a second (docs/explore.md, Replay).
 *
 * Every operation returns 0 when it ran, whatever the candidate did (the outcome is in
 * the result's status), and -1 only for a local failure of the tuner itself (cannot
 * write a file): the engine stops on -1 and records the outcome otherwise. No
 * operation of any backend kills a process it did not start or resets the GPU.
 */
#ifndef CROQ_BACKEND_H
#define CROQ_BACKEND_H
#include <stdbool.h>
#include <stddef.h>

#include "knobs/knobs.h"
#include "profile/profile.h"

#define BACKEND_REL_MAX 256
#define BACKEND_HASH_MAX 17 /* 16 hex digits + NUL (util/hash.h, FNV-1a 64) */
#define BACKEND_REASON_MAX 256
#define BACKEND_GPU_MAX 128
#define BACKEND_CMD_MAX 512

enum health_state {
    HEALTH_OK = 0,   /* nobody else on the GPU: measure */
    HEALTH_BUSY,     /* another process uses the GPU: wait, never interfere */
    HEALTH_UNUSABLE, /* no GPU / driver gone: stop and say why */
};

struct backend_health {
    enum health_state state;
    char why[BACKEND_REASON_MAX]; /* "ok", or "pid 4242 uses 20480 MiB of GPU memory" */
    double sm_clock_mhz;          /* NAN when unknown */
    double temp_c;                /* NAN when unknown */
    char throttle[96];            /* comma-separated reason names, "" when none */
};

enum cand_status {
    CAND_OK = 0,        /* built / measured and verified */
    CAND_COMPILE_ERROR, /* build failed (no iteration number consumed) */
    CAND_INCORRECT,     /* verification failed */
    CAND_CRASH,         /* launch error, trap, signal, bad module */
    CAND_TIMEOUT,       /* killed by its time limit */
    CAND_UNUSABLE,      /* the GPU is gone (runner said no_gpu): not the candidate's fault */
    CAND_NOT_IN_DATASET,/* replay: the dataset never measured this config (no numbers) */
};
/* how the reason of a CAND_NOT_IN_DATASET result (and so its results.tsv note) begins */
#define CAND_NOT_IN_DATASET_REASON "not in the dataset"
const char *cand_status_name(enum cand_status s); /* "ok", "compile_error", ..., "not_in_dataset" */
int cand_status_parse(const char *s);             /* -1 if unknown */

/* One unit of work for the backend. Paths are relative to dir; they were built by the
 * engine from validated integers. */
struct cand_req {
    const char *dir;         /* tuning directory */
    const char *key;         /* shape key, e.g. f16_4096x8192x8192_fs */
    int iter;                /* iteration the work is for (0 = baseline) */
    int attempt;             /* compile attempts already recorded for this iteration */
    const char *tag;         /* names the raw file: "cand", "cand-re", "best-re", "profile" */
    bool is_candidate;       /* false when re-measuring or profiling the best: faults are
                                injected only into candidates */
    const struct croq_config *cfg;
    struct croq_shape shape;
    const char *src_rel;     /* srcs/<key>/iterNNN.cu */
    const char *src_hash;    /* FNV-1a 64 of the source, hex */
    unsigned long long seed; /* the shape's operand seed (the base set every timing runs on) /
                                sim noise seed */
    /* Paired timing (DECIDE rules 3): the incumbent (the best) the candidate is timed
     * against, in alternating trials of the same worker; NULL: timed alone. */
    const struct croq_config *incumbent_cfg;
    const char *incumbent_src_rel;
    unsigned long long verify_seed; /* operand set of the verification: seed, or one never
                                       used before in the shape (a KEEP's check, agent
                                       candidates): the engine says which */
    bool no_time;            /* verify only */
    bool cold_l2;            /* time with operands rotated through buffers larger than L2 */
    bool all_pairs;          /* paired: run every pair (no early stop of a clear loser): a
                                confirmation (rules 4) must not stop on what it measures */
};

struct cand_result {
    enum cand_status status;
    char reason[BACKEND_REASON_MAX]; /* why not ok: compiler error line, "exit 3", ... */
    double tflops, median_ms, spread_pct, sm_clock_mhz, hw_eff_pct, max_err_over_tol;
    /* paired timing: the candidate's speedup over the incumbent (incumbent ms / candidate
     * ms per pair, src/util/paired.h): median and 95% interval; NAN when not paired */
    double ratio, ratio_lo, ratio_hi;
    int pairs;
    /* of the measurement's wall time, seconds spent verifying and timing (the rest:
     * worker start, operand sets, module load, pipes); 0 when unknown */
    double verify_s, time_s;
    char raw_rel[BACKEND_REL_MAX];   /* raw output kept under perf/<key>/ ("" if none) */
    char raw_hash[BACKEND_HASH_MAX]; /* FNV-1a 64 of that file's bytes */
    char command[BACKEND_CMD_MAX];   /* reproduces the measurement, paths relative to dir */
    char gpu[BACKEND_GPU_MAX];       /* measure: the model it ran on ("NVIDIA H200, 132 SMs"), "" unknown */
    /* gpu: the identity of the module that was measured (kernels/module_id.h), checked
     * against the build's; "" for the model backends and modules without one */
    char module_id[BACKEND_HASH_MAX];
    /* what happened on the way that the record should say although the outcome stands
     * (a reply of another module refused and the candidate measured again); "" none */
    char remark[BACKEND_REASON_MAX];
};

/* ---- the final ladder (engine/step_ladder.c, docs/engine.md "Final ladder") ----------
 * A few built, already verified configurations of one shape timed again together: each
 * verified on the base operand set, then one warm-up to a steady clock for all of them,
 * then `rounds` rounds in each of which every kernel runs one trial (a timed run of
 * back-to-back launches of at least min_trial_ms), the order rotating from round to round
 * (round r starts with kernel r mod n, so every kernel follows every other equally
 * often). Every kernel's trials thus see the same clock history; the one whose trials are
 * shortest relative to each round's (ladder_entry_result.rel) wins. */
#define LADDER_MAX 16
#define LADDER_DEFAULT_ROUNDS 12
#define LADDER_MAX_ROUNDS 64

struct ladder_entry_req {
    int iter;                  /* the row it was measured in (for records and messages) */
    const struct croq_config *cfg;
    const char *src_rel;       /* srcs/<key>/iterNNN.cu (whole, or regenerated by the engine first) */
};

struct ladder_req {
    const char *dir, *key;
    struct croq_shape shape;
    unsigned long long seed;   /* the shape's base operand set */
    const char *tag;           /* names the raw file: perf/<key>/ladder-<tag>.json */
    int n;                     /* 1..LADDER_MAX */
    struct ladder_entry_req e[LADDER_MAX];
    int rounds;                /* 1..LADDER_MAX_ROUNDS; 0: LADDER_DEFAULT_ROUNDS */
    bool cold_l2;
};

struct ladder_entry_result {
    enum cand_status status;   /* CAND_OK: built, verified, timed */
    char reason[BACKEND_REASON_MAX];
    int trials;
    double trial_ms[LADDER_MAX_ROUNDS]; /* per-launch ms of each round, in round order */
    int trial_clock_mhz[LADDER_MAX_ROUNDS]; /* NVML SM clock during each trial, -1 unknown */
    double median_ms, tflops;  /* median of trial_ms; 2MNK / median */
    /* the median over rounds of this entry's trial time divided by the geometric mean of
     * every entry's trial in that round: a drift of the clock common to a round cancels, so
     * this, not median_ms, ranks the entries */
    double rel;
    double spread_pct;         /* (max - min) / median of trial_ms, % */
    double sm_clock_mhz;       /* median of the trials' clocks, NAN unknown */
    char module_id[BACKEND_HASH_MAX];
};

struct ladder_result {
    enum cand_status status;   /* CAND_OK when every entry is; else the first failure's */
    char reason[BACKEND_REASON_MAX];
    int failed;                /* index of the entry that failed, -1 none */
    int n;
    struct ladder_entry_result e[LADDER_MAX];
    bool steady;               /* the warm-up settled (clock and power) */
    char l2[8];                /* "warm" or "cold" */
    char raw_rel[BACKEND_REL_MAX];
    char raw_hash[BACKEND_HASH_MAX];
    char command[BACKEND_CMD_MAX];
    char gpu[BACKEND_GPU_MAX];
};

struct profile_out {
    struct profile_result r;           /* r.ok false: the profile failed; r.reason says why */
    char raw_rel[BACKEND_REL_MAX];
    char raw_hash[BACKEND_HASH_MAX];
};

struct backend {
    const char *name; /* "sim", "gpu" or "replay": written into every artifact */
    int (*health)(struct backend *b, const struct cand_req *ctx, struct backend_health *out);
    /* Compile req->src_rel. out->status CAND_OK or CAND_COMPILE_ERROR. */
    int (*build)(struct backend *b, const struct cand_req *req, struct cand_result *out);
    /* Verify and time a built candidate in a child process (paired with the incumbent
     * when req names one). Many calls for one shape are cheap: the gpu backend keeps one
     * measurement worker for the shape (src/measure/service.h). */
    int (*measure)(struct backend *b, const struct cand_req *req, struct cand_result *out);
    /* One profiled launch of a built kernel, classified into a bottleneck. */
    int (*profile)(struct backend *b, const struct cand_req *req, struct profile_out *out);
    /* Compile ahead: start building req->src_rel (the guessed source of a later
     * iteration; only dir, key and src_rel are set) in the background, its output next
     * to it, and return once a later build() of the same source would wait for that
     * build instead of compiling it twice. Best effort: nothing is reported, nothing is
     * state. NULL when building costs nothing worth hiding (sim). */
    void (*build_ahead)(struct backend *b, const struct cand_req *req);
    /* The final ladder (above): every entry built (gpu: through the cache, its module
     * identity checked), verified and timed in one worker. Returns 0 with out->status
     * (CAND_OK, or the first entry's failure with out->failed naming it), -1 only on a
     * local failure of the tuner. The raw file is written either way. */
    int (*ladder)(struct backend *b, const struct ladder_req *req, struct ladder_result *out);
    void (*release)(struct backend *b);
    /* The candidate's own code runs (in croq-runner, a child) and so might take the tuner
     * down with it (kill its parent, exhaust memory): the engine then keeps a durable
     * in-flight count per candidate (gpu). false: nothing of a candidate runs (sim,
     * replay), and a tuner that dies was stopped from outside. */
    bool runs_candidates;
    /* The configurations this backend can answer for, sorted by knobs_config_cmp, each
     * once; NULL: any (gpu, sim). replay: every configuration its dataset recorded, ok or
     * failed; the engine hands the list to the search strategy (proposer_ctx.measurable)
     * so no iteration goes to one without numbers. Owned by the backend, valid until
     * release. */
    const struct croq_config *measurable;
    size_t n_measurable;
    /* replay: the identity of the records it serves (struct dataset.hash: FNV-1a 64 of
     * their inflated text), which a replay shape's checkpoint records; NULL otherwise */
    const char *dataset_hash;
    void *priv;
};

struct backend_opts {
    const char *name;       /* "sim", "gpu" or "replay" */
    const char *dataset;    /* replay: the explore dataset (JSONL) it serves */
    const struct croq_shape *shape; /* replay: the shape it is opened for, with dtype: a dataset */
    int dtype;                      /* of another is refused at open (NULL: not checked) */
    const char *sim_faults; /* sim: fault list (below); NULL: $CROQ_SIM_FAULTS */
    int sim_delay_ms;       /* sim: sleep per measurement (widens kill windows in tests) */
    const char *runner;     /* gpu: croq-runner path; NULL: next to croqtuner, then PATH */
    double measure_timeout_s; /* gpu: time limit of one runner process */
    double build_timeout_s;   /* gpu: time limit of one nvcc */
    double profile_timeout_s; /* gpu: time limit of one ncu */
};

/* True for "sim", "gpu" and "replay": what a log or checkpoint may name. */
bool backend_name_known(const char *name);

/* NULL with the reason in err for an unknown name or bad options. */
struct backend *backend_open(const struct backend_opts *o, char *err, size_t errlen);
void backend_close(struct backend *b);

/* Physical sparse tensor-core peak, dense-equivalent TFLOPS, at an SM clock: the target's
 * (src/target/target.def: 1979 f16 / 3958 e4m3 at 1980 MHz on the H200), scaled linearly
 * (docs/sparse-gemm-sm90.md section 1). */
double backend_peak_tflops(int dtype, double sm_clock_mhz);

/* Hash a file's bytes (FNV-1a 64, hex). 0 or -1 with errno. */
int backend_hash_file(const char *path, char out[BACKEND_HASH_MAX]);

/* The noise seed of one unit of work for the model backends (sim, replay): FNV-1a 64 of the
 * engine's seed, key, iteration, tag and configuration signature, so the same request draws the
 * same noise after a resume and different requests draw independent noise. */
uint64_t backend_req_seed(const struct cand_req *r);

/* ---- shared by the model backends (sim.c, replay.c) ---- */

#define BACKEND_MAX_TRIALS 64
struct json_t;
/* Write j (with "backend": backend_name added) as the raw file perf/<key>/iterNNN-<tag>.json
 * of r, atomically, with 17 significant digits; out->raw_rel and raw_hash set. 0, or -1
 * with out->reason. */
int backend_write_raw(const struct cand_req *r, struct json_t *j, const char *backend_name, struct cand_result *out);
/* An ok measurement from per-launch trial times (ms; at most BACKEND_MAX_TRIALS used), as
 * the runner computes it: median = the middle of the sorted trials (the mean of the two
 * middle ones for an even count), spread = (max - min) / median in %, TFLOPS = 2MNK /
 * median, % of the peak at clock_mhz. Fills out and adds "status", "verify" (passed,
 * reference), "timing" and "gpu_state" to j. Numbers that fail measure_numbers_check
 * (src/measure/numbers.h: a time not positive, max_err_over_tol outside [0, 1]) make it a
 * failed measurement instead: out CAND_CRASH with reason "bad_output: <why>", numbers NAN,
 * j's "status" "bad_output" and "error" <why>. */
void backend_ok_result(const struct cand_req *r, const double *trial_ms, int n, double clock_mhz,
                       double max_err_over_tol, const char *reference, struct json_t *j, struct cand_result *out);
/* The check every backend's measurement passes before the engine records it
 * (src/measure/numbers.h), on out's summary against r's problem: an ok result's
 * max_err_over_tol in [0, 1] and, unless r->no_time, its median and TFLOPS positive and
 * TFLOPS = 2MNK / median within the runner's printing, spread and hw_eff >= 0, the clock
 * unknown or in [1, 10000] MHz, a paired speedup positive with lo <= median <= hi. 0 when it
 * passes or out is not ok; -1 with why ("timing.tflops nan is not a positive number").
 * Pure; thread-safe. */
int backend_result_check(const struct cand_req *r, const struct cand_result *out, char *why, size_t len);
/* A verification only (req->no_time): "status" ok and "verify" (passed, reference) in j,
 * out ok with no numbers (NAN). */
void backend_verified_result(double max_err_over_tol, const char *reference, struct json_t *j,
                             struct cand_result *out);
/* The "paired" block of a paired measurement (both kernels' per-launch ms, n pairs) with
 * the speedup (src/util/paired.h) in out->ratio, ratio_lo, ratio_hi, pairs; a new
 * reference, to be set into the raw JSON. */
struct json_t *backend_paired_result(const struct cand_req *r, const double *cand_ms, const double *inc_ms, int n,
                                     struct cand_result *out);
/* The ladder's summary from its trials, the one computation every backend's ladder (and
 * the audit) uses: for each entry of out (q->n, status ok) its median (the middle trial,
 * the mean of the two middle ones for an even count), spread = (max - min) / median in %,
 * TFLOPS = 2MNK / median, the median of the trials' known clocks (NaN when none is known),
 * and rel (above; NaN unless every entry has the same number of trials). */
void backend_ladder_summarise(const struct ladder_req *q, struct ladder_result *out);
/* Write j (with "backend" added) as the raw file perf/<key>/ladder-<tag>.json of q, as
 * backend_write_raw does; out->raw_rel and raw_hash set. 0, or -1 with out->reason. */
int backend_write_ladder_raw(const struct ladder_req *q, struct json_t *j, const char *backend_name,
                             struct ladder_result *out);
/* The model backends' raw ladder record: "entries" [{iter, config, status, trial_ms,
 * sm_clock_mhz}], "status" and, when not ok, "error", added to j. */
void backend_ladder_json_finish(const struct ladder_req *q, const struct ladder_result *out, struct json_t *j);
/* The noise seed of a ladder for the model backends: FNV-1a 64 of the engine's seed, key,
 * tag and every entry's signature. */
uint64_t backend_ladder_seed(const struct ladder_req *q);

/* The simulated profile of r's config (sim_model: category, metrics, justification),
 * its raw file labelled backend_name. 0 or -1 (cannot write). */
int sim_profile_write(const struct cand_req *r, const char *backend_name, struct profile_out *out);

/* ---- the simulated GPU (sim.c): exposed for tests/unit/test_sim.c ---- */

/* Faults by iteration: "crash@5,timeout@9,incorrect@12,compile@3" plus
 * busy@N (the health check before measuring iteration N reports another process, for
 * the first 2 checks, or *C checks), unusable@N (health says the GPU is gone),
 * abovepeak@N (the candidate measures above the physical peak every time),
 * spike@N (the first measurement of the candidate reads 1.8x: a noise spike; paired, it
 * reads 1.25x the physical peak, the one reading rules 3 measures again).
 * memo@N (the candidate is correct on the shape's own operands only: a kernel that
 * reproduces outputs it has seen fails every other operand set),
 * compile@N fails the first attempt of iteration N; compile@N*C the first C attempts.
 * ladder@N: the configuration of iteration N crashes in the first final ladder (tag "final"). */
enum sim_fault_kind {
    SIM_FAULT_CRASH, SIM_FAULT_TIMEOUT, SIM_FAULT_INCORRECT, SIM_FAULT_COMPILE,
    SIM_FAULT_BUSY, SIM_FAULT_UNUSABLE, SIM_FAULT_ABOVEPEAK, SIM_FAULT_SPIKE, SIM_FAULT_MEMO,
    SIM_FAULT_LADDER, SIM_FAULT_KINDS
};
#define SIM_FAULTS_MAX 64
struct sim_fault { enum sim_fault_kind kind; int iter; int count; };
struct sim_faults { int n; struct sim_fault f[SIM_FAULTS_MAX]; };
int sim_faults_parse(const char *spec, struct sim_faults *out, char *err, size_t errlen);
/* count of matching faults (0 none) */
int sim_fault_at(const struct sim_faults *f, enum sim_fault_kind kind, int iter);

/* The noise-free model: throughput and clock of cfg on shape, and the profile category
 * the simulated ncu would report. Deterministic. */
struct sim_point {
    double tflops;       /* dense-equivalent TFLOPS at clock_mhz, no noise */
    double clock_mhz;    /* simulated sustained SM clock */
    double eff;          /* fraction of the peak at that clock */
    enum croq_bottleneck bottleneck; /* profile_classify of the metrics */
    char justification[256];
    struct profile_metrics metrics;
};
void sim_model(const struct croq_config *cfg, const struct croq_shape *shape, struct sim_point *out);
#endif
