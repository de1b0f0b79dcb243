/* tests/unit/test_reference.c — reference GEMM on hand-computed data and against a
 * plain triple loop; the tolerance bound at its documented points. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "abi.h"
#include "format/numeric.h"
#include "format/reference.h"
#include "format/rng.h"
#include "format/sparse24.h"

/* A (2x8, 2:4) and B (2x8), values exact in both f16 and e4m3:
 *   A = [1 0 2 0 | 0 -1 0 0.5]      B = [1 1 1 1 1 1 1 1]
 *       [0 0 3 4 | 0.25 0 0 0]          [1 2 3 4 5 6 7 8]
 *   C   = [2.5  5    ]   |A||B| = [4.5  17   ]
 *         [7.25 26.25]            [7.25 26.25]                                      */
static const float a_vals[16] = {1, 0, 2, 0, 0, -1, 0, 0.5f, 0, 0, 3, 4, 0.25f, 0, 0, 0};
static const float b_vals[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8};

static void hand_case(int dtype)
{
    uint16_t ah[16], bh[16];
    uint8_t ab[16], bb[16];
    for (int i = 0; i < 16; i++) {
        ah[i] = numeric_f32_to_f16(a_vals[i]);
        bh[i] = numeric_f32_to_f16(b_vals[i]);
        ab[i] = numeric_f32_to_e4m3(a_vals[i]);
        bb[i] = numeric_f32_to_e4m3(b_vals[i]);
    }
    const void *a = dtype == CROQ_DTYPE_F16 ? (const void *)ah : (const void *)ab;
    const void *b = dtype == CROQ_DTYPE_F16 ? (const void *)bh : (const void *)bb;
    double c[4], c_abs[4];
    assert_int_equal(reference_gemm_f64(dtype, 2, 2, 8, a, b, c), 0);
    assert_int_equal(reference_gemm_abs_f64(dtype, 2, 2, 8, a, b, c_abs), 0);
    assert_true(c[0] == 2.5 && c[1] == 5.0 && c[2] == 7.25 && c[3] == 26.25);
    assert_true(c_abs[0] == 4.5 && c_abs[1] == 17.0 && c_abs[2] == 7.25 && c_abs[3] == 26.25);
}

static void test_hand_2x2x8(void **state)
{
    (void)state;
    hand_case(CROQ_DTYPE_F16);
    hand_case(CROQ_DTYPE_E4M3);
}

/* Panels (256) and blocks (16) must not change the result: compare with the plain
 * triple loop on a shape that is not a multiple of either, K > one panel. */
static void test_matches_triple_loop(void **state)
{
    (void)state;
    const long m = 19, n = 23, k = 608;
    for (int dtype = 0; dtype < 2; dtype++) {
        size_t esz = numeric_dtype_bytes(dtype);
        void *a = malloc((size_t)(m * k) * esz), *ap = malloc((size_t)(m * k) * esz);
        void *b = malloc((size_t)(n * k) * esz);
        double *c = malloc((size_t)(m * n) * sizeof *c), *c_abs = malloc((size_t)(m * n) * sizeof *c);
        struct rng r;
        rng_seed(&r, 11 + (uint64_t)dtype);
        assert_int_equal(rng_fill(&r, dtype, a, (size_t)(m * k), -1.0f, 1.0f, NULL, 0), 0);
        assert_int_equal(rng_fill(&r, dtype, b, (size_t)(n * k), -1.0f, 1.0f, NULL, 0), 0);
        assert_int_equal(sparse24_prune(dtype, m, k, a, ap, NULL), 0);
        assert_int_equal(reference_gemm_both_f64(dtype, m, n, k, ap, b, c, c_abs), 0);
        for (long i = 0; i < m; i++)
            for (long j = 0; j < n; j++) {
                double s = 0, sa = 0;
                for (long kk = 0; kk < k; kk++) {
                    double x = numeric_load_f32(dtype, ap, (size_t)(i * k + kk));
                    double y = numeric_load_f32(dtype, b, (size_t)(j * k + kk));
                    s += x * y;
                    sa += fabs(x * y);
                }
                /* only summation order differs: relative 1e-12 of the abs sum */
                assert_true(fabs(c[i * n + j] - s) <= 1e-12 * sa);
                assert_true(fabs(c_abs[i * n + j] - sa) <= 1e-12 * sa);
                assert_true(sa > 0);
            }
        free(a);
        free(ap);
        free(b);
        free(c);
        free(c_abs);
    }
}

static void test_bad_arguments(void **state)
{
    (void)state;
    double c[1] = {0};
    uint16_t a[8] = {0};
    assert_int_equal(reference_gemm_f64(5, 1, 1, 8, a, a, c), -1);
    assert_int_equal(reference_gemm_f64(CROQ_DTYPE_F16, 1, -1, 8, a, a, c), -1);
    /* K = 0: an empty sum */
    c[0] = 42;
    assert_int_equal(reference_gemm_f64(CROQ_DTYPE_F16, 1, 1, 0, a, a, c), 0);
    assert_true(c[0] == 0.0);
}

static void test_tolerance_values(void **state)
{
    (void)state;
    /* the formula's terms, exactly */
    assert_true(reference_tolerance(CROQ_DTYPE_F16, 8192, 1.0, 1.0) == 0x1p-10 + 0x1p-18 + 0x1p-14);
    assert_true(reference_tolerance(CROQ_DTYPE_E4M3, 8192, -1.0, 1.0) == 0x1p-10 + 0x1p-9 + 0x1p-14);
    assert_true(reference_tolerance(CROQ_DTYPE_F16, 64, 0.0, 0.0) == 0x1p-14);
    assert_true(reference_tolerance(CROQ_DTYPE_F16, 64, -8.0, 1024.0) == 8 * 0x1p-10 + 0x1p-8 + 0x1p-14);
    assert_true(isnan(reference_tolerance(CROQ_DTYPE_F16, 64, NAN, 1.0)));
}

static void test_tolerance_ulps_at_one(void **state)
{
    (void)state;
    const double ulp = 0x1p-10; /* f16 ulp at 1.0 */
    for (int dtype = 0; dtype < 2; dtype++) {
        double tol = reference_tolerance(dtype, 4096, 1.0, 1.0);
        assert_true(4 * ulp > tol);   /* a 4-ulp error is caught */
        assert_true(0.5 * ulp <= tol); /* rounding C to f16 (half an ulp) is not */
        assert_true(ulp <= tol);      /* nor one ulp (doubled half-ulp bound) */
        /* at |ref| = 1 with absref = 64 (cancellation), e4m3 allows 2^-3 */
        double tol64 = reference_tolerance(dtype, 4096, 1.0, 64.0);
        assert_true(tol64 == 0x1p-10 + (dtype ? 0x1p-3 : 0x1p-12) + 0x1p-14);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_2x2x8),
        cmocka_unit_test(test_matches_triple_loop),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_tolerance_values),
        cmocka_unit_test(test_tolerance_ulps_at_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
