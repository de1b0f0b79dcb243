/* lib/compress.cu — 2:4 prune and compress of a row-major A on the GPU (croqsparse).
 *
 * Compiled at build time by nvcc for sm_90a into a cubin that the library embeds and
 * loads with the driver API (no nvcc at run time). Bit-identical to the host versions
 * (src/format/sparse24.h) on valid input:
 *   prune:    per group of 4 along K the two largest magnitudes keep their bits (ties:
 *             lower index), the others become +0. Magnitude = the bits without the sign
 *             (sign-magnitude formats), so a NaN counts as the largest (the host version
 *             refuses NaN; this one cannot report, it runs on a stream).
 *   compress: values [M][K/2] = the group's pair (i0 < i1) in K order, metadata in wgmma
 *             order (kernels/meta_order.h), pad blocks 0x44444444. Pair rule: 2 non-zeros
 *             (bits != +0) at i0 < i1; one at i: (0,1) if i == 0 else (0,i); none: (0,1).
 *             A group with more than two non-zeros is compressed as if pruned first.
 * One thread per group (prune, values) or per metadata word. Element e of A: f16 as
 * uint16, e4m3 as uint8 (dtype_is_f16 selects).
 */
#include <stddef.h>
#include <stdint.h>

#include "meta_order.h"

#define PAD_WORD 0x44444444u

__device__ __forceinline__ uint32_t load_elem(const void *a, int f16, size_t i)
{
    return f16 ? ((const uint16_t *)a)[i] : ((const uint8_t *)a)[i];
}

__device__ __forceinline__ void store_elem(void *a, int f16, size_t i, uint32_t v)
{
    if (f16)
        ((uint16_t *)a)[i] = (uint16_t)v;
    else
        ((uint8_t *)a)[i] = (uint8_t)v;
}

__device__ __forceinline__ uint32_t magnitude(int f16, uint32_t bits) { return bits & (f16 ? 0x7FFFu : 0x7Fu); }

/* The two kept indices of a group by magnitude (a: largest, b: second; lower index on ties). */
__device__ __forceinline__ void top2(int f16, const uint32_t bits[4], int *a, int *b)
{
    int x = 0;
    for (int i = 1; i < 4; i++)
        if (magnitude(f16, bits[i]) > magnitude(f16, bits[x]))
            x = i;
    int y = -1;
    for (int i = 0; i < 4; i++)
        if (i != x && (y < 0 || magnitude(f16, bits[i]) > magnitude(f16, bits[y])))
            y = i;
    *a = x;
    *b = y;
}

/* The (i0, i1) a group is stored as: the compress rule above on its pruned form. */
__device__ __forceinline__ void group_pair(int f16, uint32_t bits[4], int *i0, int *i1)
{
    int a, b;
    top2(f16, bits, &a, &b);
    for (int i = 0; i < 4; i++)
        if (i != a && i != b)
            bits[i] = 0;
    int nz[4], n = 0;
    for (int i = 0; i < 4; i++)
        if (bits[i])
            nz[n++] = i;
    if (n == 2) {
        *i0 = nz[0];
        *i1 = nz[1];
    } else if (n == 1) {
        *i0 = 0;
        *i1 = nz[0] == 0 ? 1 : nz[0];
    } else {
        *i0 = 0;
        *i1 = 1;
    }
}

__device__ __forceinline__ void load_group(const void *a, int f16, size_t first, uint32_t bits[4])
{
    for (int i = 0; i < 4; i++)
        bits[i] = load_elem(a, f16, first + i);
}

/* Per group of 4 along K: values == 0 prunes it into out (4 elements), values == 1 stores
 * its kept pair into out (2 elements, the compressed values). */
extern "C" __global__ void croqsparse_groups(const void *dense, void *out, int f16, long long groups, int values)
{
    for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < groups;
         g += (long long)gridDim.x * blockDim.x) {
        uint32_t bits[4];
        int a, b;
        load_group(dense, f16, 4 * (size_t)g, bits);
        if (values) {
            group_pair(f16, bits, &a, &b);
            store_elem(out, f16, 2 * (size_t)g, bits[a]);
            store_elem(out, f16, 2 * (size_t)g + 1, bits[b]);
        } else {
            top2(f16, bits, &a, &b);
            for (int i = 0; i < 4; i++)
                store_elem(out, f16, 4 * (size_t)g + i, (i == a || i == b) ? bits[i] : 0);
        }
    }
}

/* Bits [4*j0, 4*j1) of natural metadata word `word` of row `row` (groups 8*word + j0 ..
 * 8*word + j1 - 1), the others 0: a wgmma word needs half a natural word for f16. */
__device__ __forceinline__ uint32_t natural_word(const void *dense, int f16, long m, long k, long row, long word,
                                                 int j0, int j1)
{
    if (row >= m)
        return PAD_WORD;
    uint32_t w = 0;
    for (int j = j0; j < j1; j++) {
        uint32_t bits[4];
        int i0, i1;
        load_group(dense, f16, (size_t)row * k + 32 * (size_t)word + 4 * j, bits);
        group_pair(f16, bits, &i0, &i1);
        w |= (uint32_t)(i0 | (i1 << 2)) << (4 * j);
    }
    return w;
}

/* One thread per wgmma-order word [mb][kc][tid]; words = blocks * (K/64) * 128. */
extern "C" __global__ void croqsparse_meta(const void *dense, uint32_t *meta, int f16, long m, long k,
                                           long long words)
{
    const long kchunks = k / 64;
    for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < words;
         o += (long long)gridDim.x * blockDim.x) {
        const int tid = (int)(o % 128);
        const long kc = (long)((o / 128) % kchunks), mb = (long)(o / 128 / kchunks);
        const struct croq_meta_source s = croq_meta_source(f16, mb, kc, tid);
        const int width = 32 / s.parts;
        const uint32_t mask = s.parts == 1 ? 0xFFFFFFFFu : 0xFFFFu;
        uint32_t out = 0;
        for (int j = 0; j < s.parts; j++)
            out |= ((natural_word(dense, f16, m, k, s.row[j], s.word, s.shift / 4, (s.shift + width) / 4) >> s.shift) &
                    mask) << (j * width);
        meta[o] = out;
    }
}
