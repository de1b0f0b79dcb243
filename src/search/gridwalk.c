/* src/search/gridwalk.c — the grid strategy: the knob space enumerated in table order
 * (src/search/grid.h, grid_space_point: the first knob of the table varies fastest), the
 * first valid untried point each time. Uses neither the profile nor the measurements nor
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
    long np = grid_space_points(ctx->space);
    int rc = 1;
    for (long x = 0; x < np && rc; x++) {
        struct croq_config c;
        grid_space_point(ctx->space, x, &ctx->best, &c);
        if (!search_candidate_ok(ctx, &t, &c))
            continue;
        char what[96];
        snprintf(what, sizeof what, GRID_IDEA " %ld of %ld (the knob space in table order)", x, np);
        search_idea_of(ctx, &c, KIND_SINGLE, what, "grid: the next valid untried point; no profile or measurement used",
                       out);
        rc = 0;
    }
    search_tried_release(&t);
    return rc;
}

const struct search_strategy search_grid = {
    .idea_prefix = GRID_IDEA " ",
    .name = "grid",
    .summary = "the knob space in table order: the first valid untried point",
    .next = grid_next,
};
