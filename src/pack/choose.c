/* src/pack/choose.c — which pack entries may run a shape, best first (pack.h, pack_rank). */
#include "pack.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double log_dist(long tuned, long want) { return fabs(log2((double)tuned / (double)want)); }

/* Whether e's configuration may run shape s (the knob rules of src/knobs); its parsed
 * configuration into cfg. */
static bool fits(const struct pack_entry *e, const struct croq_shape *s, struct croq_config *cfg)
{
    char why[CROQ_WHY_MAX];
    if (knobs_parse_signature(cfg, e->config, why, sizeof why))
        return false;
    return cfg->dtype == e->dtype && knobs_validate(cfg, s, why, sizeof why);
}

const char *pack_match_name(enum pack_match m)
{
    static const char *const names[] = {[PACK_EXACT] = "exact", [PACK_NEAREST] = "nearest",
                                        [PACK_FALLBACK] = "fallback", [PACK_MODEL] = "model"};
    return (unsigned)m < sizeof names / sizeof *names ? names[m] : "?";
}

const char *pack_trust_name(enum pack_trust t)
{
    static const char *const names[] = {[PACK_TRUST_NONE] = "none", [PACK_TRUST_ELSEWHERE] = "elsewhere",
                                        [PACK_TRUST_HERE] = "here"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

/* A candidate and the keys it is ordered by. */
struct cand {
    long i;
    int tier;          /* 0 exact, 1 predicted, 2 tuned by distance, 3 fallback */
    double key;        /* tier 0: -tflops; 1: -prediction; 2: distance; 3: 0 */
    double tflops;
};

static int cand_cmp(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    if (a->tier != b->tier)
        return a->tier < b->tier ? -1 : 1;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->tier == 2 && a->tflops != b->tflops) /* equal distance: the faster */
        return a->tflops > b->tflops ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

long pack_rank(const struct pack *p, int dtype, const struct croq_shape *s, enum pack_trust trust, pack_predict_fn predict,
               const void *ctx, long *out, size_t cap, enum pack_match *match, char *why, size_t whylen)
{
    if (!shape_validate(dtype, s, why, whylen))
        return -1;
    struct cand *c = malloc((p->n + 1) * sizeof *c);
    if (!c) {
        snprintf(why, whylen, "out of memory ranking %zu pack entries", p->n);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct pack_entry *e = &p->e[i];
        struct croq_config cfg;
        if (e->dtype != dtype || (!e->fallback && trust == PACK_TRUST_NONE) || !fits(e, s, &cfg))
            continue;
        struct cand *x = &c[n++];
        *x = (struct cand){(long)i, e->fallback ? 3 : 2, 0, e->tflops};
        double d = e->fallback ? 0 : log_dist(e->m, s->m) + log_dist(e->n, s->n) + log_dist(e->k, s->k);
        if (!e->fallback && d == 0 && trust == PACK_TRUST_HERE) {
            x->tier = 0;
            x->key = -e->tflops;
            continue;
        }
        double pred = predict ? predict(ctx, &cfg, s) : NAN;
        if (isfinite(pred) && pred > 0) {
            x->tier = 1;
            x->key = -pred;
        } else if (!e->fallback) {
            x->key = d;
        }
    }
    qsort(c, n, sizeof *c, cand_cmp);
    /* one configuration once, at its first place: the sweep registers the same one as the
     * best of several shapes (the built-in pack: 4 f16 shapes share one), their kernels
     * differ only in the identity their source embeds, and timing copies would fill a
     * search's few places with one kernel */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t j = 0; j < kept && !dup; j++)
            dup = !strcmp(p->e[c[j].i].config, p->e[c[i].i].config);
        if (!dup)
            c[kept++] = c[i];
    }
    n = kept;
    for (size_t i = 0; i < n && i < cap; i++)
        out[i] = c[i].i;
    if (match && n)
        *match = c[0].tier == 0 ? PACK_EXACT : c[0].tier == 1 ? PACK_MODEL : c[0].tier == 2 ? PACK_NEAREST
                                                                                           : PACK_FALLBACK;
    if (!n)
        snprintf(why, whylen, "the pack has no %s kernel valid for %ldx%ldx%ld (and no fallback entry)",
                 croq_dtype_name(dtype), s->m, s->n, s->k);
    free(c);
    return (long)n;
}

long pack_choose(const struct pack *p, int dtype, const struct croq_shape *s, enum pack_trust trust,
                 enum pack_match *match, char *why, size_t whylen)
{
    long first = -1;
    long n = pack_rank(p, dtype, s, trust, NULL, NULL, &first, 1, match, why, whylen);
    return n > 0 ? first : -1;
}
