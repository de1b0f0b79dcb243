/* kernels/parts/splitk_streamk.cuh — the fixup of stream-K's partial tiles (stream_k=1,
 * split_k=1), in the slot split-K's reduction takes. Contract: kernels/parts/splitk_none.cuh;
 * roles and why the waits end: kernels/streamk.h.
 *
 * Workspace (CROQ_WS_PER_TILE bytes per CTA of the grid, not per tile: the ABI says
 * persistent=2, and launch.c allocates that times gridDim.x): slot b = a 256-B flag block
 * (one u32 flag, alone in its block so the partials' stores never share its line) and one
 * f32 partial tile, in fragment order as splitk_reduce.cuh writes it (coalesced).
 *   PARTIAL (CTA b's first stream-K item, k_begin > 0): every consumer thread stores its
 *     accumulators to slot b; __threadfence; barrier 3 (all consumers); one thread
 *     red.release.gpu adds 1 to flag b. The release orders the slot's stores, made visible
 *     at GPU scope by the fences and ordered before the release by the barrier, before the
 *     flag (the pattern of splitk_reduce.cuh's counter, with release semantics).
 *   OWNER (k_begin == 0, the tile's rest in CTAs first..last): one thread waits with
 *     ld.acquire.gpu until each of their flags is non-zero and sets it back to 0; barrier 3
 *     makes the acquire cover every consumer thread; they add the partials with ld.global.cg
 *     (L2: no stale L1 line) in CTA order, so the sum is the same every launch, and store C.
 *   FULL: nothing to fix, store.
 * Flags: 0 at the start of every launch. A slot is written by one CTA at most once per
 * launch and read by one owner, which zeroes its flag after seeing it raised, so a launch
 * that completes leaves every flag 0: the host zeroes the workspace once when it allocates
 * it (src/launch/launch.h) and no memset is needed between launches. Both ends check that
 * invariant and trap when it does not hold (a contributor finds its flag raised before it
 * raises it: the workspace was not zeroed, or a launch before did not complete; an owner
 * sees a flag above 1: raised twice), so a broken contract is a launch error, not a C
 * silently summed from stale partials (which a re-run on the same operands would not
 * show: the stale partials hold the same numbers). Launches that share a
 * workspace must not overlap (one stream; no programmatic dependent launch). A launch that
 * dies mid-way (a fault) leaves flags raised: the workspace must be zeroed again (the
 * runner and the library drop the context, and with it the workspace, on a fault).
 */
static_assert(CROQ_SPLIT_K == 1, "stream-K splits K itself");

constexpr bool splitk_reduces = true;

__device__ __forceinline__ unsigned sk_flag_wait(const unsigned *flag)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    return v;
}

__device__ __forceinline__ unsigned sk_flag_peek(const unsigned *flag)
{
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
    return v;
}

__device__ __forceinline__ void sk_flag_raise(unsigned *flag)
{
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(flag) : "memory");
}

__device__ __forceinline__ bool splitk_reduce(float (&acc)[CROQ_SPC][CROQ_ACC], const croq_gemm_args &args,
                                              const smem_layout &, const work &w, int c, int tid_wg)
{
    if (w.sk_role == CROQ_SK_FULL)
        return true;
    uint8_t *ws = (uint8_t *)args.workspace;
    const int mine = c * CROQ_SPC * CROQ_ACC * 128 + tid_wg; /* this thread's first word in a slot */
    if (w.sk_role == CROQ_SK_PARTIAL) {
        uint8_t *slot = ws + (size_t)blockIdx.x * CROQ_WS_PER_TILE;
        float *part = (float *)(slot + 256) + mine;
        if (c == 0 && tid_wg == 0 && sk_flag_peek((const unsigned *)slot) != 0)
            asm volatile("trap;"); /* the workspace is not as a completed launch leaves it */
#pragma unroll
        for (int i = 0; i < CROQ_SPC; i++)
#pragma unroll
            for (int j = 0; j < CROQ_ACC; j++)
                __stcg(part + (i * CROQ_ACC + j) * 128, acc[i][j]);
        __threadfence();
        asm volatile("bar.sync 3, %0;" ::"n"(128 * CROQ_CONSUMERS) : "memory");
        if (c == 0 && tid_wg == 0)
            sk_flag_raise((unsigned *)slot);
        return false;
    }
    /* CROQ_SK_OWNER */
    if (c == 0 && tid_wg == 0)
        for (int b = w.sk_first; b <= w.sk_last; b++) {
            unsigned *flag = (unsigned *)(ws + (size_t)b * CROQ_WS_PER_TILE);
            unsigned v;
            while ((v = sk_flag_wait(flag)) == 0)
                __nanosleep(64);
            if (v != 1)
                asm volatile("trap;"); /* raised twice: two partials in one slot */
            *(volatile unsigned *)flag = 0; /* for the next launch: no one raises it again in this one */
        }
    asm volatile("bar.sync 3, %0;" ::"n"(128 * CROQ_CONSUMERS) : "memory");
    __threadfence();
    for (int b = w.sk_first; b <= w.sk_last; b++) {
        const float *part = (const float *)(ws + (size_t)b * CROQ_WS_PER_TILE + 256) + mine;
#pragma unroll
        for (int i = 0; i < CROQ_SPC; i++)
#pragma unroll
            for (int j = 0; j < CROQ_ACC; j++)
                acc[i][j] += __ldcg(part + (i * CROQ_ACC + j) * 128);
    }
    return true;
}
