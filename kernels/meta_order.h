/* kernels/meta_order.h — where each word of the wgmma-order metadata comes from
 * (layout: kernels/abi.h, src/format/sparse24.h). One definition for the host
 * reorder (src/format/sparse24.c) and the GPU compressor of the croqsparse library
 * (lib/compress.cu), so the two cannot disagree.
 *
 * Word [mb][kc][tid] (tid = thread of a consumer warpgroup, mb = 64-row block, kc =
 * 64-wide dense K chunk) is made of `parts` slices of 32/parts bits: slice j is bits
 * [shift, shift + 32/parts) of natural word `word` of row row[j] (natural word c of a
 * row describes groups 8c..8c+7), placed at bit j*32/parts. Rows >= M read as the pad
 * word 0x44444444. f16 (m64nNk32, two k32 steps per word): rows r0 and r0+8, 16-bit
 * halves; e4m3 (k64, one step): one row, the whole word.
 * Plain C, also compiled as CUDA C++ (host and device).
 */
#ifndef CROQ_KERNELS_META_ORDER_H
#define CROQ_KERNELS_META_ORDER_H

#ifdef __CUDACC__
#define CROQ_HD __host__ __device__ __forceinline__
#else
#define CROQ_HD static inline
#endif

struct croq_meta_source {
    int parts;
    long row[2]; /* row[1] == row[0] when parts == 1 */
    long word;
    unsigned shift;
};

CROQ_HD struct croq_meta_source croq_meta_source(int dtype_is_f16, long mb, long kc, int tid)
{
    struct croq_meta_source s;
    int w = tid >> 5, g = (tid >> 2) & 7, t = tid & 3;
    long r0 = 64 * mb + 16 * w + g;
    s.word = 2 * kc + (t >> 1);
    if (dtype_is_f16) {
        s.parts = 2;
        s.row[0] = r0;
        s.row[1] = r0 + 8;
        s.shift = 16u * (unsigned)(t & 1);
    } else {
        s.parts = 1;
        s.row[0] = s.row[1] = r0 + 8 * (t & 1);
        s.shift = 0;
    }
    return s;
}

#endif
