/* src/costmodel/features.c — the features of (dtype, shape, configuration) the model
 * regresses ln(TFLOPS) on, and their names (the serialized format matches by name).
 *
 * p = the one-hot count + COSTMODEL_DERIVED:
 *   one-hot of every knob value (knobs.def order), so each knob's effect is learnt;
 *   waves:       log2(CTAs / SMs) / 4, and the tail efficiency CTAs / (waves rounded up x
 *                the CTAs that fit at once);
 *   SM fill:     min(1, CTAs / SMs): a grid of fewer CTAs than SMs leaves SMs idle;
 *   persistence: persistent x log2(max(1, CTAs / SMs)) / 4, and persistent with at most
 *                one wave: a persistent CTA loops over tiles, which pays only when there
 *                are several per SM;
 *   shared mem:  bytes per CTA / 227 KiB, and 1 / CTAs per SM by shared memory;
 *   registers:   accumulator registers per thread / 256 (knobs_acc_regs);
 *   bytes/flop:  (1/tile_m + 1/tile_n) x element size x 64, the operand bytes per MMA flop;
 *   k-loop:      log2(K / (tile_k x split_k)) / 8, pipeline steps per tile;
 *   split:       log2(split_k) x log2(M x N / 2^20) / 16: the f32 partials split-K adds
 *                grow with the output.
 *   and in the model across shapes only, the logarithms of fill and tail, how far a
 *   wave's operand panels overflow the L2 (wave_l2_over), log2(stages) x log2(max(1,
 *   waves)) / 4 (stages_waves), persistent x k-loop (persistent_kloop) and log2(stages) x
 *   k-loop / sqrt(max(1, waves)) (stages_kloop).
 * The derived quantities are what carries between shapes: the same tile is a full wave
 * on one shape and a quarter of one on another.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "costmodel.h"
#include "internal.h"

static const char *const derived_names[COSTMODEL_DERIVED + COSTMODEL_SHAPE_EXTRA] = {
    "waves", "tail", "fill", "persistent_waves", "persistent_one_wave", "smem", "inv_ctas_per_sm",
    "acc_regs", "bytes_per_flop", "kloop", "split_output",
    "fill_log", "tail_log", "wave_l2_over", "stages_waves", "persistent_kloop", "stages_kloop",
};

int cm_n_onehot(void)
{
    int n = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        n += croq_knobs[k].n_values;
    return n;
}

/* CTAs = ceil(M / tile_m) x ceil(N / tile_n) x split_k. */
static long grid_ctas(const struct croq_config *cfg, const struct croq_shape *s)
{
    long tm = cfg->v[KNOB_TILE_M], tn = cfg->v[KNOB_TILE_N];
    return ((s->m + tm - 1) / tm) * ((s->n + tn - 1) / tn) * cfg->v[KNOB_SPLIT_K];
}

/* How far the operand panels one wave of CTAs reads at once exceed the L2, log2 of their
 * ratio (0 when they fit): the tile order of kernels/common.cuh tile_coords (bands of
 * `group` tile rows, along M with raster 1) decides how many tile rows r and columns c a
 * wave of `wave` CTAs spans, and so the bytes of packed A (K/2 per row) and B it streams:
 * past the L2, the wave's panels are fetched from DRAM again by later CTAs (the H200
 * profile of e4m3 12288^3, bench/results/profile-vs-vendor-h200.md: our 4608 independent
 * CTAs at 28.9 % of DRAM throughput and 74 % L2 hits, cuSPARSELt's cluster-2 persistent
 * grid at 20.8 % and 84 %). On the library's H200 oracle rows (docs/library.md) it moved
 * the e4m3 pick/oracle geomean from 0.935 to 0.948. */
static double wave_l2_over(const struct croq_config *c, const struct croq_shape *s, double wave)
{
    bool col = c->v[KNOB_RASTER] == CROQ_V_COL;
    double tiles_m = ceil((double)s->m / c->v[KNOB_TILE_M]), tiles_n = ceil((double)s->n / c->v[KNOB_TILE_N]);
    double major = col ? tiles_n : tiles_m, minor = col ? tiles_m : tiles_n;
    double w = wave / c->v[KNOB_SPLIT_K] > 1 ? wave / c->v[KNOB_SPLIT_K] : 1;
    double rows = fmin(major, fmax(c->v[KNOB_GROUP], ceil(w / minor)));
    double cols = fmin(minor, ceil(w / rows));
    double rm = col ? cols : rows, rn = col ? rows : cols;
    double k = (double)s->k / c->v[KNOB_SPLIT_K];
    double bytes = (rm * c->v[KNOB_TILE_M] * k / 2 + rn * c->v[KNOB_TILE_N] * k) * croq_dtype_size(c->dtype);
    double over = bytes / (double)croq_target()->l2_bytes;
    return over > 1 ? log2(over) : 0;
}

int costmodel_features(const struct croq_config *c, const struct croq_shape *s, double *x)
{
    int n = 0;
    if (cm_n_onehot() + COSTMODEL_DERIVED + COSTMODEL_SHAPE_EXTRA > COSTMODEL_FEATURES)
        return -1; /* knobs.def outgrew the capacity: raise COSTMODEL_FEATURES */
    for (int k = 0; k < KNOB_COUNT; k++)
        for (int i = 0; i < croq_knobs[k].n_values; i++)
            x[n++] = c->v[k] == croq_knobs[k].values[i];
    double ctas = (double)grid_ctas(c, s);
    double smem = (double)knobs_smem_bytes(c);
    double per_sm = smem > 0 ? floor(COSTMODEL_SMEM_LIMIT / smem) : 1;
    per_sm = per_sm < 1 ? 1 : per_sm;
    double slots = COSTMODEL_SM_COUNT * per_sm;
    double waves = ctas / COSTMODEL_SM_COUNT;
    x[n++] = log2(waves) / 4;
    x[n++] = ctas / (ceil(ctas / slots) * slots);
    x[n++] = waves < 1 ? waves : 1;
    x[n++] = c->v[KNOB_PERSISTENT] ? log2(waves > 1 ? waves : 1) / 4 : 0;
    x[n++] = c->v[KNOB_PERSISTENT] && waves <= 1;
    x[n++] = smem / COSTMODEL_SMEM_LIMIT;
    x[n++] = 1 / per_sm;
    x[n++] = knobs_acc_regs(c) / 256.0;
    x[n++] = (1.0 / c->v[KNOB_TILE_M] + 1.0 / c->v[KNOB_TILE_N]) * croq_dtype_size(c->dtype) * 64;
    double steps = (double)s->k / ((double)c->v[KNOB_TILE_K] * c->v[KNOB_SPLIT_K]);
    x[n++] = log2(steps < 1 ? 1 : steps) / 8;
    x[n++] = log2((double)c->v[KNOB_SPLIT_K]) * log2((double)s->m * (double)s->n / 1048576.0) / 16;
    /* the model across shapes only (COSTMODEL_SHAPE_EXTRA): below one wave TFLOPS scales
     * with the SMs in use, and a partial last wave idles its share: ln TFLOPS moves with
     * their logarithms, which the linear fill and tail above cannot carry from large
     * shapes to small ones */
    x[n++] = log2(waves < 1 ? waves : 1);
    x[n++] = log2(ctas / (ceil(ctas / slots) * slots));
    x[n++] = wave_l2_over(c, s, ctas < slots ? ctas : slots);
    /* Two interactions the one-hot cannot express: a stage count's effect grows with the
     * waves (many tiles per SM), and persistence pays less as the k-loop lengthens (the
     * pipeline fill it saves between tiles is a smaller share of a long tile). Chosen by
     * leave-one-shape-out on the H200 sweep (err median f16 0.101 -> 0.095, e4m3 pick
     * min 0.870 -> 0.886) and the library's oracle rows (docs/proposer.md). */
    x[n++] = log2((double)c->v[KNOB_STAGES]) * log2(waves > 1 ? waves : 1) / 4;
    x[n++] = c->v[KNOB_PERSISTENT] ? log2(steps < 1 ? 1 : steps) / 8 : 0;
    /* A third: a deep pipeline pays on a long k-loop when an SM runs few tiles, where
     * nothing else hides a tile's memory latency (e4m3 8192x512x8192 on the H200, one wave
     * of 128x256 tiles, k-loop 64: the 5-stage pack kernel 1714 TFLOPS, the 3-stage ones
     * the model ranked first 1437-1480, results/h200/library/library-7). Chosen among 14
     * forms on the leave-out and the library-6/-7 oracle rows (docs/proposer.md). */
    x[n++] = log2((double)c->v[KNOB_STAGES]) * log2(steps < 1 ? 1 : steps) / 8 / sqrt(waves > 1 ? waves : 1);
    return n;
}

int costmodel_feature_name(int j, char *out, size_t outlen)
{
    if (j < 0)
        return -1;
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (j < croq_knobs[k].n_values) {
            snprintf(out, outlen, "%s=%d", croq_knobs[k].name, croq_knobs[k].values[j]);
            return 0;
        }
        j -= croq_knobs[k].n_values;
    }
    if (j >= COSTMODEL_DERIVED + COSTMODEL_SHAPE_EXTRA)
        return -1;
    snprintf(out, outlen, "%s", derived_names[j]);
    return 0;
}
