/* kernels/parts/splitk_none.cuh — split_k=1: every item covers the whole K range, so the
 * consumer stores its sums as they are.
 *
 * Contract (the same in splitk_reduce.cuh; family.cu includes exactly one):
 *   splitk_reduces                              constexpr bool: the consumer loop calls
 *                                               splitk_reduce (a constexpr flag for the
 *                                               reason schedule_cooperative.cuh gives)
 *   splitk_reduce(acc, args, l, w, c, tid_wg)   after the mainloop of item w: whether this
 *                                               CTA stores the tile (acc then holds the
 *                                               whole K range's sums)
 * The workspace it needs per output tile is family.cu's CROQ_WS_PER_TILE (abi.h).
 */
constexpr bool splitk_reduces = false;

__device__ __forceinline__ bool splitk_reduce(float (&)[CROQ_SPC][CROQ_ACC], const croq_gemm_args &,
                                              const smem_layout &, const work &, int, int)
{
    return true;
}
