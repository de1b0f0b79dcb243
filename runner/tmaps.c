/* runner/tmaps.c — the four tensor maps a kernel may ask for (kernels/abi.h).
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
 */
#include "runner.h"

#include <stdio.h>
#include <string.h>

static const char *const tensor_name[CROQ_T_COUNT] = {"A", "B", "META", "C"};

struct tmap_geom {
    CUtensorMapDataType type;
    cuuint32_t rank;
    void *base;
    cuuint64_t dims[3];
    cuuint64_t strides[2];
};

static void geometry(int t, const struct operands *o, CUdeviceptr d_c, struct tmap_geom *g)
{
    cuuint64_t m = (cuuint64_t)o->m, n = (cuuint64_t)o->n, k = (cuuint64_t)o->k, esz = o->esz;
    CUtensorMapDataType elem = o->dtype == CROQ_DTYPE_F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                          : CU_TENSOR_MAP_DATA_TYPE_UINT8;
    memset(g, 0, sizeof *g);
    g->rank = 2;
    switch (t) {
    case CROQ_T_A:
        *g = (struct tmap_geom){elem, 2, (void *)o->d_values, {k / 2, m}, {k / 2 * esz}};
        break;
    case CROQ_T_B:
        *g = (struct tmap_geom){elem, 2, (void *)o->d_b, {k, n}, {k * esz}};
        break;
    case CROQ_T_META:
        *g = (struct tmap_geom){CU_TENSOR_MAP_DATA_TYPE_UINT32, 3, (void *)o->d_meta,
                                {128, k / 64, CROQ_META_BLOCKS(m)}, {512, k / 64 * 512}};
        break;
    case CROQ_T_C:
        *g = (struct tmap_geom){CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, (void *)d_c, {n, m}, {n * 2}};
        break;
    }
}

static int swizzle_mode(int t, uint32_t bytes, CUtensorMapSwizzle *out)
{
    switch (bytes) {
    case 0: *out = CU_TENSOR_MAP_SWIZZLE_NONE; return 0;
    case 32: *out = CU_TENSOR_MAP_SWIZZLE_32B; return 0;
    case 64: *out = CU_TENSOR_MAP_SWIZZLE_64B; return 0;
    case 128: *out = CU_TENSOR_MAP_SWIZZLE_128B; return 0;
    }
    runner_fail(RS_BAD_MODULE, "tensor map '%s': swizzle_bytes=%u is not 0, 32, 64 or 128",
                tensor_name[t], bytes);
    return -1;
}

static int encode(int t, const struct croq_tmap_desc *d, const struct operands *o, CUdeviceptr d_c,
                  CUtensorMap *map)
{
    struct tmap_geom g;
    CUtensorMapSwizzle swz;
    char text[256];
    const cuuint32_t estride[3] = {1, 1, 1};
    geometry(t, o, d_c, &g);
    TRY(swizzle_mode(t, d->swizzle_bytes, &swz));
    if (d->l2_promotion > CU_TENSOR_MAP_L2_PROMOTION_L2_256B) {
        runner_fail(RS_BAD_MODULE, "tensor map '%s': l2_promotion=%u is not a CUtensorMapL2promotion (0-3)",
                    tensor_name[t], d->l2_promotion);
        return -1;
    }
    cuuint32_t box[3] = {d->box[0], d->box[1], g.rank == 3 ? d->box[2] : 1};
    CUresult rc = cuTensorMapEncodeTiled(map, g.type, g.rank, g.base, g.dims, g.strides, box, estride,
                                         CU_TENSOR_MAP_INTERLEAVE_NONE, swz,
                                         (CUtensorMapL2promotion)d->l2_promotion,
                                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (rc != CUDA_SUCCESS) {
        runner_fail(RS_BAD_MODULE,
                    "tensor map '%s': cuTensorMapEncodeTiled(dims {%llu,%llu,%llu}, box {%u,%u,%u}, "
                    "swizzle %u B): %s", tensor_name[t], (unsigned long long)g.dims[0],
                    (unsigned long long)g.dims[1], (unsigned long long)g.dims[2], box[0], box[1],
                    box[2], d->swizzle_bytes, cu_error_text(rc, text, sizeof text));
        return -1;
    }
    return 0;
}

int tmaps_build(const struct croq_kernel_abi *abi, const struct operands *o, CUdeviceptr d_c,
                struct croq_gemm_args *args)
{
    CUtensorMap *maps[CROQ_T_COUNT] = {&args->tm_a, &args->tm_b, &args->tm_meta, &args->tm_c};
    for (int t = 0; t < CROQ_T_COUNT; t++) {
        memset(maps[t], 0, sizeof *maps[t]);
        if (abi->tmap[t].box[0] == 0)
            continue;
        TRY(encode(t, &abi->tmap[t], o, d_c, maps[t]));
    }
    return 0;
}
