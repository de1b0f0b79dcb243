/* kernels/ptx/mbarrier.cuh — mbarrier wrappers (PTX ISA 8.0, "Parallel synchronization
 * and communication instructions: mbarrier"). Addresses are shared-state-space u32. */
#pragma once
#include <stdint.h>
#include "ptx/smem.cuh"

__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
}

/* Makes mbarrier.init visible to the async proxy (TMA) and to the cluster. */
__device__ __forceinline__ void mbar_fence_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* Arrive and announce tx_bytes the TMA will deliver in this phase. */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, uint32_t tx_bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
                 "r"(tx_bytes)
                 : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}

/* Arrive on the barrier at the same offset in CTA `cta` of the cluster.
 *
 * Release at CTA scope (the PTX default), not .release.cluster: the cluster-scope release
 * compiles to MEMBAR.ALL.GPU before every arrive, which on the H200 (2026-11-29, ncu)
 * made "membar" the top warp stall and cluster variants 1.8x slower than cluster-less
 * ones. The arrive only has to follow the completion of the wgmma reads of the stage
 * (the caller's wgmma.wait_group guarantees that); there are no generic-proxy writes
 * to publish to the peer. */
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t *bar, uint32_t cta)
{
    asm volatile("{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}" ::"r"(smem_u32(bar)),
                 "r"(cta)
                 : "memory");
}

/* Block until the phase with the given parity has completed. */
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
    asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT_%=;\n}" ::"r"(smem_u32(bar)),
                 "r"(parity)
                 : "memory");
}
