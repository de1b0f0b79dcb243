/* src/cli/cmd_plan_sim.c — `croqtuner plan-sim`: a parallel sweep's wall time and idle
 * share predicted for 1..N workers from measured per-shape durations (src/scale/plansim.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "scale/plansim.h"
#include "util/opts.h"
#include "util/log.h"

#define PLAN_SIM_COUNTS 16

static const char plan_sim_usage[] =
    "usage: croqtuner plan-sim --measured DIR [--measured DIR ...] [--workers 1,2,4,8]\n"
    "                          [--dtype f16|e4m3|all] [--mode scratch|best] [--waves 1|2|3]\n"
    "                          [--iters N] [--init-seconds S] [--longest-first] [--shapes FILE]\n"
    "\n"
    "Predict the wall time of `croqtuner sweep --gpus` without a GPU: the sweep's plan\n"
    "(docs/scale.md, waves per dtype, INIT claims then TUNE claims, the first free worker\n"
    "taking the first unclaimed shape) run by each number of simulated workers, every shape\n"
    "taking (iterations + 1) x (a + b x GFLOP) seconds, a and b fitted to the done shapes of\n"
    "the --measured tuning directories (the gaps between their results.tsv timestamps, a\n"
    "pause above max(120 s, 20 x the median gap) counted as the median gap; shapes with injected\n"
    "faults, and shapes not run on a GPU, left out: a sim or replay run's durations are the\n"
    "CPU's). Prints the measured points and the fit, then per worker count the end\n"
    "of each wave with the idle share so far and the wave's longest shape, the wall time,\n"
    "the idle share and the speed-up over one worker. Stage 4 (needs_scratch reruns)\n"
    "depends on results and is not simulated.\n"
    "\n"
    "  --waves N        simulate stages 1..N (default 1: the typical shapes from scratch)\n"
    "  --iters N        every shape's budget (default: shapes.json's, 150 / 30)\n"
    "  --init-seconds S one INIT claim (default 1)\n"
    "  --longest-first  what-if: a worker tunes the longest claimable shape of the current\n"
    "                   waves first instead of the next in plan order (the sweep does not)\n"
    "\n"
    "Exit status: 0 printed, 1 a directory or shapes.json cannot be read, 2 bad usage.\n";

struct counts {
    int v[PLAN_SIM_COUNTS], n;
};

/* --workers "1,2,4,8" -> counts (struct counts); -1 on a bad list. */
static int parse_counts(const char *s, void *dst, char *err, size_t errlen)
{
    struct counts *c = dst;
    int *out = c->v, *n = &c->n;
    *n = 0;
    for (const char *p = s; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > SCALE_WORKERS_MAX || *n == PLAN_SIM_COUNTS || (*end && *end != ',')) {
            snprintf(err, errlen, "'%s': a list of worker counts 1..%d, like 1,2,4,8", s, SCALE_WORKERS_MAX);
            return -1;
        }
        out[(*n)++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (!*n)
        snprintf(err, errlen, "an empty list of worker counts");
    return *n ? 0 : -1;
}

static void print_run(const struct plansim_result *r, int workers, double one_wall)
{
    printf("\n%d worker%s:\n", workers, workers == 1 ? "" : "s");
    printf("  %-6s %-5s %6s %10s %10s %11s %9s  %s\n", "dtype", "wave", "shapes", "start_s", "end_s", "idle_so_far",
           "longest_s", "longest shape");
    for (size_t i = 0; i < r->n_waves; i++) {
        const struct plansim_wave *w = &r->waves[i];
        printf("  %-6s %-5d %6zu %10.0f %10.0f %10.1f%% %9.0f  %s\n", croq_dtype_name(w->dtype), w->stage, w->shapes,
               w->start_s, w->end_s, 100 * w->idle_share, w->longest_s, w->longest);
    }
    printf("  wall %.0f s (%.2f h), idle %.1f%%, speed-up over 1 worker %.2fx (%.2f per worker)\n", r->wall_s,
           r->wall_s / 3600, 100 * r->idle_share, one_wall / r->wall_s, one_wall / r->wall_s / workers);
}

int cmd_plan_sim(int argc, char **argv)
{
    const char *measured[16], *dt = "all", *mode = NULL, *shapes = NULL;
    int nmeasured = 0, waves = 1;
    struct counts cs = {{1, 2, 4, 8}, 4};
    long iters = 0;
    double init_s = 1;
    bool longest_first = false;
    struct opt t[] = {
        {.name = "--measured", .type = OPT_STR, .dst = measured, .max = 16, .count = &nmeasured},
        {.name = "--workers", .type = OPT_CUSTOM, .dst = &cs, .check = parse_counts},
        {.name = "--dtype", .type = OPT_CUSTOM, .dst = &dt, .check = cli_dtype_all_value},
        {.name = "--mode", .type = OPT_CUSTOM, .dst = &mode, .check = cli_mode_value},
        {.name = "--shapes", .type = OPT_FILE, .dst = &shapes},
        {.name = "--waves", .type = OPT_INT, .dst = &waves, .lo = 1, .hi = 3},
        {.name = "--iters", .type = OPT_LONG, .dst = &iters, .lo = 1, .hi = 999},
        {.name = "--init-seconds", .type = OPT_DOUBLE, .dst = &init_s, .dlo = 0, .dhi = 3600},
        {.name = "--longest-first", .type = OPT_FLAG, .dst = &longest_first},
    };
    struct opt_spec spec = {"plan-sim", plan_sim_usage, t, sizeof t / sizeof t[0]};
    int prc = opts_parse(&spec, argc, argv);
    if (prc)
        return prc == 1 ? 0 : 2;
    int *counts = cs.v, ncounts = cs.n;
    int dtype = !strcmp(dt, "all") ? -1 : croq_dtype_parse(dt);
    int m = mode ? mode_parse(mode) : -1;
    if (!nmeasured) {
        log_error("plan-sim: --measured DIR is required (a tuning directory of real runs)");
        return 2;
    }
    char found[4096], err[700];
    if (!shapes) {
        if (shapes_find_file(found, sizeof found, err, sizeof err)) {
            log_error("plan-sim: %s (give --shapes FILE)", err);
            return 2; /* a missing input file: bad usage, as in bench and knobs */
        }
        shapes = found;
    }
    struct plansim_point *pts = NULL;
    size_t npts = 0, not_gpu = 0;
    for (int i = 0; i < nmeasured; i++) {
        size_t before = not_gpu;
        if (plansim_measure(measured[i], &pts, &npts, &not_gpu, err, sizeof err) < 0) {
            log_error("plan-sim: --measured %s: %s", measured[i], err);
            free(pts);
            return 1;
        }
        if (not_gpu > before) /* their durations are of the CPU that simulated them */
            log_warn("plan-sim: --measured %s: %zu done shape(s) not run on a GPU (sim or replay backend) left out: "
                     "the prediction comes from GPU runs only", measured[i], not_gpu - before);
    }
    if (!npts) {
        log_error("plan-sim: no done GPU shape without injected faults in the --measured directories%s",
                  not_gpu ? " (every done shape there ran on the sim or replay backend)" : "");
        return 1;
    }
    struct scale_plan plan;
    if (plan_build(shapes, dtype, m, 0, false, &plan, err, sizeof err)) {
        log_error("plan-sim: %s", err);
        free(pts);
        return 1;
    }
    struct plansim_model model = {.init_s = init_s, .longest_first = longest_first};
    plansim_fit(pts, npts, &model);
    printf("measured (seconds per stored iteration, from results.tsv timestamps):\n");
    for (size_t i = 0; i < npts; i++)
        printf("  %-26s %9.1f GFLOP %4d iterations %6.2f s/iteration\n", pts[i].key, pts[i].gflop,
               pts[i].iterations, pts[i].s_per_iter);
    printf("fit: %.3f s + %.5f s/GFLOP per iteration; INIT %.1f s; waves 1..%d of dtype %s, mode %s, %s; %s\n",
           model.a_s, model.b_s_per_gflop, init_s, waves, dt, mode ? mode : "the default plan",
           iters ? "--iters given" : "shapes.json budgets",
           longest_first ? "longest shape first (what-if)" : "claims in plan order (as the sweep)");
    double one = 0;
    for (int c = 0; c < ncounts; c++) {
        struct plansim_result r, r1;
        if (!one) {
            plansim_run(&plan, waves, (int)iters, 1, &model, &r1);
            one = r1.wall_s;
        }
        plansim_run(&plan, waves, (int)iters, counts[c], &model, &r);
        print_run(&r, counts[c], one);
    }
    plan_release(&plan);
    free(pts);
    return 0;
}
