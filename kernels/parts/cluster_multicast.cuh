/* kernels/parts/cluster_multicast.cuh — the CTA-group part of family.cu for a cluster of
 * cluster_m x cluster_n CTAs working on neighbouring tiles: A is multicast along N (the
 * CTAs of one tile row share it), B along M, each CTA loading its slice of both for all.
 * Contract: kernels/parts/cluster_single.cuh.
 */

__device__ __forceinline__ uint32_t cluster_rank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

/* Not .aligned: at the end of the kernel the producer thread arrives later than the rest
 * of its warp, and .aligned requires the whole warp to execute the instruction together. */
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

/* This CTA's slice of A (rows a_part of tile_m / cluster_n) goes to the CTAs of its tile
 * row (ranks r % cluster_m + cluster_m * j), its slice of B to those of its tile column. */
__device__ __forceinline__ void load_operands(const croq_gemm_args &args, const smem_layout &l, int s, int kt,
                                              int m0, int n0)
{
    uint8_t *a = l.stages + s * CROQ_STAGE, *b = a + CROQ_A_BYTES;
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
}

/* Each consumer warp arrives once on empty[s] of every CTA that multicasts into this
 * stage: lane r signals CTA r, so the arrives of one warp go out as one instruction. */
__device__ __forceinline__ void release(const smem_layout &l, int s, int lane)
{
    if (lane < CROQ_CSIZE)
        mbar_arrive_cluster(&l.empty[s], (uint32_t)lane);
}
