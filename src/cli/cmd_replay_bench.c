/* src/cli/cmd_replay_bench.c — `croqtuner replay-bench`: the tuner replayed on explore
 * datasets, scored against each dataset's best (src/explore/replay_bench.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "explore/replay_bench.h"
#include "util/opts.h"
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
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cpus > 0 ? (int)cpus : 1;
    struct opt t[] = {
        {.name = "--datasets", .type = OPT_DIR, .dst = &o.datasets},
        {.name = "--seeds", .type = OPT_INT, .dst = &o.seeds, .lo = 1, .hi = 1000},
        {.name = "--iters", .type = OPT_INT, .dst = &o.iters, .lo = 1, .hi = 100000},
        {.name = "--jobs", .type = OPT_INT, .dst = &o.jobs, .lo = 1, .hi = 256},
    };
    struct opt_spec spec = {"replay-bench", usage, t, sizeof t / sizeof t[0]};
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
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
