/* tests/unit/test_numeric.c — f16 and e4m3 conversions (exhaustive round trips, known
 * encodings, every rounding tie, a comparison with the compiler's _Float16 over a sweep
 * of float bit patterns) and the random operand generator of src/format/rng.h, whose
 * fillers are defined by those conversions. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "format/numeric.h"
#include "format/rng.h"

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static void test_f16_every_pattern_round_trips(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        float f = numeric_f16_to_f32((uint16_t)h);
        if (numeric_f32_to_f16(f) != h)
            fail_msg("f16 0x%04x -> %a -> 0x%04x", h, (double)f, numeric_f32_to_f16(f));
        int is_nan = (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu);
        assert_int_equal(isnan(f) != 0, is_nan);
    }
}

static void test_e4m3_every_byte_round_trips(void **state)
{
    (void)state;
    for (uint32_t b = 0; b < 256; b++) {
        float f = numeric_e4m3_to_f32((uint8_t)b);
        assert_int_equal(numeric_f32_to_e4m3(f), b);
        assert_int_equal(isnan(f) != 0, (b & 0x7F) == 0x7F);
        assert_false(isinf(f));
    }
}

static void test_f16_known_values(void **state)
{
    (void)state;
    assert_int_equal(numeric_f32_to_f16(1.0f), 0x3C00);
    assert_int_equal(numeric_f32_to_f16(-2.0f), 0xC000);
    assert_int_equal(numeric_f32_to_f16(0.0f), 0x0000);
    assert_int_equal(numeric_f32_to_f16(-0.0f), 0x8000);
    assert_int_equal(numeric_f32_to_f16(65504.0f), 0x7BFF);
    assert_int_equal(numeric_f32_to_f16(0x1p-14f), 0x0400);   /* smallest normal */
    assert_int_equal(numeric_f32_to_f16(0x1p-24f), 0x0001);   /* smallest subnormal */
    assert_int_equal(numeric_f32_to_f16(0x1p-25f), 0x0000);   /* tie to even: 0 */
    assert_int_equal(numeric_f32_to_f16(0x1.8p-25f), 0x0001); /* above the tie */
    assert_int_equal(numeric_f32_to_f16(0x1p-130f), 0x0000);  /* f32 subnormal */
    assert_int_equal(numeric_f32_to_f16(65520.0f), 0x7C00);   /* overflow midpoint -> inf */
    assert_int_equal(numeric_f32_to_f16(nextafterf(65520.0f, 0.0f)), 0x7BFF);
    assert_int_equal(numeric_f32_to_f16(-INFINITY), 0xFC00);
    assert_int_equal(numeric_f32_to_f16(1e30f), 0x7C00);
    assert_int_equal(numeric_f32_to_f16(NAN) & 0x7C00, 0x7C00);
    assert_int_not_equal(numeric_f32_to_f16(NAN) & 0x3FF, 0);
    /* a NaN whose payload lies only in the low 13 bits must not become inf */
    assert_int_equal(numeric_f32_to_f16(float_of(0x7F800001u)), 0x7E00);
    /* 1 + 2^-11 is the tie between 1 and 1 + 2^-10: even mantissa wins */
    assert_int_equal(numeric_f32_to_f16(1.0f + 0x1p-11f), 0x3C00);
    assert_int_equal(numeric_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3C02);
    assert_true(numeric_f16_to_f32(0x3555) == 0x1.554p-2f);
    assert_true(numeric_f16_to_f32(0x0001) == 0x1p-24f);
    assert_true(numeric_f16_to_f32(0x7C00) == INFINITY);
    assert_int_equal(bits_of(numeric_f16_to_f32(0x8000)), 0x80000000u);
}

static void test_e4m3_known_values(void **state)
{
    (void)state;
    assert_int_equal(numeric_f32_to_e4m3(1.0f), 0x38);
    assert_int_equal(numeric_f32_to_e4m3(-1.0f), 0xB8);
    assert_int_equal(numeric_f32_to_e4m3(448.0f), 0x7E);
    assert_int_equal(numeric_f32_to_e4m3(-448.0f), 0xFE);
    assert_int_equal(numeric_f32_to_e4m3(0x1p-9f), 0x01);  /* smallest subnormal */
    assert_int_equal(numeric_f32_to_e4m3(0x1p-6f), 0x08);  /* smallest normal */
    assert_int_equal(numeric_f32_to_e4m3(0x1p-10f), 0x00); /* tie with 0: even */
    assert_int_equal(numeric_f32_to_e4m3(0x1.8p-9f), 0x02); /* 1.5 * 2^-9: tie 1|2 -> 2 */
    assert_int_equal(numeric_f32_to_e4m3(-0.0f), 0x80);
    assert_int_equal(numeric_f32_to_e4m3(0.3f), 0x2A);     /* 0.3 -> 0.3125 = 1.25 * 2^-2 */
    assert_int_equal(numeric_f32_to_e4m3(1.0625f), 0x38);  /* tie 1|1.125 -> 1 */
    assert_int_equal(numeric_f32_to_e4m3(1.1875f), 0x3A);  /* tie 1.125|1.25 -> 1.25 */
    /* saturation: above the largest finite, and infinities, give +-448 */
    assert_int_equal(numeric_f32_to_e4m3(449.0f), 0x7E);
    assert_int_equal(numeric_f32_to_e4m3(464.0f), 0x7E);
    assert_int_equal(numeric_f32_to_e4m3(1e30f), 0x7E);
    assert_int_equal(numeric_f32_to_e4m3(INFINITY), 0x7E);
    assert_int_equal(numeric_f32_to_e4m3(-INFINITY), 0xFE);
    assert_int_equal(numeric_f32_to_e4m3(NAN), 0x7F);
    assert_int_equal(numeric_f32_to_e4m3(-NAN), 0xFF);
    assert_true(numeric_e4m3_to_f32(0x7E) == 448.0f);
    assert_true(numeric_e4m3_to_f32(0x01) == 0x1p-9f);
    assert_true(numeric_e4m3_to_f32(0x77) == 240.0f); /* exponent 14, mantissa 7: 1.875 * 2^7 */
    assert_true(numeric_e4m3_to_f32(0x78) == 256.0f); /* exponent 15 is a normal binade */
    assert_true(isnan(numeric_e4m3_to_f32(0x7F)));
    assert_true(isnan(numeric_e4m3_to_f32(0xFF)));
}

/* For adjacent finite codes c, c+1: the exact midpoint rounds to the even code, and
 * the floats just below / above it to c / c+1. Both signs. */
static void check_ties(const char *what, uint32_t last, float (*dec)(uint32_t),
                       uint32_t (*enc)(float), uint32_t sign_bit)
{
    for (uint32_t c = 0; c < last; c++) {
        float lo = dec(c), hi = dec(c + 1);
        float mid = (lo + hi) / 2; /* exact: both have <= 11 significant bits */
        uint32_t even = (c & 1) ? c + 1 : c;
        for (int s = 0; s < 2; s++) {
            float m = s ? -mid : mid;
            uint32_t sb = s ? sign_bit : 0;
            if (enc(m) != (even | sb))
                fail_msg("%s: tie %a -> 0x%x, want 0x%x", what, (double)m, enc(m), even | sb);
            assert_int_equal(enc(nextafterf(m, 0.0f)), c | sb);
            assert_int_equal(enc(nextafterf(m, s ? -INFINITY : INFINITY)), (c + 1) | sb);
        }
    }
}

static float dec_f16(uint32_t c) { return numeric_f16_to_f32((uint16_t)c); }
static uint32_t enc_f16(float x) { return numeric_f32_to_f16(x); }
static float dec_e4m3(uint32_t c) { return numeric_e4m3_to_f32((uint8_t)c); }
static uint32_t enc_e4m3(float x) { return numeric_f32_to_e4m3(x); }

static void test_every_tie_rounds_to_even(void **state)
{
    (void)state;
    check_ties("f16", 0x7BFE, dec_f16, enc_f16, 0x8000); /* pairs up to (0x7BFE, 0x7BFF) */
    check_ties("e4m3", 0x7D, dec_e4m3, enc_e4m3, 0x80);  /* pairs up to (0x7D, 0x7E) */
}

/* Nearest e4m3 by brute force: smallest |x - v| over all finite codes, ties to the
 * even code. Only for |x| <= 448 (beyond that the conversion saturates). */
static uint32_t e4m3_nearest_brute(float x)
{
    uint32_t best = 0;
    double best_d = INFINITY;
    for (uint32_t c = 0; c <= 0x7E; c++) {
        double d = fabs(fabs((double)x) - numeric_e4m3_to_f32((uint8_t)c));
        if (d < best_d || (d == best_d && !(c & 1))) {
            best = c;
            best_d = d;
        }
    }
    return best | (signbit(x) ? 0x80u : 0);
}

static void test_e4m3_matches_brute_force_nearest(void **state)
{
    (void)state;
    /* every float in [2^-12, 448] with a stride that visits every binade many times */
    for (uint32_t u = bits_of(0x1p-12f); u <= bits_of(448.0f); u += 977) {
        float x = float_of(u);
        assert_int_equal(numeric_f32_to_e4m3(x), e4m3_nearest_brute(x));
        assert_int_equal(numeric_f32_to_e4m3(-x), e4m3_nearest_brute(-x));
    }
}

static void test_f16_matches_compiler_float16(void **state)
{
    (void)state;
#if defined(__FLT16_MAX__)
    /* GCC/Clang _Float16 conversion is IEEE round-to-nearest-even. */
    for (uint64_t u = 0; u <= 0xFFFFFFFFull; u += 1021) {
        float x = float_of((uint32_t)u);
        if (isnan(x))
            continue;
        _Float16 h = (_Float16)x;
        uint16_t want;
        memcpy(&want, &h, sizeof want);
        if (numeric_f32_to_f16(x) != want)
            fail_msg("%a -> 0x%04x, _Float16 says 0x%04x", (double)x, numeric_f32_to_f16(x), want);
    }
#else
    skip();
#endif
}

static void test_dtype_helpers(void **state)
{
    (void)state;
    assert_int_equal(numeric_dtype_bytes(0), 2);
    assert_int_equal(numeric_dtype_bytes(1), 1);
    assert_int_equal(numeric_dtype_bytes(2), 0);
    uint16_t h[3] = {0, 0, 0};
    numeric_store_bits(0, h, 1, 0x3C00);
    assert_int_equal(h[1], 0x3C00);
    assert_int_equal(numeric_load_bits(0, h, 1), 0x3C00);
    assert_true(numeric_load_f32(0, h, 1) == 1.0f);
    uint8_t b[3] = {0, 0, 0};
    numeric_store_bits(1, b, 2, 0x1FE);
    assert_int_equal(b[2], 0xFE);
    assert_true(numeric_load_f32(1, b, 2) == -448.0f);
}

/* ---- rng ------------------------------------------------------------------------ */

/* FNV-1a 64 of the filled bytes: a fingerprint to pin. */
static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static void test_splitmix64_known_answers(void **state)
{
    (void)state;
    /* reference splitmix64.c started at 1234567 (also rand_core's SplitMix64 test) */
    const uint64_t want[5] = {6457827717110365317ull, 3203168211198807973ull,
                              9817491932198370423ull, 4593380528125082431ull,
                              16408922859458223821ull};
    uint64_t x = 1234567;
    for (int i = 0; i < 5; i++)
        assert_int_equal(rng_splitmix64(&x), want[i]);
    x = 0;
    assert_int_equal(rng_splitmix64(&x), 0xE220A8397B1DCDAFull);
}

static void test_xoshiro_known_answers(void **state)
{
    (void)state;
    /* reference xoshiro256starstar.c from state {1, 2, 3, 4} (rand_xoshiro's test) */
    const uint64_t want[10] = {11520ull, 0ull, 1509978240ull, 1215971899390074240ull,
                               1216172134540287360ull, 607988272756665600ull,
                               16172922978634559625ull, 8476171486693032832ull,
                               10595114339597558777ull, 2904607092377533576ull};
    struct rng r = {{1, 2, 3, 4}};
    for (int i = 0; i < 10; i++)
        assert_int_equal(rng_next(&r), want[i]);
}

static void test_seed_is_splitmix_words(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 1234567);
    assert_int_equal(r.s[0], 6457827717110365317ull);
    assert_int_equal(r.s[3], 4593380528125082431ull);
}

/* Checksums pinned once (first run of this implementation, little-endian host); any
 * change to the generator, the seeding, the uniform mapping or the rounding breaks them. */
static void test_fill_bytes_pinned(void **state)
{
    (void)state;
    uint16_t h[1000];
    uint8_t b[1000];
    struct rng r;
    rng_seed(&r, 42);
    assert_int_equal(rng_fill_f16(&r, h, 1000, -1.0f, 1.0f, NULL, 0), 0);
    assert_int_equal(fnv1a(h, sizeof h), 0xb0c838b93a96a796ull);
    rng_seed(&r, 42);
    assert_int_equal(rng_fill_e4m3(&r, b, 1000, -4.0f, 4.0f, NULL, 0), 0);
    assert_int_equal(fnv1a(b, sizeof b), 0x510c994f0fc4fc24ull);
    /* The first elements by hand: seed 42 gives u0 = 0.0838629710598821...
     * f16:  -1 + 2 u0 = -0.83227 = -1.66455 * 2^-1, mantissa 0.66455 * 1024 = 680.5 ->
     *       680 (0x2A8; below the tie): 0x8000 | 14 << 10 | 0x2A8 = 0xBAA8.
     * e4m3: -4 + 8 u0 = -3.3291 = -1.66455 * 2^1, mantissa 0.66455 * 8 = 5.3 -> 5:
     *       0x80 | 8 << 3 | 5 = 0xC5. */
    rng_seed(&r, 42);
    assert_true(fabs(rng_uniform(&r) - 0.0838629710598821) < 1e-15);
    const uint16_t h_first[4] = {0xBAA8, 0xB3BF, 0x35C3, 0x3ACC};
    const uint8_t b_first[4] = {0xC5, 0xB7, 0x3C, 0x46};
    assert_memory_equal(h, h_first, sizeof h_first);
    assert_memory_equal(b, b_first, sizeof b_first);
}

static void test_same_seed_same_bytes(void **state)
{
    (void)state;
    for (uint64_t seed = 0; seed < 20; seed++) {
        uint16_t a[257], b[257];
        struct rng r1, r2;
        rng_seed(&r1, seed);
        rng_seed(&r2, seed);
        assert_int_equal(rng_fill_f16(&r1, a, 257, -3.0f, 0.5f, NULL, 0), 0);
        assert_int_equal(rng_fill_f16(&r2, b, 257, -3.0f, 0.5f, NULL, 0), 0);
        assert_memory_equal(a, b, sizeof a);
        struct rng r3;
        rng_seed(&r3, seed + 1000);
        assert_int_equal(rng_fill_f16(&r3, b, 257, -3.0f, 0.5f, NULL, 0), 0);
        assert_memory_not_equal(a, b, sizeof a);
    }
}

static void test_values_in_range_and_spread(void **state)
{
    (void)state;
    enum { N = 20000 };
    static uint16_t h[N];
    static uint8_t b[N];
    struct rng r;
    rng_seed(&r, 7);
    assert_int_equal(rng_fill_f16(&r, h, N, -0.75f, 1.25f, NULL, 0), 0);
    assert_int_equal(rng_fill_e4m3(&r, b, N, -0.75f, 1.25f, NULL, 0), 0);
    double sum_h = 0, sum_b = 0;
    int below_h = 0, below_b = 0;
    for (int i = 0; i < N; i++) {
        float x = numeric_f16_to_f32(h[i]), y = numeric_e4m3_to_f32(b[i]);
        assert_true(x >= -0.75f && x <= 1.25f); /* both ends representable in f16 */
        assert_true(y >= -0.75f && y <= 1.25f); /* and in e4m3 (1.25 = 0x3A, 0.75 = 0x34) */
        sum_h += x;
        sum_b += y;
        below_h += x < 0.25f;
        below_b += y < 0.25f;
    }
    /* mean of U(-0.75, 1.25) is 0.25; sd of the mean ~0.004 */
    assert_true(fabs(sum_h / N - 0.25) < 0.03);
    assert_true(fabs(sum_b / N - 0.25) < 0.03);
    assert_true(below_h > N * 0.45 && below_h < N * 0.55);
    assert_true(below_b > N * 0.4 && below_b < N * 0.6);
}

static void test_never_all_zero(void **state)
{
    (void)state;
    /* e4m3 in [0, (1 + 2^-10) * 2^-10]: hi is just above the tie 2^-10 between 0 and the
     * smallest subnormal 2^-9, so hi rounds to 0x01 but almost every draw rounds to 0.
     * The filler then sets the last element to hi rounded. */
    uint8_t b[16];
    struct rng r;
    rng_seed(&r, 5);
    assert_int_equal(rng_fill_e4m3(&r, b, 16, 0.0f, 0x1.004p-10f, NULL, 0), 0);
    const uint8_t want[16] = {[15] = 0x01};
    assert_memory_equal(b, want, sizeof want);
    for (uint64_t seed = 0; seed < 50; seed++) { /* one f16 element: always non-zero */
        uint16_t h;
        rng_seed(&r, seed);
        assert_int_equal(rng_fill_f16(&r, &h, 1, 0.0f, 0x1.004p-25f, NULL, 0), 0);
        assert_int_equal(h, 0x0001);
    }
}

static void test_fill_errors(void **state)
{
    (void)state;
    uint8_t b[4] = {0};
    uint16_t h[4] = {0};
    struct rng r;
    rng_seed(&r, 1);
    char err[128];
    /* every value rounds to zero (2^-10 is the tie with 0 in e4m3, even -> 0) */
    assert_int_equal(rng_fill_e4m3(&r, b, 4, -0x1p-11f, 0x1p-10f, err, sizeof err), -1);
    assert_string_equal(err, "random range [-0.000488281, 0.000976562]: every value rounds to zero in 'e4m3'");
    assert_int_equal(rng_fill_f16(&r, h, 4, 1.0f, -1.0f, err, sizeof err), -1);
    assert_string_equal(err, "random range [1, -1]: need finite lo <= hi");
    assert_int_equal(rng_fill(&r, 9, b, 4, 0.0f, 1.0f, err, sizeof err), -1);
    assert_string_equal(err, "random fill: dtype 9 is not f16 or e4m3");
    assert_int_equal(rng_fill_f16(&r, h, 4, 0.0f, INFINITY, NULL, 0), -1);
    assert_int_equal(rng_fill_f16(&r, h, 4, NAN, 1.0f, NULL, 0), -1);
    const uint16_t zero[4] = {0};
    assert_memory_equal(h, zero, sizeof zero); /* untouched */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_every_pattern_round_trips),
        cmocka_unit_test(test_e4m3_every_byte_round_trips),
        cmocka_unit_test(test_f16_known_values),
        cmocka_unit_test(test_e4m3_known_values),
        cmocka_unit_test(test_every_tie_rounds_to_even),
        cmocka_unit_test(test_e4m3_matches_brute_force_nearest),
        cmocka_unit_test(test_f16_matches_compiler_float16),
        cmocka_unit_test(test_dtype_helpers),
        cmocka_unit_test(test_splitmix64_known_answers),
        cmocka_unit_test(test_xoshiro_known_answers),
        cmocka_unit_test(test_seed_is_splitmix_words),
        cmocka_unit_test(test_fill_bytes_pinned),
        cmocka_unit_test(test_same_seed_same_bytes),
        cmocka_unit_test(test_values_in_range_and_spread),
        cmocka_unit_test(test_never_all_zero),
        cmocka_unit_test(test_fill_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
