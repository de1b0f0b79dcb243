/* src/launch/tmaps.c — the four tensor maps a kernel may ask for (kernels/abi.h).
 *
 * Global shapes, innermost first, strides in bytes (cuTensorMapEncodeTiled takes
 * rank-1 strides; the innermost is the element size):
 *   A values  {K/2, M}                      row stride K/2 * esz
 *   B         {K, N}                        row stride K * esz
 *   META      {128, K/64, CROQ_META_BLOCKS(M)} u32  strides 512 B, K/64 * 512 B
 *             (ceil(M/64) blocks + 3 of padding words, kernels/abi.h: a tile that
 *             overhangs M must read valid pad nibbles, not TMA's zero fill)
 *   C         {N, M} f16                    row stride N * 2
 * e4m3 is encoded as UINT8: TMA copies bytes and never interprets them. Out-of-bounds
 * box elements read as zero (FLOAT_OOB_FILL_NONE) and are not stored, which is what
 * lets a kernel cover arbitrary M and N. Maps whose box[0] is 0 stay zeroed.
 *
 * A buffer not known yet (pointer 0) is encoded at a placeholder address; kl_bind puts
 * the real one in with cuTensorMapReplaceAddress, which keeps every other field.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* Any 256-B aligned address passes the encoder's alignment rule; never dereferenced. */
#define PLACEHOLDER_ADDR ((CUdeviceptr)256)

static const char *const tensor_name[CROQ_T_COUNT] = {"A", "B", "META", "C"};

struct tmap_geom {
    CUtensorMapDataType type;
    cuuint32_t rank;
    void *base;
    cuuint64_t dims[3];
    cuuint64_t strides[2];
};

/* The buffer tensor t lives in. */
static CUdeviceptr tensor_addr(int t, const struct kl_operands *o)
{
    CUdeviceptr p = t == CROQ_T_A ? o->a_values : t == CROQ_T_B ? o->b : t == CROQ_T_META ? o->meta : o->c;
    return p ? p : PLACEHOLDER_ADDR;
}

static void geometry(int t, const struct kl_operands *o, struct tmap_geom *g)
{
    cuuint64_t m = (cuuint64_t)o->m, n = (cuuint64_t)o->n, k = (cuuint64_t)o->k;
    cuuint64_t esz = o->dtype == CROQ_DTYPE_F16 ? 2 : 1;
    CUtensorMapDataType elem = o->dtype == CROQ_DTYPE_F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                          : CU_TENSOR_MAP_DATA_TYPE_UINT8;
    void *base = (void *)tensor_addr(t, o);
    memset(g, 0, sizeof *g);
    switch (t) {
    case CROQ_T_A:
        *g = (struct tmap_geom){elem, 2, base, {k / 2, m}, {k / 2 * esz}};
        break;
    case CROQ_T_B:
        *g = (struct tmap_geom){elem, 2, base, {k, n}, {k * esz}};
        break;
    case CROQ_T_META:
        *g = (struct tmap_geom){CU_TENSOR_MAP_DATA_TYPE_UINT32, 3, base,
                                {128, k / 64, CROQ_META_BLOCKS(m)}, {512, k / 64 * 512}};
        break;
    case CROQ_T_C:
        *g = (struct tmap_geom){CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, {n, m}, {n * 2}};
        break;
    }
}

static int swizzle_mode(int t, uint32_t bytes, CUtensorMapSwizzle *out, struct kl_error *e)
{
    switch (bytes) {
    case 0: *out = CU_TENSOR_MAP_SWIZZLE_NONE; return 0;
    case 32: *out = CU_TENSOR_MAP_SWIZZLE_32B; return 0;
    case 64: *out = CU_TENSOR_MAP_SWIZZLE_64B; return 0;
    case 128: *out = CU_TENSOR_MAP_SWIZZLE_128B; return 0;
    }
    return kl_fail(e, KL_BAD_MODULE, "tensor map '%s': swizzle_bytes=%u is not 0, 32, 64 or 128",
                   tensor_name[t], bytes);
}

static int encode(int t, const struct croq_tmap_desc *d, const struct kl_operands *o, CUtensorMap *map,
                  struct kl_error *e)
{
    struct tmap_geom g;
    CUtensorMapSwizzle swz = CU_TENSOR_MAP_SWIZZLE_NONE;
    char text[256];
    const cuuint32_t estride[3] = {1, 1, 1};
    geometry(t, o, &g);
    KL_TRY(swizzle_mode(t, d->swizzle_bytes, &swz, e));
    if (d->l2_promotion > CU_TENSOR_MAP_L2_PROMOTION_L2_256B)
        return kl_fail(e, KL_BAD_MODULE,
                       "tensor map '%s': l2_promotion=%u is not a CUtensorMapL2promotion (0-3)",
                       tensor_name[t], d->l2_promotion);
    cuuint32_t box[3] = {d->box[0], d->box[1], g.rank == 3 ? d->box[2] : 1};
    CUresult rc = KL_DRV(cuTensorMapEncodeTiled)(map, g.type, g.rank, g.base, g.dims, g.strides, box, estride,
                                                 CU_TENSOR_MAP_INTERLEAVE_NONE, swz,
                                                 (CUtensorMapL2promotion)d->l2_promotion,
                                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (rc != CUDA_SUCCESS)
        return kl_fail(e, KL_BAD_MODULE,
                       "tensor map '%s': cuTensorMapEncodeTiled(dims {%llu,%llu,%llu}, box {%u,%u,%u}, "
                       "swizzle %u B): %s", tensor_name[t], (unsigned long long)g.dims[0],
                       (unsigned long long)g.dims[1], (unsigned long long)g.dims[2], box[0], box[1],
                       box[2], d->swizzle_bytes, kl_cu_text(rc, text, sizeof text));
    return 0;
}

static CUtensorMap *map_of(struct croq_gemm_args *args, int t)
{
    CUtensorMap *maps[CROQ_T_COUNT] = {&args->tm_a, &args->tm_b, &args->tm_meta, &args->tm_c};
    return maps[t];
}

int kl_tmaps_encode(const struct croq_kernel_abi *abi, const struct kl_operands *o, struct croq_gemm_args *args,
                    struct kl_error *e)
{
    for (int t = 0; t < CROQ_T_COUNT; t++) {
        memset(map_of(args, t), 0, sizeof(CUtensorMap));
        if (abi->tmap[t].box[0] == 0)
            continue;
        KL_TRY(encode(t, &abi->tmap[t], o, map_of(args, t), e));
    }
    return 0;
}

int kl_tmaps_rebind(const struct croq_kernel_abi *abi, const struct kl_operands *o, struct croq_gemm_args *args,
                    struct kl_error *e)
{
    for (int t = 0; t < CROQ_T_COUNT; t++) {
        if (abi->tmap[t].box[0] == 0)
            continue;
        CUresult rc = KL_DRV(cuTensorMapReplaceAddress)(map_of(args, t), (void *)tensor_addr(t, o));
        if (rc != CUDA_SUCCESS) {
            char text[256];
            return kl_fail(e, KL_LAUNCH_ERROR, "tensor map '%s': cuTensorMapReplaceAddress: %s (the buffer "
                           "must be 16-B aligned)", tensor_name[t], kl_cu_text(rc, text, sizeof text));
        }
    }
    return 0;
}
