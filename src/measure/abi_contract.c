/* src/measure/abi_contract.c — the module's croq_abi against the configuration its
 * source claims (measure.h, measure_abi_matches). */
#include "measure.h"

#include <stdio.h>

bool measure_abi_matches(const struct measure_abi *a, const struct croq_config *cfg, char *why, size_t whylen)
{
    if (!a->present)
        return true;
    const struct {
        const char *name;
        int got, want;
    } f[] = {
        {"threads", a->threads, knobs_threads(cfg)},
        {"tile_m", a->tile_m, cfg->v[KNOB_TILE_M]},
        {"tile_n", a->tile_n, cfg->v[KNOB_TILE_N]},
        {"tile_k", a->tile_k, cfg->v[KNOB_TILE_K]},
        {"split_k", a->split_k, cfg->v[KNOB_SPLIT_K]},
        {"persistent", a->persistent,
         cfg->v[KNOB_STREAM_K] ? (int)CROQ_ABI_PERSISTENT_STREAM_K : cfg->v[KNOB_PERSISTENT]},
        {"cluster_m", a->cluster_m, cfg->v[KNOB_CLUSTER_M]},
        {"cluster_n", a->cluster_n, cfg->v[KNOB_CLUSTER_N]},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].got != f[i].want) {
            snprintf(why, whylen, "croq_abi %s=%d, the configuration claims %d", f[i].name, f[i].got, f[i].want);
            return false;
        }
    return true;
}
