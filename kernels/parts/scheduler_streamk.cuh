/* kernels/parts/scheduler_streamk.cuh — the stream-K tile scheduler of family.cu
 * (stream_k=1, persistent=1): the grid is croq_sk_grid() CTAs (one per SM, launch.c), each
 * CTA first takes its whole tiles of the full waves, as scheduler_persistent.cuh does, then
 * its share of the k-iterations of the last partial wave's tiles, cut at tile boundaries
 * into items whose K ranges start and end mid-tile. The decomposition is the pure function
 * of kernels/streamk.h (its comment: roles, forward progress), which the host's grid and
 * the CPU test (tests/unit/test_streamk.c) use too. Contract and the unit -> tile mapping:
 * kernels/parts/scheduler.cuh; the fixup of the partial tiles is splitk_streamk.cuh's.
 *
 * No cluster (the CTAs of a cluster would need the same K ranges for the multicast), no
 * split-K (K is split here), cooperative consumers (ping-pong would give the fixup to one
 * consumer while the other's tile waits): the rules of knobs.c, repeated below.
 */
static_assert(CROQ_PERSISTENT && CROQ_SPLIT_K == 1 && CROQ_CSIZE == 1 && !CROQ_PINGPONG,
              "stream_k=1 needs persistent=1, split_k=1, no cluster and schedule=0");

__device__ __forceinline__ bool next_work(const croq_gemm_args &args, int iter, work *w)
{
    const int tiles_m = (args.m + CROQ_TILE_M - 1) / CROQ_TILE_M;
    const int tiles_n = (args.n + CROQ_TILE_N - 1) / CROQ_TILE_N;
    const int k_iters = args.k / CROQ_TILE_K - CROQ_SKIP_K_TILES;
    const croq_sk_plan p = croq_sk_plan_make(tiles_m * tiles_n, k_iters, (int)gridDim.x);
    croq_sk_item it;
    if (!croq_sk_item_get(&p, (int)blockIdx.x, iter, &it))
        return false;
    tile_coords(it.unit, tiles_m, tiles_n, &w->tm, &w->tn);
    w->mb0 = w->tm * (CROQ_TILE_M / 64); /* no cluster: tm < tiles_m */
    w->tile_id = w->tm * tiles_n + w->tn;
    w->k_begin = it.k_begin;
    w->k_tiles = it.k_end - it.k_begin;
    w->sk_role = it.role;
    w->sk_first = it.first;
    w->sk_last = it.last;
    return true;
}
