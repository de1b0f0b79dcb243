/* kernels/baseline.cu — the simplest correct 2:4 sparse GEMM for sm_90a (knob kernel=0).
 *
 * One warpgroup (128 threads) per CTA computes a TILE_M x TILE_N tile of C. Thread 0
 * issues the TMA loads of packed A and B into swizzled shared memory (1 or 2 stages,
 * each completing on its own mbarrier); all four warps issue wgmma.mma_async.sp on
 * them with metadata words loaded from global memory. A stage is refilled only after
 * wgmma.wait_group 0 and a CTA barrier, i.e. after every wgmma reading it completed.
 * The epilogue scales the f32 accumulators (alpha, scale vectors: kernels/abi.h),
 * converts them to f16 and stores them bounds-checked.
 * No warp specialization, no persistence: the reference point the tuner starts from.
 */
#include "common.cuh"

#if CROQ_KERNEL != CROQ_V_BASELINE
#error "baseline.cu is the kernel=0 structure"
#endif

#define CROQ_SLICES (CROQ_TILE_M / 64)
/* scale_b loads in flight in the epilogue (common.cuh, store_direct). 2 adds no register on
 * the 64x64, 64x128 and 64x256 tiles (60, 92, 156 as before; 4 took 64x256 to 166, 8 to
 * 168), so the unscaled kernel keeps the CTAs per SM it had. */
#define CROQ_BASE_WINDOW 2
#define CROQ_STAGE (CROQ_A_BYTES + CROQ_B_BYTES)
#define CROQ_DYN_SMEM CROQ_SMEM_BYTES(CROQ_TILE_M, CROQ_TILE_N, CROQ_TILE_K, CROQ_ESZ, CROQ_STAGES, 0, 0)
static_assert(CROQ_STAGES <= 2, "the baseline has one or two stages");
static_assert(CROQ_SCHEDULE == CROQ_V_COOPERATIVE, "the baseline has no consumer schedule");
static_assert(!CROQ_STREAM_K, "the baseline has no stream-K scheduler");
static_assert(CROQ_DYN_SMEM <= CROQ_SMEM_LIMIT, "shared memory");
static_assert(CROQ_ACC_REGS(CROQ_TILE_M, CROQ_TILE_N, 1) <= 128, "accumulator registers");
static_assert(CROQ_CONSUMERS == 1 && !CROQ_PERSISTENT && CROQ_CLUSTER_M == 1 && CROQ_CLUSTER_N == 1 &&
                  CROQ_SPLIT_K == 1 && CROQ_EPILOGUE == CROQ_V_EPI_DIRECT && CROQ_META_PATH == CROQ_V_META_HOISTED,
              "the baseline implements no consumers, persistence, cluster, split-K, TMA epilogue or TMA metadata");

extern "C" __device__ const struct croq_kernel_abi croq_abi = {
    CROQ_ABI_VERSION, CROQ_DTYPE, 128, CROQ_DYN_SMEM, CROQ_TILE_M, CROQ_TILE_N, CROQ_TILE_K,
    1, 0, 1, 1, 0,
    {{{CROQ_SWIZZLE_A / CROQ_ESZ, CROQ_TILE_M, 0}, CROQ_SWIZZLE_A, CROQ_L2_ENUM(CROQ_L2_A)},
     {{CROQ_SWIZZLE_B / CROQ_ESZ, CROQ_TILE_N, 0}, CROQ_SWIZZLE_B, CROQ_L2_ENUM(CROQ_L2_B)},
     {{0, 0, 0}, 0, 0},
     {{0, 0, 0}, 0, 0}}};

extern "C" __global__ void __launch_bounds__(128, 1) croq_gemm_sp(const __grid_constant__ croq_gemm_args args)
{
    extern __shared__ uint8_t smem_raw[];
    uint8_t *smem = (uint8_t *)(((uintptr_t)smem_raw + CROQ_SMEM_ALIGN - 1) & ~(uintptr_t)(CROQ_SMEM_ALIGN - 1));
    uint64_t *full = (uint64_t *)(smem + CROQ_STAGES * CROQ_STAGE);
    const int tid = threadIdx.x;

    const int tiles_m = (args.m + CROQ_TILE_M - 1) / CROQ_TILE_M;
    const int tiles_n = (args.n + CROQ_TILE_N - 1) / CROQ_TILE_N;
    int tm, tn;
    tile_coords(blockIdx.x, tiles_m, tiles_n, &tm, &tn);
    const int m0 = tm * CROQ_TILE_M, n0 = tn * CROQ_TILE_N;
    const int k_tiles = args.k / CROQ_TILE_K - CROQ_SKIP_K_TILES;

    if (tid == 0) {
        tma_prefetch_map(&args.tm_a);
        tma_prefetch_map(&args.tm_b);
        for (int s = 0; s < CROQ_STAGES + 1; s++) /* +1: the never-signalled fault barrier */
            mbar_init(&full[s], 1);
        mbar_fence_init();
    }
    __syncthreads();
#if defined(CROQ_INJECT_FAULT) && CROQ_INJECT_FAULT <= 3
    inject_fault(args, &full[CROQ_STAGES]);
#endif

    auto issue = [&](int kt) {
        const int s = kt % CROQ_STAGES;
        mbar_arrive_expect_tx(&full[s], CROQ_TX_AB);
        load_ab(args, smem + s * CROQ_STAGE, smem + s * CROQ_STAGE + CROQ_A_BYTES, &full[s], kt, m0, n0);
    };
    if (tid == 0)
        for (int kt = 0; kt < CROQ_STAGES && kt < k_tiles; kt++)
            issue(kt);

    float acc[CROQ_SLICES][CROQ_ACC];
#pragma unroll
    for (int i = 0; i < CROQ_SLICES; i++)
#pragma unroll
        for (int j = 0; j < CROQ_ACC; j++)
            acc[i][j] = 0.0f;

    for (int kt = 0; kt < k_tiles; kt++) {
        const int s = kt % CROQ_STAGES;
        uint32_t meta[CROQ_SLICES][CROQ_CHUNKS];
#pragma unroll
        for (int i = 0; i < CROQ_SLICES; i++)
            load_meta(args, meta[i], m0 / 64 + i, kt, tid);
        CROQ_FAULT_META(meta[0][0], blockIdx.x == 0 && kt == 0 && tid == 0);
        mbar_wait(&full[s], (kt / CROQ_STAGES) & 1);

        const uint32_t a_base = smem_u32(smem + s * CROQ_STAGE), b_base = a_base + CROQ_A_BYTES;
#pragma unroll
        for (int i = 0; i < CROQ_SLICES; i++)
            wgmma_fence_regs(acc[i]);
        wgmma_fence();
#pragma unroll
        for (int i = 0; i < CROQ_SLICES; i++)
            mma_stage(acc[i], a_base, b_base, i, meta[i]);
        wgmma_commit();
        wgmma_wait<0>();
#pragma unroll
        for (int i = 0; i < CROQ_SLICES; i++)
            wgmma_fence_regs(acc[i]);
        __syncthreads(); /* every warp's wgmma on stage s has completed: it may be refilled */
        if (tid == 0 && kt + CROQ_STAGES < k_tiles)
            issue(kt + CROQ_STAGES);
    }

    CROQ_FAULT_ELEM(acc[0][0], blockIdx.x == 0 && tid == 0);
#pragma unroll
    for (int i = 0; i < CROQ_SLICES; i++)
        store_direct<CROQ_BASE_WINDOW>(acc[i], args, m0 + 64 * i, n0, tid);
}
