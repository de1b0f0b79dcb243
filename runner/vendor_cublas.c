/* runner/vendor_cublas.c — the dense cuBLAS baseline on the decompressed (pruned) A.
 *
 * f16:  cublasGemmEx, f16 A/B/C, CUBLAS_COMPUTE_32F (blas.h, row-major identity).
 * e4m3: cublasLtMatmul, A/B CUDA_R_8F_E4M3, C/D CUDA_R_16F, compute 32F, scale
 *       pointers unset (= 1.0). cuBLASLt takes FP8 only in the "TN" form
 *       (cuBLAS docs, cublasLtMatmul, FP8 requirements): its A operand transposed,
 *       B not. Column-major, C^T[N][M] = Bk^T . Ak with Bk = our B viewed as K x N
 *       (ld K) and Ak = our A viewed as K x M (ld K): exactly TN, no copies.
 *       Workspace 32 MiB, the size NVIDIA recommends for Hopper (cuBLAS docs,
 *       cublasSetWorkspace).
 */
#include "blas.h"
#include "ours.h"

#include <cublasLt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

#define LT_WORKSPACE_BYTES ((size_t)32 << 20)

struct dense {
    const struct operands *o;
    CUstream stream;
    cublasHandle_t h;
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulHeuristicResult_t heur;
    CUdeviceptr ws, d_c;
    struct cold_rot rot;       /* cold L2: copies of A, B, C */
};

/* C = A . B^T on the given buffers (the set's, or a cold-L2 copy's). */
static int dense_gemm(struct dense *d, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c)
{
    const float one = 1.0f, zero = 0.0f;
    if (d->o->dtype == CROQ_DTYPE_F16)
        return blas_gemm_f16(d->h, d->o->m, d->o->n, d->o->k, a, b, c, CUDA_R_16F);
    LIB_CHECK(RS_LAUNCH_ERROR,
              cublasLtMatmul(d->lt, d->desc, &one, (const void *)b, d->la, (const void *)a, d->lb, &zero,
                             (const void *)c, d->lc, (void *)c, d->lc, &d->heur.algo, (void *)d->ws,
                             LT_WORKSPACE_BYTES, (cudaStream_t)d->stream),
              blas_status_text);
    return 0;
}

static int dense_launch(void *p)
{
    struct dense *d = p;
    return dense_gemm(d, d->o->d_a_dense, d->o->d_b, d->d_c);
}

static int dense_cold_launch(void *p)
{
    struct dense *d = p;
    int i = cold_rot_next(&d->rot);
    return dense_gemm(d, d->rot.b[i][0], d->rot.b[i][1], d->rot.b[i][2]);
}

/* Cold L2: copies of the dense A, B and C (buffers 0..2). */
static int dense_cold_prepare(const struct bench_env *env, struct dense *d)
{
    const struct operands *o = env->o;
    const struct cold_buf bufs[3] = {
        {o->d_a_dense, (size_t)o->m * o->k * o->esz, "rotated dense A"},
        {o->d_b, (size_t)o->n * o->k * o->esz, "rotated B"},
        {0, (size_t)o->m * o->n * 2, "rotated cublas C"},
    };
    return cold_rot_make(env->g, bufs, 3, &d->rot);
}

static int lt_layouts(struct dense *d)
{
    const struct operands *o = d->o;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    LIB_CHECK(RS_INTERNAL_ERROR, cublasLtMatmulDescCreate(&d->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), blas_status_text);
    LIB_CHECK(RS_INTERNAL_ERROR, cublasLtMatmulDescSetAttribute(d->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), blas_status_text);
    LIB_CHECK(RS_INTERNAL_ERROR, cublasLtMatmulDescSetAttribute(d->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), blas_status_text);
    LIB_CHECK(RS_INTERNAL_ERROR, cublasLtMatrixLayoutCreate(&d->la, CUDA_R_8F_E4M3, (uint64_t)o->k, (uint64_t)o->n, o->k), blas_status_text);
    LIB_CHECK(RS_INTERNAL_ERROR, cublasLtMatrixLayoutCreate(&d->lb, CUDA_R_8F_E4M3, (uint64_t)o->k, (uint64_t)o->m, o->k), blas_status_text);
    LIB_CHECK(RS_INTERNAL_ERROR, cublasLtMatrixLayoutCreate(&d->lc, CUDA_R_16F, (uint64_t)o->n, (uint64_t)o->m, o->n), blas_status_text);
    return 0;
}

/* Heuristic choice of one algorithm; none means cuBLASLt cannot do this case. */
static int lt_choose(struct dense *d, struct subject *s)
{
    cublasLtMatmulPreference_t pref = NULL;
    size_t ws = LT_WORKSPACE_BYTES;
    int found = 0;
    LIB_CHECK(RS_INTERNAL_ERROR, cublasLtMatmulPreferenceCreate(&pref), blas_status_text);
    cublasStatus_t rc = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (rc == CUBLAS_STATUS_SUCCESS)
        rc = cublasLtMatmulAlgoGetHeuristic(d->lt, d->desc, d->la, d->lb, d->lc, d->lc, pref, 1, &d->heur, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (rc != CUBLAS_STATUS_SUCCESS || found == 0) {
        s->available = false;
        snprintf(s->note, sizeof s->note, "cublasLt has no fp8 algorithm for this shape (%s)", blas_status_text(rc));
    }
    return 0;
}

static int dense_setup(const struct bench_env *env, struct dense *d, struct subject *s)
{
    const struct operands *o = env->o;
    TRY(gpu_alloc(&d->d_c, (size_t)o->m * o->n * 2, "cublas C"));
    if (o->dtype == CROQ_DTYPE_F16) {
        TRY(blas_open(env->g, &d->h));
        snprintf(s->note, sizeof s->note, "cublasGemmEx f16, compute 32F, dense");
        return 0;
    }
    LIB_CHECK(RS_INTERNAL_ERROR, cublasLtCreate(&d->lt), blas_status_text);
    TRY(lt_layouts(d));
    TRY(gpu_alloc(&d->ws, LT_WORKSPACE_BYTES, "cublasLt workspace"));
    snprintf(s->note, sizeof s->note, "cublasLtMatmul e4m3 TN, f16 out, compute 32F, dense");
    return lt_choose(d, s);
}

void vendor_cublas_close(struct dense *d)
{
    if (!d)
        return;
    if (d->h) cublasDestroy(d->h);
    if (d->la) cublasLtMatrixLayoutDestroy(d->la);
    if (d->lb) cublasLtMatrixLayoutDestroy(d->lb);
    if (d->lc) cublasLtMatrixLayoutDestroy(d->lc);
    if (d->desc) cublasLtMatmulDescDestroy(d->desc);
    if (d->lt) cublasLtDestroy(d->lt);
    gpu_free(&d->ws);
    gpu_free(&d->d_c);
    cold_rot_release(&d->rot);
    free(d);
}

struct dense *vendor_cublas_open(const struct bench_env *env, struct subject *s, struct subject_kernel *k)
{
    struct dense *d = xmalloc(sizeof *d);
    *d = (struct dense){.o = env->o, .stream = env->g->stream};
    memset(s, 0, sizeof *s);
    memset(k, 0, sizeof *k);
    s->name = "cublas";
    s->available = true;
    s->extra = json_pack("{s:s}", "library", env->o->dtype == CROQ_DTYPE_F16 ? "cublas" : "cublasLt");
    if (dense_setup(env, d, s) || (s->available && env->cold_l2 && env->time_it && dense_cold_prepare(env, d)))
        subject_take_failure(s);
    else if (s->available)
        *k = (struct subject_kernel){dense_launch, d, d->d_c, dense_cold_launch, d, d->rot.b[0][2], &d->rot};
    return d;
}
