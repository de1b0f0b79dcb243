/* src/explore/explore.h — `croqtuner explore`: build and measure every configuration of a
 * grid (grid.h) on one (dtype, shape) through a backend (src/backend/backend.h), writing
 * a dataset (src/dataset/dataset.h).
 *
 * Resumable: configurations already in the dataset are skipped, so a run that was
 * killed, stopped by its time limit or by a busy GPU continues where it stopped; every
 * record is appended whole and fsync'd before the next measurement starts.
 * Compile ahead: sources are generated in the work directory and built by up to `jobs`
 * child processes (the backend's build, which fills the build cache) while the parent
 * measures, in grid order, each configuration once its build finished; the backend's
 * measure then finds the cubin in the cache. Each build child runs in its own process
 * group; a run that stops early ends those groups (only processes it started).
 * Health: before each measurement; busy is waited for (5 s doubling to 5 min, at most
 * busy_limit_s in all), unusable stops. Neither records anything for the config.
 */
#ifndef CROQ_EXPLORE_EXPLORE_H
#define CROQ_EXPLORE_EXPLORE_H
#include <stdbool.h>

#include "backend/backend.h"

struct explore_opts {
    int dtype;
    struct croq_shape shape;
    const char *grid;       /* grid file; NULL: the whole knob table */
    const char *out;        /* dataset (JSONL) to create or continue */
    const char *work;       /* sources and cubins; NULL: a temp dir, removed at the end */
    struct backend_opts be; /* which backend and its options */
    int jobs;               /* parallel builds (>= 1) */
    unsigned long long seed;/* operand / noise seed and the grid's visiting order */
    double time_limit_s;    /* stop before a measurement that would start later; <= 0: none */
    double busy_limit_s;    /* give up waiting for a busy GPU after this long */
    bool quiet;             /* no line per configuration */
    bool list;              /* print the configurations left to measure (block, signature), measure nothing */
};

/* Counts of one run. */
struct explore_stats {
    int grid, invalid, already, measured, ok, failed, left;
};

/* Run. 0: every configuration of the grid is in the dataset, or the time limit stopped
 * the run (left > 0, said on stderr); 1: the GPU is unusable or stayed busy, or a local
 * failure (cannot write the dataset); 2: bad input (grid file, a dataset of another
 * dtype, shape or backend, unknown backend). Messages on stderr. */
int explore_run(const struct explore_opts *o, struct explore_stats *st);
#endif
