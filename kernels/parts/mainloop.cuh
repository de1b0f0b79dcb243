/* kernels/parts/mainloop.cuh — the warp-specialized mainloop of family.cu: the producer
 * that fills the ring of CROQ_STAGES shared-memory stages, and the consumer side that
 * waits for a stage, issues its sparse wgmmas and gives the stage back.
 *
 * The ring is guarded by two mbarriers per stage: full[s] (TMA bytes landed) and empty[s]
 * (every consumer warp of every CTA that reads this stage is done with it). Producer and
 * consumers count ring uses (`it`) across all work items of the scheduler's list: stage =
 * it % STAGES, phase = it / STAGES; a consumer that skips an item (ping-pong: the other
 * consumer's tile) advances `it` by its k_tiles. A consumer keeps one wgmma group in
 * flight: after issuing stage kt it waits until only that group is pending, so the wgmmas
 * of stage kt-1 have completed, and only then releases kt-1.
 *
 * Contract, for family.cu's consumer loop:
 *   producer(args, l)                                the whole producer (one thread)
 *   mainloop(args, l, w, c, tid_wg, it, acc, even, odd)
 *                                                    zero acc and issue every k tile of w;
 *                                                    the last group is still in flight
 *   mainloop_drain(l, iter, c, tid_wg, it, acc, even, odd)
 *                                                    wait for it, retire the metadata
 *                                                    buffers, release the last stage: acc
 *                                                    holds the item's sums
 * Uses the cluster part (load_operands, release) and the metadata part (meta_*).
 */

__device__ __forceinline__ void produce_stage(const croq_gemm_args &args, const smem_layout &l, int s, int kt,
                                              const work &w)
{
    mbar_arrive_expect_tx(&l.full[s], CROQ_TX_AB + (CROQ_META_TMA ? CROQ_META_STAGE_BYTES(CROQ_TILE_M, CROQ_TILE_K) : 0));
    load_operands(args, l, s, kt, w.tm * CROQ_TILE_M, w.tn * CROQ_TILE_N);
    meta_produce(args, l, s, kt, w);
}

__device__ void producer(const croq_gemm_args &args, const smem_layout &l)
{
    int it = 0; /* stage use counter across tiles: stage = it % STAGES, phase = it / STAGES */
    work w;
    for (int iter = 0; next_work(args, iter, &w); iter++)
        for (int kt = w.k_begin; kt < w.k_begin + w.k_tiles; kt++, it++) {
            const int s = it % CROQ_STAGES;
            if (it >= CROQ_STAGES)
                mbar_wait(&l.empty[s], ((it / CROQ_STAGES) - 1) & 1);
            produce_stage(args, l, s, kt, w);
        }
}

/* Metadata words of one stage for one consumer, double-buffered across stages.
 *
 * The sparse wgmma reads its metadata register while it executes, not when it is issued,
 * and ptxas does not protect a register written by a load: on the H200 (2026-11-29), with
 * one wgmma group left in flight, ptxas loaded the next stage's words straight into the
 * registers the pending group was still reading, and results were wrong. (Writing the
 * words with an ALU instruction instead makes ptxas serialize every wgmma, C7515.)
 * So stages alternate between two buffers, and after the wgmma.wait_group that retires a
 * stage, its buffer is stored to a scratch word in shared memory (meta_retire). A shared
 * store cannot move above the wait, so each buffer stays allocated until its wgmmas are
 * complete, and the two buffers, live at the same time, cannot share registers. */
struct meta_buf {
    uint32_t w[CROQ_SPC][CROQ_CHUNKS];
};

__device__ __forceinline__ void meta_retire(const meta_buf &b, uint32_t *scratch)
{
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
#pragma unroll
        for (int ch = 0; ch < CROQ_CHUNKS; ch++)
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(smem_u32(scratch)), "r"(b.w[i][ch]) : "memory");
}

/* One k tile: wait for its stage, issue its wgmmas with one group left in flight, and
 * once wgmma.wait_group 1 has retired the previous stage, release its shared memory to
 * the producer and its metadata buffer (prev) for reuse. */
__device__ __forceinline__ void consume_stage(const croq_gemm_args &args, const smem_layout &l, const work &w,
                                              int c, int tid_wg, int kt, int &it, float (&acc)[CROQ_SPC][CROQ_ACC],
                                              meta_buf &m, const meta_buf &prev)
{
    const int s = it % CROQ_STAGES;
    meta_before_wait(args, l, s, kt, w, c, tid_wg, m.w);
    mbar_wait(&l.full[s], (it / CROQ_STAGES) & 1);
    meta_after_wait(args, l, s, kt, w, c, tid_wg, m.w);
    const uint32_t a_base = smem_u32(l.stages + s * CROQ_STAGE), b_base = a_base + CROQ_A_BYTES;
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
        wgmma_fence_regs(acc[i]);
    wgmma_fence();
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
        mma_stage(acc[i], a_base, b_base, CROQ_SLICE0(c) + i, m.w[i]);
    wgmma_commit();
    wgmma_wait<1>();
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
        wgmma_fence_regs(acc[i]);
    meta_retire(prev, l.scratch + tid_wg / 32);
    if (kt > w.k_begin)
        release(l, (it - 1) % CROQ_STAGES, tid_wg % 32);
    it++;
}

/* The k tiles of one item, two at a time so the metadata buffers alternate by name. */
__device__ __forceinline__ void mainloop(const croq_gemm_args &args, const smem_layout &l, const work &w, int c,
                                         int tid_wg, int &it, float (&acc)[CROQ_SPC][CROQ_ACC], meta_buf &even,
                                         meta_buf &odd)
{
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
#pragma unroll
        for (int j = 0; j < CROQ_ACC; j++)
            acc[i][j] = 0.0f;
    const int k_end = w.k_begin + w.k_tiles;
    int kt = w.k_begin;
    for (; kt + 1 < k_end; kt += 2) {
        consume_stage(args, l, w, c, tid_wg, kt, it, acc, even, odd);
        consume_stage(args, l, w, c, tid_wg, kt + 1, it, acc, odd, even);
    }
    if (kt < k_end)
        consume_stage(args, l, w, c, tid_wg, kt, it, acc, even, odd);
}

__device__ __forceinline__ void mainloop_drain(const smem_layout &l, int iter, int c, int tid_wg, int it,
                                               float (&acc)[CROQ_SPC][CROQ_ACC], const meta_buf &even,
                                               const meta_buf &odd)
{
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++)
        wgmma_fence_regs(acc[i]);
    meta_retire(even, l.scratch + tid_wg / 32);
    meta_retire(odd, l.scratch + tid_wg / 32);
    CROQ_FAULT_ELEM(acc[0][0], blockIdx.x == 0 && blockIdx.y == 0 && iter == 0 && c == 0 && tid_wg == 0);
    release(l, (it - 1) % CROQ_STAGES, tid_wg % 32);
}
