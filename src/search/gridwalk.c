/* src/search/gridwalk.c — the grid strategy: the knob space enumerated in table order
 * (src/search/grid.h, grid_space_point: the first knob of the table varies fastest), the
 * first valid untried point each time; when the backend names what it can measure
 * (ctx->measurable), the first of those in the same order (grid_space_index; ties, which
 * differ in a late knob only, in the list's order). Uses neither the profile nor the measurements nor
 * the seed: the brute-force reference, which a budget ends in one corner of the space. */
#include "internal.h"

#include <stdio.h>

#include "grid.h"

/* the opening of every idea this strategy makes (search_strategy.idea_prefix: the audit reads it) */
#define GRID_IDEA "grid point"

static int grid_next(const struct proposer_ctx *ctx, struct idea *out)
{
    char why[CROQ_WHY_MAX];
    if (!ctx || !out || !shape_validate(ctx->best.dtype, &ctx->shape, why, sizeof why))
        return -1;
    struct search_tried t;
    search_tried_init(&t, ctx);
    long np = grid_space_points(ctx->space), at = -1;
    struct croq_config c, pick = ctx->best;
    if (ctx->measurable) {
        /* the measurable configuration first in table order: the least point index */
        for (size_t i = 0; i < ctx->n_measurable; i++) {
            const struct croq_config *m = &ctx->measurable[i];
            long x;
            if (search_candidate_ok(ctx, &t, m) && (x = grid_space_index(ctx->space, m)) >= 0 && (at < 0 || x < at))
                at = x, pick = *m;
        }
    } else {
        for (long x = 0; x < np && at < 0; x++) {
            grid_space_point(ctx->space, x, &ctx->best, &c);
            if (search_candidate_ok(ctx, &t, &c))
                at = x, pick = c;
        }
    }
    search_tried_release(&t);
    if (at < 0)
        return 1;
    char what[96];
    snprintf(what, sizeof what, GRID_IDEA " %ld of %ld (the knob space in table order)", at, np);
    search_idea_of(ctx, &pick, KIND_SINGLE, what, "grid: the next valid untried point; no profile or measurement used",
                   out);
    return 0;
}

const struct search_strategy search_grid = {
    .idea_prefix = GRID_IDEA " ",
    .name = "grid",
    .summary = "the knob space in table order: the first valid untried point",
    .next = grid_next,
};
