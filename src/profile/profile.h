/* src/profile/profile.h — PROFILE step: one launch of a kernel under ncu, parsed into
 * metrics and classified into one of seven bottleneck categories.
 *
 * Categories (the tuning protocol's): see enum croq_bottleneck. The classification
 * rule is documented in classify.c next to its code and in docs/profiling.md, which
 * also maps every field of struct profile_metrics to the exact ncu metric name(s).
 *
 * Files: csv.c (RFC 4180 reader), ncu_csv.c (ncu raw page -> metrics), classify.c
 * (metrics -> category), run.c (spawning ncu around croq-runner), json.c (profile.json).
 * Only run.c starts programs; everything else is pure or touches only the files it is
 * given, so tests need no GPU.
 */
#ifndef CROQ_PROFILE_H
#define CROQ_PROFILE_H
#include <stdbool.h>
#include <stddef.h>

#include "knobs/knobs.h"

enum croq_bottleneck {
    BN_SMEM_THROUGHPUT = 0,
    BN_L2_THROUGHPUT,
    BN_DRAM_THROUGHPUT,
    BN_COMPUTE_BOUND,
    BN_LATENCY_BOUND,
    BN_OCCUPANCY_LIMITED,
    BN_INSTRUCTION_FETCH,
    BN_COUNT,
    BN_UNKNOWN = -1
};

/* The classification thresholds (docs/profiling.md, "Classification"). Percentages. */
#define PROFILE_COMPUTE_PCT 70.0       /* tensor pipe busy: compute_bound */
#define PROFILE_DRAM_PCT 70.0          /* dram throughput: dram_throughput */
#define PROFILE_L2_PCT 70.0            /* L2 throughput: l2_throughput */
#define PROFILE_SMEM_PCT 70.0          /* shared-memory pipe: smem_throughput */
#define PROFILE_NO_INSTRUCTION_PCT 20.0 /* share of no_instruction stalls: instruction_fetch */
#define PROFILE_OCC_THEORETICAL_PCT 50.0 /* theoretical occupancy below this ... */
#define PROFILE_OCC_LONG_SB_PCT 30.0   /* ... and long-scoreboard share at least this */
#define PROFILE_OCC_WAVES 1.0          /* ... and more CTAs than fit at once (waves above this) */

/* The metrics the classifier reads, in % of peak unless named otherwise. NAN = not
 * reported by this ncu run. Exact ncu names: docs/profiling.md and ncu_csv.c. */
struct profile_metrics {
    double sm_throughput_pct;        /* sm__throughput.avg.pct_of_peak_sustained_elapsed */
    double tensor_pipe_pct;          /* tensor (GMMA) pipe cycles active, % of active */
    double dram_throughput_pct;      /* dram__throughput.avg.pct_of_peak_sustained_elapsed */
    double l2_throughput_pct;        /* lts__throughput.avg.pct_of_peak_sustained_elapsed */
    double smem_throughput_pct;      /* l1tex__data_pipe_lsu_wavefronts_mem_shared...elapsed */
    double achieved_occupancy_pct;   /* sm__warps_active.avg.pct_of_peak_sustained_active */
    double theoretical_occupancy_pct;/* sm__maximum_warps_per_active_cycle_pct */
    double stall_long_scoreboard_pct;/* share of warp stall reasons, % (see docs) */
    double stall_barrier_pct;
    double stall_no_instruction_pct; /* instruction fetch */
    double duration_us;              /* gpu__time_duration.sum */
    /* added with the parser (append-only: code using the fields above is unchanged) */
    double memory_throughput_pct;    /* gpu__compute_memory_throughput...elapsed */
    double l1tex_throughput_pct;     /* l1tex__throughput.avg.pct_of_peak_sustained_active */
    double stall_wait_pct;
    double stall_math_pipe_throttle_pct;
    double stall_mio_throttle_pct;
    double stall_short_scoreboard_pct;
    double stall_sleeping_pct;
    double occ_limit_registers;      /* launch__occupancy_limit_registers, blocks per SM */
    double occ_limit_shared_mem;     /* launch__occupancy_limit_shared_mem */
    double occ_limit_warps;          /* launch__occupancy_limit_warps */
    double occ_limit_blocks;         /* launch__occupancy_limit_blocks */
    double registers_per_thread;     /* launch__registers_per_thread */
    double waves_per_sm;             /* launch__waves_per_multiprocessor: grid CTAs / resident CTAs */
    char top_stall[48];              /* largest stall reason ("long_scoreboard"), "" if none */
    double top_stall_pct;
};

struct profile_result {
    bool ok;                         /* false: ncu failed or timed out; reason says why */
    char reason[256];
    enum croq_bottleneck category;
    char justification[256];         /* "dram_throughput 87.1% >= 70%" */
    struct profile_metrics m;
};

const char *bottleneck_name(enum croq_bottleneck b); /* "smem_throughput", ...; "unknown" */
enum croq_bottleneck bottleneck_parse(const char *s); /* BN_UNKNOWN if unknown */

/* Every field NAN, top_stall "". */
void profile_metrics_init(struct profile_metrics *m);

/* Parse the text of an `ncu --csv --page raw --print-units base` log (ncu's "==PROF=="
 * lines may be mixed in) into the metrics of the first launch of kernel_name (NULL:
 * the first launch of any kernel). 0, or -1 with err (no header, no launch row, bad
 * CSV). A metric absent from the output stays NAN; that is not an error. */
int profile_parse_ncu_csv(const char *text, const char *kernel_name, struct profile_metrics *m,
                          char *err, size_t errlen);

/* Classify metrics (copied into r->m) into r->category with r->justification naming the
 * metric and threshold that decided. The ordered rule is in classify.c. BN_UNKNOWN when
 * none of the throughput metrics was reported. Does not touch r->ok / r->reason. */
void profile_classify(const struct profile_metrics *m, struct profile_result *r);

/* Launches whose ncu profile is skipped: croq-runner run --warmup 1 --warmup-ms 0 --iters 1
 * --trials 1 --no-verify launches the kernel once (checked for faults, not verified: the
 * profiled kernel is one the measurement verified), once to warm up, once timed; profile
 * the third. */
#define PROFILE_LAUNCH_SKIP 2
#define PROFILE_KERNEL_NAME "croq_gemm_sp"

/* After ncu said ERR_NVGPUCTRPERM (this process may not read the GPU's counters),
 * profile_run fails at once with that reason, saying it is not retried, instead of
 * starting ncu again for every new best (the permission is the machine's, not the
 * kernel's): the first time it also prints the explanation as a warning. This clears
 * that memory (tests; a long-lived process whose driver was reconfigured). */
void profile_forget_denial(void);

/* Profile one launch of cubin on shape: spawns
 *   ncu --target-processes all --kernel-name croq_gemm_sp --launch-skip 2 --launch-count 1
 *       --clock-control none --section SpeedOfLight ... --csv --page raw --print-units base
 *       --log-file OUT/ncu-raw.csv  RUNNER run --cubin CUBIN --shape MxNxK --warmup 1
 *       --iters 1 --trials 1
 * The ncu program is $CROQ_NCU if set, else "ncu" from PATH. Keeps under out_dir (one
 * directory per profile, created if missing): ncu-raw.csv (the CSV log), runner.json
 * (the runner's stdout), ncu-stderr.txt, profile.json (result as JSON). dtype is the
 * cubin's (recorded in profile.json). Fills r; r->ok=false with r->reason on any
 * failure (ncu missing, non-zero exit, time-out, no launch profiled, unparsable output).
 * Returns 0 if r->ok, else -1. Never exits or aborts. */
int profile_run(const char *runner_path, const char *cubin, const struct croq_shape *shape,
                int dtype, const char *out_dir, double timeout_s, struct profile_result *r);

/* Write r as JSON (schema 1, NAN metrics as null) to path, atomically. 0 or -1. */
int profile_write_json(const char *path, const struct profile_result *r);
#endif
