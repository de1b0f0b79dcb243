/* kernels/parts/scheduler_tile.cuh — the tile scheduler of family.cu for persistent=0: one
 * work item per CTA, unit blockIdx.x / cluster size (the grid has one CTA per tile and
 * split-K slice). Contract and the unit -> tile mapping: kernels/parts/scheduler.cuh.
 * The mapping is written out here and in scheduler_persistent.cuh rather than shared
 * through a helper: the helper, inlined, changed the SASS of the clustered kernels
 * (nvcc 13.0, tests/sass_identity.sh). */

__device__ __forceinline__ bool next_work(const croq_gemm_args &args, int iter, work *w)
{
    const int tiles_m = (args.m + CROQ_TILE_M - 1) / CROQ_TILE_M;
    const int tiles_n = (args.n + CROQ_TILE_N - 1) / CROQ_TILE_N;
    const int units_m = (tiles_m + CROQ_CLUSTER_M - 1) / CROQ_CLUSTER_M;
    const int units_n = (tiles_n + CROQ_CLUSTER_N - 1) / CROQ_CLUSTER_N;
    const int k_tiles = args.k / CROQ_TILE_K / CROQ_SPLIT_K - CROQ_SKIP_K_TILES;
    if (iter > 0)
        return false;
    const int u = (int)(blockIdx.x / CROQ_CSIZE);
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
