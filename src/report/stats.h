/* src/report/stats.h — the numbers the report derives from the rows: best-so-far,
 * the optimization progression (every KEEP), bottleneck counts by phase of the run,
 * speed-ups and their geometric mean.
 */
#ifndef CROQ_REPORT_STATS_H
#define CROQ_REPORT_STATS_H
#include <stddef.h>

#include "report/model.h"

/* Fill s->st and s->status (when state.json gave none). */
void stats_compute(struct report_shape *s);

/* One step of the progression: a KEEP and what it gained over the best before it. */
struct progression_step {
    const struct report_row *row;
    double before, after, gain_pct;
};
/* The KEEP rows of s in order; *n set. Caller frees. */
struct progression_step *stats_progression(const struct report_shape *s, size_t *n);

/* The run is cut into thirds of its budget (early / middle / late). The budget is
 * state.json's, or the iterations done when unknown. */
#define STATS_PHASES 3
int stats_phase_budget(const struct report_shape *s);            /* 0: no iterations */
int stats_phase_of(int iter, int budget);                        /* 0..2, iter >= 1 */
void stats_phase_range(int phase, int budget, int *lo, int *hi); /* inclusive */

/* Best cuSPARSELt value (max of default and search) and where it came from. */
struct vendor_value stats_sparselt(const struct report_vendor *v);

/* Config column of the row that produced the best, or NULL. */
const char *stats_best_config(const struct report_shape *s);
/* TFLOPS of the shape's best kernel as re-measured in the vendors' compare run
 * (vendor.json ours_* with the best row's exact configuration), else NAN. The vendor
 * speed-ups use it when present: one process, one set of operands, one clock state. */
double stats_best_same_run(const struct report_shape *s);

/* The best's speed-up over the baseline, as status shows it (state_best_speedup: the
 * baseline kernel 1, a ladder's winner the ladder's own ratio), NAN if not known. */
double report_best_speedup(const struct report_shape *s);
/* a / b, NAN unless both are finite and positive. */
double stats_ratio(double a, double b);
/* Geometric mean of the finite positive values among v[0..n); NAN if none. *used set. */
double stats_geomean(const double *v, size_t n, size_t *used);
#endif
