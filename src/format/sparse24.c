/* src/format/sparse24.c — 2:4 prune, compress, decompress and metadata orders. */
#include "sparse24.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../kernels/abi.h" /* CROQ_META_BLOCKS: the padded block count kernels read */
#include "../../kernels/meta_order.h"
#include "numeric.h"
#include "target/dtype.h"

#define DIM_MAX (1L << 31)

/* ---- errors ------------------------------------------------------------------ */

static void err_reset(struct sparse24_error *e)
{
    e->count = 0;
    e->listed = 0;
    e->msg[0] = '\0';
}

static int err_arg(struct sparse24_error *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static void err_add(struct sparse24_error *e, long row, long group, const uint32_t bits[4],
                    uint32_t nibble)
{
    if (e->listed < SPARSE24_ERR_LIST) {
        struct sparse24_bad_group *b = &e->bad[e->listed++];
        b->row = row;
        b->group = group;
        for (int i = 0; i < 4; i++)
            b->bits[i] = (uint16_t)(bits ? bits[i] : 0);
        b->nibble = (uint8_t)nibble;
    }
    e->count++;
}

/* "<count> <what>; first <n>: row R group G [b0 b1 b2 b3] ..." (or "nibble 0xN"). */
static int err_finish(struct sparse24_error *e, const char *what, int show_bits)
{
    if (!e->count)
        return 0;
    size_t n = (size_t)snprintf(e->msg, sizeof e->msg, "%ld %s; first %d:", e->count, what,
                                e->listed);
    for (int i = 0; i < e->listed && n < sizeof e->msg; i++) {
        const struct sparse24_bad_group *b = &e->bad[i];
        if (show_bits)
            n += (size_t)snprintf(e->msg + n, sizeof e->msg - n,
                                  " row %ld group %ld [%04x %04x %04x %04x]", b->row, b->group,
                                  b->bits[0], b->bits[1], b->bits[2], b->bits[3]);
        else
            n += (size_t)snprintf(e->msg + n, sizeof e->msg - n, " row %ld group %ld nibble 0x%x",
                                  b->row, b->group, b->nibble);
    }
    return -1;
}

/* 0 <= m, k <= 2^31, k a multiple of kmult. */
static int check_dims(long m, long k, long kmult, struct sparse24_error *e)
{
    if (m < 0 || k < 0 || m > DIM_MAX || k > DIM_MAX)
        return err_arg(e, "'M' x 'K' = %ld x %ld: each must be in [0, 2^31]", m, k);
    if (k % kmult)
        return err_arg(e, "'K' = %ld is not a multiple of %ld", k, kmult);
    return 0;
}

static int check_args(int dtype, long m, long k, long kmult, struct sparse24_error *e)
{
    if (!numeric_dtype_bytes(dtype))
        return err_arg(e, "'dtype' %d is not f16 (0) or e4m3 (1)", dtype);
    return check_dims(m, k, kmult, e);
}

/* ---- sizes ------------------------------------------------------------------- */

size_t sparse24_values_bytes(int dtype, long m, long k)
{
    return (size_t)m * (size_t)(k / 2) * numeric_dtype_bytes(dtype);
}

size_t sparse24_meta_words(long m, long k) { return (size_t)m * (size_t)(k / 32); }

size_t sparse24_wgmma_meta_words(long m, long k)
{
    return (size_t)CROQ_META_BLOCKS(m) * (size_t)(k / 64) * 128;
}

/* ---- groups ------------------------------------------------------------------ */

static void load_group(int dtype, const void *base, size_t first, uint32_t bits[4])
{
    for (int i = 0; i < 4; i++)
        bits[i] = numeric_load_bits(dtype, base, first + (size_t)i);
}

/* Magnitude order equals the order of the bit pattern without its sign bit (for
 * non-NaN values of a sign-magnitude format). */
static uint32_t magnitude(int dtype, uint32_t bits)
{
    return bits & croq_dtype_traits(dtype)->mag_mask;
}

static int is_nan_bits(int dtype, uint32_t bits)
{
    uint32_t mag = magnitude(dtype, bits);
    return dtype == CROQ_DTYPE_E4M3 ? mag == 0x7F : mag > 0x7C00;
}

/* The in-group index of the largest magnitude, lowest index on ties, skipping skip. */
static int argmax_magnitude(int dtype, const uint32_t bits[4], int skip)
{
    int best = -1;
    for (int i = 0; i < 4; i++)
        if (i != skip && (best < 0 || magnitude(dtype, bits[i]) > magnitude(dtype, bits[best])))
            best = i;
    return best;
}

/* The pair a 2:4 group is stored with (header: sparse24_compress); -1 if > 2 non-zeros. */
static int group_pair(const uint32_t bits[4], int *i0, int *i1)
{
    int nz[4], n = 0;
    for (int i = 0; i < 4; i++)
        if (bits[i])
            nz[n++] = i;
    if (n > 2)
        return -1;
    if (n == 2) {
        *i0 = nz[0];
        *i1 = nz[1];
    } else if (n == 1) {
        *i0 = 0; /* the lowest other index: 1 when the non-zero is at 0, else 0 */
        *i1 = nz[0] ? nz[0] : 1;
    } else {
        *i0 = 0;
        *i1 = 1;
    }
    return 0;
}

static int nibble_valid(uint32_t nib) { return (nib & 3) < (nib >> 2); }

static uint32_t meta_nibble(const uint32_t *meta, long k, long row, long group)
{
    return (meta[(size_t)row * (size_t)(k / 32) + (size_t)(group / 8)] >> (4 * (group % 8))) & 0xFu;
}

/* ---- prune ------------------------------------------------------------------- */

int sparse24_prune(int dtype, long m, long k, const void *dense, void *out,
                   struct sparse24_error *err)
{
    struct sparse24_error local;
    struct sparse24_error *e = err ? err : &local;
    err_reset(e);
    if (check_args(dtype, m, k, 4, e))
        return -1;
    uint32_t bits[4];
    for (long r = 0; r < m; r++)
        for (long g = 0; g < k / 4; g++) {
            load_group(dtype, dense, (size_t)r * (size_t)k + 4 * (size_t)g, bits);
            for (int i = 0; i < 4; i++)
                if (is_nan_bits(dtype, bits[i])) {
                    err_add(e, r, g, bits, 0);
                    break;
                }
        }
    if (err_finish(e, "groups of the matrix to prune hold a NaN", 1))
        return -1;
    for (size_t first = 0; first < (size_t)m * (size_t)k; first += 4) {
        load_group(dtype, dense, first, bits);
        int a = argmax_magnitude(dtype, bits, -1);
        int b = argmax_magnitude(dtype, bits, a);
        for (int i = 0; i < 4; i++)
            numeric_store_bits(dtype, out, first + (size_t)i, (i == a || i == b) ? bits[i] : 0);
    }
    return 0;
}

/* ---- compress / decompress ----------------------------------------------------- */

static int compress_check(int dtype, long m, long k, const void *dense, struct sparse24_error *e)
{
    uint32_t bits[4];
    int i0, i1;
    for (long r = 0; r < m; r++)
        for (long g = 0; g < k / 4; g++) {
            load_group(dtype, dense, (size_t)r * (size_t)k + 4 * (size_t)g, bits);
            if (group_pair(bits, &i0, &i1))
                err_add(e, r, g, bits, 0);
        }
    return err_finish(e, "groups of 4 along K hold more than 2 non-zeros (input is not 2:4)", 1);
}

int sparse24_check(int dtype, long m, long k, const void *dense, struct sparse24_error *err)
{
    struct sparse24_error local;
    struct sparse24_error *e = err ? err : &local;
    err_reset(e);
    return check_args(dtype, m, k, 4, e) || compress_check(dtype, m, k, dense, e) ? -1 : 0;
}

int sparse24_compress(int dtype, long m, long k, const void *dense, void *values,
                      uint32_t *meta, struct sparse24_error *err)
{
    struct sparse24_error local;
    struct sparse24_error *e = err ? err : &local;
    err_reset(e);
    if (check_args(dtype, m, k, 32, e) || compress_check(dtype, m, k, dense, e))
        return -1;
    uint32_t bits[4];
    int i0, i1;
    for (size_t g = 0; g < (size_t)m * (size_t)(k / 4); g++) {
        load_group(dtype, dense, 4 * g, bits);
        group_pair(bits, &i0, &i1);
        numeric_store_bits(dtype, values, 2 * g, bits[i0]);
        numeric_store_bits(dtype, values, 2 * g + 1, bits[i1]);
        uint32_t nib = (uint32_t)(i0 | (i1 << 2)) << (4 * (g % 8));
        meta[g / 8] = (g % 8 ? meta[g / 8] : 0) | nib;
    }
    return 0;
}

int sparse24_validate_meta(long m, long k, const uint32_t *meta, struct sparse24_error *err)
{
    struct sparse24_error local;
    struct sparse24_error *e = err ? err : &local;
    err_reset(e);
    if (check_dims(m, k, 32, e))
        return -1;
    for (long r = 0; r < m; r++)
        for (long g = 0; g < k / 4; g++) {
            uint32_t nib = meta_nibble(meta, k, r, g);
            if (!nibble_valid(nib))
                err_add(e, r, g, NULL, nib);
        }
    return err_finish(e, "metadata nibbles are invalid (need i0 < i1)", 0);
}

int sparse24_decompress(int dtype, long m, long k, const void *values,
                        const uint32_t *meta, void *dense, struct sparse24_error *err)
{
    struct sparse24_error local;
    struct sparse24_error *e = err ? err : &local;
    err_reset(e);
    if (check_args(dtype, m, k, 32, e))
        return -1;
    if (sparse24_validate_meta(m, k, meta, e))
        return -1;
    for (size_t g = 0; g < (size_t)m * (size_t)(k / 4); g++) {
        uint32_t nib = (meta[g / 8] >> (4 * (g % 8))) & 0xFu;
        for (int i = 0; i < 4; i++)
            numeric_store_bits(dtype, dense, 4 * g + (size_t)i, 0);
        numeric_store_bits(dtype, dense, 4 * g + (nib & 3), numeric_load_bits(dtype, values, 2 * g));
        numeric_store_bits(dtype, dense, 4 * g + (nib >> 2),
                           numeric_load_bits(dtype, values, 2 * g + 1));
    }
    return 0;
}

/* ---- wgmma order ---------------------------------------------------------------- */

/* Derived, to be proven on the GPU: tests/gpu (a one-tile kernel per dtype). If the
 * hardware disagrees, change only this function: reorder, unorder and the kernels'
 * single-word-per-thread load all follow it.
 *
 * Source: PTX ISA "wgmma.mma_async.sp" sparse A metadata fragments, as read off the
 * seed lineage (/work/shared/docs/sparse-gemm-sm90.md section 3). Thread
 * tid = 32w + 4g + t of the warpgroup; warp w owns rows 16w..16w+15 of the 64-row
 * block; r0 = 64mb + 16w + g, r1 = r0 + 8.
 *  f16: a 64-wide dense K chunk is two m64nNk32 wgmmas. The first (sparsity
 *   selector 0) reads threads t = 0, 1, the second (selector 1) threads t = 2, 3.
 *   Thread t holds the 16-bit half h = t & 1 (K 16h..16h+15 of its k32 step p =
 *   t >> 1, i.e. natural word 2kc+p) of rows r0 (low half) and r1 (high half).
 *  e4m3: one m64nNk64 wgmma, selector 0, all four threads: thread t holds the whole
 *   natural word 2kc + (t >> 1) of row r0 + 8 (t & 1). */
void sparse24_wgmma_meta_source(int dtype, long mb, long kc, int tid,
                                struct sparse24_meta_source *src)
{
    struct croq_meta_source m = croq_meta_source(dtype == CROQ_DTYPE_F16, mb, kc, tid);
    *src = (struct sparse24_meta_source){m.parts, {m.row[0], m.row[1]}, m.word, m.shift};
}

static uint32_t part_mask(int parts) { return parts == 1 ? 0xFFFFFFFFu : 0xFFFFu; }

static uint32_t reorder_word(int dtype, long m, long k, const uint32_t *meta, long mb, long kc,
                             int tid)
{
    struct sparse24_meta_source s;
    sparse24_wgmma_meta_source(dtype, mb, kc, tid, &s);
    uint32_t out = 0, mask = part_mask(s.parts);
    int width = 32 / s.parts;
    for (int j = 0; j < s.parts; j++) {
        uint32_t nat = s.row[j] < m ? meta[(size_t)s.row[j] * (size_t)(k / 32) + (size_t)s.word]
                                    : SPARSE24_META_PAD;
        out |= ((nat >> s.shift) & mask) << (j * width);
    }
    return out;
}

int sparse24_reorder_meta(int dtype, long m, long k, const uint32_t *meta,
                          uint32_t *wgmma, struct sparse24_error *err)
{
    struct sparse24_error local;
    struct sparse24_error *e = err ? err : &local;
    err_reset(e);
    if (check_args(dtype, m, k, 64, e))
        return -1;
    size_t o = 0;
    for (long mb = 0; mb < CROQ_META_BLOCKS(m); mb++)
        for (long kc = 0; kc < k / 64; kc++)
            for (int tid = 0; tid < 128; tid++)
                wgmma[o++] = reorder_word(dtype, m, k, meta, mb, kc, tid);
    return 0;
}

static void unorder_word(int dtype, long m, long k, uint32_t word, long mb, long kc, int tid,
                         uint32_t *meta)
{
    struct sparse24_meta_source s;
    sparse24_wgmma_meta_source(dtype, mb, kc, tid, &s);
    uint32_t mask = part_mask(s.parts);
    int width = 32 / s.parts;
    for (int j = 0; j < s.parts; j++) {
        if (s.row[j] >= m)
            continue;
        uint32_t *nat = &meta[(size_t)s.row[j] * (size_t)(k / 32) + (size_t)s.word];
        uint32_t part = (word >> (j * width)) & mask;
        *nat = (*nat & ~(mask << s.shift)) | (part << s.shift);
    }
}

int sparse24_unorder_meta(int dtype, long m, long k, const uint32_t *wgmma,
                          uint32_t *meta, struct sparse24_error *err)
{
    struct sparse24_error local;
    struct sparse24_error *e = err ? err : &local;
    err_reset(e);
    if (check_args(dtype, m, k, 64, e))
        return -1;
    size_t o = 0;
    for (long mb = 0; mb < CROQ_META_BLOCKS(m); mb++)
        for (long kc = 0; kc < k / 64; kc++)
            for (int tid = 0; tid < 128; tid++)
                unorder_word(dtype, m, k, wgmma[o++], mb, kc, tid, meta);
    return 0;
}
