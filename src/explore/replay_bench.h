/* src/explore/replay_bench.h — `croqtuner replay-bench`: how close the tuner gets to the
 * best of each explore dataset, replayed on the CPU (the replay backend).
 *
 * For every dataset (*.jsonl or *.jsonl.gz of a directory, src/dataset/dataset.h) and
 * mode, `seeds` tuning runs of `iters` iterations (engine_tune with the replay backend,
 * engine seeds 1..seeds), each in its own temporary tuning directory:
 *   scratch  from the baseline (--mode scratch);
 *   best     from the best configuration of another dataset of the same dtype (the one
 *            nearest in log-distance of M, N, K whose best the dataset measured ok), as a
 *            from_current_best run started from that shape's best would.
 * A run's best after N iterations is the configuration of its last BASELINE or KEEP row
 * with iteration <= N, valued by the dataset's recorded TFLOPS of that configuration
 * (not the run's noisy draw), divided by the dataset's best. Reported per dataset and
 * mode: the median over seeds for each N of ns; the last line is
 * `replay-bench: min@50 X min@150 Y`, the minimum of those medians over every row.
 *
 * Durability: the tuning directories go to /dev/shm when it is writable (else $TMPDIR):
 * the engine fsyncs every record, which costs nothing in a tmpfs, and the runs are
 * thrown away. Runs execute in `jobs` child processes.
 */
#ifndef CROQ_EXPLORE_REPLAY_BENCH_H
#define CROQ_EXPLORE_REPLAY_BENCH_H
#include <stdio.h>

#define RB_MAX_NS 8

struct replay_bench_opts {
    const char *datasets; /* directory of *.jsonl / *.jsonl.gz */
    int seeds;            /* runs per dataset and mode (>= 1) */
    int iters;            /* budget of each run */
    int jobs;             /* parallel runs */
    int ns[RB_MAX_NS];    /* the N of best-after-N, ascending, each <= iters */
    int n_ns;
    /* the runs' search strategy (src/search/search.h, one the engine runs itself); NULL: the
     * engine's default, and the last line reads `replay-bench: ...`; else it names the
     * strategy: `replay-bench NAME: ...` */
    const char *strategy;
};

/* One row of the table. */
struct replay_bench_row {
    char dataset[128];    /* file name without .jsonl (.jsonl.gz) */
    const char *mode;     /* "scratch" or "best" */
    char from[128];       /* best: the dataset whose best seeded it */
    double median[RB_MAX_NS];
    double dataset_best;  /* TFLOPS */
    int runs;             /* runs that completed */
};

/* Run the benchmark and print the table and the last line to out. 0 when every run
 * completed; 1 when a run failed (named on stderr; its row shows fewer runs); 2 bad input
 * (no dataset, an unreadable one). rows/n_rows: the table (free() it), may be NULL. */
int replay_bench_run(const struct replay_bench_opts *o, FILE *out, struct replay_bench_row **rows, int *n_rows);

/* The strategies side by side: for every row (the same datasets and modes in each of
 * rows[0..n_strategies), as replay_bench_run gave them for o with names[s] as the
 * strategy), each strategy's median @50 and @150 (those of o->ns that exist; else the
 * last), then their minimum over the rows. */
void replay_bench_compare(const struct replay_bench_opts *o, FILE *out, const char *const *names,
                          struct replay_bench_row *const *rows, int n_strategies, int n_rows);
#endif
