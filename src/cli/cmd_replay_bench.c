/* src/cli/cmd_replay_bench.c — `croqtuner replay-bench`: the tuner replayed on explore
 * datasets, scored against each dataset's best (src/explore/replay_bench.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "explore/replay_bench.h"
#include "util/args.h"
#include "util/log.h"

static const char usage[] =
    "usage: croqtuner replay-bench --datasets DIR [--seeds 20] [--iters 150] [--jobs N]\n"
    "\n"
    "Replay tuning runs on every explore dataset DIR/*.jsonl with the replay backend\n"
    "(docs/explore.md): per dataset, SEEDS runs from scratch and SEEDS from the best of the\n"
    "nearest other dataset of the same dtype. Prints, per dataset and mode, the median over\n"
    "seeds of (the run's best after N iterations, valued by the dataset) / (the dataset's\n"
    "best) for N = 10, 30, 50, 150, then the line 'replay-bench: min@50 X min@150 Y' (the\n"
    "smallest of those medians; with --iters below 150, min@N of every column printed).\n"
    "\n"
    "  --seeds S   runs per dataset and mode, engine seeds 1..S (default 20)\n"
    "  --iters N   iterations per run (default 150)\n"
    "  --jobs N    runs in parallel (default: CPU cores)\n"
    "\n"
    "Exit status: 0 every run completed, 1 a run failed, 2 bad usage or an unreadable dataset.\n";

int cmd_replay_bench(int argc, char **argv)
{
    struct replay_bench_opts o = {.seeds = 20, .iters = 150, .ns = {10, 30, 50, 150}, .n_ns = 4};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), n;
    o.jobs = cpus > 0 ? (int)cpus : 1;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (args_flag(argv, i, "--help") || args_flag(argv, i, "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if ((r = args_value(argc, argv, &i, "--datasets", &v))) {
            if (r < 0)
                return 2;
            o.datasets = v;
            continue;
        }
        int *dst = NULL;
        long lo = 1, hi = 1000;
        if ((r = args_value(argc, argv, &i, "--seeds", &v)))
            dst = &o.seeds;
        else if ((r = args_value(argc, argv, &i, "--iters", &v)))
            dst = &o.iters, hi = 100000;
        else if ((r = args_value(argc, argv, &i, "--jobs", &v)))
            dst = &o.jobs, hi = 256;
        if (!dst) {
            log_error("replay-bench: unknown option '%s' (see 'croqtuner replay-bench --help')", argv[i]);
            return 2;
        }
        if (r < 0 || args_long(argv[i - 1], v, &n))
            return 2;
        if (n < lo || n > hi) {
            log_error("replay-bench: %s: expected %ld..%ld, got %ld", argv[i - 1], lo, hi, n);
            return 2;
        }
        *dst = (int)n;
    }
    if (!o.datasets) {
        log_error("replay-bench: --datasets DIR is required (see 'croqtuner replay-bench --help')");
        return 2;
    }
    /* N beyond the budget would only repeat the last value */
    int k = 0;
    for (int i = 0; i < o.n_ns; i++)
        if (o.ns[i] <= o.iters)
            o.ns[k++] = o.ns[i];
    if (k == 0 || o.ns[k - 1] != o.iters)
        o.ns[k++] = o.iters;
    o.n_ns = k;
    return replay_bench_run(&o, stdout, NULL, NULL);
}
