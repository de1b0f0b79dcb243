/* kernels/parts/meta_ldg.cuh — the metadata path of family.cu for meta_path=1: each
 * consumer thread loads its own words from global memory (L2, load_meta in common.cuh),
 * hoisted above the stage barrier wait so their latency overlaps it; the producer loads
 * only A and B. Contract: kernels/parts/meta_tma.cuh. */

__device__ __forceinline__ void meta_produce(const croq_gemm_args &, const smem_layout &, int, int, const work &) {}

__device__ __forceinline__ void meta_before_wait(const croq_gemm_args &args, const smem_layout &, int, int kt,
                                                 const work &w, int c, int tid_wg,
                                                 uint32_t (&meta)[CROQ_SPC][CROQ_CHUNKS])
{
#pragma unroll
    for (int i = 0; i < CROQ_SPC; i++) {
        const int slice = CROQ_SLICE0(c) + i;
        load_meta(args, meta[i], w.mb0 + slice, kt, tid_wg);
    }
    CROQ_FAULT_META(meta[0][0], blockIdx.x == 0 && blockIdx.y == 0 && kt == 0 && c == 0 && tid_wg == 0);
}

__device__ __forceinline__ void meta_after_wait(const croq_gemm_args &, const smem_layout &, int, int,
                                                const work &, int, int, uint32_t (&)[CROQ_SPC][CROQ_CHUNKS])
{
}
