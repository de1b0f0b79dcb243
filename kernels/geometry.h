/* kernels/geometry.h — shared-memory and register geometry of the kernel family,
 * as plain C macros so the kernel (static_asserts, layout) and the host (rejecting a
 * knob combination before compiling it, src/knobs/knobs.c) use one formula.
 *
 * Units: bytes unless named otherwise. esz = operand element size (f16 2, e4m3 1).
 * Sources: per-CTA shared-memory limit 227 KB = 232448 B (CUDA C Programming Guide,
 * "Compute capability 9.0" table); 1024-B alignment of 128B-swizzled tiles (PTX ISA,
 * "Shared memory matrix layout: swizzling modes"); wgmma D fragment = N/2 f32 per
 * thread for m64nN (PTX ISA, "Register fragments: wgmma .m64nNk*").
 */
#ifndef CROQ_KERNELS_GEOMETRY_H
#define CROQ_KERNELS_GEOMETRY_H

#define CROQ_SMEM_LIMIT 232448
#define CROQ_SMEM_ALIGN 1024

/* Packed A stage: tile_m rows x tile_k/2 kept values. */
#define CROQ_A_STAGE_BYTES(tm, tk, esz) ((tm) * ((tk) / 2) * (esz))
/* B stage: tile_n rows x tile_k values. */
#define CROQ_B_STAGE_BYTES(tn, tk, esz) ((tn) * (tk) * (esz))
/* Metadata stage (TMA path): one u32 per thread of a warpgroup per 64-row block and
 * 64-wide dense K chunk (src/format/sparse24.h, "wgmma order"). */
#define CROQ_META_STAGE_BYTES(tm, tk) (((tm) / 64) * ((tk) / 64) * 128 * 4)
#define CROQ_ROUND_UP(x, a) ((((x) + (a) - 1) / (a)) * (a))
/* One stage, each operand region kept 1024-B aligned for the 128B swizzle. */
#define CROQ_STAGE_BYTES(tm, tn, tk, esz, meta_tma)                          \
    (CROQ_ROUND_UP(CROQ_A_STAGE_BYTES(tm, tk, esz), CROQ_SMEM_ALIGN) +        \
     CROQ_ROUND_UP(CROQ_B_STAGE_BYTES(tn, tk, esz), CROQ_SMEM_ALIGN) +        \
     ((meta_tma) ? CROQ_ROUND_UP(CROQ_META_STAGE_BYTES(tm, tk), CROQ_SMEM_ALIGN) : 0))
/* C staging for the TMA-store epilogue (f16): c_tiles whole output tiles, 0 for the
 * direct epilogue, 1 cooperative (the consumers share one tile), 2 ping-pong (each
 * consumer stages its own tile, so one's store can be in flight while the other's
 * registers are written out). */
#define CROQ_C_TILE_BYTES(tm, tn, c_tiles) ((c_tiles) * CROQ_ROUND_UP((tm) * (tn) * 2, CROQ_SMEM_ALIGN))
/* mbarriers (full + empty per stage) and scheduler scratch, rounded to one block. */
#define CROQ_BARRIER_BYTES 1024
/* Dynamic shared memory the kernel asks for: the extra CROQ_SMEM_ALIGN lets the
 * kernel align the base of the dynamic window itself. */
#define CROQ_SMEM_BYTES(tm, tn, tk, esz, stages, meta_tma, c_tiles)          \
    (CROQ_SMEM_ALIGN + (stages) * CROQ_STAGE_BYTES(tm, tn, tk, esz, meta_tma) + \
     CROQ_C_TILE_BYTES(tm, tn, c_tiles) + CROQ_BARRIER_BYTES)

/* Consumers that split one tile's rows: all of them cooperatively (schedule 0), one in
 * ping-pong (schedule 1: each consumer owns a whole tile). */
#define CROQ_TILE_SPLIT(consumers, pingpong) ((pingpong) ? 1 : (consumers))
/* f32 accumulators per consumer thread: (rows per consumer / 64) m64 slices x N/2;
 * split = CROQ_TILE_SPLIT. */
#define CROQ_ACC_REGS(tm, tn, split) ((((tm) / (split)) / 64) * ((tn) / 2))
/* Metadata registers per consumer thread of the warp-specialized kernel (kernel=1): two
 * buffers (stages alternate, kernels/parts/mainloop.cuh meta_buf) of one u32 per m64
 * slice and 64-wide K chunk. */
#define CROQ_META_REGS(tm, tk, split) (2 * (((tm) / (split)) / 64) * ((tk) / 64))
/* Accumulators + metadata buffers a kernel=1 consumer thread may hold. Measured with
 * ptxas 13 (build --strict, 2026-12-01): 160 compiles clean in every schedule (e4m3
 * 128x128x512 ping-pong, f16 256x64x256 ping-pong, e4m3 192x64x512 ping-pong), 192 (e4m3
 * 256x64x512 with one consumer per tile) spills or serializes the wgmmas (C7515) in
 * ping-pong and with persistence; only the non-persistent single-consumer kernel fits it,
 * which this bound gives up for one formula. No other sum lies between 160 and 192. */
#define CROQ_CONSUMER_REGS_MAX 160
/* Threads: baseline = one warpgroup; warp-specialized = producer + consumers. */
#define CROQ_THREADS(ws, consumers) ((ws) ? 128 * (1 + (consumers)) : 128)

#endif
