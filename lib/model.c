/* lib/model.c — the pack's cost model (its model section, src/costmodel's format) as the
 * predictor pack_rank ranks a pack's kernels by. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

struct cs_model {
    int unused;
};

struct cs_model *cs_model_load(const struct pack *p, char *why, size_t whylen)
{
    if (p->model_bytes)
        snprintf(why, whylen, "this build reads no cost model");
    return NULL;
}

void cs_model_free(struct cs_model *m) { free(m); }

double cs_model_predict(const void *model, const struct croq_config *cfg, const struct croq_shape *s)
{
    (void)model, (void)cfg, (void)s;
    return 0;
}
