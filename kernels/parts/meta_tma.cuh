/* kernels/parts/meta_tma.cuh — the metadata path of family.cu for meta_path=0: the
 * producer loads each stage's metadata words by TMA beside A and B, and the consumers read
 * them from the stage once its full barrier has completed.
 *
 * Contract (the same in meta_ldg.cuh; family.cu includes exactly one):
 *   meta_produce(args, l, s, kt, w)                    producer: issue what stage s of k
 *                                                      tile kt needs besides A and B
 *   meta_before_wait(args, l, s, kt, w, c, tid_wg, m)  consumer, before waiting on full[s]
 *   meta_after_wait(args, l, s, kt, w, c, tid_wg, m)   consumer, once full[s] completed
 * Between them the consumer's words of the stage end up in m (CROQ_SPC slices x
 * CROQ_CHUNKS words, wgmma order: kernels/meta_order.h). The stage's bytes and the TMA
 * transaction count are family.cu's (CROQ_META_BYTES, CROQ_META_TMA).
 */

__device__ __forceinline__ void meta_produce(const croq_gemm_args &args, const smem_layout &l, int s, int kt,
                                             const work &w)
{
    uint8_t *b = l.stages + s * CROQ_STAGE + CROQ_A_BYTES;
    tma_load_3d(b + CROQ_B_BYTES, &args.tm_meta, &l.full[s], 0, kt * CROQ_CHUNKS, w.tm * CROQ_TILE_M / 64);
}

__device__ __forceinline__ void meta_before_wait(const croq_gemm_args &, const smem_layout &, int, int,
                                                 const work &, int, int, uint32_t (&)[CROQ_SPC][CROQ_CHUNKS])
{
}

__device__ __forceinline__ void meta_after_wait(const croq_gemm_args &args, const smem_layout &l, int s, int kt,
                                                const work &w, int c, int tid_wg,
                                                uint32_t (&meta)[CROQ_SPC][CROQ_CHUNKS])
{
    const uint32_t m = smem_u32(l.stages + s * CROQ_STAGE + CROQ_A_BYTES + CROQ_B_BYTES);
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++) {
        const int slice = CROQ_SLICE0(c) + i;
#pragma unroll
        for (int ch = 0; ch < CROQ_CHUNKS; ch++)
            meta[i][ch] = lds_u32(m + 4u * ((slice * CROQ_CHUNKS + ch) * 128 + tid_wg));
    }
    CROQ_FAULT_META(meta[0][0], blockIdx.x == 0 && blockIdx.y == 0 && kt == 0 && c == 0 && tid_wg == 0);
}
