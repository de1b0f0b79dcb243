/* src/proposer/score.c — how well a candidate addresses the current bottleneck.
 *
 * score = sum over changed knobs of the move table weight for (bottleneck, knob,
 *         direction); for a coupled move only the primary knob's weight and the
 *         penalties of its repairs                    [-3 .. +3 per knob]
 *       + phase preference of the idea's category     [0 .. 3]
 *       + grid fill: +2 if the best launches fewer CTAs than SMs and the move launches
 *         more, -2 if it launches even fewer          [-2, 0, +2]
 *       - 0.5 per knob beyond the first (simpler ideas first), -1 for a two-knob
 *         move, -2 for a random one (they are only there once neighbours ran out)
 * The table is docs/proposer.md's "bottleneck -> move" table; keep the two in step.
 * Direction +1 = a later value in the knob's list in knobs.def (bigger tile, more
 * stages, hoisted metadata, TMA epilogue, warp-specialized kernel, column raster),
 * -1 = an earlier one, 0 = either.
 */
#include <math.h>

#include "internal.h"

struct move_rule {
    enum croq_bottleneck bn;
    int knob;
    int dir;
    double weight;
    const char *why;
};

static const struct move_rule move_table[] = {
    /* dram_throughput: fewer DRAM bytes per flop */
    {BN_DRAM_THROUGHPUT, KNOB_TILE_M, +1, 3, "a taller tile reads each B tile for more rows"},
    {BN_DRAM_THROUGHPUT, KNOB_TILE_N, +1, 3, "a wider tile reads each A tile for more columns"},
    {BN_DRAM_THROUGHPUT, KNOB_CLUSTER_M, +1, 3, "the cluster multicasts B: one DRAM read feeds 2 CTAs"},
    {BN_DRAM_THROUGHPUT, KNOB_CLUSTER_N, +1, 3, "the cluster multicasts A: one DRAM read feeds 2 CTAs"},
    {BN_DRAM_THROUGHPUT, KNOB_GROUP, +1, 2, "grouped rasterization keeps operand panels in L2"},
    {BN_DRAM_THROUGHPUT, KNOB_L2_A, +1, 2, "L2 promotion keeps A and metadata lines resident"},
    {BN_DRAM_THROUGHPUT, KNOB_L2_B, +1, 2, "L2 promotion keeps B lines resident"},
    {BN_DRAM_THROUGHPUT, KNOB_RASTER, 0, 1, "the raster order decides which operand L2 reuses"},
    {BN_DRAM_THROUGHPUT, KNOB_TILE_M, -1, -2, "smaller tiles re-read operands more often"},
    {BN_DRAM_THROUGHPUT, KNOB_TILE_N, -1, -2, "smaller tiles re-read operands more often"},
    {BN_DRAM_THROUGHPUT, KNOB_SPLIT_K, +1, -1, "split-K adds f32 workspace traffic"},
    /* l2_throughput: fewer L2 requests, more L2 locality */
    {BN_L2_THROUGHPUT, KNOB_GROUP, +1, 3, "grouped rasterization shares operand panels between neighbours"},
    {BN_L2_THROUGHPUT, KNOB_CLUSTER_M, +1, 3, "multicast serves 2 CTAs with one L2 read of B"},
    {BN_L2_THROUGHPUT, KNOB_CLUSTER_N, +1, 3, "multicast serves 2 CTAs with one L2 read of A"},
    {BN_L2_THROUGHPUT, KNOB_RASTER, 0, 2, "the raster order changes which operand neighbours share"},
    {BN_L2_THROUGHPUT, KNOB_TILE_M, +1, 2, "a taller tile requests B less often"},
    {BN_L2_THROUGHPUT, KNOB_TILE_N, +1, 2, "a wider tile requests A less often"},
    {BN_L2_THROUGHPUT, KNOB_TILE_K, +1, 1, "fewer, larger TMA requests"},
    {BN_L2_THROUGHPUT, KNOB_SPLIT_K, +1, -2, "split-K partials go through L2"},
    /* smem_throughput: less shared-memory traffic or fewer conflicts per flop */
    {BN_SMEM_THROUGHPUT, KNOB_SWIZZLE, +1, 3, "the 128-B swizzle spreads wgmma and TMA accesses over all banks"},
    {BN_SMEM_THROUGHPUT, KNOB_TILE_K, +1, 2, "a larger K step amortises barrier and descriptor traffic"},
    {BN_SMEM_THROUGHPUT, KNOB_TILE_N, +1, 2, "a wider wgmma reads each A fragment for more columns"},
    {BN_SMEM_THROUGHPUT, KNOB_EPILOGUE, -1, 1, "direct stores skip the shared C staging"},
    {BN_SMEM_THROUGHPUT, KNOB_META_PATH, +1, 1, "hoisted metadata does not pass through shared memory"},
    {BN_SMEM_THROUGHPUT, KNOB_SWIZZLE, -1, -3, "a narrower swizzle causes bank conflicts"},
    /* compute_bound: fewer issue slots per flop, keep the tensor pipe fed */
    {BN_COMPUTE_BOUND, KNOB_TILE_N, +1, 3, "wgmma N=256 issues the fewest instructions per flop"},
    {BN_COMPUTE_BOUND, KNOB_CONSUMERS, +1, 2, "two consumer warpgroups alternate on the tensor pipe"},
    {BN_COMPUTE_BOUND, KNOB_EPILOGUE, +1, 2, "the TMA-store epilogue frees the consumers sooner"},
    {BN_COMPUTE_BOUND, KNOB_KERNEL, +1, 2, "a producer warpgroup takes loads off the math warps"},
    {BN_COMPUTE_BOUND, KNOB_PERSISTENT, +1, 1, "persistent CTAs overlap one tile's epilogue with the next"},
    {BN_COMPUTE_BOUND, KNOB_TILE_N, -1, -2, "narrower wgmma costs more instructions per flop"},
    {BN_COMPUTE_BOUND, KNOB_CONSUMERS, -1, -2, "one consumer leaves the tensor pipe idle at barriers"},
    /* latency_bound: more work in flight */
    {BN_LATENCY_BOUND, KNOB_STAGES, +1, 3, "more stages keep more loads in flight"},
    {BN_LATENCY_BOUND, KNOB_KERNEL, +1, 3, "a producer warpgroup issues TMA ahead of the math"},
    {BN_LATENCY_BOUND, KNOB_CONSUMERS, +1, 2, "a second consumer computes while the other waits"},
    {BN_LATENCY_BOUND, KNOB_META_PATH, +1, 2, "hoisted metadata loads overlap the barrier wait"},
    {BN_LATENCY_BOUND, KNOB_PERSISTENT, +1, 2, "persistent CTAs hide prologue and epilogue latency"},
    {BN_LATENCY_BOUND, KNOB_TILE_K, +1, 1, "fewer, larger pipeline steps"},
    {BN_LATENCY_BOUND, KNOB_STAGES, -1, -2, "fewer stages expose more load latency"},
    /* occupancy_limited: fewer resources per CTA so more fit on an SM */
    {BN_OCCUPANCY_LIMITED, KNOB_STAGES, -1, 3, "fewer stages free shared memory for another CTA"},
    {BN_OCCUPANCY_LIMITED, KNOB_TILE_M, -1, 2, "a smaller tile needs fewer registers and less shared memory"},
    {BN_OCCUPANCY_LIMITED, KNOB_TILE_N, -1, 2, "a narrower tile needs fewer accumulator registers"},
    {BN_OCCUPANCY_LIMITED, KNOB_TILE_K, -1, 2, "a smaller K step shrinks every stage"},
    {BN_OCCUPANCY_LIMITED, KNOB_EPILOGUE, -1, 1, "the direct epilogue needs no C staging tile"},
    {BN_OCCUPANCY_LIMITED, KNOB_META_PATH, +1, 1, "hoisted metadata needs no shared stage"},
    {BN_OCCUPANCY_LIMITED, KNOB_STAGES, +1, -2, "more stages use more shared memory"},
    {BN_OCCUPANCY_LIMITED, KNOB_TILE_K, +1, -1, "a larger K step grows every stage"},
    /* instruction_fetch: a smaller hot loop */
    {BN_INSTRUCTION_FETCH, KNOB_TILE_K, -1, 3, "a shorter unrolled k-loop body fits the instruction cache"},
    {BN_INSTRUCTION_FETCH, KNOB_TILE_M, -1, 1, "fewer m64 slices per consumer: fewer wgmma per step"},
    {BN_INSTRUCTION_FETCH, KNOB_STAGES, -1, 1, "fewer stages: less unrolled pipeline bookkeeping"},
    {BN_INSTRUCTION_FETCH, KNOB_PERSISTENT, -1, 1, "no tile loop: simpler control flow"},
    {BN_INSTRUCTION_FETCH, KNOB_TILE_K, +1, -2, "a longer unrolled body misses the instruction cache more"},
};

/* Phase preference per category: [phase][category], see proposer.h. */
static const double phase_table[3][IDEA_CAT_COUNT] = {
    [PHASE_EXPLORE] = {[IDEA_MACRO] = 3, [IDEA_STRUCTURAL] = 3, [IDEA_VARIANT] = 1, [IDEA_MICRO] = 0},
    [PHASE_VARIANT] = {[IDEA_MACRO] = 1, [IDEA_STRUCTURAL] = 2, [IDEA_VARIANT] = 3, [IDEA_MICRO] = 1},
    [PHASE_REFINE] = {[IDEA_MACRO] = 0, [IDEA_STRUCTURAL] = 1, [IDEA_VARIANT] = 2, [IDEA_MICRO] = 3},
};

double prop_phase_bonus(enum proposer_phase p, enum idea_category c)
{
    return (p <= PHASE_REFINE && c < IDEA_CAT_COUNT) ? phase_table[p][c] : 0;
}

/* The rule for one changed knob, or NULL. */
static const struct move_rule *rule_for(enum croq_bottleneck bn, int knob, int from, int to)
{
    int d = prop_value_index(knob, to) - prop_value_index(knob, from);
    int dir = d > 0 ? 1 : d < 0 ? -1 : 0;
    for (size_t i = 0; i < sizeof move_table / sizeof *move_table; i++) {
        const struct move_rule *r = &move_table[i];
        if (r->bn == bn && r->knob == knob && (r->dir == 0 || r->dir == dir))
            return r;
    }
    return NULL;
}

/* A coupled move is about its primary knob: the knobs changed only to keep it valid
 * may count against it, never for it (else "kernel 1 -> 0" would win under occupancy
 * pressure for the stages and tile_m it drags along). */
static double table_weight(const struct prop_state *st, const struct cand *c)
{
    double w = 0, top = -1e9;
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (!(c->changed & (1u << k)))
            continue;
        const struct move_rule *r = rule_for(st->ctx->bottleneck, k, st->ctx->best.v[k], c->cfg.v[k]);
        double rw = r ? r->weight : 0;
        top = rw > top ? rw : top;
        if (r && (c->kind != KIND_COUPLED || k == c->primary || r->weight < 0))
            w += r->weight;
    }
    /* a recipe is judged by its best-supported change: summing over its many knobs
     * would let any recipe outvote the one move the profile asks for */
    return c->kind == KIND_RECIPE ? top : w;
}

long prop_grid_ctas(const struct croq_config *cfg, const struct croq_shape *s)
{
    long tm = cfg->v[KNOB_TILE_M], tn = cfg->v[KNOB_TILE_N];
    return ((s->m + tm - 1) / tm) * ((s->n + tn - 1) / tn) * cfg->v[KNOB_SPLIT_K];
}

/* Under one wave, more CTAs put idle SMs to work (small shapes: 768^3 has 18 tiles of
 * 128x256 for 132 SMs); beyond a wave the count matters little to this model. And with
 * at most one tile per SM a persistent CTA has no second tile to overlap with its
 * epilogue: the tile loop is overhead, so leaving it scores and entering it does not. */
static double grid_term(const struct prop_state *st, const struct cand *c)
{
    long before = prop_grid_ctas(&st->ctx->best, &st->ctx->shape);
    long after = prop_grid_ctas(&c->cfg, &st->ctx->shape);
    double t = 0;
    if (after <= PROPOSER_SM_COUNT && c->cfg.v[KNOB_PERSISTENT] != st->ctx->best.v[KNOB_PERSISTENT])
        t += c->cfg.v[KNOB_PERSISTENT] ? -PROP_ONE_WAVE_PERSISTENT : PROP_ONE_WAVE_PERSISTENT;
    if (before >= PROPOSER_SM_COUNT || after == before)
        return t;
    return t + (after > before ? 2 : -2);
}

static int popcount32(uint32_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

double prop_model_term(const struct prop_state *st, const struct cand *c)
{
    if (!st->model.n || !(c->pred > 0) || !(st->best_pred > 0))
        return 0;
    /* optimism under uncertainty: the gain the model cannot rule out at one sigma */
    double g = log(c->pred / st->best_pred) + PROP_MODEL_KAPPA * c->sd;
    g = g > PROP_MODEL_CLAMP ? PROP_MODEL_CLAMP : g < -PROP_MODEL_CLAMP ? -PROP_MODEL_CLAMP : g;
    return PROP_MODEL_WEIGHT * g;
}

double prop_score_cand(const struct prop_state *st, const struct cand *c)
{
    double s = table_weight(st, c) + prop_phase_bonus(st->phase, c->category) + grid_term(st, c);
    if (c->kind == KIND_RECIPE) /* a measured good point: no penalty for its many knobs */
        s += st->ctx->best.v[KNOB_KERNEL] == CROQ_V_BASELINE || st->model.n ? PROP_RECIPE_PRIOR : PROP_RECIPE_UNGUIDED;
    else
        s -= 0.5 * (popcount32(c->changed) - 1);
    if (c->kind == KIND_PAIR)
        s -= 1;
    else if (c->kind == KIND_RANDOM)
        s -= 2;
    return s + prop_model_term(st, c);
}

/* The table's reason for the candidate's most helpful change, or NULL. */
const char *prop_score_reason(const struct prop_state *st, const struct cand *c, double *weight)
{
    const struct move_rule *best = NULL;
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (!(c->changed & (1u << k)))
            continue;
        const struct move_rule *r = rule_for(st->ctx->bottleneck, k, st->ctx->best.v[k], c->cfg.v[k]);
        if (r && (!best || r->weight > best->weight || (k == c->primary && r->weight == best->weight)))
            best = r;
    }
    *weight = best ? best->weight : 0;
    return best ? best->why : NULL;
}
