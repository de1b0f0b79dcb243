/* tests/unit/test_proposer_model.c — the proposer's use of the cost model (src/costmodel):
 * ridge fitting on measurements, predictions, uncertainty, and the ranking it gives
 * proposer_next; the recipes (src/proposer/recipes.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "proposer/internal.h"

static const struct croq_shape shape = {4096, 8192, 8192};

/* A synthetic GPU: 500 TFLOPS, x1.3 with 5 stages, x1.1 with group 8, x0.8 with 64-B swizzle. */
static double truth(const struct croq_config *c)
{
    return 500.0 * (c->v[KNOB_STAGES] == 5 ? 1.3 : 1) * (c->v[KNOB_GROUP] == 8 ? 1.1 : 1) *
           (c->v[KNOB_SWIZZLE] == 64 ? 0.8 : 1);
}

static int samples(struct croq_config *cfg, struct croq_shape *shp, double *y)
{
    const int stages[] = {3, 4, 5}, groups[] = {1, 4, 8}, swz[] = {128, 64};
    int n = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int s = 0; s < 2; s++) {
                if ((a + b + s) % 2) /* half of the grid: the rest is predicted */
                    continue;
                knobs_default(&cfg[n], CROQ_DTYPE_F16);
                cfg[n].v[KNOB_STAGES] = stages[a];
                cfg[n].v[KNOB_GROUP] = groups[b];
                cfg[n].v[KNOB_SWIZZLE] = swz[s];
                shp[n] = shape;
                y[n] = truth(&cfg[n]);
                n++;
            }
    return n;
}

/* This shape's rows (group 0, weight 1). */
static void as_rows(const struct croq_config *cfg, const double *y, int n, struct costmodel_row *rows)
{
    for (int i = 0; i < n; i++)
        rows[i] = (struct costmodel_row){.cfg = cfg[i], .shape = shape, .tflops = y[i], .weight = 1, .group = 0};
}

static void test_fit_and_predict(void **state)
{
    (void)state;
    static struct costmodel m;
    struct croq_config cfg[32];
    struct croq_shape shp[32];
    struct costmodel_row rows[32];
    double y[32];
    int n = samples(cfg, shp, y);
    assert_int_equal(n, 9);
    as_rows(cfg, y, n, rows);
    assert_int_equal(costmodel_fit(&m, rows, (size_t)n), 0);
    assert_int_equal(m.n, 9);
    /* measured points: within 10% of what was measured */
    for (int i = 0; i < n; i++) {
        double p = costmodel_predict(&m, &cfg[i], &shape, NULL);
        if (fabs(p / y[i] - 1) > 0.10)
            fail_msg("sample %d: predicted %.1f, measured %.1f", i, p, y[i]);
    }
    /* the effects: ranked the right way round on points never measured */
    struct croq_config a, b;
    knobs_default(&a, CROQ_DTYPE_F16);
    a.v[KNOB_STAGES] = 5, a.v[KNOB_GROUP] = 8, a.v[KNOB_SWIZZLE] = 64; /* (2+2+1) odd: unmeasured */
    b = a;
    b.v[KNOB_STAGES] = 4;
    assert_true(costmodel_predict(&m, &a, &shape, NULL) > costmodel_predict(&m, &b, &shape, NULL) * 1.1);
    b = a;
    b.v[KNOB_SWIZZLE] = 128;
    assert_true(costmodel_predict(&m, &b, &shape, NULL) > costmodel_predict(&m, &a, &shape, NULL) * 1.1);
    /* uncertainty: a knob value no sample had is less certain than a measured point */
    int unseen = -1;
    b = cfg[0];
    b.v[KNOB_TILE_N] = 128;
    costmodel_predict(&m, &b, &shape, &unseen);
    assert_int_equal(unseen, 1);
    costmodel_predict(&m, &cfg[0], &shape, &unseen);
    assert_int_equal(unseen, 0);
    assert_true(costmodel_stddev(&m, &b, &shape) > 1.5 * costmodel_stddev(&m, &cfg[0], &shape));
    assert_true(m.sigma >= COSTMODEL_SIGMA_MIN);
    /* too few measurements: no model */
    assert_int_equal(costmodel_fit(&m, rows, COSTMODEL_MIN_SAMPLES - 1), 0);
    assert_int_equal(m.n, 0);
    /* failed measurements (0) are left out */
    rows[0].tflops = 0;
    assert_int_equal(costmodel_fit(&m, rows, (size_t)n), 0);
    assert_int_equal(m.n, 8);
    assert_int_equal(m.n_self, 8);
    assert_int_equal(m.n_groups, 0);
}

/* Other shapes' measurements: a near shape (2x in N) says group 8 gains 1.4x; this shape
 * has 4 of its own, none with group 8. The joint fit predicts group 8 better here; the fit
 * on this shape alone cannot tell. When 30 measurements of this shape say group 8 loses,
 * they win. A far shape (16x in M) weighs almost nothing. */
static void test_other_shapes(void **state)
{
    (void)state;
    static struct costmodel m;
    static struct costmodel_row rows[128];
    const struct croq_shape near = {4096, 16384, 8192}, far = {65536, 8192, 8192};
    const int stages[] = {3, 4, 5, 3, 4, 5}, groups[] = {1, 1, 1, 8, 8, 8};
    struct croq_config g1, g8;
    knobs_default(&g1, CROQ_DTYPE_F16);
    g8 = g1;
    g8.v[KNOB_GROUP] = 8;
    size_t n = 0;
    for (int i = 0; i < 4; i++) { /* this shape: stages 3..6, group 1 */
        rows[n] = (struct costmodel_row){.cfg = g1, .shape = shape, .tflops = 500 + 10 * i, .weight = 1};
        rows[n++].cfg.v[KNOB_STAGES] = 3 + i;
    }
    assert_int_equal(costmodel_fit(&m, rows, n), 0);
    assert_int_equal(m.n_self, 4);
    double alone = costmodel_predict(&m, &g8, &shape, NULL) / costmodel_predict(&m, &g1, &shape, NULL);
    assert_true(fabs(alone - 1) < 0.01); /* never measured: no effect */
    for (int i = 0; i < 6; i++) { /* the near shape: group 8 x1.4 */
        rows[n] = (struct costmodel_row){.cfg = g1, .shape = near, .tflops = groups[i] == 8 ? 700 : 500,
                                        .weight = 0.38, .group = 1};
        rows[n].cfg.v[KNOB_STAGES] = stages[i];
        rows[n++].cfg.v[KNOB_GROUP] = groups[i];
    }
    assert_int_equal(costmodel_fit(&m, rows, n), 0);
    assert_int_equal(m.n, 10);
    assert_int_equal(m.n_self, 4);
    assert_int_equal(m.n_groups, 1);
    double joint = costmodel_predict(&m, &g8, &shape, NULL) / costmodel_predict(&m, &g1, &shape, NULL);
    if (!(joint > 1.05 && joint < 1.4))
        fail_msg("group 8 over group 1 with the near shape: %.3f", joint);
    /* this shape's level stays its own: the prediction of a measured point is near it */
    struct croq_config s3 = g1;
    s3.v[KNOB_STAGES] = 3;
    assert_true(fabs(costmodel_predict(&m, &s3, &shape, NULL) / 500 - 1) < 0.05);
    /* 30 measurements of this shape: group 8 x0.8 */
    for (int i = 0; i < 30; i++) {
        rows[n] = (struct costmodel_row){.cfg = i % 2 ? g8 : g1, .shape = shape, .weight = 1};
        rows[n].cfg.v[KNOB_STAGES] = 3 + i % 3;
        rows[n].tflops = (i % 2 ? 400 : 500) + 10 * (i % 3);
        n++;
    }
    assert_int_equal(costmodel_fit(&m, rows, n), 0);
    double own = costmodel_predict(&m, &g8, &shape, NULL) / costmodel_predict(&m, &g1, &shape, NULL);
    if (!(own < 0.9))
        fail_msg("group 8 over group 1 with 30 own measurements: %.3f", own);

    /* through proposer_next: weights from the distance; the text names the data */
    static struct idea_history_entry h[8];
    static struct costmodel_sample o[16];
    for (int i = 0; i < 4; i++) {
        knobs_signature(&rows[i].cfg, h[i].signature);
        h[i].category = IDEA_STRUCTURAL;
        h[i].measured = true;
        h[i].tflops = rows[i].tflops;
        h[i].start = i == 0;
        h[i].kept = i == 0 || i == 3;
    }
    for (int i = 0; i < 6; i++)
        o[i] = (struct costmodel_sample){.cfg = rows[4 + i].cfg, .shape = near, .tflops = rows[4 + i].tflops};
    for (int i = 0; i < 6; i++) /* far: the opposite, and negligible */
        o[6 + i] = (struct costmodel_sample){.cfg = rows[4 + i].cfg, .shape = far, .tflops = groups[i] == 8 ? 300 : 500};
    o[12] = o[0];
    o[12].cfg.dtype = CROQ_DTYPE_E4M3; /* another dtype: ignored */
    struct proposer_ctx ctx = {.shape = shape, .best = rows[3].cfg, .best_tflops = 530, .bottleneck = BN_UNKNOWN,
                               .history = h, .n_history = 4, .iteration = 120, .budget = 150, .seed = 5,
                               .others = o, .n_others = 13};
    struct prop_state st;
    assert_int_equal(prop_state_init(&st, &ctx), 0);
    assert_int_equal(st.model.n, 16);
    assert_int_equal(st.model.n_groups, 2);
    assert_int_equal(st.own.n, 4);
    struct croq_config b8 = ctx.best;
    b8.v[KNOB_GROUP] = 8;
    double r = costmodel_predict(&st.model, &b8, &shape, NULL) / st.best_pred;
    if (!(r > 1.05))
        fail_msg("group 8 from the best, with a near and a far shape: %.3f", r);
    prop_state_release(&st);
    struct idea id;
    assert_int_equal(proposer_next(&ctx, &id), 0);
    if (!strstr(id.text, "model (ridge, 4 measurements of this shape, 12 of 2 other shapes): "))
        fail_msg("text: %s", id.text);
    ctx.n_others = 0;
    assert_int_equal(proposer_next(&ctx, &id), 0);
    assert_non_null(strstr(id.text, "model (ridge, 4 measurements of this shape): "));
    /* a NULL array with a count is an error */
    ctx.n_others = 1, ctx.others = NULL;
    assert_int_equal(proposer_next(&ctx, &id), -1);
}

/* Measurements say group 8 and 5 stages are good: with the model fitted, the proposer's
 * next idea moves toward them and its text says what the model predicted. */
static void test_model_ranks_the_mutations(void **state)
{
    (void)state;
    static struct idea_history_entry h[32];
    struct croq_config cfg[32];
    struct croq_shape shp[32];
    double y[32];
    int n = samples(cfg, shp, y);
    struct croq_config best = cfg[0];
    double best_y = 0;
    for (int i = 0; i < n; i++) {
        knobs_signature(&cfg[i], h[i].signature);
        h[i].category = IDEA_MICRO;
        h[i].measured = true;
        h[i].tflops = y[i];
        h[i].kept = false;
        if (y[i] > best_y)
            best_y = y[i], best = cfg[i];
    }
    /* the best measured: 5 stages, group 8, 128-B swizzle (all three effects) */
    assert_int_equal(best.v[KNOB_STAGES], 5);
    assert_int_equal(best.v[KNOB_GROUP], 8);
    struct proposer_ctx ctx = {.shape = shape, .best = best, .best_tflops = best_y, .bottleneck = BN_UNKNOWN,
                               .history = h, .n_history = (size_t)n, .iteration = 40, .budget = 150, .seed = 3};
    struct idea id;
    assert_int_equal(proposer_next(&ctx, &id), 0);
    /* it keeps what the model learnt: stages 5, group 8, swizzle 128 */
    assert_int_equal(id.cfg.v[KNOB_STAGES], 5);
    assert_int_equal(id.cfg.v[KNOB_GROUP], 8);
    assert_int_equal(id.cfg.v[KNOB_SWIZZLE], 128);
    if (!strstr(id.text, "model (ridge, 9 measurements of this shape): "))
        fail_msg("text without the model: %s", id.text);
    /* without measurements the text says the model is not fitted */
    for (int i = 0; i < n; i++)
        h[i].measured = false;
    assert_int_equal(proposer_next(&ctx, &id), 0);
    assert_non_null(strstr(id.text, "model: not fitted yet"));
}

/* From the baseline kernel, the first idea is a recipe: the multi-knob move into the
 * warp-specialized region, named in the text; every recipe candidate is valid. */
static void test_recipes_from_the_baseline(void **state)
{
    (void)state;
    for (int dt = CROQ_DTYPE_F16; dt <= CROQ_DTYPE_E4M3; dt++) {
        static struct idea_history_entry h[1];
        struct croq_config base;
        knobs_baseline(&base, dt);
        knobs_signature(&base, h[0].signature);
        h[0].start = h[0].kept = h[0].measured = true;
        h[0].tflops = 300;
        struct proposer_ctx ctx = {.shape = shape, .best = base, .best_tflops = 300, .bottleneck = BN_LATENCY_BOUND,
                                   .history = h, .n_history = 1, .iteration = 1, .budget = 150, .seed = 1};
        struct idea id;
        assert_int_equal(proposer_next(&ctx, &id), 0);
        assert_int_equal(id.kind, KIND_RECIPE);
        assert_int_equal(id.category, IDEA_STRUCTURAL);
        assert_int_equal(id.cfg.v[KNOB_KERNEL], 1);
        assert_true(id.n_changed >= 4);
        assert_non_null(strstr(id.text, "recipe: "));
        char why[CROQ_WHY_MAX];
        assert_true(knobs_validate(&id.cfg, &shape, why, sizeof why));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_and_predict),
        cmocka_unit_test(test_model_ranks_the_mutations),
        cmocka_unit_test(test_other_shapes),
        cmocka_unit_test(test_recipes_from_the_baseline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
