/* kernels/parts/cluster_single.cuh — the CTA-group part of family.cu for a 1x1 cluster
 * (cluster_m = cluster_n = 1): each CTA loads its own operands and frees its own stages.
 *
 * Contract (the same in cluster_multicast.cuh; family.cu includes exactly one):
 *   cluster_rank()                   this CTA's rank in its cluster (0 here)
 *   cluster_sync()                   every CTA of the cluster arrives and waits (nothing here)
 *   load_operands(args, l, s, kt, m0, n0)  issue the TMA loads of A and B of k tile kt of
 *                                    the tile at row m0, column n0 into stage s (the
 *                                    caller has armed full[s] with the bytes)
 *   release(l, s, lane)              one arrival per consumer warp on empty[s] of every CTA
 *                                    that fed stage s
 * Included by family.cu after smem_layout, before the scheduler (which needs
 * cluster_rank); uses family.cu's macros.
 */

__device__ __forceinline__ uint32_t cluster_rank()
{
    return 0;
}

__device__ __forceinline__ void cluster_sync() {}

__device__ __forceinline__ void load_operands(const croq_gemm_args &args, const smem_layout &l, int s, int kt,
                                              int m0, int n0)
{
    uint8_t *a = l.stages + s * CROQ_STAGE, *b = a + CROQ_A_BYTES;
    load_ab(args, a, b, &l.full[s], kt, m0, n0);
}

__device__ __forceinline__ void release(const smem_layout &l, int s, int lane)
{
    if (lane == 0)
        mbar_arrive(&l.empty[s]);
}
