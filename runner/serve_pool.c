/* runner/serve_pool.c — operand sets by seed and the cold-L2 rotation of `serve`. */
#include "serve.h"

#include <string.h>

#include "coldl2.h"
#include "format/sparse24.h"

static void opset_release(struct opset *s)
{
    reference_release(&s->ref);
    operands_release(&s->ops);
    memset(s, 0, sizeof *s);
}

static int opset_make(const struct gpu *g, const struct pool *p, uint64_t seed, struct opset *s)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
    if (operands_make(p->dtype, &p->shape, seed, &s->ops) || operands_upload(g, &s->ops) ||
        reference_compute(g, &s->ops, p->ref_mode, &s->ref)) {
        opset_release(s);
        return -1;
    }
    s->ready = true;
    return 0;
}

struct opset *pool_get(const struct gpu *g, struct pool *p, uint64_t seed)
{
    int slot = seed == p->base_seed ? 0 : 1;
    struct opset *s = &p->set[slot];
    if (!s->ready || s->seed != seed) {
        opset_release(s);
        if (opset_make(g, p, seed, s))
            return NULL;
        p->made++;
    }
    return s;
}

void pool_release(struct pool *p)
{
    for (int i = 0; i < POOL_SETS; i++)
        opset_release(&p->set[i]);
}

int rotation_make(const struct gpu *g, const struct operands *b, struct rotation *r)
{
    int n = 0;
    memset(r, 0, sizeof *r);
    if (b->d_scale_a || b->d_scale_b) {
        runner_fail(RS_INTERNAL_ERROR, "cold L2 rotation of a scaled operand set is not supported");
        return -1;
    }
    size_t vb = sparse24_values_bytes(b->dtype, b->m, b->k), mb = sparse24_wgmma_meta_words(b->m, b->k) * 4,
           bb = (size_t)b->n * b->k * b->esz, cb = (size_t)b->m * b->n * 2;
    TRY(cold_copies(g, vb + mb + bb + cb, &n, &r->l2_bytes)); /* each copy has a C of its own (the slot's) */
    for (int i = 0; i < n && i < ROT_MAX; i++) {
        struct operands *c = &r->copy[i];
        /* serve's sets are unscaled (alpha 1, no vectors): only the operand buffers move */
        *c = (struct operands){.dtype = b->dtype, .m = b->m, .n = b->n, .k = b->k, .esz = b->esz,
                               .alpha = b->alpha};
        r->n = i + 1;
        TRY(cold_dup(&c->d_values, b->d_values, vb, "rotated A values"));
        TRY(cold_dup(&c->d_meta, b->d_meta, mb, "rotated A metadata"));
        TRY(cold_dup(&c->d_b, b->d_b, bb, "rotated B"));
    }
    return 0;
}

void rotation_release(struct rotation *r)
{
    for (int i = 0; i < r->n; i++)
        operands_release(&r->copy[i]);
    memset(r, 0, sizeof *r);
}
