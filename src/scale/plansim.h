/* src/scale/plansim.h — a parallel sweep's wall time predicted without a GPU.
 *
 * The sweep plan (plan.c) run by N simulated workers under the claiming rules of next.c:
 * per dtype the first unfinished wave; in it, INIT claims on every shape first, then TUNE
 * claims, each worker taking the first shape of the plan nobody has (f16's wave before
 * e4m3's); a worker with nothing to claim waits for the next release. Each shape takes
 * the seconds of a duration model fitted to measured runs: (iterations + 1) x
 * (a + b x GFLOP), GFLOP = 2MNK / 1e9, a and b by least squares over the measured
 * shapes' mean seconds per stored iteration (weighted by their iterations). Stage 4 (the
 * needs_scratch reruns) depends on results and is not simulated. Deterministic; pure
 * functions, no I/O except plansim_measure, which reads tuning directories.
 */
#ifndef CROQ_SCALE_PLANSIM_H
#define CROQ_SCALE_PLANSIM_H
#include <stddef.h>

#include "scale/scale.h"

/* One measured shape: its size, and the seconds per stored iteration it took. */
struct plansim_point {
    char key[KEY_MAX];
    double gflop;
    int iterations;      /* rows after the baseline */
    double s_per_iter;   /* plansim_busy_seconds of its rows' timestamps / iterations */
};
/* A pause between two rows longer than max(PLANSIM_PAUSE_MIN_S, PLANSIM_PAUSE_FACTOR x the
 * median gap) is the run being stopped and resumed later (a GPU chunk cut at its time
 * limit, continued next session: results/h200/sweep-typical's f16_4096x8192x32768_fs has a
 * gap of 4 h between its baseline and iteration 1), not tuning time. */
#define PLANSIM_PAUSE_MIN_S 120.0
#define PLANSIM_PAUSE_FACTOR 20.0
/* The seconds a shape's run was busy from its first row to its last, from their UTC
 * timestamps (seconds, in row order; n >= 2): the sum of the gaps between consecutive rows,
 * each pause (above) counted as the median gap instead. NAN when n < 2, a timestamp is not
 * finite or one goes backwards. Pure. */
double plansim_busy_seconds(const double *stamps, size_t n);
struct plansim_model {
    double a_s, b_s_per_gflop; /* seconds per iteration = a + b x GFLOP */
    double init_s;             /* one INIT claim */
    bool longest_first;        /* what-if: a TUNE claim takes the longest claimable shape of
                                  both dtypes' current waves instead of the first in plan
                                  order (next.c does the latter); INIT claims still first */
};

/* The done shapes of a tuning directory with at least one iteration after the baseline
 * and no injected fault (no DISCARD_TIMEOUT / DISCARD_RUNTIME_CRASH row: a hang's time
 * limit is not a duration of tuning), appended to *pts (malloc'd, *n updated). Only GPU
 * runs: a done shape of another backend (sim, replay: their durations are the CPU's, not
 * the GPU's) is left out and counted in *not_gpu. Returns how many were added, or -1
 * with err when state.json or a log cannot be read. */
int plansim_measure(const char *dir, struct plansim_point **pts, size_t *n, size_t *not_gpu, char *err,
                    size_t errlen);
/* Least squares fit of a and b (b >= 0; a alone when the points cannot tell b). */
void plansim_fit(const struct plansim_point *pts, size_t n, struct plansim_model *m);
double plansim_shape_seconds(const struct plansim_model *m, const struct shape_key *k, int iterations);

/* One wave's outcome. */
struct plansim_wave {
    int dtype, stage;
    size_t shapes;
    double start_s, end_s;       /* first claim, last release */
    double longest_s;            /* its longest shape (TUNE) ... */
    char longest[KEY_MAX];       /* ... which one */
    double idle_share;           /* idle worker-seconds / (workers x end_s), from 0 to end_s */
};
struct plansim_result {
    double wall_s;
    double busy_s;               /* worker-seconds of INIT and TUNE */
    double idle_share;           /* 1 - busy / (workers x wall) */
    struct plansim_wave waves[6];/* in the order they ended */
    size_t n_waves;
};
/* Simulate stages 1..max_stage (<= 3) of p with workers workers; iters 0: each mode's
 * budget from the plan's shapes.json. */
void plansim_run(const struct scale_plan *p, int max_stage, int iters, int workers, const struct plansim_model *m,
                 struct plansim_result *out);
#endif
