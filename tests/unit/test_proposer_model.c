/* tests/unit/test_proposer_model.c — the proposer's cost model (src/proposer/model.c):
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

static void test_fit_and_predict(void **state)
{
    (void)state;
    static struct prop_model m;
    struct croq_config cfg[32];
    struct croq_shape shp[32];
    double y[32];
    int n = samples(cfg, shp, y);
    assert_int_equal(n, 9);
    assert_int_equal(prop_model_fit(&m, cfg, shp, y, (size_t)n), 0);
    assert_int_equal(m.n, 9);
    /* measured points: within 10% of what was measured */
    for (int i = 0; i < n; i++) {
        double p = prop_model_predict(&m, &cfg[i], &shape, NULL);
        if (fabs(p / y[i] - 1) > 0.10)
            fail_msg("sample %d: predicted %.1f, measured %.1f", i, p, y[i]);
    }
    /* the effects: ranked the right way round on points never measured */
    struct croq_config a, b;
    knobs_default(&a, CROQ_DTYPE_F16);
    a.v[KNOB_STAGES] = 5, a.v[KNOB_GROUP] = 8, a.v[KNOB_SWIZZLE] = 64; /* (2+2+1) odd: unmeasured */
    b = a;
    b.v[KNOB_STAGES] = 4;
    assert_true(prop_model_predict(&m, &a, &shape, NULL) > prop_model_predict(&m, &b, &shape, NULL) * 1.1);
    b = a;
    b.v[KNOB_SWIZZLE] = 128;
    assert_true(prop_model_predict(&m, &b, &shape, NULL) > prop_model_predict(&m, &a, &shape, NULL) * 1.1);
    /* uncertainty: a knob value no sample had is less certain than a measured point */
    int unseen = -1;
    b = cfg[0];
    b.v[KNOB_TILE_N] = 128;
    prop_model_predict(&m, &b, &shape, &unseen);
    assert_int_equal(unseen, 1);
    prop_model_predict(&m, &cfg[0], &shape, &unseen);
    assert_int_equal(unseen, 0);
    assert_true(prop_model_stddev(&m, &b, &shape) > 1.5 * prop_model_stddev(&m, &cfg[0], &shape));
    assert_true(m.sigma >= PROP_MODEL_SIGMA_MIN);
    /* too few measurements: no model */
    assert_int_equal(prop_model_fit(&m, cfg, shp, y, PROP_MODEL_MIN_SAMPLES - 1), 0);
    assert_int_equal(m.n, 0);
    /* failed measurements (0) are left out */
    y[0] = 0;
    assert_int_equal(prop_model_fit(&m, cfg, shp, y, (size_t)n), 0);
    assert_int_equal(m.n, 8);
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
    if (!strstr(id.text, "model (ridge, 9 measurements): "))
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
        cmocka_unit_test(test_recipes_from_the_baseline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
