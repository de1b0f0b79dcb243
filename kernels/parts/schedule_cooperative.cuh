/* kernels/parts/schedule_cooperative.cuh — the consumer schedule of family.cu for
 * schedule=0: every consumer works on every item of the CTA's list, consumer c owning
 * rows [c * TILE_M / CONSUMERS, (c + 1) * TILE_M / CONSUMERS) of the tile (CROQ_SPC m64
 * slices from CROQ_SLICE0(c), family.cu).
 *
 * Contract (the same in schedule_pingpong.cuh; family.cu includes exactly one):
 *   schedule_alternates                   constexpr bool: consumers take turns over items,
 *                                         so the consumer loop asks schedule_take
 *   schedule_take(args, iter, c, w, it)   (called only when schedule_alternates) whether
 *                                         consumer c runs item iter (w); when it does not,
 *                                         it has advanced the ring count `it` past the
 *                                         item's stages; when it does, it returns once c
 *                                         may issue the item's mainloop
 *   schedule_issued(args, iter, c)        c has issued item iter's mainloop (its last
 *                                         group may still be in flight)
 * Why a constexpr flag and not a schedule_take that returns true: a branch on it, folded
 * only after inlining, changed the SASS of the non-persistent kernels (nvcc 13.0,
 * tests/sass_identity.sh), so a schedule without turns leaves no branch in the loop.
 */
constexpr bool schedule_alternates = false;

__device__ __forceinline__ bool schedule_take(const croq_gemm_args &, int, int, const work &, int &)
{
    return true;
}

__device__ __forceinline__ void schedule_issued(const croq_gemm_args &, int, int) {}
