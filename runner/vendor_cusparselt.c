/* runner/vendor_cusparselt.c — the cuSPARSELt baseline: the vendor's 2:4 SpMMA.
 *
 * Descriptors (cuSPARSELt docs, "cusparseLtMatmul"): A structured 2:4, M x K
 * row-major, op NON_TRANSPOSE; B dense N x K row-major, op TRANSPOSE; C = D dense
 * f16 M x N row-major; compute 32F; alpha 1, beta 0. Alignment 16 B.
 * A is our already-pruned A: cusparseLtSpMMAPruneCheck confirms cuSPARSELt agrees it
 * is 2:4, then cusparseLtSpMMACompress packs it once, so both libraries multiply the
 * same values. Two plans over the one matmul descriptor, each with its own algorithm
 * selection and D: "default" keeps the default algorithm; "search" is changed by
 * cusparseLtMatmulSearch (which writes the plan's algorithm selection) before anything
 * is timed, so compare can time both in the same rounds. With a pinned configuration
 * (compare --slt-config) the "search" plan is made with that configuration instead and
 * nothing is searched: how a profiler run launches the kernel an unprofiled search kept
 * (a search under ncu times serialized, flushed launches and keeps another one). Both
 * run on the one compressed A, as cuSPARSELt's own samples do after a search, with one
 * workspace of the larger size (one stream: never two launches at once).
 * Compiled in only with CROQ_HAVE_CUSPARSELT (CMake found the header and library).
 */
#include "ours.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

#ifndef CROQ_HAVE_CUSPARSELT

static void unavailable(struct subject *s, const char *name)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->available = false;
    snprintf(s->note, sizeof s->note, "runner built without cuSPARSELt (cusparseLt.h or libcusparseLt not found by CMake)");
}

struct slt *vendor_cusparselt_open(const struct bench_env *env, int pin_config, int pin_split_k, struct subject *def,
                                   struct subject *search, struct subject_kernel *kdef, struct subject_kernel *ksearch)
{
    (void)env;
    (void)pin_config;
    (void)pin_split_k;
    unavailable(def, "cusparselt_default");
    unavailable(search, "cusparselt_search");
    memset(kdef, 0, sizeof *kdef);
    memset(ksearch, 0, sizeof *ksearch);
    return NULL;
}

void vendor_cusparselt_close(struct slt *s) { (void)s; }

#else

/* cusparseLt.h pulls in cusparse.h, whose deprecated legacy types we never use. */
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparseLt.h>

enum { P_DEFAULT, P_SEARCH, P_COUNT };


/* One plan: its algorithm selection, its output and, cold, its rotation. */
struct slt_plan {
    struct slt *s;
    cusparseLtMatmulAlgSelection_t alg;
    cusparseLtMatmulPlan_t plan;
    int have;                  /* 1: alg created, 2: and the plan */
    size_t ws_need;            /* the plan's workspace */
    CUdeviceptr d_c;
    struct cold_rot rot;       /* cold L2: copies of the compressed A, B and this plan's D */
};

struct slt {
    const struct operands *o;
    cudaStream_t stream;
    cusparseLtHandle_t h;
    cusparseLtMatDescriptor_t ma, mb, mc;
    cusparseLtMatmulDescriptor_t mm;
    int have; /* 1: the handle, 2: and the matrix descriptors, 3: and the matmul descriptor */
    struct slt_plan p[P_COUNT];
    CUdeviceptr a_comp, comp_buf, ws, d_valid;
    size_t ws_bytes, comp_bytes;
};

static const char *slt_text(int rc) { return cusparseLtGetErrorName((cusparseStatus_t)rc); }

/* D = A . B^T with plan p on the given buffers (the set's, or a cold-L2 copy's). */
static int slt_matmul(struct slt_plan *p, CUdeviceptr a_comp, CUdeviceptr b, CUdeviceptr d)
{
    struct slt *s = p->s;
    const float one = 1.0f, zero = 0.0f;
    LIB_CHECK(RS_LAUNCH_ERROR,
              cusparseLtMatmul(&s->h, &p->plan, &one, (const void *)a_comp, (const void *)b, &zero,
                               (const void *)d, (void *)d, (void *)s->ws, &s->stream, 1),
              slt_text);
    return 0;
}

static int slt_launch(void *ctx)
{
    struct slt_plan *p = ctx;
    return slt_matmul(p, p->s->a_comp, p->s->o->d_b, p->d_c);
}

static int slt_cold_launch(void *ctx)
{
    struct slt_plan *p = ctx;
    int i = cold_rot_next(&p->rot);
    return slt_matmul(p, p->rot.b[i][0], p->rot.b[i][1], p->rot.b[i][2]);
}

/* The search plan's algorithm selection set to configuration `config` (and split-K
 * `split_k` when >= 0) before its plan is made, as cuSPARSELt's samples set one (the plan
 * reads them at cusparseLtMatmulPlanInit; changing them on a made plan's selection is not
 * how the library is used: a plan destroyed and made again from the same selection
 * crashed in the library, H100, 2026-12-07). A configuration past the problem's
 * CUSPARSELT_MATMUL_ALG_CONFIG_MAX_ID fails, naming the range. */
static int slt_pin(struct slt *s, cusparseLtMatmulAlgSelection_t *alg, int config, int split_k)
{
    int max_id = -1;
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtMatmulAlgGetAttribute(&s->h, alg, CUSPARSELT_MATMUL_ALG_CONFIG_MAX_ID,
              &max_id, sizeof max_id), slt_text);
    if (config > max_id) {
        runner_fail(RS_BAD_ARGS, "--slt-config %d: cuSPARSELt has configurations 0..%d for this problem", config, max_id);
        return -1;
    }
    LIB_CHECK(RS_BAD_ARGS, cusparseLtMatmulAlgSetAttribute(&s->h, alg, CUSPARSELT_MATMUL_ALG_CONFIG_ID, &config,
              sizeof config), slt_text);
    if (split_k >= 0)
        LIB_CHECK(RS_BAD_ARGS, cusparseLtMatmulAlgSetAttribute(&s->h, alg, CUSPARSELT_MATMUL_SPLIT_K, &split_k,
                  sizeof split_k), slt_text);
    return 0;
}

static int slt_descriptors(struct slt *s, int pin_config, int pin_split_k)
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
    s->have = 3;
    for (int i = 0; i < P_COUNT; i++) {
        struct slt_plan *p = &s->p[i];
        p->s = s;
        LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtMatmulAlgSelectionInit(&s->h, &p->alg, &s->mm, CUSPARSELT_MATMUL_ALG_DEFAULT), slt_text);
        p->have = 1;
        if (i == P_SEARCH && pin_config >= 0)
            TRY(slt_pin(s, &p->alg, pin_config, pin_split_k));
        LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtMatmulPlanInit(&s->h, &p->plan, &s->mm, &p->alg), slt_text);
        p->have = 2;
    }
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

/* The workspace: the larger of the plans' needs (a search or a pinned configuration may
 * need more than the default). When the larger one cannot be had, the old one stays: the
 * default plan, whose kernel may already be handed out, still fits it; the caller fails
 * the plan that grew. */
static int slt_workspace(struct slt *s)
{
    size_t need = 0;
    for (int i = 0; i < P_COUNT; i++) {
        LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtMatmulGetWorkspace(&s->h, &s->p[i].plan, &s->p[i].ws_need), slt_text);
        need = s->p[i].ws_need > need ? s->p[i].ws_need : need;
    }
    if (s->ws && need <= s->ws_bytes)
        return 0;
    CU_CHECK(RS_INTERNAL_ERROR, cuStreamSynchronize((CUstream)s->stream)); /* nothing still uses the old one */
    CUdeviceptr grown;
    TRY(gpu_alloc(&grown, need, "cuSPARSELt workspace"));
    gpu_free(&s->ws);
    s->ws = grown;
    s->ws_bytes = need;
    return 0;
}

static int slt_buffers(struct slt *s)
{
    size_t comp = 0, comp_buf = 0;
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtSpMMACompressedSize(&s->h, &s->p[P_DEFAULT].plan, &comp, &comp_buf), slt_text);
    s->comp_bytes = comp;
    TRY(gpu_alloc(&s->a_comp, comp, "cuSPARSELt compressed A"));
    TRY(gpu_alloc(&s->comp_buf, comp_buf, "cuSPARSELt compress buffer"));
    LIB_CHECK(RS_INTERNAL_ERROR, cusparseLtSpMMACompress(&s->h, &s->p[P_DEFAULT].plan, (const void *)s->o->d_a_dense,
              (void *)s->a_comp, (void *)s->comp_buf, s->stream), slt_text);
    TRY(slt_workspace(s));
    for (int i = 0; i < P_COUNT; i++)
        TRY(gpu_alloc(&s->p[i].d_c, (size_t)s->o->m * s->o->n * 2, "cuSPARSELt D"));
    return 0;
}

/* The search plan's algorithm: cusparseLtMatmulSearch times the candidates and writes the
 * fastest into the plan; then the workspace grows if that one needs more. */
static int slt_search(struct slt *s)
{
    struct slt_plan *p = &s->p[P_SEARCH];
    const float one = 1.0f, zero = 0.0f;
    LIB_CHECK(RS_INTERNAL_ERROR,
              cusparseLtMatmulSearch(&s->h, &p->plan, &one, (const void *)s->a_comp, (const void *)s->o->d_b, &zero,
                                     (const void *)p->d_c, (void *)p->d_c, (void *)s->ws, &s->stream, 1),
              slt_text);
    return slt_workspace(s);
}

/* Cold L2: per plan, copies of the compressed A (a plain buffer: the plan holds no pointer
 * into it), B and its D (buffers 0..2); made after the compression. */
static int slt_cold_prepare(const struct bench_env *env, struct slt_plan *p)
{
    const struct operands *o = env->o;
    const struct cold_buf bufs[3] = {
        {p->s->a_comp, p->s->comp_bytes, "rotated cuSPARSELt compressed A"},
        {o->d_b, (size_t)o->n * o->k * o->esz, "rotated B"},
        {0, (size_t)o->m * o->n * 2, "rotated cuSPARSELt D"},
    };
    CU_CHECK(RS_INTERNAL_ERROR, cuStreamSynchronize((CUstream)p->s->stream)); /* the compression is done */
    return cold_rot_make(env->g, bufs, 3, &p->rot);
}

/* The plan's algorithm as the library reports it: enough to make the same plan again with
 * --slt-config config_id --slt-split-k split_k (split_k_mode and split_k_buffers say
 * whether the library's choice for them matches). pinned: made from --slt-config. */
static json_t *slt_alg_json(struct slt_plan *p, bool pinned)
{
    struct slt *s = p->s;
    int id = -1, max_id = -1, split_k = -1, mode = -1, buffers = -1;
    cusparseLtMatmulAlgGetAttribute(&s->h, &p->alg, CUSPARSELT_MATMUL_ALG_CONFIG_ID, &id, sizeof id);
    cusparseLtMatmulAlgGetAttribute(&s->h, &p->alg, CUSPARSELT_MATMUL_ALG_CONFIG_MAX_ID, &max_id, sizeof max_id);
    cusparseLtMatmulAlgGetAttribute(&s->h, &p->alg, CUSPARSELT_MATMUL_SPLIT_K, &split_k, sizeof split_k);
    cusparseLtMatmulAlgGetAttribute(&s->h, &p->alg, CUSPARSELT_MATMUL_SPLIT_K_MODE, &mode, sizeof mode);
    cusparseLtMatmulAlgGetAttribute(&s->h, &p->alg, CUSPARSELT_MATMUL_SPLIT_K_BUFFERS, &buffers, sizeof buffers);
    return json_pack("{s:s, s:{s:i, s:i, s:i, s:i, s:i, s:I, s:b}}", "library", "cusparselt", "algorithm",
                     "config_id", id, "config_max_id", max_id, "split_k", split_k, "split_k_mode", mode,
                     "split_k_buffers", buffers, "workspace_bytes", (json_int_t)p->ws_need, "pinned", pinned);
}

void vendor_cusparselt_close(struct slt *s)
{
    if (!s)
        return;
    for (int i = 0; i < P_COUNT; i++) {
        struct slt_plan *p = &s->p[i];
        if (p->have >= 2) cusparseLtMatmulPlanDestroy(&p->plan);
        if (p->have >= 1) cusparseLtMatmulAlgSelectionDestroy(&p->alg);
        gpu_free(&p->d_c);
        cold_rot_release(&p->rot);
    }
    if (s->have >= 2) {
        cusparseLtMatDescriptorDestroy(&s->ma);
        cusparseLtMatDescriptorDestroy(&s->mb);
        cusparseLtMatDescriptorDestroy(&s->mc);
    }
    if (s->have >= 1) cusparseLtDestroy(&s->h);
    gpu_free(&s->a_comp);
    gpu_free(&s->comp_buf);
    gpu_free(&s->ws);
    gpu_free(&s->d_valid);
    free(s);
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

static struct subject_kernel plan_kernel(struct slt_plan *p)
{
    return (struct subject_kernel){slt_launch, p, p->d_c, slt_cold_launch, p, p->rot.b[0][2], &p->rot};
}

struct slt *vendor_cusparselt_open(const struct bench_env *env, int pin_config, int pin_split_k, struct subject *def,
                                   struct subject *search, struct subject_kernel *kdef, struct subject_kernel *ksearch)
{
    struct slt *s = xmalloc(sizeof *s);
    *s = (struct slt){.o = env->o, .stream = (cudaStream_t)env->g->stream};
    init_subject(def, "cusparselt_default");
    init_subject(search, "cusparselt_search");
    memset(kdef, 0, sizeof *kdef);
    memset(ksearch, 0, sizeof *ksearch);
    /* a pinned configuration the library refuses makes cuSPARSELt unavailable in this run,
     * its note saying why (the plans are made together) */
    if (slt_descriptors(s, pin_config, pin_split_k) || slt_prune_check(s) || slt_buffers(s)) {
        mark_unavailable(def, search);
        vendor_cusparselt_close(s);
        return NULL;
    }
    bool cold = env->cold_l2 && env->time_it;
    if (cold && slt_cold_prepare(env, &s->p[P_DEFAULT]))
        subject_take_failure(def);
    else
        *kdef = plan_kernel(&s->p[P_DEFAULT]);
    if ((pin_config < 0 && slt_search(s)) ||
        (cold && slt_cold_prepare(env, &s->p[P_SEARCH])))
        subject_take_failure(search);
    else
        *ksearch = plan_kernel(&s->p[P_SEARCH]);
    def->extra = slt_alg_json(&s->p[P_DEFAULT], false);
    search->extra = slt_alg_json(&s->p[P_SEARCH], pin_config >= 0);
    return s;
}

#endif
