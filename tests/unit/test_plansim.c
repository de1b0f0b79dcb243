/* tests/unit/test_plansim.c — the predicted sweep: the claiming order of next.c (INIT a
 * wave, then TUNE it, the next wave only once it is finished), wall time and idle share
 * by hand-computed cases, the duration fit, and the measured points read from a real
 * H200 tuning directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale/plansim.h"

static struct plan_shape shape_of(long m, long n, long k)
{
    struct plan_shape s = {.k = {CROQ_DTYPE_F16, {m, n, k}, MODE_FROM_SCRATCH}};
    key_format(&s.k, s.key);
    return s;
}

/* f16 only: wave 1 = shapes, wave 2 = shapes2. */
static void plan_of(struct scale_plan *p, struct plan_shape *w1, size_t n1, struct plan_shape *w2, size_t n2)
{
    memset(p, 0, sizeof *p);
    p->dtypes[0] = true;
    p->set.budget_scratch = 150;
    p->waves[0][0] = (struct plan_wave){0, 1, w1, n1};
    p->waves[0][1] = (struct plan_wave){0, 2, w2, n2};
}

static void test_equal_shapes(void **state)
{
    (void)state;
    struct plan_shape w1[2] = {shape_of(1024, 1024, 1024), shape_of(2048, 1024, 1024)};
    struct scale_plan p;
    plan_of(&p, w1, 2, NULL, 0);
    struct plansim_model m = {.a_s = 1, .b_s_per_gflop = 0, .init_s = 0};
    struct plansim_result r;
    plansim_run(&p, 1, 9, 1, &m, &r); /* 10 s each: 9 iterations + the baseline */
    assert_true(r.wall_s == 20 && r.idle_share == 0);
    plansim_run(&p, 1, 9, 2, &m, &r);
    assert_true(r.wall_s == 10 && r.idle_share == 0);
    plansim_run(&p, 1, 0, 1, &m, &r); /* shapes.json's budget: 151 s each */
    assert_true(r.wall_s == 302);
    assert_int_equal(r.n_waves, 1);
    assert_int_equal(r.waves[0].shapes, 2);
}

/* Wave 1: a 10 s and a 1 s shape; wave 2: a 1 s shape, which waits for wave 1. */
static void test_wave_barrier(void **state)
{
    (void)state;
    struct plan_shape w1[2] = {shape_of(4096, 4096, 4096), shape_of(1024, 1024, 1024)}, w2[1] = {shape_of(2048, 2048, 2048)};
    struct scale_plan p;
    plan_of(&p, w1, 2, w2, 1);
    /* durations by size: 137.4, 2.1 and 17.2 GFLOP; b chosen so the first is 10 s per "iteration" */
    struct plansim_model m = {.a_s = 0, .b_s_per_gflop = 10 / (2.0 * 4096 * 4096 * 4096 / 1e9), .init_s = 0};
    double d[3] = {plansim_shape_seconds(&m, &w1[0].k, 0), plansim_shape_seconds(&m, &w1[1].k, 0),
                   plansim_shape_seconds(&m, &w2[0].k, 0)};
    assert_true(fabs(d[0] - 10) < 1e-9 && fabs(d[1] - 10.0 / 64) < 1e-9 && fabs(d[2] - 10.0 / 8) < 1e-9);
    struct plansim_result r;
    plansim_run(&p, 2, 0, 2, &m, &r); /* iters 0: shapes.json's 150, so 151 x the above */
    double a = 151 * d[0], c = 151 * d[2];
    assert_true(fabs(r.wall_s - (a + c)) < 1e-6); /* wave 2 starts when wave 1's long shape ends */
    assert_int_equal(r.n_waves, 2);
    assert_int_equal(r.waves[0].stage, 1);
    assert_true(fabs(r.waves[0].end_s - a) < 1e-6 && fabs(r.waves[0].longest_s - a) < 1e-6);
    assert_string_equal(r.waves[0].longest, "f16_4096x4096x4096_fs");
    double busy1 = 151 * (d[0] + d[1]);
    assert_true(fabs(r.waves[0].idle_share - (1 - busy1 / (2 * a))) < 1e-9);
    assert_true(fabs(r.waves[1].start_s - a) < 1e-6);
    double busy = 151 * (d[0] + d[1] + d[2]);
    assert_true(fabs(r.idle_share - (1 - busy / (2 * (a + c)))) < 1e-9);
    /* only stage 1 asked for: wave 2 is not simulated */
    plansim_run(&p, 1, 0, 2, &m, &r);
    assert_int_equal(r.n_waves, 1);
    assert_true(fabs(r.wall_s - a) < 1e-6);
}

/* INIT claims come first: with INIT taking 5 s and two workers, the first TUNE starts at 5. */
static void test_init_first(void **state)
{
    (void)state;
    struct plan_shape w1[3] = {shape_of(1024, 1024, 1024), shape_of(2048, 1024, 1024), shape_of(1024, 2048, 1024)};
    struct scale_plan p;
    plan_of(&p, w1, 3, NULL, 0);
    struct plansim_model m = {.a_s = 1, .init_s = 5};
    struct plansim_result r;
    plansim_run(&p, 1, 9, 2, &m, &r);
    /* 0-5: INIT a, b; 5-10: INIT c (one worker idle: the wave is not INITed); 10-20: a, b; 20-30: c */
    assert_true(r.wall_s == 30);
    assert_true(fabs(r.busy_s - 45) < 1e-9);
    assert_true(fabs(r.idle_share - 0.25) < 1e-9);
}

/* Plan order vs longest first: shapes of 1, 1 and 4 s on two workers. In plan order the
 * long one starts at 1 (wall 5); longest first starts it at 0 (wall 4). */
static void test_longest_first(void **state)
{
    (void)state;
    struct plan_shape w1[3] = {shape_of(1024, 1024, 1024), shape_of(2048, 512, 1024), shape_of(2048, 2048, 1024)};
    struct scale_plan p;
    plan_of(&p, w1, 3, NULL, 0);
    struct plansim_model m = {.a_s = 0, .b_s_per_gflop = 1 / (2.0 * 1024 * 1024 * 1024 / 1e9), .init_s = 0};
    struct plansim_result r;
    plansim_run(&p, 1, 0, 2, &m, &r);
    assert_true(fabs(r.wall_s - 151 * 5) < 1e-6);
    m.longest_first = true;
    plansim_run(&p, 1, 0, 2, &m, &r);
    assert_true(fabs(r.wall_s - 151 * 4) < 1e-6);
    assert_string_equal(r.waves[0].longest, "f16_2048x2048x1024_fs");
}

static void test_fit(void **state)
{
    (void)state;
    struct plansim_point pts[3] = {{"a", 10, 150, 2.1}, {"b", 100, 30, 3.0}, {"c", 500, 6, 7.0}};
    struct plansim_model m;
    plansim_fit(pts, 3, &m);
    assert_true(fabs(m.a_s - 2.0) < 1e-9 && fabs(m.b_s_per_gflop - 0.01) < 1e-9);
    struct plansim_point flat[2] = {{"a", 10, 10, 3.0}, {"b", 10, 30, 5.0}}; /* one size: b unknown */
    plansim_fit(flat, 2, &m);
    assert_true(m.b_s_per_gflop == 0 && fabs(m.a_s - 4.5) < 1e-9);
}

/* The one-worker 4-shape sweep on the H200 (results/h200-x2): 6 iterations each. */
static void test_measure_h200(void **state)
{
    (void)state;
    char dir[1024], err[700];
    snprintf(dir, sizeof dir, "%s/results/h200-x2/tuning-one-worker", CROQ_SOURCE_DIR);
    struct plansim_point *pts = NULL;
    size_t n = 0;
    size_t not_gpu = 0;
    assert_int_equal(plansim_measure(dir, &pts, &n, &not_gpu, err, sizeof err), 4);
    assert_int_equal(n, 4);
    assert_int_equal(not_gpu, 0);
    assert_string_equal(pts[0].key, "f16_1024x1024x1024_fs");
    assert_int_equal(pts[0].iterations, 6);
    assert_true(fabs(pts[0].gflop - 2.147483648) < 1e-9);
    assert_true(fabs(pts[0].s_per_iter - 19.0 / 6) < 1e-9); /* 16:10:23 .. 16:10:42 */
    free(pts);
    pts = NULL, n = 0; /* a directory with no state.json: nothing measured */
    assert_int_equal(plansim_measure("/nonexistent-dir", &pts, &n, &not_gpu, err, sizeof err), 0);
    assert_int_equal(n, 0);
}

/* A pause between two rows (a chunk cut at its time limit, resumed in a later session)
 * counts as the median gap, not as tuning time; an ordinary slow row does not. */
static void test_busy_seconds(void **state)
{
    (void)state;
    const double steady[] = {0, 3, 5, 9, 12};
    assert_true(plansim_busy_seconds(steady, 5) == 12.0);
    const double paused[] = {0, 3, 6, 14406, 14409, 14412}; /* 4 h between rows 2 and 3 */
    assert_true(plansim_busy_seconds(paused, 6) == 15.0);
    const double slow[] = {0, 3, 6, 100, 103}; /* 94 s: below PLANSIM_PAUSE_MIN_S, kept */
    assert_true(plansim_busy_seconds(slow, 5) == 103.0);
    const double wide[] = {0, 10, 20, 30, 230}; /* 200 s: above 120 s but not 20 x 10 s */
    assert_true(plansim_busy_seconds(wide, 5) == 230.0);
    const double back[] = {0, 5, 4};
    assert_true(isnan(plansim_busy_seconds(back, 3)));
    assert_true(isnan(plansim_busy_seconds(steady, 1)));
}

/* The typical sweep's f16_4096x8192x32768_fs: its baseline in session 7, iteration 1 four
 * hours later in session 8's first chunk. */
static void test_measure_paused_sweep(void **state)
{
    (void)state;
    char dir[1024], err[700];
    snprintf(dir, sizeof dir, "%s/results/h200/sweep-typical", CROQ_SOURCE_DIR);
    struct plansim_point *pts = NULL;
    size_t n = 0, not_gpu = 0;
    assert_true(plansim_measure(dir, &pts, &n, &not_gpu, err, sizeof err) >= 14);
    bool seen = false;
    for (size_t i = 0; i < n; i++) {
        assert_true(pts[i].s_per_iter > 0.3 && pts[i].s_per_iter < 10); /* H200: 0.6-4 s an iteration */
        if (!strcmp(pts[i].key, "f16_4096x8192x32768_fs"))
            seen = true;
    }
    assert_true(seen);
    free(pts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_shapes), cmocka_unit_test(test_wave_barrier), cmocka_unit_test(test_init_first), cmocka_unit_test(test_longest_first),
        cmocka_unit_test(test_fit),          cmocka_unit_test(test_measure_h200),
        cmocka_unit_test(test_busy_seconds), cmocka_unit_test(test_measure_paused_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
