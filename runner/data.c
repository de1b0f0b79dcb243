/* runner/data.c — seeded operands on the host and their device copies.
 *
 * One seed fixes every byte: A is drawn first ([M][K] in index order), then B
 * ([N][K]), from one xoshiro256** stream (src/format/rng.h). Ranges: f16 [-1, 1]
 * (products stay far from overflow at any K we accept); e4m3 [-2, 2] (spans several
 * binades of the 3-bit mantissa, so rounding is exercised, while sums stay small).
 * A is pruned to 2:4 (largest two magnitudes per group of 4), compressed to values +
 * natural metadata, and the metadata reordered to the kernels' wgmma order.
 */
#include "runner.h"

#include <stdlib.h>
#include <string.h>

#include "format/numeric.h"
#include "format/rng.h"
#include "format/sparse24.h"
#include "target/dtype.h"
#include "util/log.h"

static int fill(struct rng *r, int dtype, void *dst, size_t n, const char *what)
{
    char err[256];
    float x = croq_dtype_traits(dtype)->operand_range; /* the ranges above */
    if (rng_fill(r, dtype, dst, n, -x, x, err, sizeof err)) {
        runner_fail(RS_INTERNAL_ERROR, "random '%s': %s", what, err);
        return -1;
    }
    return 0;
}

static int sparsify(struct operands *o)
{
    struct sparse24_error err;
    if (sparse24_prune(o->dtype, o->m, o->k, o->a_dense, o->a_dense, &err) ||
        sparse24_compress(o->dtype, o->m, o->k, o->a_dense, o->a_values, o->meta_natural, &err) ||
        sparse24_reorder_meta(o->dtype, o->m, o->k, o->meta_natural, o->meta_wgmma, &err)) {
        runner_fail(RS_INTERNAL_ERROR, "preparing 2:4 A: %s", err.msg);
        return -1;
    }
    return 0;
}

int operands_make(int dtype, const struct croq_shape *s, uint64_t seed, struct operands *o)
{
    struct rng r;
    memset(o, 0, sizeof *o);
    o->dtype = dtype;
    o->m = s->m, o->n = s->n, o->k = s->k;
    o->esz = numeric_dtype_bytes(dtype);
    o->alpha = 1.0f;
    o->a_dense = xmalloc((size_t)o->m * o->k * o->esz);
    o->a_values = xmalloc(sparse24_values_bytes(dtype, o->m, o->k));
    o->meta_natural = xmalloc(sparse24_meta_words(o->m, o->k) * 4);
    o->meta_wgmma = xmalloc(sparse24_wgmma_meta_words(o->m, o->k) * 4);
    o->b = xmalloc((size_t)o->n * o->k * o->esz);
    rng_seed(&r, seed);
    TRY(fill(&r, dtype, o->a_dense, (size_t)o->m * o->k, "A"));
    TRY(fill(&r, dtype, o->b, (size_t)o->n * o->k, "B"));
    return sparsify(o);
}

static int upload(CUdeviceptr *d, const void *h, size_t bytes, const char *what)
{
    TRY(gpu_alloc(d, bytes, what));
    CU_CHECK(RS_INTERNAL_ERROR, cuMemcpyHtoD(*d, h, bytes));
    return 0;
}

int operands_upload(const struct gpu *g, struct operands *o)
{
    (void)g;
    TRY(upload(&o->d_values, o->a_values, sparse24_values_bytes(o->dtype, o->m, o->k), "A values"));
    TRY(upload(&o->d_meta, o->meta_wgmma, sparse24_wgmma_meta_words(o->m, o->k) * 4, "A metadata"));
    return upload(&o->d_b, o->b, (size_t)o->n * o->k * o->esz, "B");
}

int operands_upload_dense(const struct gpu *g, struct operands *o)
{
    (void)g;
    return upload(&o->d_a_dense, o->a_dense, (size_t)o->m * o->k * o->esz, "dense A");
}

/* Distinct from the operands' stream, which starts at seed itself. */
#define SCALE_STREAM 0x5ca1ab1eULL

static void uniform(struct rng *r, float *dst, long n, double lo, double hi)
{
    for (long i = 0; i < n; i++)
        dst[i] = (float)(lo + (hi - lo) * rng_uniform(r));
}

int operands_scale(struct operands *o, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed ^ SCALE_STREAM);
    o->alpha = 0.75f;
    o->scale_a = xmalloc((size_t)o->m * sizeof *o->scale_a);
    o->scale_b = xmalloc((size_t)o->n * sizeof *o->scale_b);
    uniform(&r, o->scale_a, o->m, 0.25, 2.0);
    uniform(&r, o->scale_b, o->n, 0.25, 2.0);
    TRY(upload(&o->d_scale_a, o->scale_a, (size_t)o->m * sizeof *o->scale_a, "scale_a"));
    return upload(&o->d_scale_b, o->scale_b, (size_t)o->n * sizeof *o->scale_b, "scale_b");
}

void operands_release(struct operands *o)
{
    free(o->a_dense);
    free(o->a_values);
    free(o->meta_natural);
    free(o->meta_wgmma);
    free(o->b);
    free(o->scale_a);
    free(o->scale_b);
    gpu_free(&o->d_scale_a);
    gpu_free(&o->d_scale_b);
    gpu_free(&o->d_values);
    gpu_free(&o->d_meta);
    gpu_free(&o->d_b);
    gpu_free(&o->d_a_dense);
    memset(o, 0, sizeof *o);
}
