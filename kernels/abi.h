/* kernels/abi.h — the contract between a compiled kernel module and the host.
 *
 * Every kernel module croqtuner loads (baseline, family variant, or an agent's own
 * source) defines:
 *   extern "C" __global__ void croq_gemm_sp(const __grid_constant__ struct croq_gemm_args args);
 *   extern "C" __device__ const struct croq_kernel_abi croq_abi = { ... };
 * The runner reads `croq_abi` with cuModuleGetGlobal before launching, builds the
 * tensor maps it describes, and derives the launch geometry from it. So the host
 * needs no knowledge of how a kernel was written, only of this struct.
 *
 * Operation: C[M,N] = A[M,K] . B[N,K]^T, A 2:4 sparse along K.
 * Global layouts (row-major, innermost contiguous):
 *   A values  [M][K/2]            dtype elements (the kept values of each group of 4)
 *   B         [N][K]              dtype elements ("K-major", TN)
 *   metadata  [CROQ_META_BLOCKS(M)][K/64][128] u32, the "wgmma order" built by
 *             sparse24_reorder_meta() (src/format/sparse24.h): one word per thread
 *             of a consumer warpgroup per 64-row block and 64-wide dense K chunk.
 *             Blocks past ceil(M/64) hold 0x44444444 (valid nibble (0,1) on rows whose
 *             values TMA zero-fills): a tile may overhang M by up to 3 m64 blocks, and
 *             kernels read their metadata unguarded, because a nibble with equal
 *             indices (what a zero-filled word holds) is undefined for the sparse MMA.
 *   C         [M][N]              f16
 * Included by host C (C11) and device CUDA C++; keep it plain C.
 */
#ifndef CROQ_KERNELS_ABI_H
#define CROQ_KERNELS_ABI_H

#include <stdint.h>
#include <cuda.h> /* CUtensorMap: 128-byte aligned opaque map (CUDA driver API) */

#include "abi_fields.h"
#include "module_id.h"

/* 2: the epilogue applies alpha and the optional scale vectors of croq_gemm_args. */
#define CROQ_ABI_VERSION 2u
/* m64 metadata blocks the host allocates for M rows (see the layout above). */
#define CROQ_META_BLOCKS(m) (((m) + 63) / 64 + 3)
/* croq_abi.persistent: 0 one CTA per tile (and split-K slice); 1 persistent, grid =
 * min(tiles, SMs) (clusters: resident clusters), workspace_bytes_per_tile x tiles;
 * 2 stream-K (kernels/streamk.h): persistent, grid = croq_sk_grid(SMs, tiles, K / tile_k),
 * workspace_bytes_per_tile x grid CTAs (a slot per CTA). A host that knows only 0 and 1
 * refuses 2 (src/launch/module.c). */
#define CROQ_ABI_PERSISTENT_STREAM_K 2u
#define CROQ_KERNEL_ENTRY "croq_gemm_sp"
#define CROQ_ABI_SYMBOL "croq_abi"


enum croq_dtype { CROQ_DTYPE_F16 = 0, CROQ_DTYPE_E4M3 = 1 };

/* The tensors a kernel may ask a tensor map for. */
enum croq_tensor { CROQ_T_A = 0, CROQ_T_B = 1, CROQ_T_META = 2, CROQ_T_C = 3, CROQ_T_COUNT = 4 };

/* How the host must encode one tensor map (cuTensorMapEncodeTiled). box[] is in
 * elements, innermost first, for the tensor's natural rank (A, B, C: 2; META: 3
 * = {128 words, K/64 chunks, M/64 blocks}). box[0] == 0 means "no map needed". */
struct croq_tmap_desc {
    uint32_t box[3];
    uint32_t swizzle_bytes; /* 0 (none), 32, 64 or 128 */
    uint32_t l2_promotion;  /* CUtensorMapL2promotion value */
};

/* The scalar fields are listed once in abi_fields.h (what each one means is there). */
#define CROQ_ABI_DECLARE_FIELD(name, what) uint32_t name;
struct croq_kernel_abi {
    CROQ_ABI_ID_FIELDS(CROQ_ABI_DECLARE_FIELD)
    CROQ_ABI_LAUNCH_FIELDS(CROQ_ABI_DECLARE_FIELD)
    CROQ_ABI_TAIL_FIELDS(CROQ_ABI_DECLARE_FIELD)
    struct croq_tmap_desc tmap[CROQ_T_COUNT];
};
#undef CROQ_ABI_DECLARE_FIELD

/* Kernel parameter block, passed by value as one __grid_constant__ argument so the
 * tensor maps stay in parameter space (PTX ISA: "Tensor-map" / cp.async.bulk.tensor
 * requires the map in param, const or global space). */
struct croq_gemm_args {
    CUtensorMap tm_a;
    CUtensorMap tm_b;
    CUtensorMap tm_meta;
    CUtensorMap tm_c;
    const uint32_t *meta;   /* reordered metadata in global memory (direct-load path) */
    void *c;                /* C, f16 [M][N] (direct-store epilogue) */
    void *workspace;        /* split-K / stream-K workspace (persistent above); zeroed once */
    int32_t m, n, k;
    /* Epilogue (ABI 2): C[i][j] = f16(alpha * scale_a[i] * scale_b[j] * sum_k A[i][k] B[j][k]),
     * the product accumulated in f32, scaled in f32, rounded once. scale_a is f32 [M]
     * (per row of A), scale_b f32 [N] (per row of B = column of C); NULL means all ones.
     * alpha == 1 with both NULL leaves the accumulators untouched (bit-identical to ABI 1).
     * These are the dequantization factors of e4m3 operands; f16 uses alpha alone. */
    float alpha;
    const float *scale_a;
    const float *scale_b;
};

#endif
