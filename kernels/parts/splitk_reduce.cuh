/* kernels/parts/splitk_reduce.cuh — split_k > 1, reduced in an f32 workspace by the
 * last-arriving CTA of each tile. Contract: kernels/parts/splitk_none.cuh.
 *
 * Every CTA of a tile writes its f32 partial (in fragment order, so the writes are
 * coalesced), the last to arrive sums all partials into its registers and stores C,
 * then resets the tile's counter for the next launch. Workspace per output tile
 * (CROQ_WS_PER_TILE): a 256-B counter block, then split_k f32 partial tiles.
 */
static_assert(!(CROQ_PERSISTENT && CROQ_SPLIT_K > 1), "persistent excludes split-K");
static_assert(!(CROQ_CSIZE > 1 && CROQ_SPLIT_K > 1), "a cluster excludes split-K");
static_assert(!(CROQ_SPLIT_K > 1 && CROQ_EPI_TMA), "split-K reduces through the workspace: direct epilogue only");

constexpr bool splitk_reduces = true;

__device__ __forceinline__ bool splitk_reduce(float (&acc)[CROQ_SPC][CROQ_ACC], const croq_gemm_args &args,
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
