/* kernels/ptx/wgmma.cuh — warpgroup MMA protocol and shared-memory matrix descriptors
 * (PTX ISA 8.0, "wgmma.fence / commit_group / wait_group" and "Matrix Descriptor
 * Format"). The sparse MMA wrappers themselves are generated: ptx/wgmma_sp.cuh. */
#pragma once
#include <stdint.h>
#include "ptx/wgmma_sp.cuh"

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }

/* Keeps the compiler from moving accumulator reads/writes across wgmma (the asm
 * operands alone do not order them against the async instruction). */
template <int R>
__device__ __forceinline__ void wgmma_fence_regs(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* Descriptor of a K-major tile in shared memory with swizzle span `swizzle` bytes
 * (64 or 128): start address >> 4 in bits 0-13, leading byte offset >> 4 in 16-29
 * (unused for swizzled K-major, set to 1), stride byte offset >> 4 in 32-45 = 8 rows x
 * swizzle span, swizzle mode in 62-63 (1 = 128B, 2 = 64B, 3 = 32B). */
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr, int swizzle)
{
    uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    uint64_t sbo = (uint64_t)(8 * swizzle) >> 4;
    return (uint64_t)((addr >> 4) & 0x3FFF) | (1ull << 16) | (sbo << 32) | (mode << 62);
}

__device__ __forceinline__ void setmaxnreg_inc_232() { asm volatile("setmaxnreg.inc.sync.aligned.u32 232;"); }
__device__ __forceinline__ void setmaxnreg_inc_240() { asm volatile("setmaxnreg.inc.sync.aligned.u32 240;"); }
__device__ __forceinline__ void setmaxnreg_dec_40() { asm volatile("setmaxnreg.dec.sync.aligned.u32 40;"); }
