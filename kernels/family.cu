/* kernels/family.cu — the warp-specialized 2:4 sparse GEMM family (knob kernel=1),
 * composed from the parts in kernels/parts/, one per concern, each behind a small
 * contract written at the top of its header:
 *
 *   slot        knob           headers                                      contract in
 *   cluster     cluster_m/_n   cluster_single.cuh, cluster_multicast.cuh   cluster_single.cuh
 *   scheduler   persistent     scheduler_tile.cuh, scheduler_persistent.cuh scheduler.cuh
 *               stream_k       scheduler_streamk.cuh (+ streamk.h)
 *   metadata    meta_path      meta_tma.cuh, meta_ldg.cuh                   meta_tma.cuh
 *   mainloop    (one)          mainloop.cuh: producer, stage, consume       mainloop.cuh
 *   schedule    schedule       schedule_cooperative.cuh, schedule_pingpong.cuh  schedule_cooperative.cuh
 *   epilogue    epilogue       epilogue_direct.cuh, epilogue_tma.cuh        epilogue_direct.cuh
 *   split-K     split_k        splitk_none.cuh, splitk_reduce.cuh           splitk_none.cuh
 *               stream_k       splitk_streamk.cuh (the fixup of partial tiles)
 *
 * This file owns what the parts share: the derived geometry (slices per consumer, stage
 * and shared-memory sizes), the shared-memory carve, the ABI record, the consumer loop
 * that calls the parts in order, and the kernel entry. Each part is included under the
 * one #if that selects it, and includes nothing itself (src/codegen/codegen.h: a file is
 * inlined where it is first named).
 *
 * Warpgroup 0 is the producer: one thread issues TMA loads of packed A, B and (meta_path
 * = 0) metadata into a ring of STAGES shared-memory stages; warpgroups 1..CONSUMERS are
 * consumers. Cooperative (schedule 0): each consumer owns TILE_M/CONSUMERS rows of every
 * tile of the CTA in m64 slices. Ping-pong (schedule 1, persistent): consumer c owns whole
 * tiles, c, c+2, ... of the CTA's list.
 *
 * Knobs (knobs.def): tile, stages, consumers, swizzle, raster + CTA swizzle group,
 * metadata path, epilogue (alpha and scale vectors, then direct / stmatrix + TMA store),
 * L2 promotion (host side), persistent tile loop (a cluster walks cluster-shaped units
 * of tiles), cluster with TMA multicast of A (along N) and B (along M), consumer schedule,
 * split-K reduced in an f32 workspace by the last-arriving CTA of each tile, and stream-K
 * (persistent, the last partial wave's k-iterations spread over every CTA, kernels/streamk.h).
 *
 * Named barriers: 0 __syncthreads, 1-2 one consumer's epilogue, 3 all consumers (split-K,
 * stream-K fixup),
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
/* split-K workspace per output tile: a 256-B counter block, then split_k f32 partial tiles;
 * stream-K, per CTA of the grid (ABI persistent=2): a 256-B flag block and one f32 partial tile. */
#define CROQ_WS_PER_TILE                                                                              \
    (CROQ_STREAM_K ? 256 + CROQ_TILE_M * CROQ_TILE_N * 4                                               \
                   : CROQ_SPLIT_K > 1 ? 256 + CROQ_SPLIT_K * CROQ_TILE_M * CROQ_TILE_N * 4 : 0)
/* The ABI's persistent field: 2 says stream-K (workspace per CTA, grid croq_sk_grid). */
#define CROQ_ABI_PERSISTENT (CROQ_STREAM_K ? CROQ_ABI_PERSISTENT_STREAM_K : CROQ_PERSISTENT)
#define CROQ_C_BOX_COLS 64 /* 128-B swizzled C staging: 64 f16 per box row */

static_assert(CROQ_TILE_M % (64 * CROQ_SPLIT) == 0, "each consumer needs whole m64 slices");
static_assert(CROQ_STAGES >= 2, "a consumer releases a stage one stage late (one wgmma group in flight)");
static_assert(CROQ_DYN_SMEM <= CROQ_SMEM_LIMIT, "shared memory");
static_assert(CROQ_ACC_REGS(CROQ_TILE_M, CROQ_TILE_N, CROQ_SPLIT) <= 128, "accumulator registers");
static_assert(CROQ_ACC_REGS(CROQ_TILE_M, CROQ_TILE_N, CROQ_SPLIT) + CROQ_META_REGS(CROQ_TILE_M, CROQ_TILE_K, CROQ_SPLIT) <=
                  CROQ_CONSUMER_REGS_MAX,
              "accumulator + metadata registers (above the bound ptxas spills or serializes the wgmmas)");
static_assert(CROQ_TILE_M % CROQ_CLUSTER_N == 0 && CROQ_TILE_N % CROQ_CLUSTER_M == 0, "multicast slices");

extern "C" __device__ const struct croq_kernel_abi croq_abi = {
    CROQ_ABI_VERSION, CROQ_DTYPE, CROQ_THREADS_ALL, CROQ_DYN_SMEM, CROQ_TILE_M, CROQ_TILE_N, CROQ_TILE_K,
    CROQ_SPLIT_K, CROQ_ABI_PERSISTENT, CROQ_CLUSTER_M, CROQ_CLUSTER_N, CROQ_WS_PER_TILE,
    {{{CROQ_SWIZZLE_A / CROQ_ESZ, CROQ_TILE_M / CROQ_CLUSTER_N, 0}, CROQ_SWIZZLE_A, CROQ_L2_ENUM(CROQ_L2_A)},
     {{CROQ_SWIZZLE_B / CROQ_ESZ, CROQ_TILE_N / CROQ_CLUSTER_M, 0}, CROQ_SWIZZLE_B, CROQ_L2_ENUM(CROQ_L2_B)},
     {{CROQ_META_TMA ? 128 : 0, CROQ_CHUNKS, CROQ_TILE_M / 64}, 0, CROQ_L2_ENUM(CROQ_L2_A)},
     {{CROQ_EPI_TMA ? CROQ_C_BOX_COLS : 0, 64, 0}, CROQ_EPI_TMA ? 128 : 0, 0}}};

/* Shared memory: the ring of stages, the C staging tiles, then one block of mbarriers
 * and scratch (geometry.h, CROQ_SMEM_BYTES). */
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

/* ---- the parts, one per slot ---------------------------------------------------- */
#if CROQ_CSIZE > 1
#include "parts/cluster_multicast.cuh"
#else
#include "parts/cluster_single.cuh"
#endif
#include "parts/scheduler.cuh"
#if CROQ_STREAM_K
#include "streamk.h"
#include "parts/scheduler_streamk.cuh"
#elif CROQ_PERSISTENT
#include "parts/scheduler_persistent.cuh"
#else
#include "parts/scheduler_tile.cuh"
#endif
#if CROQ_META_TMA
#include "parts/meta_tma.cuh"
#else
#include "parts/meta_ldg.cuh"
#endif
#include "parts/mainloop.cuh"
#if CROQ_PINGPONG
#include "parts/schedule_pingpong.cuh"
#else
#include "parts/schedule_cooperative.cuh"
#endif
#if CROQ_EPI_TMA
#include "parts/epilogue_tma.cuh"
#else
#include "parts/epilogue_direct.cuh"
#endif
#if CROQ_STREAM_K
#include "parts/splitk_streamk.cuh"
#elif CROQ_SPLIT_K > 1
#include "parts/splitk_reduce.cuh"
#else
#include "parts/splitk_none.cuh"
#endif

/* ---- the composition ------------------------------------------------------------ */

/* Consumer c: for each item of the scheduler's list that the schedule gives it, the
 * mainloop, the split-K reduction, the epilogue. */
__device__ void consumer(const croq_gemm_args &args, const smem_layout &l, int c, int tid_wg)
{
    meta_buf even = {}, odd = {};
    int it = 0;
    work w;
    for (int iter = 0; next_work(args, iter, &w); iter++) {
        if constexpr (schedule_alternates) {
            if (!schedule_take(args, iter, c, w, it))
                continue;
        }
        float acc[CROQ_SPC][CROQ_ACC];
        mainloop(args, l, w, c, tid_wg, it, acc, even, odd);
        schedule_issued(args, iter, c);
        mainloop_drain(l, iter, c, tid_wg, it, acc, even, odd);
        if constexpr (splitk_reduces) {
            if (!splitk_reduce(acc, args, l, w, c, tid_wg))
                continue;
        }
        epilogue_store(acc, args, l, w, c, tid_wg);
    }
    epilogue_finish(tid_wg);
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
        if (CROQ_CONSUMERS == 2)
            setmaxnreg_inc_232();
        else
            setmaxnreg_inc_240();
        consumer(args, l, wg - 1, tid_wg);
    }
    cluster_sync(); /* no CTA exits while a peer may still multicast into it or arrive on it */
}
