/* lib/plan.c — plans (kernel choice, module, tensor maps, workspace: once) and the
 * asynchronous product on the caller's stream. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cs_describe(struct croqsparse_plan *p, const struct pack *pk, const struct pack_entry *e, const char *match)
{
    croqsparse_plan_info *i = &p->info;
    snprintf(i->key, sizeof i->key, "%s", e->fallback ? "fallback" : e->key);
    snprintf(i->config, sizeof i->config, "%s", e->config);
    i->tuned_tflops = e->tflops;
    i->tuned_m = e->m, i->tuned_n = e->n, i->tuned_k = e->k;
    snprintf(i->match, sizeof i->match, "%s", match);
    bool same = e->fallback || !strcmp(e->hash, e->tuned_hash);
    char source[640];
    snprintf(source, sizeof source, "pack for '%s', CUDA %d.%d, driver %s; source hash %s%s%s%s", pk->gpu,
             pk->cuda_major, pk->cuda_minor, pk->driver, e->hash, same ? "" : ", tuned as ", same ? "" : e->tuned_hash,
             same ? "" : " (older kernel sources: tuned_tflops not measured for it)");
    /* cut to fit a very long GPU or driver name (the header says so) */
    snprintf(i->source, sizeof i->source, "%.*s", (int)sizeof i->source - 1, source);
    cs_handle_note(p->h, i->note, sizeof i->note); /* why tuned kernels or the model are not used */
    i->workspace_bytes = p->launch.workspace_bytes;
}

long cs_rank(croqsparse_handle_t h, croqsparse_dtype_t dtype, const struct croq_shape *s, long *out, size_t cap,
             enum pack_match *match, char *why, size_t whylen)
{
    return pack_rank(&h->pack, (int)dtype, s, h->trust, h->model ? cs_model_predict : NULL, h->model, out, cap,
                     match, why, whylen);
}

/* Choose and load the kernel (under the handle's lock: the pack may be replaced). */
static croqsparse_status_t load_kernel(struct croqsparse_plan *p, const char *fn)
{
    croqsparse_handle_t h = p->h;
    struct croq_shape s = {p->m, p->n, p->k};
    struct kl_error ke;
    enum pack_match match;
    char why[CROQ_WHY_MAX];
    long i = -1;
    croqsparse_status_t st = CROQSPARSE_STATUS_SUCCESS;
    pthread_mutex_lock(&h->lock);
    long n = cs_rank(h, p->dtype, &s, &i, 1, &match, why, sizeof why);
    if (n <= 0) {
        st = cs_fail(CROQSPARSE_STATUS_NO_KERNEL, fn, "%s", why);
    } else {
        const struct pack_entry *e = &h->pack.e[i];
        /* A copy: cuModuleLoadData wants an aligned ELF image, the pack packs them tight. */
        void *image = malloc(e->cubin_bytes);
        if (!image) {
            st = cs_fail(CROQSPARSE_STATUS_OUT_OF_MEMORY, fn, "out of host memory");
        } else {
            memcpy(image, e->cubin, e->cubin_bytes);
            if (kl_module_load_image(image, e->key, (int)p->dtype, &p->mod, &ke))
                st = cs_fail(CROQSPARSE_STATUS_INVALID_PACK, fn, "kernel '%s': %s", e->key, ke.msg);
            free(image);
        }
        if (st == CROQSPARSE_STATUS_SUCCESS)
            cs_describe(p, &h->pack, e, pack_match_name(match));
    }
    pthread_mutex_unlock(&h->lock);
    return st;
}

static croqsparse_status_t prepare(struct croqsparse_plan *p, const char *fn)
{
    struct kl_error ke;
    CUdeviceptr ph = p->h->placeholder; /* a real allocation: the encoder sees a valid address */
    const struct kl_operands o = {(int)p->dtype, p->m, p->n, p->k, ph, ph, ph, ph, p->alpha, 0, 0};
    croqsparse_status_t s = load_kernel(p, fn);
    if (s)
        return s;
    if (kl_module_check_k(&p->mod, p->k, &ke) || kl_prepare(&p->mod, p->h->sm_count, &o, &p->launch, &ke))
        return cs_fail(ke.status == KL_UNSUPPORTED_SHAPE ? CROQSPARSE_STATUS_NOT_SUPPORTED
                                                         : CROQSPARSE_STATUS_CUDA_ERROR, fn, "%s", ke.msg);
    p->info.workspace_bytes = p->launch.workspace_bytes;
    if (p->launch.workspace_bytes) {
        CS_CU(fn, cuMemAlloc, (&p->workspace, p->launch.workspace_bytes));
        /* Zeroed once: the kernel leaves its split-K counters at zero for the next launch. */
        CS_CU(fn, cuMemsetD8, (p->workspace, 0, p->launch.workspace_bytes));
    }
    return CROQSPARSE_STATUS_SUCCESS;
}

croqsparse_status_t croqsparse_plan_create(croqsparse_handle_t h, croqsparse_plan_t *plan, croqsparse_dtype_t dtype,
                                           long m, long n, long k, croqsparse_epilogue_t epilogue, float alpha)
{
    static const char fn[] = "croqsparse_plan_create";
    croqsparse_status_t s;
    bool pushed;
    cs_clear();
    /* the header's order: NULL pointers, then values, then the shape rules */
    if (!plan)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "plan is NULL");
    *plan = NULL;
    if (!h)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "handle is NULL");
    if ((s = cs_check_values(fn, dtype, m, n, k)))
        return s;
    if (epilogue != CROQSPARSE_EPILOGUE_ALPHA && epilogue != CROQSPARSE_EPILOGUE_ALPHA_SCALES)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "epilogue %d is not ALPHA or ALPHA_SCALES", (int)epilogue);
    if (!(alpha == alpha) || alpha - alpha != 0)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "alpha must be finite");
    if ((s = cs_check_shape(fn, dtype, m, n, k)))
        return s;
    if (epilogue == CROQSPARSE_EPILOGUE_ALPHA_SCALES && dtype != CROQSPARSE_E4M3)
        return cs_fail(CROQSPARSE_STATUS_NOT_SUPPORTED, fn, "scale vectors are the e4m3 epilogue; f16 takes alpha");
    /* 64-B aligned: the plan holds CUtensorMaps, which the encoder wants at 64-B
     * addresses (calloc promises 16). */
    struct croqsparse_plan *p = aligned_alloc(64, (sizeof *p + 63) / 64 * 64);
    if (!p)
        return cs_fail(CROQSPARSE_STATUS_OUT_OF_MEMORY, fn, "out of host memory");
    *p = (struct croqsparse_plan){.h = h, .dtype = dtype, .m = m, .n = n, .k = k, .epilogue = epilogue, .alpha = alpha};
    if ((s = cs_enter(h, fn, &pushed))) {
        free(p);
        return s;
    }
    s = prepare(p, fn);
    cs_leave(pushed);
    if (s) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", croqsparse_last_error());
        croqsparse_plan_destroy(p);
        cs_fail(s, fn, "%s", msg + strlen(fn) + 2);
        return s;
    }
    *plan = p;
    return CROQSPARSE_STATUS_SUCCESS;
}

static bool misaligned(const void *ptr) { return ((uintptr_t)ptr & 15) != 0; }

croqsparse_status_t cs_check_operands(const char *fn, croqsparse_plan_t p, const void *a_values, const void *meta,
                                      const void *b, const float *scale_a, const float *scale_b)
{
    if (misaligned(a_values) || misaligned(meta) || misaligned(b))
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "a_values, meta and b must be 16-byte aligned");
    bool scales = p->epilogue == CROQSPARSE_EPILOGUE_ALPHA_SCALES;
    if (scales != (scale_a != NULL) || scales != (scale_b != NULL))
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, scales ? "the plan's epilogue needs scale_a and scale_b"
                                                                  : "scale vectors given to a plan without them");
    if (scales && (misaligned(scale_a) || ((uintptr_t)scale_b & 7)))
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "scale_a must be 16-byte, scale_b 8-byte aligned");
    return CROQSPARSE_STATUS_SUCCESS;
}

croqsparse_status_t croqsparse_matmul(croqsparse_plan_t p, const void *a_values, const void *meta, const void *b,
                                      void *c, const float *scale_a, const float *scale_b, CUstream stream)
{
    static const char fn[] = "croqsparse_matmul";
    struct croq_gemm_args args;
    struct kl_error ke;
    croqsparse_status_t s;
    bool pushed;
    cs_clear();
    if (!p || !a_values || !meta || !b || !c)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "plan, a_values, meta, b or c is NULL");
    if (misaligned(c))
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "c must be 16-byte aligned");
    if ((s = cs_check_operands(fn, p, a_values, meta, b, scale_a, scale_b)))
        return s;
    const struct kl_operands o = {(int)p->dtype, p->m, p->n, p->k, (CUdeviceptr)a_values, (CUdeviceptr)meta,
                                  (CUdeviceptr)b, (CUdeviceptr)c, p->alpha, (CUdeviceptr)scale_a,
                                  (CUdeviceptr)scale_b};
    if ((s = cs_enter(p->h, fn, &pushed)))
        return s;
    if (kl_bind(&p->launch, &o, p->workspace, &args, &ke))
        s = cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "%s", ke.msg);
    else if (kl_launch(&p->launch, &args, stream, &ke))
        s = cs_fail(CROQSPARSE_STATUS_CUDA_ERROR, fn, "%s", ke.msg);
    cs_leave(pushed);
    return s;
}

croqsparse_status_t croqsparse_plan_describe(croqsparse_plan_t p, croqsparse_plan_info *info)
{
    cs_clear();
    if (!p || !info)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, "croqsparse_plan_describe", "plan or info is NULL");
    *info = p->info;
    return CROQSPARSE_STATUS_SUCCESS;
}

croqsparse_status_t croqsparse_plan_destroy(croqsparse_plan_t p)
{
    bool pushed = false;
    if (!p)
        return CROQSPARSE_STATUS_SUCCESS;
    if (cs_enter(p->h, "croqsparse_plan_destroy", &pushed) == CROQSPARSE_STATUS_SUCCESS) {
        if (p->workspace)
            KL_DRV(cuMemFree)(p->workspace);
        kl_module_unload(&p->mod);
        cs_leave(pushed);
    }
    free(p);
    return CROQSPARSE_STATUS_SUCCESS;
}
