/* tests/unit/test_engine_decide.c — the numeric rules (src/engine/decide.c): the noise
 * rule for KEEP, the sanity rule that orders re-measurements, the physical peak. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "artifacts/artifacts.h"
#include "engine/decide.h"
#include "engine/engine.h"

static void test_peak_scales_with_clock(void **state)
{
    (void)state;
    assert_true(fabs(backend_peak_tflops(CROQ_DTYPE_F16, 1980) - 1979) < 1e-9);
    assert_true(fabs(backend_peak_tflops(CROQ_DTYPE_E4M3, 1980) - 3958) < 1e-9);
    assert_true(fabs(backend_peak_tflops(CROQ_DTYPE_F16, 1425) - 1979.0 * 1425 / 1980) < 1e-9);
    struct perf_numbers p = {1500, 0, 1, 1425, NAN, NAN, NAN};
    assert_true(decide_above_peak(CROQ_DTYPE_F16, &p));  /* 1500 > 1424.3 */
    assert_false(decide_above_peak(CROQ_DTYPE_E4M3, &p)); /* e4m3 peak is twice */
    p.sm_clock_mhz = 1980;
    assert_false(decide_above_peak(CROQ_DTYPE_F16, &p));
    p.sm_clock_mhz = NAN; /* unknown clock: judged at the boost clock */
    assert_false(decide_above_peak(CROQ_DTYPE_F16, &p));
}

/* Rules 2: a gain above the floor but within the spread is measured again; the second
 * pair must show the floor over both references. The numbers are the H200 case of
 * results/h200/README.md: 846.690 (spread 8.64%) against 807.306 (spread 10.04%). */
static void test_gain_within_spread_is_confirmed(void **state)
{
    (void)state;
    const double floor = DECIDE_NOISE_FLOOR_PCT;
    struct perf_numbers best = {807.306, 0, 10.04, 1455, NAN, NAN, NAN}, cand = {846.690, 0, 8.64, 1425, NAN, NAN, NAN};
    assert_false(decide_keep_floor(&cand, &best, DECIDE_NOISE_FLOOR_PCT, NULL)); /* rules 1: discarded as noise */
    assert_true(decide_confirming(2, CROQ_DTYPE_F16, floor, &cand, &best));
    assert_false(decide_confirming(1, CROQ_DTYPE_F16, floor, &cand, &best)); /* an older run */
    assert_null(decide_recheck(1, CROQ_DTYPE_F16, floor, &cand, &best));
    assert_string_equal(decide_recheck(2, CROQ_DTYPE_F16, floor, &cand, &best),
                        "a gain above the floor but within the measured spread");
    cand.tflops = 807.306 * 1.02; /* exactly the floor: not a gain */
    assert_false(decide_confirming(2, CROQ_DTYPE_F16, floor, &cand, &best));
    cand.tflops = 900.0; /* above the spread: the noise rule keeps it outright */
    assert_false(decide_confirming(2, CROQ_DTYPE_F16, floor, &cand, &best));
    assert_null(decide_recheck(2, CROQ_DTYPE_F16, floor, &cand, &best));
    cand.tflops = 1300.0; /* the sanity rule's reason wins */
    assert_false(decide_confirming(2, CROQ_DTYPE_F16, floor, &cand, &best));
    assert_non_null(strstr(decide_recheck(2, CROQ_DTYPE_F16, floor, &cand, &best), "1.5x"));
    assert_false(decide_confirming(2, CROQ_DTYPE_F16, floor, &cand, NULL)); /* baseline */

    /* the second pair: the floor over the larger of the re-measured and recorded best */
    double thr;
    struct perf_numbers re = {840.0, 0, 9, 1440, NAN, NAN, NAN}, best_re = {800.0, 0, 9, 1440, NAN, NAN, NAN};
    const struct perf_numbers *ref = decide_reference(2, &best, &best_re);
    assert_ptr_equal(ref, &best); /* re-measured low: the recorded number stays the bar */
    assert_true(decide_keep_as(true, &re, ref, floor, &thr));
    assert_true(fabs(thr - 807.306 * 1.02) < 1e-9);
    best_re.tflops = 830.0; /* the best measured higher this time: the gain did not hold */
    ref = decide_reference(2, &best, &best_re);
    assert_ptr_equal(ref, &best_re);
    assert_false(decide_keep_as(true, &re, ref, floor, &thr));
    assert_true(fabs(thr - 830.0 * 1.02) < 1e-9);
    /* not confirming: exactly the noise rule against the reference */
    assert_int_equal(decide_keep_as(false, &re, ref, floor, &thr), decide_keep_floor(&re, ref, floor, NULL));
    /* rules 1 as it always was: the re-measurement is the reference, and stays it */
    best_re.tflops = 780.0;
    assert_ptr_equal(decide_reference(1, &best, &best_re), &best_re);
    assert_ptr_equal(decide_reference(2, &best, NULL), &best);
    assert_true(decide_rebase_on_discard(1));
    assert_false(decide_rebase_on_discard(2));
}

static void test_keep_needs_more_than_noise(void **state)
{
    (void)state;
    struct perf_numbers best = {1000, 1, 0.5, 1700, NAN, NAN, NAN}, c = {1019, 1, 0.4, 1700, NAN, NAN, NAN};
    double thr;
    /* both spreads below 2%: the floor of 2% decides */
    assert_false(decide_keep_floor(&c, &best, DECIDE_NOISE_FLOOR_PCT, &thr));
    assert_true(fabs(thr - 1020) < 1e-9);
    c.tflops = 1020.5;
    assert_true(decide_keep_floor(&c, &best, DECIDE_NOISE_FLOOR_PCT, NULL));
    /* a noisy candidate needs a larger gain */
    c.spread_pct = 2.5;
    assert_false(decide_keep_floor(&c, &best, DECIDE_NOISE_FLOOR_PCT, &thr));
    assert_true(fabs(thr - 1025) < 1e-9);
    /* a noisy best too */
    c.spread_pct = 0.1;
    best.spread_pct = 3.0;
    c.tflops = 1029;
    assert_false(decide_keep_floor(&c, &best, DECIDE_NOISE_FLOOR_PCT, NULL));
    c.tflops = 1031;
    assert_true(decide_keep_floor(&c, &best, DECIDE_NOISE_FLOOR_PCT, NULL));
    /* equal is never a gain */
    c = best;
    assert_false(decide_keep_floor(&c, &best, DECIDE_NOISE_FLOOR_PCT, NULL));
}

static void test_suspect_results(void **state)
{
    (void)state;
    struct perf_numbers best = {800, 1, 1, 1700, NAN, NAN, NAN}, c = {1199, 1, 1, 1700, NAN, NAN, NAN};
    assert_null(decide_suspect(CROQ_DTYPE_F16, &c, &best));
    c.tflops = 1201;
    assert_non_null(strstr(decide_suspect(CROQ_DTYPE_F16, &c, &best), "1.5x"));
    c.tflops = 399;
    assert_non_null(strstr(decide_suspect(CROQ_DTYPE_F16, &c, &best), "0.5x"));
    c.tflops = 401;
    assert_null(decide_suspect(CROQ_DTYPE_F16, &c, &best));
    /* above the peak at the measured clock, even within 1.5x of the best */
    best.tflops = 1400;
    c.tflops = 1600;
    c.sm_clock_mhz = 1500; /* peak 1499.2 */
    assert_non_null(strstr(decide_suspect(CROQ_DTYPE_F16, &c, &best), "peak"));
    /* the baseline has no best: only the peak rule */
    c.tflops = 100;
    assert_null(decide_suspect(CROQ_DTYPE_F16, &c, NULL));
    c.tflops = 1600;
    assert_non_null(decide_suspect(CROQ_DTYPE_F16, &c, NULL));
}

static void test_failures_map_to_discards(void **state)
{
    (void)state;
    assert_int_equal(decide_failure(CAND_INCORRECT), DEC_DISCARD_INCORRECT);
    assert_int_equal(decide_failure(CAND_TIMEOUT), DEC_DISCARD_TIMEOUT);
    assert_int_equal(decide_failure(CAND_CRASH), DEC_DISCARD_RUNTIME_CRASH);
    assert_false(decision_kept(DEC_DISCARD_RUNTIME_CRASH));
    assert_true(decision_kept(DEC_KEEP));
    assert_true(decision_kept(DEC_BASELINE));
    for (int d = 0; d < DEC_COUNT; d++)
        assert_int_equal(decision_parse(decision_name(d)), d);
}

static void test_quantize_matches_printing(void **state)
{
    (void)state;
    struct perf_numbers p = {812.34567, 0.28012345678, 1.23456, 1739.6, NAN, NAN, NAN};
    perf_quantize(&p);
    assert_true(p.tflops == 812.346);
    assert_true(p.median_ms == 0.280123);
    assert_true(p.spread_pct == 1.235);
    assert_true(p.sm_clock_mhz == 1740);
    assert_true(isnan(decide_round(NAN, 3)));
    /* a tiny shape (1x8x64): TFLOPS and times keep 4 significant digits, not 0.000 */
    struct perf_numbers t = {0.000190837, 0.00053678, 0.0004, 1973.2, 0.000123456, 0.000123, 0.00012399};
    perf_quantize(&t);
    assert_true(t.tflops == 0.0001908 && t.tflops > 0);
    assert_true(t.median_ms == 0.0005368);
    assert_true(t.spread_pct == 0.0); /* percentages keep fixed decimals: 0 is in range */
    assert_true(t.ratio == 0.0001235 && t.ratio_lo == 0.000123 && t.ratio_hi == 0.000124);
    /* values from 1 TFLOPS (and 0.001 ms, a 0.001 speedup) up round exactly as before */
    struct perf_numbers u = {1.0004999, 0.00099996, 0.1, 1500, 0.9999996, 0.0010004, 2.0};
    perf_quantize(&u);
    assert_true(u.tflops == 1.0 && u.median_ms == 0.001 && u.ratio == 1.0 && u.ratio_lo == 0.001);
    struct perf_numbers v = {0.99996, 49.6123456, 0.0144, 1380.4, NAN, NAN, NAN};
    perf_quantize(&v);
    assert_true(v.tflops == 1.0 && v.median_ms == 49.612346 && v.spread_pct == 0.014 && v.sm_clock_mhz == 1380);
}

/* Rules 3: the lower end of the paired speedup's interval decides, against 1 + 1%; only a
 * reading above the physical peak is measured again. Numbers from the shape of an H200
 * run: a 678 TFLOPS best and candidates around it. */
static void test_paired_rule(void **state)
{
    (void)state;
    struct perf_numbers best = {678.0, 0.811, 9.5, 1515, NAN, NAN, NAN};
    struct perf_numbers gain = {702.1, 0.783, 8.9, 1500, 1.0342, 1.0121, 1.0477};
    struct perf_numbers near = {690.4, 0.796, 9.1, 1500, 1.0180, 1.0095, 1.0260};
    struct perf_numbers slow = {306.0, 1.797, 1.0, 1700, 0.4513, 0.4490, 0.4531};
    struct perf_numbers unpaired = {900.0, 0.611, 1.0, 1700, NAN, NAN, NAN};
    struct decide_case c = {3, CROQ_DTYPE_F16, decide_floor_pct(3), &gain, &gain, &best, NULL, false};
    struct decide_verdict v = decide_candidate(&c);
    assert_true(v.keep && v.paired);
    assert_true(fabs(v.threshold - 1.01) < 1e-12);
    c.first = c.cand = &near; /* a median gain of 1.8% whose interval reaches below 1.01 */
    assert_false(decide_candidate(&c).keep);
    c.first = c.cand = &unpaired; /* no pairing, no KEEP, whatever the TFLOPS say */
    assert_false(decide_candidate(&c).keep);
    c.first = c.cand = &slow;
    assert_false(decide_candidate(&c).keep);
    assert_true(decide_floor_pct(3) == DECIDE_PAIRED_FLOOR_PCT && decide_floor_pct(2) == DECIDE_NOISE_FLOOR_PCT);
    /* below 0.5x the best: rules 2 measures again, rules 3 does not (the pair compared it) */
    assert_non_null(decide_recheck(2, CROQ_DTYPE_F16, 2.0, &slow, &best));
    assert_null(decide_recheck(3, CROQ_DTYPE_F16, 1.0, &slow, &best));
    assert_null(decide_recheck(3, CROQ_DTYPE_F16, 1.0, &gain, &best));
    struct perf_numbers broken = {2500.0, 0.2, 1.0, 1980, 3.6, 3.5, 3.7};
    assert_string_equal(decide_recheck(3, CROQ_DTYPE_F16, 1.0, &broken, &best),
                        "above the physical peak at the measured clock");
    assert_false(decide_confirming(3, CROQ_DTYPE_F16, 2.0, &near, &best));
    /* quantized like every recorded number: 6 decimals */
    struct perf_numbers q = {1, 1, 1, 1, 1.01234567, 1.00999951, 1.0300004};
    perf_quantize(&q);
    assert_true(q.ratio == 1.012346 && q.ratio_lo == 1.01 && q.ratio_hi == 1.03);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peak_scales_with_clock),
        cmocka_unit_test(test_keep_needs_more_than_noise),
        cmocka_unit_test(test_suspect_results),
        cmocka_unit_test(test_gain_within_spread_is_confirmed),
        cmocka_unit_test(test_failures_map_to_discards),
        cmocka_unit_test(test_quantize_matches_printing),
        cmocka_unit_test(test_paired_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
