/* src/pack/choose.c — which pack entry runs a shape (pack.h, pack_choose). */
#include "pack.h"

#include <math.h>
#include <stdio.h>

static double log_dist(long tuned, long want) { return fabs(log2((double)tuned / (double)want)); }

/* Whether e's configuration may run shape s (the knob rules of src/knobs). */
static bool fits(const struct pack_entry *e, const struct croq_shape *s)
{
    struct croq_config cfg;
    char why[CROQ_WHY_MAX];
    if (knobs_parse_signature(&cfg, e->config, why, sizeof why))
        return false;
    return cfg.dtype == e->dtype && knobs_validate(&cfg, s, why, sizeof why);
}

long pack_choose(const struct pack *p, int dtype, const struct croq_shape *s, bool use_tuned,
                 enum pack_match *match, char *why, size_t whylen)
{
    long best = -1, fallback = -1;
    double best_d = 0;
    if (!shape_validate(dtype, s, why, whylen))
        return -1;
    for (size_t i = 0; i < p->n; i++) {
        const struct pack_entry *e = &p->e[i];
        if (e->dtype != dtype || !fits(e, s))
            continue;
        if (e->fallback) {
            if (fallback < 0)
                fallback = (long)i;
            continue;
        }
        if (!use_tuned)
            continue;
        double d = log_dist(e->m, s->m) + log_dist(e->n, s->n) + log_dist(e->k, s->k);
        if (best < 0 || d < best_d || (d == best_d && e->tflops > p->e[best].tflops)) {
            best = (long)i;
            best_d = d;
        }
    }
    if (best >= 0) {
        *match = best_d == 0 ? PACK_EXACT : PACK_NEAREST;
        return best;
    }
    if (fallback >= 0) {
        *match = PACK_FALLBACK;
        return fallback;
    }
    snprintf(why, whylen, "the pack has no %s kernel valid for %ldx%ldx%ld (and no fallback entry)",
             croq_dtype_name(dtype), s->m, s->n, s->k);
    return -1;
}
