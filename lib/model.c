/* lib/model.c — the pack's cost model (its model section, in src/costmodel's format) as
 * the predictor pack_rank ranks a pack's kernels by, one model per dtype. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "costmodel/costmodel.h"

#define CS_MODELS_MAX 4 /* one per dtype, with room: more is a damaged or foreign section */

struct cs_model {
    struct costmodel m[CS_MODELS_MAX]; /* ~110 KB each: on the heap, once per pack */
    size_t n;
};

struct cs_model *cs_model_load(const struct pack *p, char *why, size_t whylen)
{
    char err[400];
    if (!p->model_bytes)
        return NULL;
    struct cs_model *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(why, whylen, "out of host memory for its model");
        return NULL;
    }
    if (costmodel_parse((const char *)p->model, p->model_bytes, m->m, CS_MODELS_MAX, &m->n, err, sizeof err)) {
        snprintf(why, whylen, "its model section: %s", err);
        free(m);
        return NULL;
    }
    return m;
}

void cs_model_free(struct cs_model *m) { free(m); }

double cs_model_predict(const void *model, const struct croq_config *cfg, const struct croq_shape *s)
{
    const struct cs_model *m = model;
    const struct costmodel *c = costmodel_find(m->m, m->n, cfg->dtype);
    /* no model of this dtype: no prediction, so the nearest-shape order ranks it */
    return c && c->n > 0 ? costmodel_predict(c, cfg, s, NULL) : 0;
}
