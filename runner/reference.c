/* runner/reference.c — the reference C and |A|.|B| every output is compared with.
 *
 * Both are computed from the pruned dense A (what the product means), not from the
 * compressed form the kernel reads, so a bug in compression or metadata order shows
 * up as a mismatch instead of being reproduced by the reference.
 * cpu:    f64 on the host (src/format/reference.h), exact products, f64 sums.
 * cublas: cublasGemmEx on f16 copies (e4m3 -> f16 is exact), f32 accumulation,
 *         f32 output; then the same on |A|, |B|.
 * auto:   cpu when M*N*K <= 2^28 (a second or so on one core), else cublas.
 */
#include "blas.h"

#include <stdlib.h>
#include <string.h>

#include "format/reference.h"
#include "util/log.h"

#define REF_CPU_MAX_MNK (1LL << 28)

static int reference_cpu(const struct operands *o, struct reference *r)
{
    size_t mn = (size_t)o->m * o->n;
    r->method = "cpu";
    r->ref64 = xmalloc(mn * sizeof *r->ref64);
    r->abs64 = xmalloc(mn * sizeof *r->abs64);
    if (reference_gemm_both_f64(o->dtype, o->m, o->n, o->k, o->a_dense, o->b, r->ref64, r->abs64)) {
        runner_fail(RS_INTERNAL_ERROR, "cpu reference gemm failed (%ldx%ldx%ld)", o->m, o->n, o->k);
        return -1;
    }
    return 0;
}

/* Scratch of the cuBLAS path. */
struct blas_ref {
    cublasHandle_t h;
    uint16_t *ha, *hb;
    CUdeviceptr a, b, c;
};

/* One GEMM on (|)A(|), (|)B(|) into host f32 out[M][N]. */
static int gemm_pass(struct blas_ref *s, const struct operands *o, bool abs, float *out)
{
    size_t ma = (size_t)o->m * o->k, nb = (size_t)o->n * o->k, mn = (size_t)o->m * o->n;
    blas_to_f16(o->dtype, o->a_dense, s->ha, ma, abs);
    blas_to_f16(o->dtype, o->b, s->hb, nb, abs);
    CU_CHECK(RS_INTERNAL_ERROR, cuMemcpyHtoD(s->a, s->ha, ma * 2));
    CU_CHECK(RS_INTERNAL_ERROR, cuMemcpyHtoD(s->b, s->hb, nb * 2));
    TRY(blas_gemm_f16(s->h, o->m, o->n, o->k, s->a, s->b, s->c, CUDA_R_32F));
    CU_CHECK(RS_INTERNAL_ERROR, cuCtxSynchronize());
    CU_CHECK(RS_INTERNAL_ERROR, cuMemcpyDtoH(out, s->c, mn * sizeof *out));
    return 0;
}

static int blas_ref_run(const struct gpu *g, const struct operands *o, struct blas_ref *s, struct reference *r)
{
    size_t mn = (size_t)o->m * o->n;
    TRY(blas_open(g, &s->h));
    TRY(gpu_alloc(&s->a, (size_t)o->m * o->k * 2, "reference A (f16)"));
    TRY(gpu_alloc(&s->b, (size_t)o->n * o->k * 2, "reference B (f16)"));
    TRY(gpu_alloc(&s->c, mn * 4, "reference C (f32)"));
    r->ref32 = xmalloc(mn * sizeof *r->ref32);
    r->abs32 = xmalloc(mn * sizeof *r->abs32);
    TRY(gemm_pass(s, o, false, r->ref32));
    return gemm_pass(s, o, true, r->abs32);
}

static int reference_cublas(const struct gpu *g, const struct operands *o, struct reference *r)
{
    struct blas_ref s = {0};
    r->method = "cublas";
    s.ha = xmalloc((size_t)o->m * o->k * 2);
    s.hb = xmalloc((size_t)o->n * o->k * 2);
    int rc = blas_ref_run(g, o, &s, r);
    if (s.h)
        cublasDestroy(s.h);
    gpu_free(&s.a);
    gpu_free(&s.b);
    gpu_free(&s.c);
    free(s.ha);
    free(s.hb);
    return rc;
}

int reference_compute(const struct gpu *g, const struct operands *o, enum ref_mode mode,
                      struct reference *r)
{
    memset(r, 0, sizeof *r);
    if (mode == REF_AUTO)
        mode = (long long)o->m * o->n * o->k <= REF_CPU_MAX_MNK ? REF_CPU : REF_CUBLAS;
    return mode == REF_CPU ? reference_cpu(o, r) : reference_cublas(g, o, r);
}

void reference_scale(const struct operands *o, struct reference *r)
{
    for (long i = 0; i < o->m; i++)
        for (long j = 0; j < o->n; j++) {
            size_t at = (size_t)i * o->n + j;
            double f = (double)o->alpha * (o->scale_a ? o->scale_a[i] : 1.0) * (o->scale_b ? o->scale_b[j] : 1.0);
            if (r->ref64) {
                r->ref64[at] *= f;
                r->abs64[at] *= f;
            } else {
                r->ref32[at] = (float)(r->ref32[at] * f);
                r->abs32[at] = (float)(r->abs32[at] * f);
            }
        }
}

void reference_release(struct reference *r)
{
    free(r->ref64);
    free(r->abs64);
    free(r->ref32);
    free(r->abs32);
    memset(r, 0, sizeof *r);
}
