/* src/format/sparse24.h — the 2:4 structured-sparse format of the left operand A.
 *
 * Elements are dtype = enum croq_dtype (kernels/abi.h): f16 as uint16_t, e4m3 as
 * uint8_t bit patterns (src/format/numeric.h). Every matrix is row-major, innermost
 * (K) contiguous, with no row padding. A "group" is 4 consecutive K elements
 * [4g, 4g+4) of one row; group index g counts along the row (0 .. K/4-1).
 *
 * Dense A             [M][K]           dtype
 * Values              [M][K/2]         dtype: the 2 kept elements of each group, in K order
 * Natural metadata    [M][K/32]        u32: bits [4j+3:4j] of word c of a row describe
 *                                      group 8c+j (K [32c+4j, 32c+4j+4)); nibble =
 *                                      i0 | (i1 << 2), 0 <= i0 < i1 <= 3, the in-group
 *                                      indices of the two kept elements. Valid nibbles:
 *                                      0x4 (0,1) 0x8 (0,2) 0xC (0,3) 0x9 (1,2) 0xD (1,3)
 *                                      0xE (2,3); equal indices are undefined behaviour
 *                                      for the sparse MMA (PTX ISA, "Sparse matrix
 *                                      storage"; /work/shared/docs/sparse-gemm-sm90.md 2).
 * wgmma-order metadata [ceil(M/64)][K/64][128] u32: what the kernels load, one word
 *                                      per thread of a warpgroup per 64-row block and
 *                                      64-wide dense K chunk (sparse24_reorder_meta).
 *
 * "Non-zero" means a bit pattern other than +0: -0 counts as a stored element, so
 * compress -> decompress reproduces every bit (sparse24_prune writes +0).
 *
 * Errors: functions return 0, or -1 and fill *err when err is not NULL. err->msg is
 * one line for the user; for data errors err->count is the number of offending
 * groups (or metadata nibbles) and err->bad[] lists the first SPARSE24_ERR_LIST in
 * row-major order. On error no output is written.
 * Dimension limits: 0 <= M, K <= 2^31; K a multiple of 4 (prune), 32 (compress,
 * decompress, validate: whole metadata words) or 64 (reorder: whole wgmma chunks).
 */
#ifndef CROQ_FORMAT_SPARSE24_H
#define CROQ_FORMAT_SPARSE24_H

#include <stddef.h>
#include <stdint.h>

#define SPARSE24_ERR_LIST 8
/* The padding word of a metadata row beyond M: every nibble (0,1), never 0x0. */
#define SPARSE24_META_PAD 0x44444444u

struct sparse24_bad_group {
    long row;         /* row of A (in reorder/unorder: possibly a padding row >= M) */
    long group;       /* group index along the row: elements [4*group, 4*group+4) */
    uint16_t bits[4]; /* prune, compress: the 4 elements' bit patterns; else 0 */
    uint8_t nibble;   /* validate, decompress: the metadata nibble; else 0 */
};

struct sparse24_error {
    long count;  /* offending groups in total; 0 for an argument error */
    int listed;  /* entries of bad[] filled: min(count, SPARSE24_ERR_LIST) */
    struct sparse24_bad_group bad[SPARSE24_ERR_LIST];
    char msg[768];
};

/* Sizes. No validation: pass dimensions that the functions below accept. */
size_t sparse24_values_bytes(int dtype, long m, long k);  /* m * (k/2) * element bytes */
size_t sparse24_meta_words(long m, long k);               /* m * (k/32) */
/* CROQ_META_BLOCKS(m) * (k/64) * 128: ceil(m/64) blocks plus three of SPARSE24_META_PAD,
 * because a CTA tile may overhang M by up to three m64 blocks (kernels/abi.h). */
size_t sparse24_wgmma_meta_words(long m, long k);

/* Dense [M][K] -> dense [M][K] 2:4: in every group the two largest magnitudes keep
 * their bit patterns (ties: the lower index wins), the other two become +0. out may
 * equal dense. Fails on any NaN, listing the groups that hold one. */
int sparse24_prune(int dtype, long m, long k, const void *dense, void *out,
                   struct sparse24_error *err);

/* Dense 2:4 [M][K] -> values [M][K/2] + natural metadata [M][K/32].
 * Group with 2 non-zeros at i0 < i1: (i0, i1). With one at i: i plus the lowest
 * other index (an explicit zero), sorted: i=0 -> (0,1), i>0 -> (0,i). With none:
 * (0,1). Fails if any group has more than 2 non-zeros (err->bad[] has their bits). */
int sparse24_compress(int dtype, long m, long k, const void *dense, void *values,
                      uint32_t *meta, struct sparse24_error *err);

/* Whether dense [M][K] is 2:4 (K % 4 == 0): fails listing the groups with more than 2
 * non-zeros, in row-major order (what compress would reject). */
int sparse24_check(int dtype, long m, long k, const void *dense, struct sparse24_error *err);

/* Values + natural metadata -> dense [M][K] (the exact inverse of compress, zeros
 * elsewhere). Fails, writing nothing, if any nibble is invalid. */
int sparse24_decompress(int dtype, long m, long k, const void *values,
                        const uint32_t *meta, void *dense, struct sparse24_error *err);

/* Check every nibble of natural metadata [M][K/32]: fails on i0 >= i1 (0x0-0x3,
 * 0x5-0x7, 0xA, 0xB, 0xF), listing row, group and nibble. */
int sparse24_validate_meta(long m, long k, const uint32_t *meta, struct sparse24_error *err);

/* Where wgmma-order word [mb][kc][tid] comes from: parts (1 or 2) slices of
 * 32/parts bits; slice j = (nat(row[j], word) >> shift) masked to 32/parts bits,
 * placed at bit j*32/parts of the output word. nat(r, c) = natural word c of row r,
 * or SPARSE24_META_PAD when r >= M. */
struct sparse24_meta_source {
    int parts;
    long row[2]; /* row[1] == row[0] when parts == 1 */
    long word;   /* natural word index within the row: K [32*word, 32*word+32) */
    unsigned shift;
};

/* The mapping itself, for thread tid (0..127) of the consumer warpgroup, 64-row
 * block mb and 64-wide dense K chunk kc (kernels/meta_order.h, shared with the GPU
 * compressor of lib/; sparse24.c has the derivation). */
void sparse24_wgmma_meta_source(int dtype, long mb, long kc, int tid,
                                struct sparse24_meta_source *src);

/* Natural [M][K/32] -> wgmma order [ceil(M/64)][K/64][128]. K % 64 == 0. Rows past
 * M read as SPARSE24_META_PAD. The input is not validated (see validate_meta). */
int sparse24_reorder_meta(int dtype, long m, long k, const uint32_t *meta,
                          uint32_t *wgmma, struct sparse24_error *err);
/* The inverse: wgmma order -> natural [M][K/32]; slices from padding rows are
 * ignored. unorder(reorder(x)) == x for every x. */
int sparse24_unorder_meta(int dtype, long m, long k, const uint32_t *wgmma,
                          uint32_t *meta, struct sparse24_error *err);

#endif
