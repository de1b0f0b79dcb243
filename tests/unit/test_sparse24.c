/* tests/unit/test_sparse24.c — 2:4 prune / compress / decompress / metadata orders,
 * checked against hand-computed bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "format/rng.h"
#include "format/sparse24.h"

#define F16 CROQ_DTYPE_F16
#define E4M3 CROQ_DTYPE_E4M3

/* ---- compress: every fill rule and every valid pair, one row of 16 groups ---------- */

/* f16 row, K = 64. Values A..U are distinct; 0x8000 is -0 (counts as non-zero). */
enum { A_ = 0x3C01, B_ = 0x3C02, C_ = 0x3C03, D_ = 0x3C04, E_ = 0x3C05, F_ = 0x3C06,
       G_ = 0x3C07, H_ = 0x3C08, I_ = 0x3C09, J_ = 0x3C0A, K_ = 0x3C0B, L_ = 0x3C0C,
       M_ = 0x3C0D, N_ = 0x3C0E, O_ = 0x3C0F, P_ = 0x3C10, R_ = 0x3C11, S_ = 0x3C12,
       T_ = 0x3C13, U_ = 0x3C14, NEG = 0xBC00, NZ = 0x8000 };

static const uint16_t row_f16[64] = {
    0, 0, 0, 0,     /* g0: none        -> (0,1) 0x4 */
    A_, 0, 0, 0,    /* g1: one at 0    -> (0,1) 0x4 */
    0, B_, 0, 0,    /* g2: one at 1    -> (0,1) 0x4 */
    0, 0, C_, 0,    /* g3: one at 2    -> (0,2) 0x8 */
    0, 0, 0, D_,    /* g4: one at 3    -> (0,3) 0xC */
    E_, F_, 0, 0,   /* g5: (0,1) 0x4 */
    G_, 0, H_, 0,   /* g6: (0,2) 0x8 */
    I_, 0, 0, J_,   /* g7: (0,3) 0xC */
    0, K_, L_, 0,   /* g8: (1,2) 0x9 */
    0, M_, 0, N_,   /* g9: (1,3) 0xD */
    0, 0, O_, P_,   /* g10: (2,3) 0xE */
    NZ, 0, 0, 0,    /* g11: -0 at 0 -> (0,1) 0x4 */
    0, 0, NZ, 0,    /* g12: -0 at 2 -> (0,2) 0x8 */
    0, NEG, 0, 0,   /* g13: one at 1 -> (0,1) 0x4 */
    0, 0, R_, S_,   /* g14: (2,3) 0xE */
    T_, 0, U_, 0,   /* g15: (0,2) 0x8 */
};
static const uint16_t values_f16[32] = {
    0, 0, A_, 0, 0, B_, 0, C_, 0, D_, E_, F_, G_, H_, I_, J_,
    K_, L_, M_, N_, O_, P_, NZ, 0, 0, NZ, 0, NEG, R_, S_, T_, U_,
};
/* nibble of group j at bits [4j+3:4j]: word 0 = g7..g0, word 1 = g15..g8 */
static const uint32_t meta_row[2] = {0xC84C8444u, 0x8E484ED9u};

static void test_compress_hand_groups_f16(void **state)
{
    (void)state;
    uint16_t values[32], dense[64];
    uint32_t meta[2];
    struct sparse24_error err;
    assert_int_equal(sparse24_compress(F16, 1, 64, row_f16, values, meta, &err), 0);
    assert_memory_equal(values, values_f16, sizeof values);
    assert_int_equal(meta[0], meta_row[0]);
    assert_int_equal(meta[1], meta_row[1]);
    assert_int_equal(sparse24_decompress(F16, 1, 64, values, meta, dense, &err), 0);
    assert_memory_equal(dense, row_f16, sizeof dense);
}

static void test_compress_hand_groups_e4m3(void **state)
{
    (void)state;
    /* the same row in e4m3: low byte of each f16 value, 0x80 for -0, 0xB8 for -1 */
    uint8_t row[64], want_values[32], values[32], dense[64];
    uint32_t meta[2];
    for (int i = 0; i < 64; i++)
        row[i] = row_f16[i] == NZ ? 0x80 : row_f16[i] == NEG ? 0xB8 : (uint8_t)(row_f16[i] & 0xFF);
    for (int i = 0; i < 32; i++)
        want_values[i] = values_f16[i] == NZ    ? 0x80
                         : values_f16[i] == NEG ? 0xB8
                                                : (uint8_t)(values_f16[i] & 0xFF);
    assert_int_equal(row[4], 0x01); /* A_ */
    assert_int_equal(sparse24_compress(E4M3, 1, 64, row, values, meta, NULL), 0);
    assert_memory_equal(values, want_values, sizeof values);
    assert_int_equal(meta[0], meta_row[0]);
    assert_int_equal(meta[1], meta_row[1]);
    assert_int_equal(sparse24_decompress(E4M3, 1, 64, values, meta, dense, NULL), 0);
    assert_memory_equal(dense, row, sizeof dense);
}

static void test_compress_rejects_three_non_zeros(void **state)
{
    (void)state;
    uint16_t dense[2 * 32] = {0};
    for (int i = 0; i < 4; i++)
        dense[8 + i] = 0x3C00; /* row 0 group 2: four non-zeros */
    dense[32 + 20] = 0x4000;   /* row 1 group 5: three non-zeros */
    dense[32 + 22] = 0x8000;   /* -0 counts */
    dense[32 + 23] = 0x0001;
    uint16_t values[32];
    uint32_t meta[2] = {0xDEADBEEFu, 0xDEADBEEFu};
    memset(values, 0xAB, sizeof values);
    struct sparse24_error err;
    assert_int_equal(sparse24_compress(F16, 2, 32, dense, values, meta, &err), -1);
    assert_int_equal(err.count, 2);
    assert_int_equal(err.listed, 2);
    assert_int_equal(err.bad[0].row, 0);
    assert_int_equal(err.bad[0].group, 2);
    assert_int_equal(err.bad[0].bits[3], 0x3C00);
    assert_int_equal(err.bad[1].row, 1);
    assert_int_equal(err.bad[1].group, 5);
    assert_int_equal(err.bad[1].bits[0], 0x4000);
    assert_int_equal(err.bad[1].bits[1], 0x0000);
    assert_int_equal(err.bad[1].bits[2], 0x8000);
    assert_int_equal(err.bad[1].bits[3], 0x0001);
    assert_string_equal(err.msg,
                        "2 groups of 4 along K hold more than 2 non-zeros (input is not 2:4); "
                        "first 2: row 0 group 2 [3c00 3c00 3c00 3c00] "
                        "row 1 group 5 [4000 0000 8000 0001]");
    /* nothing written */
    assert_int_equal(meta[0], 0xDEADBEEFu);
    assert_int_equal(values[0], 0xABAB);
}

static void test_compress_lists_first_eight(void **state)
{
    (void)state;
    uint8_t dense[64];
    memset(dense, 0x38, sizeof dense); /* every group of a 1 x 64 e4m3 row is full */
    uint8_t values[32];
    uint32_t meta[2];
    struct sparse24_error err;
    assert_int_equal(sparse24_compress(E4M3, 1, 64, dense, values, meta, &err), -1);
    assert_int_equal(err.count, 16);
    assert_int_equal(err.listed, SPARSE24_ERR_LIST);
    assert_int_equal(err.bad[7].group, 7);
    assert_int_equal(err.bad[7].bits[2], 0x38);
    assert_non_null(strstr(err.msg, "16 groups"));
    assert_non_null(strstr(err.msg, "first 8:"));
    assert_null(strstr(err.msg, "group 8 "));
}

static void test_argument_errors(void **state)
{
    (void)state;
    uint32_t meta[4] = {0};
    uint16_t v[64] = {0};
    struct sparse24_error err;
    assert_int_equal(sparse24_compress(F16, 1, 48, v, v, meta, &err), -1);
    assert_string_equal(err.msg, "'K' = 48 is not a multiple of 32");
    assert_int_equal(err.count, 0);
    assert_int_equal(sparse24_compress(7, 1, 32, v, v, meta, &err), -1);
    assert_string_equal(err.msg, "'dtype' 7 is not f16 (0) or e4m3 (1)");
    assert_int_equal(sparse24_prune(F16, -1, 4, v, v, &err), -1);
    assert_int_equal(sparse24_reorder_meta(F16, 64, 32, meta, meta, &err), -1);
    assert_string_equal(err.msg, "'K' = 32 is not a multiple of 64");
    assert_int_equal(sparse24_unorder_meta(E4M3, 64, 96, meta, meta, &err), -1);
    assert_int_equal(sparse24_validate_meta(1, 33, meta, &err), -1);
}

/* ---- validate / decompress ------------------------------------------------------ */

static void test_validate_rejects_nibble_5(void **state)
{
    (void)state;
    uint32_t meta[2] = {0x44444454u, 0xE4444444u}; /* row 0 group 1 = 0x5 (1,1) */
    struct sparse24_error err;
    assert_int_equal(sparse24_validate_meta(1, 64, meta, &err), -1);
    assert_int_equal(err.count, 1);
    assert_int_equal(err.bad[0].row, 0);
    assert_int_equal(err.bad[0].group, 1);
    assert_int_equal(err.bad[0].nibble, 0x5);
    assert_string_equal(err.msg, "1 metadata nibbles are invalid (need i0 < i1); "
                                 "first 1: row 0 group 1 nibble 0x5");
    uint16_t values[32] = {0}, dense[64];
    memset(dense, 0xCD, sizeof dense);
    assert_int_equal(sparse24_decompress(F16, 1, 64, values, meta, dense, &err), -1);
    assert_int_equal(err.bad[0].nibble, 0x5);
    assert_int_equal(dense[0], 0xCDCD); /* nothing written */
}

static void test_validate_accepts_exactly_six_nibbles(void **state)
{
    (void)state;
    int valid = 0;
    for (uint32_t nib = 0; nib < 16; nib++) {
        /* row 1, group 8+3 = 11 holds nib; everything else (0,1) */
        uint32_t meta[4] = {0x44444444u, 0x44444444u, 0x44444444u, 0x44444444u};
        meta[3] = (meta[3] & ~0xF000u) | (nib << 12);
        struct sparse24_error err;
        int rc = sparse24_validate_meta(2, 64, meta, &err);
        int want_ok = nib == 0x4 || nib == 0x8 || nib == 0xC || nib == 0x9 || nib == 0xD ||
                      nib == 0xE;
        assert_int_equal(rc, want_ok ? 0 : -1);
        if (!want_ok) {
            assert_int_equal(err.bad[0].row, 1);
            assert_int_equal(err.bad[0].group, 11);
            assert_int_equal(err.bad[0].nibble, nib);
        }
        valid += want_ok;
    }
    assert_int_equal(valid, 6);
}

static void test_decompress_places_values(void **state)
{
    (void)state;
    /* groups 0..5 use the six pairs in the order 0x4 0x8 0xC 0x9 0xD 0xE, 6..7 = 0x4 */
    uint32_t meta[1] = {0x44ED9C84u};
    uint8_t values[16], dense[32];
    for (int i = 0; i < 16; i++)
        values[i] = (uint8_t)(0x10 + i);
    const uint8_t want[32] = {
        0x10, 0x11, 0, 0,   0x12, 0, 0x13, 0,   0x14, 0, 0, 0x15,   0, 0x16, 0x17, 0,
        0, 0x18, 0, 0x19,   0, 0, 0x1A, 0x1B,   0x1C, 0x1D, 0, 0,   0x1E, 0x1F, 0, 0,
    };
    assert_int_equal(sparse24_decompress(E4M3, 1, 32, values, meta, dense, NULL), 0);
    assert_memory_equal(dense, want, sizeof want);
    uint8_t back[16];
    uint32_t meta_back[1];
    assert_int_equal(sparse24_compress(E4M3, 1, 32, dense, back, meta_back, NULL), 0);
    assert_memory_equal(back, values, sizeof back);
    assert_int_equal(meta_back[0], meta[0]);
}

/* ---- prune --------------------------------------------------------------------- */

static void test_prune_ties_and_order_f16(void **state)
{
    (void)state;
    /* 1 -1 1 0.5 | 0.5 2 -2 2 | 3 1 2 4 | 0 0 0 0 | -0 0 0 0 | inf 1 -inf 2 | 0 0 0x0001 0 | 0 0 0 0 */
    uint16_t in[32] = {
        0x3C00, 0xBC00, 0x3C00, 0x3800,  0x3800, 0x4000, 0xC000, 0x4000,
        0x4200, 0x3C00, 0x4000, 0x4400,  0, 0, 0, 0,
        0x8000, 0, 0, 0,                 0x7C00, 0x3C00, 0xFC00, 0x4000,
        0, 0, 0x0001, 0,                 0, 0, 0, 0,
    };
    const uint16_t want[32] = {
        0x3C00, 0xBC00, 0, 0,            0, 0x4000, 0xC000, 0,
        0x4200, 0, 0, 0x4400,            0, 0, 0, 0,
        0x8000, 0, 0, 0,                 0x7C00, 0, 0xFC00, 0,
        0, 0, 0x0001, 0,                 0, 0, 0, 0,
    };
    uint16_t out[32];
    assert_int_equal(sparse24_prune(F16, 1, 32, in, out, NULL), 0);
    assert_memory_equal(out, want, sizeof want);
    assert_int_equal(sparse24_prune(F16, 1, 32, in, in, NULL), 0); /* in place */
    assert_memory_equal(in, want, sizeof want);
}

static void test_prune_ties_e4m3(void **state)
{
    (void)state;
    /* -1 1 -1 1 | 0.5 0.25 -0.5 1 : magnitudes by the low 7 bits */
    uint8_t in[8] = {0xB8, 0x38, 0xB8, 0x38, 0x30, 0x28, 0xB0, 0x38};
    const uint8_t want[8] = {0xB8, 0x38, 0, 0, 0x30, 0, 0, 0x38};
    uint8_t out[8];
    assert_int_equal(sparse24_prune(E4M3, 2, 4, in, out, NULL), 0);
    assert_memory_equal(out, want, sizeof want);
}

static void test_prune_rejects_nan(void **state)
{
    (void)state;
    uint16_t h[8] = {0x3C00, 0, 0, 0, 0, 0x7E00, 0, 0x3C00};
    uint16_t out[8] = {0};
    struct sparse24_error err;
    assert_int_equal(sparse24_prune(F16, 2, 4, h, out, &err), -1);
    assert_int_equal(err.count, 1);
    assert_int_equal(err.bad[0].row, 1);
    assert_int_equal(err.bad[0].group, 0);
    assert_int_equal(err.bad[0].bits[1], 0x7E00);
    assert_int_equal(out[0], 0); /* nothing written */
    uint8_t b[8] = {0xFF, 0, 0, 0, 0x7F, 0x38, 0x38, 0x38};
    assert_int_equal(sparse24_prune(E4M3, 1, 8, b, b, &err), -1);
    assert_int_equal(err.count, 2);
    assert_int_equal(err.bad[1].group, 1);
    assert_int_equal(err.bad[1].bits[0], 0x7F);
    assert_int_equal(b[5], 0x38);
}

/* ---- round trip on random matrices ------------------------------------------------ */

static void round_trip(int dtype, long m, long k, uint64_t seed)
{
    size_t esz = dtype == F16 ? 2 : 1, n = (size_t)m * (size_t)k;
    void *dense = malloc(n * esz), *pruned = malloc(n * esz), *back = malloc(n * esz);
    void *values = malloc(sparse24_values_bytes(dtype, m, k));
    uint32_t *meta = malloc(sparse24_meta_words(m, k) * 4);
    struct rng r;
    rng_seed(&r, seed);
    assert_int_equal(rng_fill(&r, dtype, dense, n, -2.0f, 2.0f, NULL, 0), 0);
    assert_int_equal(sparse24_prune(dtype, m, k, dense, pruned, NULL), 0);
    struct sparse24_error err;
    assert_int_equal(sparse24_compress(dtype, m, k, pruned, values, meta, &err), 0);
    assert_int_equal(sparse24_validate_meta(m, k, meta, &err), 0);
    assert_int_equal(sparse24_decompress(dtype, m, k, values, meta, back, &err), 0);
    assert_memory_equal(back, pruned, n * esz);
    /* the random dense matrix itself is not 2:4: compress must say so */
    assert_int_equal(sparse24_compress(dtype, m, k, dense, values, meta, &err), -1);
    assert_true(err.count > 0);
    free(dense);
    free(pruned);
    free(back);
    free(values);
    free(meta);
}

static void test_round_trip_random(void **state)
{
    (void)state;
    round_trip(F16, 37, 96, 1);
    round_trip(F16, 128, 256, 2);
    round_trip(E4M3, 37, 96, 3);
    round_trip(E4M3, 130, 512, 4);
}

/* ---- wgmma order ------------------------------------------------------------------ */

/* Natural word c of row r, distinct everywhere: low half 4r + c, high half 0x8000 | (4r + c). */
static void fill_distinct_meta(uint32_t *meta, long m, long words)
{
    for (long r = 0; r < m; r++)
        for (long c = 0; c < words; c++) {
            uint32_t lo = (uint32_t)(4 * r + c);
            meta[r * words + c] = ((0x8000u | lo) << 16) | lo;
        }
}

/* M = 64, K = 128: w[1][2][128]. Expected words computed by hand from the rule in
 * sparse24.h (tid = 32w + 4g + t; r0 = 16w + g; r1 = r0 + 8). */
static void test_reorder_hand_f16(void **state)
{
    (void)state;
    uint32_t meta[64 * 4], w[4 * 256]; /* 1 block + 3 padding blocks (kernels/abi.h) */
    fill_distinct_meta(meta, 64, 4);
    assert_int_equal(sparse24_wgmma_meta_words(64, 128), 4 * 256);
    assert_int_equal(sparse24_reorder_meta(F16, 64, 128, meta, w, NULL), 0);
    assert_int_equal(w[0], 0x00200000u);   /* kc0 t0: lo(0,0) | lo(8,0) << 16 */
    assert_int_equal(w[1], 0x80208000u);   /* kc0 t1: hi(0,0) | hi(8,0) << 16 */
    assert_int_equal(w[2], 0x00210001u);   /* kc0 t2: lo(0,1) | lo(8,1) << 16 */
    assert_int_equal(w[3], 0x80218001u);   /* kc0 t3: hi(0,1) | hi(8,1) << 16 */
    assert_int_equal(w[37], 0x80648044u);  /* w1 g1 t1: hi(17,0) | hi(25,0) << 16 */
    assert_int_equal(w[127], 0x80FD80DDu); /* w3 g7 t3: hi(55,1) | hi(63,1) << 16 */
    assert_int_equal(w[130], 0x00230003u); /* kc1 t2: lo(0,3) | lo(8,3) << 16 */
    assert_int_equal(w[224], 0x00E200C2u); /* kc1 w3 g0 t0: lo(48,2) | lo(56,2) << 16 */
    /* every 16-bit half of the natural layout appears exactly once */
    int seen[2][256] = {{0}};
    for (int i = 0; i < 256; i++)
        for (int h = 0; h < 2; h++) {
            uint32_t half = (w[i] >> (16 * h)) & 0xFFFF;
            seen[half >> 15][half & 0xFF]++;
            assert_int_equal(half & 0x7F00, 0);
        }
    for (int i = 0; i < 256; i++) {
        assert_int_equal(seen[0][i], 1);
        assert_int_equal(seen[1][i], 1);
    }
}

static void test_reorder_hand_e4m3(void **state)
{
    (void)state;
    uint32_t meta[64 * 4], w[4 * 256]; /* 1 block + 3 padding blocks */
    fill_distinct_meta(meta, 64, 4);
    assert_int_equal(sparse24_reorder_meta(E4M3, 64, 128, meta, w, NULL), 0);
    assert_int_equal(w[0], 0x80000000u);   /* t0: nat(0,0) */
    assert_int_equal(w[1], 0x80200020u);   /* t1: nat(8,0) */
    assert_int_equal(w[2], 0x80010001u);   /* t2: nat(0,1) */
    assert_int_equal(w[3], 0x80210021u);   /* t3: nat(8,1) */
    assert_int_equal(w[37], 0x80640064u);  /* w1 g1 t1: nat(25,0) */
    assert_int_equal(w[127], 0x80FD00FDu); /* w3 g7 t3: nat(63,1) */
    assert_int_equal(w[130], 0x80030003u); /* kc1 t2: nat(0,3) */
    assert_int_equal(w[224], 0x80C200C2u); /* kc1 w3 g0 t0: nat(48,2) */
    int seen[256] = {0};
    for (int i = 0; i < 256; i++)
        seen[w[i] & 0xFF]++;
    for (int i = 0; i < 256; i++)
        assert_int_equal(seen[i], 1);
}

/* M = 70: the second 64-row block has 6 real rows and 58 padding rows. */
static void test_reorder_padding_rows(void **state)
{
    (void)state;
    uint32_t meta[70 * 2], w[5 * 128]; /* 2 blocks + 3 padding blocks (kernels/abi.h) */
    fill_distinct_meta(meta, 70, 2);
    assert_int_equal(sparse24_wgmma_meta_words(70, 64), 5 * 128);
    assert_int_equal(sparse24_reorder_meta(F16, 70, 64, meta, w, NULL), 0);
    const uint32_t *b1 = w + 128;
    assert_int_equal(b1[4 * 5 + 0], 0x44440000u | (4 * 69)); /* g5 t0: lo(69,0) | pad */
    assert_int_equal(b1[4 * 5 + 3], 0x44448000u | (4 * 69 + 1)); /* g5 t3: hi(69,1) | pad */
    assert_int_equal(b1[4 * 6 + 0], 0x44444444u);           /* g6: rows 70, 78 */
    assert_int_equal(b1[32 + 0], 0x44444444u);               /* warp 1: rows 80, 88 */
    for (int i = 2 * 128; i < 5 * 128; i++)                  /* blocks past ceil(M/64) */
        assert_int_equal(w[i], 0x44444444u);
    int pad_halves = 0;
    for (int i = 0; i < 128; i++)
        pad_halves += ((b1[i] & 0xFFFF) == 0x4444) + ((b1[i] >> 16) == 0x4444);
    assert_int_equal(pad_halves, 256 - 6 * 4); /* 6 real rows x 2 words x 2 halves */

    assert_int_equal(sparse24_reorder_meta(E4M3, 70, 64, meta, w, NULL), 0);
    assert_int_equal(b1[4 * 5 + 0], 0x80000000u | (0x8000u + 4 * 69) << 16 | (4 * 69)); /* nat(69,0) */
    assert_int_equal(b1[4 * 5 + 1], 0x44444444u); /* row 77 */
    int pad_words = 0;
    for (int i = 0; i < 128; i++)
        pad_words += b1[i] == 0x44444444u;
    assert_int_equal(pad_words, 128 - 6 * 2);
}

static void test_reorder_unorder_identity(void **state)
{
    (void)state;
    const long m = 70, k = 192;
    size_t nn = sparse24_meta_words(m, k), nw = sparse24_wgmma_meta_words(m, k);
    assert_int_equal(nn, 70 * 6);
    assert_int_equal(nw, (2 + 3) * 3 * 128);
    uint32_t *nat = malloc(nn * 4), *back = malloc(nn * 4), *w = malloc(nw * 4), *w2 = malloc(nw * 4);
    struct rng r;
    rng_seed(&r, 99);
    for (size_t i = 0; i < nn; i++)
        nat[i] = (uint32_t)rng_next(&r);
    for (int dtype = 0; dtype < 2; dtype++) {
        memset(back, 0, nn * 4);
        assert_int_equal(sparse24_reorder_meta(dtype, m, k, nat, w, NULL), 0);
        assert_int_equal(sparse24_unorder_meta(dtype, m, k, w, back, NULL), 0);
        assert_memory_equal(back, nat, nn * 4);
        assert_int_equal(sparse24_reorder_meta(dtype, m, k, back, w2, NULL), 0);
        assert_memory_equal(w2, w, nw * 4);
    }
    free(nat);
    free(back);
    free(w);
    free(w2);
}

static void test_sizes(void **state)
{
    (void)state;
    assert_int_equal(sparse24_values_bytes(F16, 70, 128), 70 * 64 * 2);
    assert_int_equal(sparse24_values_bytes(E4M3, 70, 128), 70 * 64);
    assert_int_equal(sparse24_meta_words(70, 128), 280);
    assert_int_equal(sparse24_wgmma_meta_words(70, 128), (2 + 3) * 2 * 128);
    assert_int_equal(sparse24_wgmma_meta_words(64, 128), (1 + 3) * 2 * 128);
    struct sparse24_meta_source s;
    sparse24_wgmma_meta_source(F16, 1, 2, 127, &s);
    assert_int_equal(s.parts, 2);
    assert_int_equal(s.row[0], 64 + 55);
    assert_int_equal(s.row[1], 64 + 63);
    assert_int_equal(s.word, 5);
    assert_int_equal(s.shift, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compress_hand_groups_f16),
        cmocka_unit_test(test_compress_hand_groups_e4m3),
        cmocka_unit_test(test_compress_rejects_three_non_zeros),
        cmocka_unit_test(test_compress_lists_first_eight),
        cmocka_unit_test(test_argument_errors),
        cmocka_unit_test(test_validate_rejects_nibble_5),
        cmocka_unit_test(test_validate_accepts_exactly_six_nibbles),
        cmocka_unit_test(test_decompress_places_values),
        cmocka_unit_test(test_prune_ties_and_order_f16),
        cmocka_unit_test(test_prune_ties_e4m3),
        cmocka_unit_test(test_prune_rejects_nan),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_reorder_hand_f16),
        cmocka_unit_test(test_reorder_hand_e4m3),
        cmocka_unit_test(test_reorder_padding_rows),
        cmocka_unit_test(test_reorder_unorder_identity),
        cmocka_unit_test(test_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
