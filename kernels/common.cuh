/* kernels/common.cuh — what every kernel of the family shares: knob macros checked,
 * dtype constants, the ABI record, tile scheduling (raster order + CTA swizzle group),
 * per-k-step shared-memory descriptors, the sparse MMA step, the epilogue's scaling and
 * the direct store.
 *
 * The knob macros (CROQ_TILE_M, ...) come from the generated file's #defines, one per
 * row of knobs.def (src/codegen). Derived quantities come from geometry.h, the same
 * formulas the host uses to reject configurations before compiling them.
 */
#pragma once
#include <stdint.h>
#include <cuda_fp16.h>
#include "abi.h"
#include "geometry.h"
#define KNOB(...)
#include "knobs.def"
#undef KNOB
#include "ptx/mbarrier.cuh"
#include "ptx/tma.cuh"
#include "ptx/wgmma.cuh"

/* Late knobs (src/knobs/knobs.h, KNOB_FIRST_LATE): the code generator writes one only
 * when it differs from its default, which is repeated here (knobs.def's default column). */
#ifndef CROQ_SCHEDULE
#define CROQ_SCHEDULE CROQ_V_COOPERATIVE
#endif
#ifndef CROQ_STREAM_K
#define CROQ_STREAM_K 0
#endif

#if !defined(CROQ_DTYPE) || !defined(CROQ_TILE_M) || !defined(CROQ_TILE_N) || !defined(CROQ_TILE_K) || \
    !defined(CROQ_STAGES) || !defined(CROQ_SWIZZLE)
#error "knob macros missing: compile the file croqtuner's code generator wrote"
#endif

#define CROQ_CAT_(a, b) a##b
#define CROQ_CAT(a, b) CROQ_CAT_(a, b)

/* Operand element size and the dense K of one sparse wgmma (PTX ISA: f16 m64nNk32,
 * e4m3 m64nNk64). In bytes, one k-step is always 32 B of packed A and 64 B of B per row. */
#if CROQ_DTYPE == 0
#define CROQ_ESZ 2
#define CROQ_INST_K 32
#define CROQ_WGMMA CROQ_CAT(wgmma_sp_f16_n, CROQ_TILE_N)
#else
#define CROQ_ESZ 1
#define CROQ_INST_K 64
#define CROQ_WGMMA CROQ_CAT(wgmma_sp_e4m3_n, CROQ_TILE_N)
#endif
/* Swizzle span per operand: the knob, capped by the operand's row bytes per stage (a
 * 64-wide f16 stage of packed A is only 64 B per row). */
#define CROQ_MIN(a, b) ((a) < (b) ? (a) : (b))
#define CROQ_SWIZZLE_A CROQ_MIN(CROQ_SWIZZLE, CROQ_TILE_K / 2 * CROQ_ESZ)
#define CROQ_SWIZZLE_B CROQ_MIN(CROQ_SWIZZLE, CROQ_TILE_K * CROQ_ESZ)
#define CROQ_A_STEP_BYTES 32
#define CROQ_B_STEP_BYTES 64
#define CROQ_STEPS (CROQ_TILE_K / CROQ_INST_K)   /* wgmma k-steps per stage */
#define CROQ_CHUNKS (CROQ_TILE_K / 64)           /* metadata words per thread per m64 slice per stage */
#define CROQ_ACC (CROQ_TILE_N / 2)               /* f32 accumulators per m64 slice per thread */

#define CROQ_A_BYTES CROQ_ROUND_UP(CROQ_A_STAGE_BYTES(CROQ_TILE_M, CROQ_TILE_K, CROQ_ESZ), CROQ_SMEM_ALIGN)
#define CROQ_B_BYTES CROQ_ROUND_UP(CROQ_B_STAGE_BYTES(CROQ_TILE_N, CROQ_TILE_K, CROQ_ESZ), CROQ_SMEM_ALIGN)
/* Bytes the TMA delivers per stage for A and B (full boxes, even when clipped). */
#define CROQ_TX_AB (CROQ_A_STAGE_BYTES(CROQ_TILE_M, CROQ_TILE_K, CROQ_ESZ) + \
                    CROQ_B_STAGE_BYTES(CROQ_TILE_N, CROQ_TILE_K, CROQ_ESZ))

static_assert(CROQ_SWIZZLE == 64 || CROQ_SWIZZLE == 128, "swizzle must be 64 or 128");
static_assert(CROQ_SWIZZLE_A >= CROQ_A_STEP_BYTES && CROQ_SWIZZLE_B >= CROQ_B_STEP_BYTES, "a k-step lies in one atom");
static_assert(CROQ_STEPS >= 1 && CROQ_TILE_K % 64 == 0, "tile_k must be a multiple of 64");

/* L2 promotion knob (bytes) -> CUtensorMapL2promotion. */
#define CROQ_L2_ENUM(b) ((b) == 256 ? 3 : (b) == 128 ? 2 : (b) == 64 ? 1 : 0)

/* Tile coordinates of linear tile id t. RASTER 0 walks N first; GROUP > 1 visits tiles
 * in bands of GROUP tile rows (or columns) so that concurrently running CTAs share A
 * (or B) panels in L2. */
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int *tm, int *tn)
{
    const int major = CROQ_RASTER == CROQ_V_ROW ? tiles_m : tiles_n; /* dimension split into bands */
    const int minor = CROQ_RASTER == CROQ_V_ROW ? tiles_n : tiles_m;
    const int band_tiles = CROQ_GROUP * minor;
    const int band = t / band_tiles;
    const int in_band = t - band * band_tiles;
    const int rows = min(CROQ_GROUP, major - band * CROQ_GROUP);
    const int a = band * CROQ_GROUP + in_band % rows;
    const int b = in_band / rows;
    *tm = CROQ_RASTER == CROQ_V_ROW ? a : b;
    *tn = CROQ_RASTER == CROQ_V_ROW ? b : a;
}

/* Shared-memory descriptors of k-step `step` of m64 slice `slice` in a stage whose A and B
 * tiles start at a_base/b_base. A stage holds each operand as consecutive TMA boxes of
 * [rows][SWIZZLE bytes]; a k-step lies inside one box (knobs.c rejects other layouts). */
__device__ __forceinline__ uint64_t desc_a(uint32_t a_base, int slice, int step)
{
    const int off = step * CROQ_A_STEP_BYTES;
    return smem_desc(a_base + (off / CROQ_SWIZZLE_A) * CROQ_TILE_M * CROQ_SWIZZLE_A + slice * 64 * CROQ_SWIZZLE_A +
                         off % CROQ_SWIZZLE_A,
                     CROQ_SWIZZLE_A);
}

__device__ __forceinline__ uint64_t desc_b(uint32_t b_base, int step)
{
    const int off = step * CROQ_B_STEP_BYTES;
    return smem_desc(b_base + (off / CROQ_SWIZZLE_B) * CROQ_TILE_N * CROQ_SWIZZLE_B + off % CROQ_SWIZZLE_B,
                     CROQ_SWIZZLE_B);
}

/* Issue the TMA loads of A and B for k tile kt into one stage. */
__device__ __forceinline__ void load_ab(const croq_gemm_args &args, uint8_t *a_dst, uint8_t *b_dst,
                                        uint64_t *bar, int kt, int m0, int n0)
{
#pragma unroll
    for (int j = 0; j < CROQ_TILE_K / 2 * CROQ_ESZ / CROQ_SWIZZLE_A; j++)
        tma_load_2d(a_dst + j * CROQ_TILE_M * CROQ_SWIZZLE_A, &args.tm_a, bar,
                    kt * (CROQ_TILE_K / 2) + j * (CROQ_SWIZZLE_A / CROQ_ESZ), m0);
#pragma unroll
    for (int j = 0; j < CROQ_TILE_K * CROQ_ESZ / CROQ_SWIZZLE_B; j++)
        tma_load_2d(b_dst + j * CROQ_TILE_N * CROQ_SWIZZLE_B, &args.tm_b, bar,
                    kt * CROQ_TILE_K + j * (CROQ_SWIZZLE_B / CROQ_ESZ), n0);
}

/* All k-steps of one stage for one m64 slice. meta[c] is this thread's word for 64-K
 * chunk c (wgmma order, src/format/sparse24.h): f16 uses it for two k32 steps with
 * sparsity selectors 0 and 1, e4m3 for one k64 step with selector 0. */
__device__ __forceinline__ void mma_stage(float (&acc)[CROQ_ACC], uint32_t a_base, uint32_t b_base, int slice,
                                          const uint32_t (&meta)[CROQ_CHUNKS])
{
#pragma unroll
    for (int s = 0; s < CROQ_STEPS; s++) {
        const uint64_t da = desc_a(a_base, slice, s), db = desc_b(b_base, s);
#if CROQ_DTYPE == 0
        if (s & 1)
            CROQ_WGMMA<1>(acc, da, db, meta[s / 2], 1);
        else
            CROQ_WGMMA<0>(acc, da, db, meta[s / 2], 1);
#else
        CROQ_WGMMA<0>(acc, da, db, meta[s], 1);
#endif
    }
}

/* Hoisted metadata: this thread's words for k tile kt and the m64 block mb, loaded from
 * global memory (L2) before the stage barrier wait so their latency overlaps it. */
__device__ __forceinline__ void load_meta(const croq_gemm_args &args, uint32_t (&meta)[CROQ_CHUNKS], int mb,
                                          int kt, int tid_wg)
{
    const int kchunks = args.k / 64;
    const uint32_t *p = args.meta + ((size_t)mb * kchunks + (size_t)kt * CROQ_CHUNKS) * 128 + tid_wg;
#pragma unroll
    for (int c = 0; c < CROQ_CHUNKS; c++)
        meta[c] = __ldg(p + c * 128);
}

/* The epilogue's factors (kernels/abi.h, ABI 2): element (row, col) of C is the f32
 * accumulator times alpha * scale_a[row] * scale_b[col], rounded to f16 once. The common
 * case (alpha 1, no vectors) skips the scaling with one uniform branch and is
 * bit-identical to ABI 1.
 * Fragment layout (PTX ISA, "wgmma .m64nNk* register fragment D"): a thread holds rows
 * row and row + 8 (row = row0 + 16*warp + lane/4) of each n8 block j at columns
 * col + 8*j and +1 (col = col0 + 2*(lane%4)); pair 4*j + 2*h is row half h of block j.
 * Indices into the vectors are clamped to the last row / column pair instead of
 * bounds-checked, so no load waits behind a branch (one branch per pair, each load used at
 * once, made the epilogue as long as a K = 1024 mainloop: docs/library.md): elements past
 * M, N get a wrong factor but are never stored (TMA clips them, store_direct checks
 * bounds). N % 8 == 0, so col + 1 < N wherever col < N and every float2 load is 8-B aligned. */
__device__ __forceinline__ bool epilogue_plain(const croq_gemm_args &args)
{
    return args.alpha == 1.0f && !args.scale_a && !args.scale_b;
}

/* alpha * scale_a of this thread's two fragment rows. */
__device__ __forceinline__ void epilogue_rows(const croq_gemm_args &args, int row, float &f0, float &f1)
{
    f0 = f1 = args.alpha;
    if (args.scale_a) {
        f0 *= __ldg(args.scale_a + min(row, args.m - 1));
        f1 *= __ldg(args.scale_a + min(row + 8, args.m - 1));
    }
}

/* scale_b of n8 block j's column pair. */
__device__ __forceinline__ const float2 *epilogue_col(const croq_gemm_args &args, int col, int j)
{
    return (const float2 *)(args.scale_b + min(col + 8 * j, args.n - 2));
}

/* Scale one m64 slice's fragment in place before it is stored (row, col: above). Every
 * scale_b load is issued before the first multiply, so all of them can be in flight at
 * once: 2 registers per n8 block, which the warp-specialized consumers have (setmaxnreg).
 * The loads are non-coherent (__ldg): the compilers may hoist them above earlier stores.
 * (The same multiplies through a helper taking the float2 by value made ptxas spill 52 B
 * on the 128x256 e4m3 tile, with these 64 registers of loads in flight.) */
__device__ __forceinline__ void epilogue_scale(float (&acc)[CROQ_ACC], const croq_gemm_args &args, int row, int col)
{
    float f0, f1;
    epilogue_rows(args, row, f0, f1);
    if (args.scale_b) {
        float2 b[CROQ_ACC / 4];
#pragma unroll
        for (int j = 0; j < CROQ_ACC / 4; j++)
            b[j] = __ldg(epilogue_col(args, col, j));
#pragma unroll
        for (int j = 0; j < CROQ_ACC / 4; j++) {
            acc[4 * j] *= f0 * b[j].x;
            acc[4 * j + 1] *= f0 * b[j].y;
            acc[4 * j + 2] *= f1 * b[j].x;
            acc[4 * j + 3] *= f1 * b[j].y;
        }
    } else {
#pragma unroll
        for (int i = 0; i < CROQ_ACC; i++)
            acc[i] *= (i / 2) % 2 ? f1 : f0;
    }
}

/* Pair (x, y) of C at (row, col), if inside M x N (N % 8 == 0: col + 1 < N too). */
__device__ __forceinline__ void store_pair(const croq_gemm_args &args, int row, int col, float x, float y)
{
    if (row < args.m && col < args.n)
        *(__half2 *)((__half *)args.c + (size_t)row * args.n + col) = __floats2half2_rn(x, y);
}

/* Store one m64 slice, scaled first unless plain. WINDOW: scale_b loads in flight at once:
 * CROQ_ACC / 4 (all, epilogue_scale) where registers do not set occupancy; fewer in the
 * one-warpgroup baseline, whose registers do (several CTAs per SM; all 32 loads of a
 * 64x256 tile took it from 156 to 255 registers). There block j + WINDOW is loaded right
 * after block j is stored, with a coherent load, which neither nvcc nor ptxas may move
 * above that store (C and scale_b may alias), so no more than WINDOW are in flight. */
template <int WINDOW>
__device__ __forceinline__ void store_direct(float (&acc)[CROQ_ACC], const croq_gemm_args &args, int row0, int col0,
                                             int tid_wg)
{
    const int warp = tid_wg / 32, lane = tid_wg % 32;
    const int row = row0 + 16 * warp + lane / 4, col = col0 + 2 * (lane % 4);
    if (!epilogue_plain(args)) {
        if (WINDOW < CROQ_ACC / 4 && args.scale_b) {
            float f0, f1;
            float2 b[WINDOW];
            epilogue_rows(args, row, f0, f1);
#pragma unroll
            for (int j = 0; j < WINDOW; j++)
                b[j] = *epilogue_col(args, col, j);
#pragma unroll
            for (int j = 0; j < CROQ_ACC / 4; j++) {
                acc[4 * j] *= f0 * b[j % WINDOW].x;
                acc[4 * j + 1] *= f0 * b[j % WINDOW].y;
                acc[4 * j + 2] *= f1 * b[j % WINDOW].x;
                acc[4 * j + 3] *= f1 * b[j % WINDOW].y;
                store_pair(args, row, col + 8 * j, acc[4 * j], acc[4 * j + 1]);
                store_pair(args, row + 8, col + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
                if (j + WINDOW < CROQ_ACC / 4)
                    b[j % WINDOW] = *epilogue_col(args, col, j + WINDOW);
            }
            return;
        }
        epilogue_scale(acc, args, row, col);
    }
#pragma unroll
    for (int j = 0; j < CROQ_ACC / 4; j++) {
        store_pair(args, row, col + 8 * j, acc[4 * j], acc[4 * j + 1]);
        store_pair(args, row + 8, col + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
    }
}

/* Test-only fault injection (src/codegen: --inject-fault), proving the tuner survives
 * a trap, a deadlock on an mbarrier, and an out-of-bounds store (1-3), and rejects a
 * kernel that skips one k tile, writes one output element wrong, or reads one metadata
 * bit flipped (4-6: CROQ_SKIP_K_TILES, CROQ_FAULT_ELEM, CROQ_FAULT_META below). */
#if defined(CROQ_INJECT_FAULT) && CROQ_INJECT_FAULT == 4
#define CROQ_SKIP_K_TILES 1 /* the last k tile of every tile (and split) is left out */
#else
#define CROQ_SKIP_K_TILES 0
#endif
/* 5: the accumulator of C[0][0] (thread 0 of the first CTA's first slice) is off by 64 */
#if defined(CROQ_INJECT_FAULT) && CROQ_INJECT_FAULT == 5
#define CROQ_FAULT_ELEM(acc0, first) do { if (first) (acc0) += 64.0f; } while (0)
#else
#define CROQ_FAULT_ELEM(acc0, first) do { } while (0)
#endif
/* 6: bit 0 of thread 0's first metadata word in the first k tile of the first CTA is
 * flipped after it is loaded (an index of the 2:4 selector points at the wrong element) */
#if defined(CROQ_INJECT_FAULT) && CROQ_INJECT_FAULT == 6
#define CROQ_FAULT_META(word, first) do { if (first) (word) ^= 1u; } while (0)
#else
#define CROQ_FAULT_META(word, first) do { } while (0)
#endif
#if defined(CROQ_INJECT_FAULT) && CROQ_INJECT_FAULT <= 3
__device__ __forceinline__ void inject_fault(const croq_gemm_args &args, uint64_t *never_signalled)
{
#if CROQ_INJECT_FAULT == 1
    if (args.m > 0) /* always, but the compiler must keep the MMA code after it */
        asm volatile("trap;");
#elif CROQ_INJECT_FAULT == 2
    mbar_wait(never_signalled, 0);
#elif CROQ_INJECT_FAULT == 3
    ((volatile __half *)args.c)[(size_t)1 << 40] = __float2half(1.0f);
#endif
}
#endif
