/* src/launch/module.c — load a kernel module and read its ABI (kernels/abi.h).
 *
 * The ABI is checked field by field before anything is launched, so a module built
 * against another ABI, for the other dtype, or asking for impossible resources is a
 * KL_BAD_MODULE with the reason, not a launch fault later.
 */
#include "internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "geometry.h"
#include "knobs/knobs.h" /* croq_dtype_name (knobs.c: linked by every user of this module) */
#include "target/dtype.h"

#define BAD(...) return kl_fail(e, KL_BAD_MODULE, __VA_ARGS__)

static int read_abi(struct kl_module *m, struct kl_error *e)
{
    CUdeviceptr p;
    size_t bytes;
    CUresult rc = KL_DRV(cuModuleGetGlobal)(&p, &bytes, m->mod, CROQ_ABI_SYMBOL);
    if (rc != CUDA_SUCCESS)
        BAD("module has no '%s' symbol (kernels/abi.h)", CROQ_ABI_SYMBOL);
    if (bytes != sizeof m->abi)
        BAD("'%s' is %zu B, this runner expects %zu B (ABI version %u)", CROQ_ABI_SYMBOL, bytes,
            sizeof m->abi, CROQ_ABI_VERSION);
    KL_CU(e, KL_BAD_MODULE, cuMemcpyDtoH, (&m->abi, p, sizeof m->abi));
    return 0;
}

/* The optional identity symbol: absent is "" (an older module), malformed is refused. */
static int read_module_id(struct kl_module *m, struct kl_error *e)
{
    CUdeviceptr p;
    size_t bytes;
    char text[CROQ_MODULE_ID_BYTES];
    const size_t plen = sizeof CROQ_MODULE_ID_PREFIX - 1;
    m->module_id[0] = '\0';
    if (KL_DRV(cuModuleGetGlobal)(&p, &bytes, m->mod, CROQ_MODULE_ID_SYMBOL) != CUDA_SUCCESS)
        return 0;
    if (bytes != sizeof text)
        BAD("'%s' is %zu B, not %d (kernels/module_id.h)", CROQ_MODULE_ID_SYMBOL, bytes, CROQ_MODULE_ID_BYTES);
    KL_CU(e, KL_BAD_MODULE, cuMemcpyDtoH, (text, p, sizeof text));
    bool ok = !memcmp(text, CROQ_MODULE_ID_PREFIX, plen) && text[plen + CROQ_MODULE_ID_HEX] == '\0';
    for (size_t i = plen; ok && i < plen + CROQ_MODULE_ID_HEX; i++)
        ok = (text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f');
    if (!ok)
        BAD("'%s' does not hold \"%s\" and %d hex digits (kernels/module_id.h)", CROQ_MODULE_ID_SYMBOL,
            CROQ_MODULE_ID_PREFIX, CROQ_MODULE_ID_HEX);
    memcpy(m->module_id, text + plen, CROQ_MODULE_ID_HEX);
    m->module_id[CROQ_MODULE_ID_HEX] = '\0';
    return 0;
}

static int pow2_le(uint32_t v, uint32_t max) { return v >= 1 && v <= max && !(v & (v - 1)); }

/* Rules every module must follow; each names the ABI field. */
static int check_abi(const struct croq_kernel_abi *a, int want_dtype, struct kl_error *e)
{
    if (a->version != CROQ_ABI_VERSION)
        BAD("ABI version %u, this runner speaks version %u", a->version, CROQ_ABI_VERSION);
    if (!croq_dtype_valid((int)a->dtype))
        BAD("ABI dtype %u is not f16 (0) or e4m3 (1)", a->dtype);
    if (want_dtype >= 0 && (int)a->dtype != want_dtype)
        BAD("dtype mismatch: module is %s, '--dtype %s' was asked for", croq_dtype_name((int)a->dtype),
            croq_dtype_name(want_dtype));
    if (a->threads < 32 || a->threads > 1024 || a->threads % 32)
        BAD("ABI threads=%u is not a multiple of 32 in [32, 1024]", a->threads);
    if (a->smem_bytes > CROQ_SMEM_LIMIT)
        BAD("ABI smem_bytes=%u exceeds the %d-B per-CTA limit", a->smem_bytes, CROQ_SMEM_LIMIT);
    if (!a->tile_m || !a->tile_n || !a->tile_k || a->tile_k % 64)
        BAD("ABI tile %ux%ux%u: tiles must be positive and tile_k a multiple of 64",
            a->tile_m, a->tile_n, a->tile_k);
    if (!pow2_le(a->split_k, 64) || !pow2_le(a->cluster_m, 8) || !pow2_le(a->cluster_n, 8) ||
        a->cluster_m * a->cluster_n > 8)
        BAD("ABI split_k=%u cluster=%ux%u: each a power of two, cluster size at most 8 (portable)",
            a->split_k, a->cluster_m, a->cluster_n);
    if (a->persistent > CROQ_ABI_PERSISTENT_STREAM_K)
        BAD("ABI persistent=%u is not 0, 1 or 2 (stream-K)", a->persistent);
    /* stream-K's grid and workspace are per CTA, one CTA per range: no cluster, no split-K */
    if (a->persistent == CROQ_ABI_PERSISTENT_STREAM_K && (a->split_k != 1 || a->cluster_m * a->cluster_n != 1))
        BAD("ABI persistent=2 (stream-K) with split_k=%u cluster=%ux%u: stream-K needs split_k=1 and no cluster",
            a->split_k, a->cluster_m, a->cluster_n);
    return 0;
}

static int read_attributes(struct kl_module *m, struct kl_error *e)
{
    KL_CU(e, KL_BAD_MODULE, cuFuncGetAttribute, (&m->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, m->fn));
    KL_CU(e, KL_BAD_MODULE, cuFuncGetAttribute, (&m->local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, m->fn));
    KL_CU(e, KL_BAD_MODULE, cuFuncGetAttribute, (&m->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, m->fn));
    /* A __launch_bounds__ below the block size makes every launch fail; say so here
     * rather than as a launch error (sparse-gemm-sm90.md 7, first defect). */
    if ((uint32_t)m->max_threads < m->abi.threads)
        BAD("kernel allows at most %d threads per block (launch bounds or registers), ABI says %u",
            m->max_threads, m->abi.threads);
    /* Dynamic shared memory above 48 KB must be opted into per function. */
    KL_CU(e, KL_BAD_MODULE, cuFuncSetAttribute, (m->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                 (int)m->abi.smem_bytes));
    return 0;
}

/* After cuModuleLoad*: the entry, the ABI and the attributes. */
static int finish_load(const char *name, int want_dtype, struct kl_module *m, struct kl_error *e)
{
    char text[256];
    CUresult rc = KL_DRV(cuModuleGetFunction)(&m->fn, m->mod, CROQ_KERNEL_ENTRY);
    if (rc != CUDA_SUCCESS)
        BAD("module '%s' has no kernel '%s': %s", name, CROQ_KERNEL_ENTRY, kl_cu_text(rc, text, sizeof text));
    KL_TRY(read_abi(m, e));
    KL_TRY(check_abi(&m->abi, want_dtype, e));
    KL_TRY(read_module_id(m, e));
    return read_attributes(m, e);
}

static int loaded(int rc, struct kl_module *m)
{
    if (rc)
        kl_module_unload(m);
    return rc;
}

int kl_module_load_file(const char *path, int want_dtype, struct kl_module *m, struct kl_error *e)
{
    struct stat st;
    char text[256];
    memset(m, 0, sizeof *m);
    KL_TRY(kl_need_driver(e));
    if (stat(path, &st) || !S_ISREG(st.st_mode))
        BAD("cannot read cubin '%s'", path);
    CUresult rc = KL_DRV(cuModuleLoad)(&m->mod, path);
    if (rc != CUDA_SUCCESS)
        BAD("cuModuleLoad '%s': %s", path, kl_cu_text(rc, text, sizeof text));
    return loaded(finish_load(path, want_dtype, m, e), m);
}

int kl_module_load_image(const void *image, const char *name, int want_dtype, struct kl_module *m,
                         struct kl_error *e)
{
    char text[256];
    memset(m, 0, sizeof *m);
    KL_TRY(kl_need_driver(e));
    CUresult rc = KL_DRV(cuModuleLoadData)(&m->mod, image);
    if (rc != CUDA_SUCCESS)
        BAD("cuModuleLoadData '%s': %s", name, kl_cu_text(rc, text, sizeof text));
    return loaded(finish_load(name, want_dtype, m, e), m);
}

int kl_module_check_k(const struct kl_module *m, long k, struct kl_error *e)
{
    long kslice = (long)m->abi.tile_k * m->abi.split_k;
    if (k % kslice)
        return kl_fail(e, KL_UNSUPPORTED_SHAPE, "K=%ld is not a multiple of the module's tile_k x split_k = %ld",
                       k, kslice);
    return 0;
}

void kl_module_unload(struct kl_module *m)
{
    if (m->mod) /* loaded, so the driver is */
        KL_DRV(cuModuleUnload)(m->mod);
    m->mod = NULL;
}
