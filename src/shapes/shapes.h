/* src/shapes/shapes.h — the one reader of shapes.json (the tuning protocol's shape
 * file, shared/data/shapes.json): finding it, and its shape sets: the scenario shapes
 * (expanded from the 7 scenario descriptions and deduplicated: 134 for the shipped
 * file), the typical far shapes per dtype that get from-scratch tuning, the near/far
 * rule and the iteration budgets (the budget of a new shape when no --iters is given).
 *
 * Expansion: a "single" scenario varies the dimensions marked "S" over its sizes; a
 * "tied_pair" scenario has sub-series that either tie the two tied_dims to each of
 * tied_sizes (the third fixed) or vary free_dim over vary_sizes (the other two fixed).
 * Shapes below size_constraints are dropped; a shape met again is kept at its first
 * place, so the order is the file's order.
 */
#ifndef CROQ_SHAPES_H
#define CROQ_SHAPES_H
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "knobs/knobs.h"
#include "target/dtype.h"

struct scenario_set {
    struct croq_shape *scenario; /* deduplicated, in file order */
    size_t n_scenario;
    struct croq_shape *typical[CROQ_DTYPE_COUNT]; /* indexed by enum croq_dtype */
    size_t n_typical[CROQ_DTYPE_COUNT];
    long near_lo[3], near_hi[3];   /* M, N, K: inclusive near ranges */
    long min_dim[3];               /* size_constraints */
    int budget_scratch, budget_best; /* iteration_budgets: from_scratch, from_current_best */
};

/* The shapes.json to use: shared/data/shapes.json found by datafile_find
 * (util/datafile.h) with $CROQ_SHAPES, which when set is the only place looked at.
 * 0 with its path, or -1 with the places tried in err. */
int shapes_find_file(char *path, size_t len, char *err, size_t errlen);

/* 0, or -1 with err naming the member that is wrong (every member above is required,
 * except size_constraints: 1 when absent). The caller releases *out; no global state. */
int scenarios_parse(json_t *doc, struct scenario_set *out, char *err, size_t errlen);
int scenarios_load(const char *path, struct scenario_set *out, char *err, size_t errlen);
void scenarios_release(struct scenario_set *s);
/* shapes.json regions.rule: near when every dimension lies in its near range. */
bool scenarios_is_near(const struct scenario_set *s, const struct croq_shape *shape);
bool scenarios_is_typical(const struct scenario_set *s, int dtype, const struct croq_shape *shape);
/* iteration_budgets: the budget of a new shape without --iters, from_current_best's or
 * from_scratch's. */
int scenarios_budget(const struct scenario_set *s, bool from_current_best);
#endif
