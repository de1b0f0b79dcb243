/* tests/unit/test_search_grid.c — grid files (src/search/grid.h): products, stars,
 * defaults for unnamed knobs, the union without repeats, validation, the seeded order,
 * and the errors; and dataset records read back (src/dataset/dataset.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataset/dataset.h"
#include "search/grid.h"

static const struct croq_shape small = {1024, 1024, 4096};

static int count_with(const struct grid *g, int knob, int value)
{
    int n = 0;
    for (int i = 0; i < g->n; i++)
        n += g->cfg[i].v[knob] == value;
    return n;
}

static void test_product_and_defaults(void **state)
{
    struct grid g;
    char err[512];
    assert_int_equal(grid_parse(&g, "stages=3,4,5\ngroup=1,8 # two\n", "t", CROQ_DTYPE_F16, &small, 1, err,
                                sizeof err), 0);
    assert_int_equal(g.n, 6);
    assert_int_equal(g.n_blocks, 1);
    assert_int_equal(count_with(&g, KNOB_STAGES, 4), 2);
    assert_int_equal(count_with(&g, KNOB_GROUP, 8), 3);
    struct croq_config d;
    knobs_default(&d, CROQ_DTYPE_F16);
    for (int i = 0; i < g.n; i++) /* unnamed knobs: the default */
        for (int k = 0; k < KNOB_COUNT; k++)
            if (k != KNOB_STAGES && k != KNOB_GROUP)
                assert_int_equal(g.cfg[i].v[k], d.v[k]);
    grid_release(&g);
    /* e4m3 defaults: tile_k 128 */
    assert_int_equal(grid_parse(&g, "[one]\n", "t", CROQ_DTYPE_E4M3, &small, 1, err, sizeof err), 0);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.cfg[0].v[KNOB_TILE_K], 128);
    assert_int_equal(g.cfg[0].dtype, CROQ_DTYPE_E4M3);
    grid_release(&g);
}

static void test_star_union_invalid(void **state)
{
    struct grid g;
    char err[512];
    /* a point, then a star around stages=5 (its anchor is that point again: a
     * duplicate), then tile_k 256 with 8 stages: too much shared memory */
    const char *text = "[p]\nstages=5\n"
                       "[s star]\nstages=5,3,4\ngroup=1,8\ntile_n=256,128\n"
                       "[big]\ntile_k=256\nstages=8\n";
    assert_int_equal(grid_parse(&g, text, "t", CROQ_DTYPE_F16, &small, 1, err, sizeof err), 0);
    /* star: anchor + 2 stages + 1 group + 1 tile_n = 5, the anchor is block 1's point */
    assert_int_equal(g.n, 5);
    assert_int_equal(g.n_duplicate, 1);
    assert_int_equal(g.n_invalid, 1); /* 256 x 8 stages does not fit in shared memory */
    assert_int_equal(g.block[0], 0);
    assert_int_equal(g.cfg[0].v[KNOB_STAGES], 5);
    for (int i = 1; i < g.n; i++) {
        assert_int_equal(g.block[i], 1);
        int moved = (g.cfg[i].v[KNOB_STAGES] != 5) + (g.cfg[i].v[KNOB_GROUP] != 1) + (g.cfg[i].v[KNOB_TILE_N] != 256);
        assert_int_equal(moved, 1); /* one knob off the anchor */
    }
    grid_release(&g);
}

static void test_seeded_order(void **state)
{
    struct grid a, b, c;
    char err[512];
    const char *text = "stages=2,3,4,5\ngroup=1,2,4,8,16\n";
    assert_int_equal(grid_parse(&a, text, "t", CROQ_DTYPE_F16, &small, 7, err, sizeof err), 0);
    assert_int_equal(grid_parse(&b, text, "t", CROQ_DTYPE_F16, &small, 7, err, sizeof err), 0);
    assert_int_equal(grid_parse(&c, text, "t", CROQ_DTYPE_F16, &small, 8, err, sizeof err), 0);
    assert_int_equal(a.n, 20);
    assert_memory_equal(a.cfg, b.cfg, sizeof *a.cfg * 20);
    assert_memory_not_equal(a.cfg, c.cfg, sizeof *a.cfg * 20);
    /* shuffled: not the mixed-radix order (stages fastest) */
    int in_order = 0;
    for (int i = 0; i + 1 < a.n; i++)
        in_order += a.cfg[i].v[KNOB_GROUP] == a.cfg[i + 1].v[KNOB_GROUP];
    assert_true(in_order < 12);
    grid_release(&a), grid_release(&b), grid_release(&c);
}

static void test_errors(void **state)
{
    struct grid g;
    char err[512];
    struct { const char *text, *msg; } bad[] = {
        {"tile_q=1\n", "t:1: unknown knob 'tile_q'"},
        {"\nstages=9\n", "t:2: stages=9 is not one of the knob's values"},
        {"stages=3\nstages=4\n", "t:2: knob 'stages' named twice in one block"},
        {"stages=3,3\n", "t:1: stages=3 listed twice"},
        {"stages\n", "t:1: expected knob=v1,v2,... or [block]"},
        {"[open\n", "t:1: a block header is [name] or [name star]"},
        {"# nothing\n", "t: no block: the grid is empty"},
        {"stages=3,x\n", "t:1: stages=x is not one of"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (grid_parse(&g, bad[i].text, "t", CROQ_DTYPE_F16, &small, 1, err, sizeof err) != -1)
            fail_msg("'%s' accepted", bad[i].text);
        if (!strstr(err, bad[i].msg))
            fail_msg("'%s': got '%s', want '%s'", bad[i].text, err, bad[i].msg);
        grid_release(&g);
    }
    assert_int_equal(grid_parse(&g, NULL, "the knob table", CROQ_DTYPE_F16, &small, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "narrow the grid"));
    grid_release(&g);
    assert_int_equal(grid_load(&g, "/nonexistent/grid.txt", CROQ_DTYPE_F16, &small, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot read grid file '/nonexistent/grid.txt'"));
    grid_release(&g);
}

static void test_dataset_round_trip(void **state)
{
    char path[] = "/tmp/croq-test-ds-XXXXXX", err[512];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    struct ds_record r;
    memset(&r, 0, sizeof r);
    knobs_default(&r.cfg, CROQ_DTYPE_F16);
    knobs_signature(&r.cfg, r.sig);
    snprintf(r.status, sizeof r.status, "ok");
    r.tflops = 812.25, r.median_ms = 0.5, r.spread_pct = 3.5, r.sm_clock_mhz = 1500, r.hw_eff_pct = 60;
    r.max_err_over_tol = 0.25;
    r.n_trials = 3, r.trial_ms[0] = 0.49, r.trial_ms[1] = 0.5, r.trial_ms[2] = 0.52;
    r.n_trial_clocks = 0;
    r.regs = 168, r.smem_bytes = -1;
    snprintf(r.backend, sizeof r.backend, "gpu");
    assert_int_equal(dataset_append(path, &r, CROQ_DTYPE_F16, &small, NULL, err, sizeof err), 0);
    struct ds_record f = r;
    f.cfg.v[KNOB_STAGES] = 5;
    knobs_signature(&f.cfg, f.sig);
    snprintf(f.status, sizeof f.status, "crash");
    snprintf(f.reason, sizeof f.reason, "signal 6");
    f.tflops = f.median_ms = NAN;
    f.n_trials = 0;
    assert_int_equal(dataset_append(path, &f, CROQ_DTYPE_F16, &small, NULL, err, sizeof err), 0);
    struct dataset ds;
    assert_int_equal(dataset_load(path, false, &ds, err, sizeof err), 0);
    assert_int_equal(ds.n, 2);
    assert_false(ds.torn);
    assert_int_equal(ds.shape.k, 4096);
    const struct ds_record *b = dataset_best(&ds);
    assert_non_null(b);
    assert_true(b->tflops == 812.25);
    assert_int_equal(b->n_trials, 3);
    assert_true(b->trial_ms[2] == 0.52);
    assert_int_equal(b->regs, 168);
    assert_int_equal(b->smem_bytes, -1);
    const struct ds_record *c = dataset_find(&ds, &f.cfg);
    assert_non_null(c);
    assert_string_equal(c->status, "crash");
    assert_string_equal(c->reason, "signal 6");
    assert_true(isnan(c->tflops));
    dataset_release(&ds);
    /* the same config twice, and another shape: errors naming the line */
    assert_int_equal(dataset_append(path, &f, CROQ_DTYPE_F16, &small, NULL, err, sizeof err), 0);
    assert_int_equal(dataset_load(path, false, &ds, err, sizeof err), -1);
    assert_non_null(strstr(err, ":3: config measured twice"));
    struct croq_shape other = {2048, 1024, 4096};
    unlink(path);
    assert_int_equal(dataset_append(path, &r, CROQ_DTYPE_F16, &small, NULL, err, sizeof err), 0);
    assert_int_equal(dataset_append(path, &f, CROQ_DTYPE_F16, &other, NULL, err, sizeof err), 0);
    assert_int_equal(dataset_load(path, false, &ds, err, sizeof err), -1);
    assert_non_null(strstr(err, ":2: a record of f16 2048x1024x4096 in a dataset of f16 1024x1024x4096"));
    unlink(path);
    assert_int_equal(dataset_load(path, true, &ds, err, sizeof err), 0);
    assert_int_equal(ds.n, 0);
    assert_int_equal(dataset_load(path, false, &ds, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_product_and_defaults),
        cmocka_unit_test(test_star_union_invalid),
        cmocka_unit_test(test_seeded_order),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_dataset_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
