/* kernels/parts/epilogue_tma.cuh — the epilogue of family.cu for epilogue=1: stmatrix into
 * a 128-B swizzled C staging tile in shared memory, then TMA stores, committed as one bulk
 * async-group and left in flight; the consumer waits for their reads only before it
 * writes the staging tile again (the next item, one whole mainloop later). Cooperative
 * consumers share one staging tile (each its own rows), ping-pong consumers have one each
 * (CROQ_C_TILES, family.cu). Contract: kernels/parts/epilogue_direct.cuh.
 */

/* Named barrier among the 128 threads of one consumer warpgroup (ids 1-2; 0 is
 * __syncthreads). */
__device__ __forceinline__ void wg_barrier(int consumer)
{
    asm volatile("bar.sync %0, 128;" ::"r"(consumer + 1) : "memory");
}

/* Stores this consumer's slices, scaled first unless plain (epilogue_scale, common.cuh),
 * through 128-B swizzled shared memory and TMA: stmatrix writes 8x8 f16 matrices whose
 * 16-B rows land at the swizzled address (row r, 16-B unit u) -> r * 128 + ((u ^ (r % 8))
 * * 16) inside a 64-column box. */
__device__ __forceinline__ void epilogue_store(float (&acc)[CROQ_SPC][CROQ_ACC], const croq_gemm_args &args,
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

__device__ __forceinline__ void epilogue_finish(int tid_wg)
{
    if (tid_wg == 0)
        tma_store_wait_read();
}
