/* src/knobs/fit.c — a configuration made valid for a shape with the smallest change
 * (knobs_fit, knobs.h). */
#include "knobs.h"

#include <math.h>
#include <string.h>

/* Values of knob id ordered by distance (in log2 steps) from cur, cur first. */
static int ordered_values(int id, int cur, int out[CROQ_KNOB_MAX_VALUES])
{
    const struct croq_knob *kn = &croq_knobs[id];
    int n = kn->n_values;
    memcpy(out, kn->values, (size_t)n * sizeof *out);
    for (int i = 1; i < n; i++) /* insertion sort: tiny lists */
        for (int j = i; j > 0; j--) {
            double a = fabs(log2((double)out[j] + 1) - log2((double)cur + 1));
            double b = fabs(log2((double)out[j - 1] + 1) - log2((double)cur + 1));
            if (a >= b)
                break;
            int t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* Try tile_k x swizzle x split_k around cfg's values. */
static int fit_around(struct croq_config *cfg, const struct croq_shape *shape)
{
    int tk[CROQ_KNOB_MAX_VALUES], sw[CROQ_KNOB_MAX_VALUES], sk[CROQ_KNOB_MAX_VALUES];
    char why[CROQ_WHY_MAX];
    int ntk = ordered_values(KNOB_TILE_K, cfg->v[KNOB_TILE_K], tk);
    int nsw = ordered_values(KNOB_SWIZZLE, cfg->v[KNOB_SWIZZLE], sw);
    int nsk = ordered_values(KNOB_SPLIT_K, cfg->v[KNOB_SPLIT_K], sk);
    struct croq_config t = *cfg;
    for (int a = 0; a < nsk; a++)
        for (int b = 0; b < ntk; b++)
            for (int c = 0; c < nsw; c++) {
                t.v[KNOB_SPLIT_K] = sk[a];
                t.v[KNOB_TILE_K] = tk[b];
                t.v[KNOB_SWIZZLE] = sw[c];
                if (knobs_validate(&t, shape, why, sizeof why)) {
                    *cfg = t;
                    return 0;
                }
            }
    return -1;
}

int knobs_fit(struct croq_config *cfg, const struct croq_shape *shape)
{
    struct croq_config t = *cfg;
    if (!fit_around(&t, shape)) {
        *cfg = t;
        return 0;
    }
    return -1;
}
