/* kernels/family.cu — the warp-specialized 2:4 sparse GEMM family (knob kernel=1).
 *
 * Warpgroup 0 is the producer: one thread issues TMA loads of packed A, B and (meta_path
 * = 0) metadata into a ring of STAGES shared-memory stages; warpgroups 1..CONSUMERS are
 * consumers. Cooperative (schedule 0): each consumer owns TILE_M/CONSUMERS rows of every
 * tile of the CTA in m64 slices. Ping-pong (schedule 1, persistent): consumer c owns whole
 * tiles, c, c+2, ... of the CTA's list, so one consumer's epilogue runs while the other's
 * mainloop issues wgmmas; the mainloops take turns by two named barriers. The ring
 * is guarded by two mbarriers per stage: full[s] (TMA bytes landed) and empty[s] (every
 * consumer warp of every CTA that reads this stage is done with it). A consumer keeps
 * one wgmma group in flight: after issuing stage kt it waits until only that group is
 * pending, so the wgmmas of stage kt-1 have completed, and only then releases kt-1.
 *
 * Knobs (knobs.def): tile, stages, consumers, swizzle, raster + CTA swizzle group,
 * metadata path, epilogue (alpha and scale vectors, then direct / stmatrix + TMA store),
 * L2 promotion (host side), persistent tile loop (a cluster walks cluster-shaped units
 * of tiles), cluster with TMA multicast of A (along N) and B (along M), consumer schedule,
 * and split-K reduced in an f32 workspace by the last-arriving CTA of each tile.
 *
 * Named barriers: 0 __syncthreads, 1-2 one consumer's epilogue, 3 all consumers (split-K),
 * 4-5 ping-pong turns (4 + c: consumer c may issue its next mainloop).
 */
#include "common.cuh"

#if CROQ_KERNEL != CROQ_V_WS
#error "family.cu is the kernel=1 structure"
#endif

#define CROQ_PINGPONG (CROQ_SCHEDULE == CROQ_V_PINGPONG)
#define CROQ_SPLIT CROQ_TILE_SPLIT(CROQ_CONSUMERS, CROQ_PINGPONG) /* consumers sharing one tile */
#define CROQ_SPC (CROQ_TILE_M / 64 / CROQ_SPLIT)                  /* m64 slices per consumer */
#define CROQ_SLICE0(c) (CROQ_PINGPONG ? 0 : (c) * CROQ_SPC)       /* consumer c's first slice */
#define CROQ_META_TMA (CROQ_META_PATH == CROQ_V_META_TMA)
#define CROQ_EPI_TMA (CROQ_EPILOGUE == CROQ_V_EPI_TMA)
#define CROQ_META_BYTES (CROQ_META_TMA ? CROQ_ROUND_UP(CROQ_META_STAGE_BYTES(CROQ_TILE_M, CROQ_TILE_K), CROQ_SMEM_ALIGN) : 0)
#define CROQ_STAGE (CROQ_A_BYTES + CROQ_B_BYTES + CROQ_META_BYTES)
#define CROQ_THREADS_ALL CROQ_THREADS(1, CROQ_CONSUMERS)
#define CROQ_CSIZE (CROQ_CLUSTER_M * CROQ_CLUSTER_N)
#define CROQ_C_TILES (CROQ_EPI_TMA ? (CROQ_PINGPONG ? 2 : 1) : 0) /* C staging tiles (geometry.h) */
#define CROQ_DYN_SMEM \
    CROQ_SMEM_BYTES(CROQ_TILE_M, CROQ_TILE_N, CROQ_TILE_K, CROQ_ESZ, CROQ_STAGES, CROQ_META_TMA, CROQ_C_TILES)
/* split-K workspace per output tile: a 256-B counter block, then split_k f32 partial tiles. */
#define CROQ_WS_PER_TILE (CROQ_SPLIT_K > 1 ? 256 + CROQ_SPLIT_K * CROQ_TILE_M * CROQ_TILE_N * 4 : 0)
#define CROQ_C_BOX_COLS 64 /* 128-B swizzled C staging: 64 f16 per box row */

static_assert(CROQ_TILE_M % (64 * CROQ_SPLIT) == 0, "each consumer needs whole m64 slices");
static_assert(CROQ_STAGES >= 2, "a consumer releases a stage one stage late (one wgmma group in flight)");
static_assert(CROQ_DYN_SMEM <= CROQ_SMEM_LIMIT, "shared memory");
static_assert(CROQ_ACC_REGS(CROQ_TILE_M, CROQ_TILE_N, CROQ_SPLIT) <= 128, "accumulator registers");
static_assert(!(CROQ_PERSISTENT && CROQ_SPLIT_K > 1), "persistent excludes split-K");
static_assert(!CROQ_PINGPONG || (CROQ_CONSUMERS == 2 && CROQ_PERSISTENT && CROQ_SPLIT_K == 1),
              "ping-pong needs two consumers, persistent=1 and split_k=1");
static_assert(CROQ_ACC_REGS(CROQ_TILE_M, CROQ_TILE_N, CROQ_SPLIT) + CROQ_META_REGS(CROQ_TILE_M, CROQ_TILE_K, CROQ_SPLIT) <=
                  CROQ_CONSUMER_REGS_MAX,
              "accumulator + metadata registers (above the bound ptxas spills or serializes the wgmmas)");
static_assert(!(CROQ_CSIZE > 1 && CROQ_SPLIT_K > 1), "a cluster excludes split-K");
static_assert(!(CROQ_SPLIT_K > 1 && CROQ_EPI_TMA), "split-K reduces through the workspace: direct epilogue only");
static_assert(CROQ_TILE_M % CROQ_CLUSTER_N == 0 && CROQ_TILE_N % CROQ_CLUSTER_M == 0, "multicast slices");

extern "C" __device__ const struct croq_kernel_abi croq_abi = {
    CROQ_ABI_VERSION, CROQ_DTYPE, CROQ_THREADS_ALL, CROQ_DYN_SMEM, CROQ_TILE_M, CROQ_TILE_N, CROQ_TILE_K,
    CROQ_SPLIT_K, CROQ_PERSISTENT, CROQ_CLUSTER_M, CROQ_CLUSTER_N, CROQ_WS_PER_TILE,
    {{{CROQ_SWIZZLE_A / CROQ_ESZ, CROQ_TILE_M / CROQ_CLUSTER_N, 0}, CROQ_SWIZZLE_A, CROQ_L2_ENUM(CROQ_L2_A)},
     {{CROQ_SWIZZLE_B / CROQ_ESZ, CROQ_TILE_N / CROQ_CLUSTER_M, 0}, CROQ_SWIZZLE_B, CROQ_L2_ENUM(CROQ_L2_B)},
     {{CROQ_META_TMA ? 128 : 0, CROQ_CHUNKS, CROQ_TILE_M / 64}, 0, CROQ_L2_ENUM(CROQ_L2_A)},
     {{CROQ_EPI_TMA ? CROQ_C_BOX_COLS : 0, 64, 0}, CROQ_EPI_TMA ? 128 : 0, 0}}};

__device__ __forceinline__ uint32_t cluster_rank()
{
#if CROQ_CSIZE > 1
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
#else
    return 0;
#endif
}

/* Not .aligned: at the end of the kernel the producer thread arrives later than the rest
 * of its warp, and .aligned requires the whole warp to execute the instruction together. */
__device__ __forceinline__ void cluster_sync()
{
#if CROQ_CSIZE > 1
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
#endif
}

/* Named barrier among the 128 threads of one consumer warpgroup (id 0 is __syncthreads). */
__device__ __forceinline__ void wg_barrier(int consumer)
{
    asm volatile("bar.sync %0, 128;" ::"r"(consumer + 1) : "memory");
}

/* The work unit a CTA does: one output tile, and its K range for split-K. mb0 is the
 * tile's first m64 metadata block, clamped to the last tile row: a cluster's unit may
 * overhang M by a whole tile, whose CTA still runs (its peers need its multicast) but must
 * not read metadata past the CROQ_META_BLOCKS the host allocated (its results are never
 * stored: TMA clips them, store_direct checks bounds). */
struct work {
    int tm, tn, mb0, k_begin, k_tiles, tile_id;
};

/* Work item iter (0, 1, ...) of this CTA, false past the last. Tiles are handed out in
 * cluster-shaped units (cluster_m x cluster_n tiles; 1x1 without a cluster) in raster
 * order, the CTA of cluster rank r taking tile (r % cluster_m, r / cluster_m) of the unit,
 * so the CTAs of a cluster always work on tiles that share the multicast operands.
 * Persistent: unit blockIdx.x / csize + iter * (gridDim.x / csize); every CTA of a cluster
 * has the same units, so all of them run the same number of iterations, even where the
 * last unit overhangs M or N (the peers of a CTA wait for its multicast and its arrivals). */
__device__ __forceinline__ bool next_work(const croq_gemm_args &args, int iter, work *w)
{
    const int tiles_m = (args.m + CROQ_TILE_M - 1) / CROQ_TILE_M;
    const int tiles_n = (args.n + CROQ_TILE_N - 1) / CROQ_TILE_N;
    const int units_m = (tiles_m + CROQ_CLUSTER_M - 1) / CROQ_CLUSTER_M;
    const int units_n = (tiles_n + CROQ_CLUSTER_N - 1) / CROQ_CLUSTER_N;
    const int k_tiles = args.k / CROQ_TILE_K / CROQ_SPLIT_K - CROQ_SKIP_K_TILES;
#if CROQ_PERSISTENT
    const int u = (int)(blockIdx.x / CROQ_CSIZE) + iter * (int)(gridDim.x / CROQ_CSIZE);
    if (u >= units_m * units_n)
        return false;
#else
    if (iter > 0)
        return false;
    const int u = (int)(blockIdx.x / CROQ_CSIZE);
#endif
    const int rank = (int)cluster_rank();
    int cm, cn; /* unit coordinates */
    tile_coords(u, units_m, units_n, &cm, &cn);
    w->tm = cm * CROQ_CLUSTER_M + rank % CROQ_CLUSTER_M;
    w->tn = cn * CROQ_CLUSTER_N + rank / CROQ_CLUSTER_M;
    w->mb0 = min(w->tm, tiles_m - 1) * (CROQ_TILE_M / 64);
    w->tile_id = w->tm * tiles_n + w->tn;
    w->k_begin = blockIdx.y * k_tiles;
    w->k_tiles = k_tiles;
    return true;
}

struct smem_layout {
    uint8_t *stages;
    uint8_t *c_tile;
    uint64_t *full, *empty, *fault;
    int *flag;         /* split-K: "this CTA reduces" broadcast */
    uint32_t *scratch; /* one word per consumer warp: sink of meta_retire */
};

__device__ __forceinline__ smem_layout carve(uint8_t *raw)
{
    smem_layout l;
    l.stages = (uint8_t *)(((uintptr_t)raw + CROQ_SMEM_ALIGN - 1) & ~(uintptr_t)(CROQ_SMEM_ALIGN - 1));
    l.c_tile = l.stages + CROQ_STAGES * CROQ_STAGE;
    l.full = (uint64_t *)(l.c_tile + CROQ_C_TILE_BYTES(CROQ_TILE_M, CROQ_TILE_N, CROQ_C_TILES));
    l.empty = l.full + CROQ_STAGES;
    l.fault = l.empty + CROQ_STAGES;
    l.flag = (int *)(l.fault + 1);
    l.scratch = (uint32_t *)(l.fault + 2);
    return l;
}

/* ---- producer ------------------------------------------------------------------ */

__device__ __forceinline__ void produce_stage(const croq_gemm_args &args, const smem_layout &l, int s, int kt,
                                              const work &w)
{
    uint8_t *a = l.stages + s * CROQ_STAGE, *b = a + CROQ_A_BYTES;
    const int m0 = w.tm * CROQ_TILE_M, n0 = w.tn * CROQ_TILE_N;
    mbar_arrive_expect_tx(&l.full[s], CROQ_TX_AB + (CROQ_META_TMA ? CROQ_META_STAGE_BYTES(CROQ_TILE_M, CROQ_TILE_K) : 0));
#if CROQ_CSIZE > 1
    const int rank = (int)cluster_rank();
    const int a_part = rank / CROQ_CLUSTER_M, b_part = rank % CROQ_CLUSTER_M;
    uint16_t a_mask = 0, b_mask = 0;
    for (int j = 0; j < CROQ_CLUSTER_N; j++)
        a_mask |= 1u << (rank % CROQ_CLUSTER_M + CROQ_CLUSTER_M * j);
    for (int i = 0; i < CROQ_CLUSTER_M; i++)
        b_mask |= 1u << (CROQ_CLUSTER_M * (rank / CROQ_CLUSTER_M) + i);
    const int a_rows = CROQ_TILE_M / CROQ_CLUSTER_N, b_rows = CROQ_TILE_N / CROQ_CLUSTER_M;
#pragma unroll
    for (int j = 0; j < CROQ_TILE_K / 2 * CROQ_ESZ / CROQ_SWIZZLE_A; j++)
        tma_load_2d_multicast(a + j * CROQ_TILE_M * CROQ_SWIZZLE_A + a_part * a_rows * CROQ_SWIZZLE_A, &args.tm_a,
                              &l.full[s], kt * (CROQ_TILE_K / 2) + j * (CROQ_SWIZZLE_A / CROQ_ESZ),
                              m0 + a_part * a_rows, a_mask);
#pragma unroll
    for (int j = 0; j < CROQ_TILE_K * CROQ_ESZ / CROQ_SWIZZLE_B; j++)
        tma_load_2d_multicast(b + j * CROQ_TILE_N * CROQ_SWIZZLE_B + b_part * b_rows * CROQ_SWIZZLE_B, &args.tm_b,
                              &l.full[s], kt * CROQ_TILE_K + j * (CROQ_SWIZZLE_B / CROQ_ESZ), n0 + b_part * b_rows,
                              b_mask);
#else
    load_ab(args, a, b, &l.full[s], kt, m0, n0);
#endif
#if CROQ_META_TMA
    tma_load_3d(b + CROQ_B_BYTES, &args.tm_meta, &l.full[s], 0, kt * CROQ_CHUNKS, m0 / 64);
#endif
}

__device__ void producer(const croq_gemm_args &args, const smem_layout &l)
{
    int it = 0; /* stage use counter across tiles: stage = it % STAGES, phase = it / STAGES */
    work w;
    for (int iter = 0; next_work(args, iter, &w); iter++)
        for (int kt = w.k_begin; kt < w.k_begin + w.k_tiles; kt++, it++) {
            const int s = it % CROQ_STAGES;
            if (it >= CROQ_STAGES)
                mbar_wait(&l.empty[s], ((it / CROQ_STAGES) - 1) & 1);
            produce_stage(args, l, s, kt, w);
        }
}

/* ---- consumers ----------------------------------------------------------------- */

__device__ __forceinline__ void stage_meta(const croq_gemm_args &args, const smem_layout &l, int s, int kt,
                                           const work &w, int c, int tid_wg, uint32_t (&meta)[CROQ_SPC][CROQ_CHUNKS])
{
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++) {
        const int slice = CROQ_SLICE0(c) + i;
#if CROQ_META_TMA
        const uint32_t *m = (const uint32_t *)(l.stages + s * CROQ_STAGE + CROQ_A_BYTES + CROQ_B_BYTES);
#pragma unroll
        for (int ch = 0; ch < CROQ_CHUNKS; ch++)
            meta[i][ch] = m[(slice * CROQ_CHUNKS + ch) * 128 + tid_wg];
#else
        load_meta(args, meta[i], w.mb0 + slice, kt, tid_wg);
#endif
    }
    CROQ_FAULT_META(meta[0][0], blockIdx.x == 0 && blockIdx.y == 0 && kt == 0 && c == 0 && tid_wg == 0);
}

/* Each consumer warp arrives once on empty[s] of every CTA that multicasts into this
 * stage: lane r signals CTA r, so the arrives of one warp go out as one instruction. */
__device__ __forceinline__ void release(const smem_layout &l, int s, int lane)
{
#if CROQ_CSIZE > 1
    if (lane < CROQ_CSIZE)
        mbar_arrive_cluster(&l.empty[s], (uint32_t)lane);
#else
    if (lane == 0)
        mbar_arrive(&l.empty[s]);
#endif
}

/* Stores this consumer's slices, scaled first unless plain (epilogue_scale, common.cuh),
 * through 128-B swizzled shared memory and TMA: stmatrix writes 8x8 f16 matrices whose
 * 16-B rows land at the swizzled address (row r, 16-B unit u) -> r * 128 + ((u ^ (r % 8))
 * * 16) inside a 64-column box. */
__device__ __forceinline__ void store_tma(float (&acc)[CROQ_SPC][CROQ_ACC], const croq_gemm_args &args,
                                          const smem_layout &l, const work &w, int c, int tid_wg)
{
    const int warp = tid_wg / 32, lane = tid_wg % 32;
    uint8_t *region = l.c_tile + c * CROQ_SPC * 64 * CROQ_TILE_N * 2; /* ping-pong: c's own tile */
    if (!epilogue_plain(args)) { /* before the barrier: the scale loads' latency overlaps it */
#pragma unroll
        for (int i = 0; i < CROQ_SPC; i++)
            epilogue_scale(acc[i], args, w.tm * CROQ_TILE_M + (CROQ_SLICE0(c) + i) * 64 + 16 * warp + lane / 4,
                           w.tn * CROQ_TILE_N + 2 * (lane % 4));
    }
    if (tid_wg == 0)
        tma_store_wait_read(); /* the previous tile's stores have read the region */
    wg_barrier(c);
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
#pragma unroll
        for (int j = 0; j < CROQ_ACC / 4; j += 2) { /* two n8 blocks per stmatrix.x4 */
            uint32_t r[4];
#pragma unroll
            for (int q = 0; q < 4; q++) {
                /* fragment pair 4*blk + 2*half: row half `half`, columns 8*blk + 2*(lane%4) */
                const int blk = j + q / 2, half = q % 2;
                __half2 h = __floats2half2_rn(acc[i][4 * blk + 2 * half], acc[i][4 * blk + 2 * half + 1]);
                r[q] = *(uint32_t *)&h;
            }
            const int q = lane / 8, row = 16 * warp + (q % 2) * 8 + lane % 8;
            const int col = 8 * (j + q / 2), box = col / CROQ_C_BOX_COLS, unit = (col % CROQ_C_BOX_COLS) / 8;
            uint8_t *p = region + (i * (CROQ_TILE_N / CROQ_C_BOX_COLS) + box) * 64 * 128 + row * 128 +
                         ((unit ^ (row % 8)) * 16);
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_u32(p)),
                         "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
                         : "memory");
        }
    fence_proxy_async_smem();
    wg_barrier(c);
    if (tid_wg == 0) {
#pragma unroll
        for (int i = 0; i < CROQ_SPC; i++)
#pragma unroll
            for (int box = 0; box < CROQ_TILE_N / CROQ_C_BOX_COLS; box++)
                tma_store_2d(&args.tm_c, region + (i * (CROQ_TILE_N / CROQ_C_BOX_COLS) + box) * 64 * 128,
                             w.tn * CROQ_TILE_N + box * CROQ_C_BOX_COLS,
                             w.tm * CROQ_TILE_M + (CROQ_SLICE0(c) + i) * 64);
        tma_store_commit();
    }
}

#if CROQ_SPLIT_K > 1
/* Split-K: every CTA of a tile writes its f32 partial (in fragment order, so the writes
 * are coalesced), the last to arrive sums all partials into its registers and stores C,
 * then resets the tile's counter for the next launch. */
__device__ __forceinline__ bool reduce_split_k(float (&acc)[CROQ_SPC][CROQ_ACC], const croq_gemm_args &args,
                                               const smem_layout &l, const work &w, int c, int tid_wg)
{
    uint8_t *tile_ws = (uint8_t *)args.workspace + (size_t)w.tile_id * CROQ_WS_PER_TILE;
    unsigned *counter = (unsigned *)tile_ws;
    float *parts = (float *)(tile_ws + 256);
    const int per_split = CROQ_TILE_M * CROQ_TILE_N;
    float *mine = parts + blockIdx.y * per_split + c * CROQ_SPC * CROQ_ACC * 128;
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
#pragma unroll
        for (int j = 0; j < CROQ_ACC; j++)
            mine[(i * CROQ_ACC + j) * 128 + tid_wg] = acc[i][j];
    __threadfence();
    /* barrier 3: all consumer threads (ids 1-2 are the per-consumer epilogue barriers) */
    asm volatile("bar.sync 3, %0;" ::"n"(128 * CROQ_CONSUMERS) : "memory");
    if (c == 0 && tid_wg == 0)
        *l.flag = atomicAdd(counter, 1u) == CROQ_SPLIT_K - 1;
    asm volatile("bar.sync 3, %0;" ::"n"(128 * CROQ_CONSUMERS) : "memory");
    if (!*l.flag)
        return false;
    __threadfence();
    for (int sp = 0; sp < CROQ_SPLIT_K; sp++) {
        if (sp == (int)blockIdx.y)
            continue;
        const float *other = parts + sp * per_split + c * CROQ_SPC * CROQ_ACC * 128;
#pragma unroll
        for (int i = 0; i < CROQ_SPC; i++)
#pragma unroll
            for (int j = 0; j < CROQ_ACC; j++)
                acc[i][j] += __ldcg(other + (i * CROQ_ACC + j) * 128 + tid_wg);
    }
    if (c == 0 && tid_wg == 0)
        *counter = 0;
    return true;
}
#endif

/* Metadata words of one stage for one consumer, double-buffered across stages.
 *
 * The sparse wgmma reads its metadata register while it executes, not when it is issued,
 * and ptxas does not protect a register written by a load: on the H200 (2026-11-29), with
 * one wgmma group left in flight, ptxas loaded the next stage's words straight into the
 * registers the pending group was still reading, and results were wrong. (Writing the
 * words with an ALU instruction instead makes ptxas serialize every wgmma, C7515.)
 * So stages alternate between two buffers, and after the wgmma.wait_group that retires a
 * stage, its buffer is stored to a scratch word in shared memory (meta_retire). A shared
 * store cannot move above the wait, so each buffer stays allocated until its wgmmas are
 * complete, and the two buffers, live at the same time, cannot share registers. */
struct meta_buf {
    uint32_t w[CROQ_SPC][CROQ_CHUNKS];
};

__device__ __forceinline__ void meta_retire(const meta_buf &b, uint32_t *scratch)
{
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
#pragma unroll
        for (int ch = 0; ch < CROQ_CHUNKS; ch++)
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(smem_u32(scratch)), "r"(b.w[i][ch]) : "memory");
}

/* One k tile: wait for its stage, issue its wgmmas with one group left in flight, and
 * once wgmma.wait_group 1 has retired the previous stage, release its shared memory to
 * the producer and its metadata buffer (prev) for reuse. */
__device__ __forceinline__ void consume_stage(const croq_gemm_args &args, const smem_layout &l, const work &w,
                                              int c, int tid_wg, int kt, int &it, float (&acc)[CROQ_SPC][CROQ_ACC],
                                              meta_buf &m, const meta_buf &prev)
{
    const int s = it % CROQ_STAGES;
#if !CROQ_META_TMA
    stage_meta(args, l, s, kt, w, c, tid_wg, m.w); /* hoisted: before the wait */
#endif
    mbar_wait(&l.full[s], (it / CROQ_STAGES) & 1);
#if CROQ_META_TMA
    stage_meta(args, l, s, kt, w, c, tid_wg, m.w);
#endif
    const uint32_t a_base = smem_u32(l.stages + s * CROQ_STAGE), b_base = a_base + CROQ_A_BYTES;
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
        wgmma_fence_regs(acc[i]);
    wgmma_fence();
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
        mma_stage(acc[i], a_base, b_base, CROQ_SLICE0(c) + i, m.w[i]);
    wgmma_commit();
    wgmma_wait<1>();
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
        wgmma_fence_regs(acc[i]);
    meta_retire(prev, l.scratch + tid_wg / 32);
    if (kt > w.k_begin)
        release(l, (it - 1) % CROQ_STAGES, tid_wg % 32);
    it++;
}

#if CROQ_PINGPONG
/* Ping-pong turns: consumer c waits on barrier 4 + c before its mainloop (except the
 * CTA's first tile), and the other consumer arrives on it once it has issued the
 * previous tile's mainloop. Each wait is matched by exactly one arrival: an arrival is
 * made only when the next item of the list exists, and items alternate between the two
 * consumers, so no barrier ever has a second generation pending or one left open at exit. */
__device__ __forceinline__ void turn_wait(int c)
{
    asm volatile("bar.sync %0, 256;" ::"r"(4 + c) : "memory");
}

__device__ __forceinline__ void turn_pass(int to)
{
    asm volatile("bar.arrive %0, 256;" ::"r"(4 + to) : "memory");
}
#endif

__device__ void consumer(const croq_gemm_args &args, const smem_layout &l, int c, int tid_wg)
{
    meta_buf even = {}, odd = {};
    int it = 0;
    work w;
    for (int iter = 0; next_work(args, iter, &w); iter++) {
#if CROQ_PINGPONG
        if (iter % 2 != c) { /* the other consumer's tile: its stages pass this one by */
            it += w.k_tiles;
            continue;
        }
        if (iter > 0)
            turn_wait(c);
#endif
        float acc[CROQ_SPC][CROQ_ACC];
#pragma unroll
        for (int i = 0; i < CROQ_SPC; i++)
#pragma unroll
            for (int j = 0; j < CROQ_ACC; j++)
                acc[i][j] = 0.0f;
        const int k_end = w.k_begin + w.k_tiles;
        int kt = w.k_begin;
        for (; kt + 1 < k_end; kt += 2) {
            consume_stage(args, l, w, c, tid_wg, kt, it, acc, even, odd);
            consume_stage(args, l, w, c, tid_wg, kt + 1, it, acc, odd, even);
        }
        if (kt < k_end)
            consume_stage(args, l, w, c, tid_wg, kt, it, acc, even, odd);
#if CROQ_PINGPONG
        {
            work next;
            if (next_work(args, iter + 1, &next)) /* its wgmmas may issue while ours finish */
                turn_pass(1 - c);
        }
#endif
        wgmma_wait<0>();
#pragma unroll
        for (int i = 0; i < CROQ_SPC; i++)
            wgmma_fence_regs(acc[i]);
        meta_retire(even, l.scratch + tid_wg / 32);
        meta_retire(odd, l.scratch + tid_wg / 32);
        CROQ_FAULT_ELEM(acc[0][0], blockIdx.x == 0 && blockIdx.y == 0 && iter == 0 && c == 0 && tid_wg == 0);
        release(l, (it - 1) % CROQ_STAGES, tid_wg % 32);
#if CROQ_SPLIT_K > 1
        if (!reduce_split_k(acc, args, l, w, c, tid_wg))
            continue;
#endif
#if CROQ_EPI_TMA
        store_tma(acc, args, l, w, c, tid_wg);
#else
#pragma unroll
        for (int i = 0; i < CROQ_SPC; i++)
            store_direct<CROQ_ACC / 4>(acc[i], args, w.tm * CROQ_TILE_M + (CROQ_SLICE0(c) + i) * 64, w.tn * CROQ_TILE_N,
                                       tid_wg);
#endif
    }
#if CROQ_EPI_TMA
    if (tid_wg == 0)
        tma_store_wait_read();
#endif
}

extern "C" __global__ void __launch_bounds__(CROQ_THREADS_ALL, 1)
    croq_gemm_sp(const __grid_constant__ croq_gemm_args args)
{
    extern __shared__ uint8_t smem_raw[];
    const smem_layout l = carve(smem_raw);
    const int wg = threadIdx.x / 128, tid_wg = threadIdx.x % 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < CROQ_STAGES; s++) {
            mbar_init(&l.full[s], 1);
            /* one arrive per consumer warp that reads the stage, in every CTA it feeds */
            mbar_init(&l.empty[s], 4 * CROQ_SPLIT * CROQ_CSIZE);
        }
        mbar_init(l.fault, 1);
        mbar_fence_init();
    }
    __syncthreads();
    cluster_sync(); /* peers' barriers are initialized before any multicast lands */
#if defined(CROQ_INJECT_FAULT) && CROQ_INJECT_FAULT <= 3
    inject_fault(args, l.fault);
#endif
    if (wg == 0) {
        setmaxnreg_dec_40();
        if (tid_wg == 0) {
            tma_prefetch_map(&args.tm_a);
            tma_prefetch_map(&args.tm_b);
            producer(args, l);
        }
    } else {
#if CROQ_CONSUMERS == 2
        setmaxnreg_inc_232();
#else
        setmaxnreg_inc_240();
#endif
        consumer(args, l, wg - 1, tid_wg);
    }
    cluster_sync(); /* no CTA exits while a peer may still multicast into it or arrive on it */
}
