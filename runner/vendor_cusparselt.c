/* runner/vendor_cusparselt.c — the cuSPARSELt baseline: the vendor's 2:4 SpMMA.
 *
 * Descriptors (cuSPARSELt docs, "cusparseLtMatmul"): A structured 2:4, M x K
 * row-major, op NON_TRANSPOSE; B dense N x K row-major, op TRANSPOSE; C = D dense
 * f16 M x N row-major; compute 32F; alpha 1, beta 0. Alignment 16 B.
 * The plan is built once. A is our already-pruned A: cusparseLtSpMMAPruneCheck
 * confirms cuSPARSELt agrees it is 2:4, then cusparseLtSpMMACompress packs it, so
 * both libraries multiply the same values. "default" times the default algorithm;
 * "search" times the same plan after cusparseLtMatmulSearch picked its best.
 * Compiled in only with CROQ_HAVE_CUSPARSELT (CMake found the header and library).
 */
#include "ours.h"

#include <stdio.h>
#include <string.h>

#ifndef CROQ_HAVE_CUSPARSELT

static void unavailable(struct subject *s, const char *name)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->available = false;
    snprintf(s->note, sizeof s->note, "runner built without cuSPARSELt (cusparseLt.h or libcusparseLt not found by CMake)");
}

void vendor_cusparselt(const struct bench_env *env, struct subject *def, struct subject *search)
{
    (void)env;
    unavailable(def, "cusparselt_default");
    unavailable(search, "cusparselt_search");
}

#else

/* cusparseLt.h pulls in cusparse.h, whose deprecated legacy types we never use. */
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparseLt.h>

struct slt {
    const struct operands *o;
    cudaStream_t stream;
    cusparseLtHandle_t h;
    cusparseLtMatDescriptor_t ma, mb, mc;
    cusparseLtMatmulDescriptor_t mm;
    cusparseLtMatmulAlgSelection_t alg;
    cusparseLtMatmulPlan_t plan;
    int have; /* how many of h, descriptors, alg, plan were created (for release) */
    CUdeviceptr a_comp, comp_buf, ws, d_c, d_valid;
    size_t ws_bytes, comp_bytes;
    struct cold_rot rot;       /* cold L2: copies of the compressed A, B and D */
};

static const char *slt_text(int rc) { return cusparseLtGetErrorName((cusparseStatus_t)rc); }

/* D = A . B^T on the given buffers (the set's, or a cold-L2 copy's). */
static int slt_matmul(struct slt *s, CUdeviceptr a_comp, CUdeviceptr b, CUdeviceptr d)
{
    const float one = 1.0f, zero = 0.0f;
    LIB_CHECK(RS_LAUNCH_ERROR,
              cusparseLtMatmul(&s->h, &s->plan, &one, (const void *)a_comp, (const void *)b, &zero,
                               (const void *)d, (void *)d, (void *)s->ws, &s->stream, 1),
              slt_text);
    return 0;
}

static int slt_launch(void *p)
{
    struct slt *s = p;
    return slt_matmul(s, s->a_comp, s->o->d_b, s->d_c);
}

static int slt_cold_launch(void *p)
{
    struct slt *s = p;
    int i = cold_rot_next(&s->rot);
    return slt_matmul(s, s->rot.b[i][0], s->rot.b[i][1], s->rot.b[i][2]);
}

static int slt_descriptors(struct slt *s)
{
    const struct operands *o = s->o;
    cudaDataType t = o->dtype == CROQ_DTYPE_F16 ? CUDA_R_16F : CUDA_R_8F_E4M3;
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtInit(&s->h), slt_text);
    s->have = 1;
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtStructuredDescriptorInit(&s->h, &s->ma, o->m, o->k, o->k, 16, t,
              CUSPARSE_ORDER_ROW, CUSPARSELT_SPARSITY_50_PERCENT), slt_text);
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtDenseDescriptorInit(&s->h, &s->mb, o->n, o->k, o->k, 16, t, CUSPARSE_ORDER_ROW), slt_text);
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtDenseDescriptorInit(&s->h, &s->mc, o->m, o->n, o->n, 16, CUDA_R_16F, CUSPARSE_ORDER_ROW), slt_text);
    s->have = 2;
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtMatmulDescriptorInit(&s->h, &s->mm, CUSPARSE_OPERATION_NON_TRANSPOSE,
              CUSPARSE_OPERATION_TRANSPOSE, &s->ma, &s->mb, &s->mc, &s->mc, CUSPARSE_COMPUTE_32F), slt_text);
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtMatmulAlgSelectionInit(&s->h, &s->alg, &s->mm, CUSPARSELT_MATMUL_ALG_DEFAULT), slt_text);
    s->have = 3;
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtMatmulPlanInit(&s->h, &s->plan, &s->mm, &s->alg), slt_text);
    s->have = 4;
    return 0;
}

/* Our pruned A must be 2:4 in cuSPARSELt's sense too, else the comparison is void. */
static int slt_prune_check(struct slt *s)
{
    int valid = 1;
    TRY(gpu_alloc(&s->d_valid, sizeof valid, "cuSPARSELt prune flag"));
    /* The check writes the flag only when it finds a bad group (H200, 2026-12-01: in a
     * process that reuses freed device memory the flag read back as stale data), so it
     * starts at 0. */
    CU_CHECK(RS_INTERNAL_ERROR, cuMemsetD32Async(s->d_valid, 0, 1, (CUstream)s->stream));
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtSpMMAPruneCheck(&s->h, &s->mm, (const void *)s->o->d_a_dense,
              (int *)s->d_valid, s->stream), slt_text);
    CU_CHECK(RS_INTERNAL_ERROR, cuStreamSynchronize((CUstream)s->stream));
    CU_CHECK(RS_INTERNAL_ERROR, cuMemcpyDtoH(&valid, s->d_valid, sizeof valid));
    if (valid != 0) {
        runner_fail(RS_INTERNAL_ERROR, "cusparseLtSpMMAPruneCheck says our pruned A is not 2:4 (flag %d)", valid);
        return -1;
    }
    return 0;
}

static int slt_buffers(struct slt *s)
{
    size_t comp = 0, comp_buf = 0;
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtSpMMACompressedSize(&s->h, &s->plan, &comp, &comp_buf), slt_text);
    s->comp_bytes = comp;
    TRY(gpu_alloc(&s->a_comp, comp, "cuSPARSELt compressed A"));
    TRY(gpu_alloc(&s->comp_buf, comp_buf, "cuSPARSELt compress buffer"));
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtSpMMACompress(&s->h, &s->plan, (const void *)s->o->d_a_dense,
              (void *)s->a_comp, (void *)s->comp_buf, s->stream), slt_text);
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtMatmulGetWorkspace(&s->h, &s->plan, &s->ws_bytes), slt_text);
    TRY(gpu_alloc(&s->ws, s->ws_bytes, "cuSPARSELt workspace"));
    return gpu_alloc(&s->d_c, (size_t)s->o->m * s->o->n * 2, "cuSPARSELt D");
}

/* The search may pick an algorithm with a larger workspace. */
static int slt_search(struct slt *s)
{
    const float one = 1.0f, zero = 0.0f;
    size_t need = 0;
    LIB_CHECK(RS_INTERNAL_ERROR,
              cusparseLtMatmulSearch(&s->h, &s->plan, &one, (const void *)s->a_comp, (const void *)s->o->d_b, &zero,
                                     (const void *)s->d_c, (void *)s->d_c, (void *)s->ws, &s->stream, 1),
              slt_text);
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtMatmulGetWorkspace(&s->h, &s->plan, &need), slt_text);
    if (need > s->ws_bytes) {
        gpu_free(&s->ws);
        s->ws_bytes = need;
        TRY(gpu_alloc(&s->ws, need, "cuSPARSELt workspace"));
    }
    return 0;
}

/* Cold L2: copies of the compressed A (a plain buffer: the plan holds no pointer into it),
 * B and D (buffers 0..2); made after the compression, shared by both subjects. */
static int slt_cold_prepare(const struct bench_env *env, struct slt *s)
{
    const struct operands *o = s->o;
    const struct cold_buf bufs[3] = {
        {s->a_comp, s->comp_bytes, "rotated cuSPARSELt compressed A"},
        {o->d_b, (size_t)o->n * o->k * o->esz, "rotated B"},
        {0, (size_t)o->m * o->n * 2, "rotated cuSPARSELt D"},
    };
    CU_CHECK(RS_INTERNAL_ERROR, cuStreamSynchronize((CUstream)s->stream)); /* the compression is done */
    return cold_rot_make(env->g, bufs, 3, &s->rot);
}

static json_t *slt_alg_json(struct slt *s)
{
    int id = -1, max_id = -1, split_k = -1;
    cusparseLtMatmulAlgGetAttribute(&s->h, &s->alg, CUSPARSELT_MATMUL_ALG_CONFIG_ID, &id, sizeof id);
    cusparseLtMatmulAlgGetAttribute(&s->h, &s->alg, CUSPARSELT_MATMUL_ALG_CONFIG_MAX_ID, &max_id, sizeof max_id);
    cusparseLtMatmulAlgGetAttribute(&s->h, &s->alg, CUSPARSELT_MATMUL_SPLIT_K, &split_k, sizeof split_k);
    return json_pack("{s:s, s:{s:i, s:i, s:i, s:I}}", "library", "cusparselt", "algorithm", "config_id", id,
                     "config_max_id", max_id, "split_k", split_k, "workspace_bytes", (json_int_t)s->ws_bytes);
}

static void slt_release(struct slt *s)
{
    if (s->have >= 4) cusparseLtMatmulPlanDestroy(&s->plan);
    if (s->have >= 3) cusparseLtMatmulAlgSelectionDestroy(&s->alg);
    if (s->have >= 2) {
        cusparseLtMatDescriptorDestroy(&s->ma);
        cusparseLtMatDescriptorDestroy(&s->mb);
        cusparseLtMatDescriptorDestroy(&s->mc);
    }
    if (s->have >= 1) cusparseLtDestroy(&s->h);
    gpu_free(&s->a_comp);
    gpu_free(&s->comp_buf);
    gpu_free(&s->ws);
    gpu_free(&s->d_c);
    gpu_free(&s->d_valid);
    cold_rot_release(&s->rot);
}

static void init_subject(struct subject *s, const char *name)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->available = true;
}

/* Set-up failures mean "cuSPARSELt cannot do this case": unavailable, with why. */
static void mark_unavailable(struct subject *a, struct subject *b)
{
    subject_take_failure(a);
    a->available = b->available = false;
    snprintf(a->note, sizeof a->note, "%s", a->error);
    snprintf(b->note, sizeof b->note, "%s", a->error);
    a->error[0] = '\0';
    a->status = RS_OK;
}

void vendor_cusparselt(const struct bench_env *env, struct subject *def, struct subject *search)
{
    struct slt s = {.o = env->o, .stream = (cudaStream_t)env->g->stream};
    init_subject(def, "cusparselt_default");
    init_subject(search, "cusparselt_search");
    if (slt_descriptors(&s) || slt_prune_check(&s) || slt_buffers(&s)) {
        mark_unavailable(def, search);
        slt_release(&s);
        return;
    }
    if (env->cold_l2 && env->time_it && slt_cold_prepare(env, &s)) {
        subject_take_failure(def);
        snprintf(search->error, sizeof search->error, "%s", def->error);
        search->status = def->status;
        def->extra = slt_alg_json(&s);
        search->extra = slt_alg_json(&s);
        slt_release(&s);
        return;
    }
    const struct subject_kernel k = {slt_launch, &s, s.d_c, slt_cold_launch, &s, s.rot.b[0][2], &s.rot};
    subject_measure(env, &k, def);
    def->extra = slt_alg_json(&s);
    if (slt_search(&s))
        subject_take_failure(search);
    else
        subject_measure(env, &k, search);
    search->extra = slt_alg_json(&s);
    slt_release(&s);
}

#endif
