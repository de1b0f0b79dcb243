/* kernels/ptx/smem.cuh — shared-memory addressing (PTX ISA 8.0, "State spaces: shared"
 * and "Data Movement: ld"). Addresses are shared-state-space u32. */
#pragma once
#include <stdint.h>

__device__ __forceinline__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* One 32-bit word from shared memory, as LDS. A C++ load through a pointer derived from
 * the dynamic shared-memory base by integer arithmetic (family.cu's carve) has lost its
 * state space, so nvcc emits a generic LD, whose result the consumer waits for on the
 * long scoreboard with the global loads. No "memory" clobber: volatile alone keeps it
 * after the mbarrier wait (itself volatile asm) that makes the word valid, since nvcc
 * does not reorder volatile asm statements among themselves. */
__device__ __forceinline__ uint32_t lds_u32(uint32_t addr)
{
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr));
    return v;
}
