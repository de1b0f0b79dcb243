/* src/proposer/recipes.c — multi-knob structural moves: recipes.
 *
 * The good region of the family needs 4-5 knobs changed together (issue 19: from the
 * baseline, single-knob moves to kernel=1, consumers=1, clusters or split_k each measure
 * far below what `group=8 meta_path=0 stages=5` reaches). A recipe is such a set of knob
 * settings, taken from configurations measured on the H200: the best variants of
 * bench/results/variants-4096x8192x8192-h200.txt and the bests of the committed tuning
 * runs (results/h200); and on the H100: the fastest variant of tests/gpu/ceiling.sh's
 * races (bench/results/ceiling-h100-*.txt). Each recipe gives two candidates:
 *   absolute  the dtype's default configuration with the recipe's settings (the point
 *             as it was measured);
 *   relative  the current best with the recipe's settings (keeps the best's tile shape
 *             and split where the recipe does not set them).
 * tile_k is written for f16; e4m3 moves half the bytes per K and uses twice the value,
 * as knobs_default does. A candidate that fails knobs_validate for the shape, or was
 * tried, is skipped. Recipes are KIND_RECIPE, category structural (they set the
 * pipeline and warp roles: kernel, consumers, stages); select.c and score.c treat them
 * like any candidate, with a prior (score.c) for what they are: measured good points.
 */
#include <string.h>

#include "internal.h"
#include "target/dtype.h"

#define RECIPE_MAX_SETTINGS 10

struct recipe {
    const char *name;
    int n;
    struct { int knob, value; } set[RECIPE_MAX_SETTINGS];
};

#define WS {KNOB_KERNEL, 1}, {KNOB_CONSUMERS, 2}
static const struct recipe recipes[] = {
    {"v32: group 8, TMA metadata, 5 stages", 5,
     {WS, {KNOB_STAGES, 5}, {KNOB_GROUP, 8}, {KNOB_META_PATH, 0}}},
    {"issue 19's large-shape point: v32 with a 2-CTA cluster", 6,
     {WS, {KNOB_STAGES, 5}, {KNOB_GROUP, 8}, {KNOB_META_PATH, 0}, {KNOB_CLUSTER_M, 2}}},
    {"v33: group 8, TMA metadata, TMA epilogue, 3 stages, persistent", 7,
     {WS, {KNOB_STAGES, 3}, {KNOB_GROUP, 8}, {KNOB_META_PATH, 0}, {KNOB_EPILOGUE, 1}, {KNOB_PERSISTENT, 1}}},
    {"v29: group 16, TMA metadata, TMA epilogue, 3 stages", 6,
     {WS, {KNOB_STAGES, 3}, {KNOB_GROUP, 16}, {KNOB_META_PATH, 0}, {KNOB_EPILOGUE, 1}}},
    {"v31: group 8, TMA metadata", 4, {WS, {KNOB_GROUP, 8}, {KNOB_META_PATH, 0}}},
    {"tuned f16 1024x1024x4096: 128x64x256 tiles, 3 stages, column raster, persistent", 10,
     {WS, {KNOB_TILE_N, 64}, {KNOB_TILE_K, 256}, {KNOB_STAGES, 3}, {KNOB_GROUP, 4}, {KNOB_META_PATH, 0},
      {KNOB_EPILOGUE, 1}, {KNOB_RASTER, 1}, {KNOB_PERSISTENT, 1}}},
    {"tuned f16 4096x8192x8192: 128x128x128 tiles, 3 stages, column raster, persistent", 10,
     {WS, {KNOB_TILE_N, 128}, {KNOB_TILE_K, 128}, {KNOB_STAGES, 3}, {KNOB_GROUP, 4}, {KNOB_META_PATH, 0},
      {KNOB_EPILOGUE, 1}, {KNOB_RASTER, 1}, {KNOB_PERSISTENT, 1}}},
    {"tuned e4m3 1024x8192x1024: 3 stages, TMA epilogue, column raster, persistent", 7,
     {WS, {KNOB_STAGES, 3}, {KNOB_META_PATH, 0}, {KNOB_EPILOGUE, 1}, {KNOB_RASTER, 1}, {KNOB_PERSISTENT, 1}}},
    /* fastest in 13 of the 18 large-shape races of ceiling.sh (H100, 2026-12-07); no
     * committed tuning run had reached tile_m 256, two tile knobs away from 128x256 */
    {"ceiling H100: 256x128 tiles, 4 stages, group 8, TMA metadata, TMA epilogue, persistent", 10,
     {WS, {KNOB_TILE_M, 256}, {KNOB_TILE_N, 128}, {KNOB_STAGES, 4}, {KNOB_GROUP, 8}, {KNOB_META_PATH, 0},
      {KNOB_EPILOGUE, 1}, {KNOB_PERSISTENT, 1}, {KNOB_RASTER, 0}}},
};
#define N_RECIPES ((int)(sizeof recipes / sizeof *recipes))

const char *prop_recipe_name(int r)
{
    return r >= 0 && r < N_RECIPES ? recipes[r].name : "?";
}

static void apply(const struct recipe *r, struct croq_config *c)
{
    for (int i = 0; i < r->n; i++) {
        int v = r->set[i].value;
        if (r->set[i].knob == KNOB_TILE_K) /* the recipes' tile_k are f16's */
            v *= croq_dtype_traits(c->dtype)->tile_k_scale;
        if (knobs_value_allowed(r->set[i].knob, v))
            c->v[r->set[i].knob] = v;
    }
}

static int push(const struct prop_state *st, struct cand_list *l, const struct croq_config *c, int recipe)
{
    if (!prop_cand_usable(st, c) || prop_config_diff(c, &st->ctx->best) == 0)
        return 0;
    struct cand cd = {.cfg = *c, .kind = KIND_RECIPE, .primary = -1, .port_index = -1, .recipe = recipe};
    prop_cand_finish(st, &cd);
    return prop_cand_push(l, &cd);
}

int prop_gen_recipes(const struct prop_state *st, struct cand_list *l)
{
    for (int r = 0; r < N_RECIPES; r++) {
        struct croq_config abs, rel = st->ctx->best;
        knobs_default(&abs, st->ctx->best.dtype);
        apply(&recipes[r], &abs);
        apply(&recipes[r], &rel);
        if (push(st, l, &abs, r) || push(st, l, &rel, r))
            return -1;
    }
    return 0;
}
