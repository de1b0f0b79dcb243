/* kernels/parts/scheduler_persistent.cuh — the persistent tile scheduler of family.cu
 * (persistent=1): the grid is at most as many clusters as can be resident, and work item
 * iter of a CTA is unit blockIdx.x / csize + iter * (gridDim.x / csize). Every CTA of a
 * cluster has the same units, so all of them run the same number of iterations, even
 * where the last unit overhangs M or N (the peers of a CTA wait for its multicast and its
 * arrivals). Contract and the unit -> tile mapping: kernels/parts/scheduler.cuh (written
 * out as in scheduler_tile.cuh, which says why). */

__device__ __forceinline__ bool next_work(const croq_gemm_args &args, int iter, work *w)
{
    const int tiles_m = (args.m + CROQ_TILE_M - 1) / CROQ_TILE_M;
    const int tiles_n = (args.n + CROQ_TILE_N - 1) / CROQ_TILE_N;
    const int units_m = (tiles_m + CROQ_CLUSTER_M - 1) / CROQ_CLUSTER_M;
    const int units_n = (tiles_n + CROQ_CLUSTER_N - 1) / CROQ_CLUSTER_N;
    const int k_tiles = args.k / CROQ_TILE_K / CROQ_SPLIT_K - CROQ_SKIP_K_TILES;
    const int u = (int)(blockIdx.x / CROQ_CSIZE) + iter * (int)(gridDim.x / CROQ_CSIZE);
    if (u >= units_m * units_n)
        return false;
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
