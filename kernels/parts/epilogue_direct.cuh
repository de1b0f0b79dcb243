/* kernels/parts/epilogue_direct.cuh — the epilogue of family.cu for epilogue=0: each
 * consumer thread stores its fragment pairs straight to C with bounds checks, scaled
 * first unless plain (store_direct, common.cuh).
 *
 * Contract (the same in epilogue_tma.cuh; family.cu includes exactly one):
 *   epilogue_store(acc, args, l, w, c, tid_wg)   store consumer c's slices of item w
 *   epilogue_finish(tid_wg)                      after the consumer's last item: nothing
 *                                                of the epilogue is still reading shared
 *                                                memory when the CTA exits
 * The C staging shared memory it needs is family.cu's CROQ_C_TILES.
 */

__device__ __forceinline__ void epilogue_store(float (&acc)[CROQ_SPC][CROQ_ACC], const croq_gemm_args &args,
                                               const smem_layout &, const work &w, int c, int tid_wg)
{
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
        store_direct<CROQ_ACC / 4>(acc[i], args, w.tm * CROQ_TILE_M + (CROQ_SLICE0(c) + i) * 64, w.tn * CROQ_TILE_N,
                                   tid_wg);
}

__device__ __forceinline__ void epilogue_finish(int) {}
