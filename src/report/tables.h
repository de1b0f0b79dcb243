/* src/report/tables.h — the report's tables, built from the model (docs/report.md lists
 * their columns). Each fills an initialised-by-it struct report_table. */
#ifndef CROQ_REPORT_TABLES_H
#define CROQ_REPORT_TABLES_H
#include "report/bottleneck.h"
#include "report/model.h"
#include "report/table.h"

/* One row per shape key (M, N, K as columns, the backend in its own column). */
void tables_summary(const struct report_sweep *sw, struct report_table *t);
/* Geometric means of the summary's speed-ups: per dtype (and over all when there are
 * several), one row per run mode (speed-up vs baseline, each over its own baseline) and
 * one over the better run of each shape (vendor ratios only). */
void tables_geomean(const struct report_sweep *sw, struct report_table *t);
/* One row per shape that has both a from-current-best and a from-scratch (_fs) run.
 * Returns the number of rows. */
size_t tables_pairs(const struct report_sweep *sw, struct report_table *t);
/* One row per KEEP: what it changed and what it gained. */
void tables_progression(const struct report_shape *s, struct report_table *t);
/* The final ladder's entries (state.json "ladder"), the winner's row marked. */
void tables_ladder(const struct report_shape *s, struct report_table *t);
/* One row per phase (thirds of the budget), one column per bottleneck, and a total. */
void tables_bottleneck(const struct report_shape *s, const struct bn_list *l, struct report_table *t);

/* "early", "middle", "late" */
const char *tables_phase_name(int phase);
/* "early (1-50)" into buf. */
void tables_phase_label(const struct report_shape *s, int phase, char *buf, size_t len);
/* "from-scratch" / "from-current-best" */
const char *tables_run_name(const struct report_shape *s);
/* " [SIMULATED]" for a shape whose results.tsv says backend=sim, else "": appended to
 * every caption and figure title of the shape, so no copied table or figure loses it. */
const char *tables_sim_tag(const struct report_shape *s);
#endif
