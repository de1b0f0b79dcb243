/* src/cli/cmd_replay_bench.c — `croqtuner replay-bench`: the tuner replayed on explore
 * datasets, scored against each dataset's best (src/explore/replay_bench.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "explore/replay_bench.h"
#include "search/search.h"
#include "util/opts.h"
#include "util/log.h"

static const char usage[] =
    "usage: croqtuner replay-bench --datasets DIR [--seeds 20] [--iters 150] [--jobs N]\n"
    "                              [--strategy NAME[,NAME...]|all]\n"
    "\n"
    "Replay tuning runs on every explore dataset DIR/*.jsonl (or gzip-compressed,\n"
    "*.jsonl.gz) with the replay backend (docs/explore.md): per dataset, SEEDS runs from\n"
    "scratch and SEEDS from the best of the nearest other dataset of the same dtype.\n"
    "Prints, per dataset and mode, the median over seeds of (the run's best after N\n"
    "iterations, valued by the dataset) / (the dataset's best) for N = 10, 30, 50, 150,\n"
    "then the line 'replay-bench: min@50 X min@150 Y' (the smallest of those medians;\n"
    "with --iters below 150, min@N of every column printed).\n"
    "\n"
    "  --seeds S   runs per dataset and mode, engine seeds 1..S (default 20)\n"
    "  --iters N   iterations per run (default 150)\n"
    "  --jobs N    runs in parallel (default: CPU cores)\n"
    "  --strategy  the runs' search strategies (docs/search.md): a comma-separated list of\n"
    "              those below but agent, or all of them; each gets its table (its last\n"
    "              line 'replay-bench NAME: ...'), then every strategy's @50 / @150 per\n"
    "              dataset side by side. Without it: the default strategy, as above\n"
    "\n"
    "Exit status: 0 every run completed, 1 a run failed, 2 bad usage or an unreadable dataset.\n";

/* "a,b" or "all" into names (the table's spelling, each once): the count, or -1 (said why)
 * for an unknown name, the agent (its ideas come from outside: nothing to replay) or an
 * empty list. */
static int parse_strategies(const char *list, const char **names, int max)
{
    char all[200] = "", buf[256];
    int n = 0;
    for (size_t i = 0; i < search_count(); i++) /* the engine's own strategies */
        if (search_at(i)->next)
            snprintf(all + strlen(all), sizeof all - strlen(all), "%s, ", search_at(i)->name);
    if (!strcmp(list, "all")) {
        for (size_t i = 0; i < search_count() && n < max; i++)
            if (search_at(i)->next)
                names[n++] = search_at(i)->name;
        return n;
    }
    /* a list is NAME[,NAME...]: an empty item ("grid,", ",,") or a name twice is a typo,
     * and "all" stands alone */
    size_t len = strlen(list);
    if (!len || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,")) {
        log_error("replay-bench: --strategy: '%s' has an empty name (NAME[,NAME...]: %sor all)", list, all);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const struct search_strategy *s = search_open(t);
        if (!strcmp(t, "all")) {
            log_error("replay-bench: --strategy: 'all' stands alone, not in a list ('%s')", list);
            return -1;
        }
        if (!s) {
            log_error("replay-bench: --strategy: '%s' is not a search strategy (%sor all)", t, all);
            return -1;
        }
        if (!s->next) {
            log_error("replay-bench: --strategy: '%s' takes its ideas from outside the engine: there is nothing to "
                      "replay (the engine's own: %sor all)", t, all);
            return -1;
        }
        for (int j = 0; j < n; j++)
            if (names[j] == s->name) {
                log_error("replay-bench: --strategy: '%s' is named twice in '%s'", t, list);
                return -1;
            }
        if (n < max)
            names[n++] = s->name;
    }
    if (!n)
        log_error("replay-bench: --strategy: no strategy named (%sor all)", all);
    return n ? n : -1;
}

int cmd_replay_bench(int argc, char **argv)
{
    struct replay_bench_opts o = {.seeds = 20, .iters = 150, .ns = {10, 30, 50, 150}, .n_ns = 4};
    const char *strategies = NULL;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cpus > 0 ? (int)cpus : 1;
    struct opt t[] = {
        {.name = "--datasets", .type = OPT_DIR, .dst = &o.datasets},
        {.name = "--seeds", .type = OPT_INT, .dst = &o.seeds, .lo = 1, .hi = 1000},
        {.name = "--iters", .type = OPT_INT, .dst = &o.iters, .lo = 1, .hi = 100000},
        {.name = "--jobs", .type = OPT_INT, .dst = &o.jobs, .lo = 1, .hi = 256},
        {.name = "--strategy", .type = OPT_STR, .dst = &strategies},
    };
    struct opt_spec spec = {"replay-bench", usage, t, sizeof t / sizeof t[0]};
    int rc = opts_parse(&spec, argc, argv);
    if (rc == 1)
        cli_print_strategies(stdout);
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
    if (!strategies)
        return replay_bench_run(&o, stdout, NULL, NULL);
    const char *names[64];
    int nst = parse_strategies(strategies, names, 64);
    if (nst < 0)
        return 2;
    struct replay_bench_row *rows[64];
    int n_rows = 0, worst = 0;
    for (int i = 0; i < nst; i++) {
        o.strategy = names[i];
        printf("%sstrategy %s:\n", i ? "\n" : "", names[i]);
        fflush(stdout);
        int rc = replay_bench_run(&o, stdout, &rows[i], &n_rows);
        if (rc == 2) { /* bad input: the same for every strategy */
            for (int j = 0; j < i; j++)
                free(rows[j]);
            return 2;
        }
        worst = rc > worst ? rc : worst;
    }
    putchar('\n');
    replay_bench_compare(&o, stdout, names, rows, nst, n_rows);
    for (int i = 0; i < nst; i++)
        free(rows[i]);
    return worst;
}
