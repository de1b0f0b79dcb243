/* tests/unit/test_search.c — the search strategies (src/search/search.h): the table and
 * opening by name (the heuristic is the proposer, the agent external, the default the
 * checkpoint's); the random strategy deterministic per seed, only valid untried
 * configurations, uniform over the valid ones (each knob's value frequencies against an
 * independent rejection sample); the grid strategy in table order and grid_space_index;
 * every engine strategy inside ctx->measurable (a replay's dataset); errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts/checkpoint.h"
#include "search/grid.h"
#include "search/search.h"

static const struct croq_shape large = {4096, 8192, 8192};
static const struct croq_shape shapes[] = {{4096, 8192, 8192}, {1024, 1024, 4096}, {768, 768, 768},
                                           {12288, 4096, 4096}, {4096, 8192, 512}};

struct history {
    struct idea_history_entry e[512];
    size_t n;
};

static void history_add(struct history *h, const struct croq_config *c, enum idea_category cat)
{
    assert_true(h->n < sizeof h->e / sizeof *h->e);
    memset(&h->e[h->n], 0, sizeof h->e[h->n]);
    knobs_signature(c, h->e[h->n].signature);
    h->e[h->n].category = cat;
    h->n++;
}

static bool history_has(const struct history *h, const struct croq_config *c)
{
    char sig[CROQ_SIG_MAX];
    knobs_signature(c, sig);
    for (size_t i = 0; i < h->n; i++)
        if (!strcmp(h->e[i].signature, sig))
            return true;
    return false;
}

static struct proposer_ctx ctx_of(const struct croq_shape *shape, const struct croq_config *best,
                                  const struct history *h, unsigned long long seed)
{
    struct proposer_ctx ctx = {0};
    ctx.shape = *shape;
    ctx.best = *best;
    ctx.best_tflops = 500;
    ctx.bottleneck = BN_UNKNOWN;
    ctx.history = h->e;
    ctx.n_history = h->n;
    ctx.iteration = (int)h->n;
    ctx.budget = 150;
    ctx.seed = seed;
    return ctx;
}

/* n ideas of strategy s from the baseline on shape (the best never changes), each
 * appended to the history as a discard; their signatures to sigs. */
static void run(const struct search_strategy *s, const struct croq_shape *shape, int dtype, unsigned long long seed,
                int n, char (*sigs)[CROQ_SIG_MAX])
{
    static struct history h;
    struct croq_config best;
    char why[CROQ_WHY_MAX];
    knobs_baseline(&best, dtype);
    assert_true(knobs_validate(&best, shape, why, sizeof why));
    h.n = 0;
    history_add(&h, &best, IDEA_MACRO);
    h.e[0].start = true;
    for (int i = 0; i < n; i++) {
        struct proposer_ctx ctx = ctx_of(shape, &best, &h, seed);
        struct idea id;
        assert_int_equal(s->next(&ctx, &id), 0);
        if (!knobs_validate(&id.cfg, shape, why, sizeof why)) {
            knobs_signature(&id.cfg, sigs[0]);
            fail_msg("%s proposed %s, invalid for %ldx%ldx%ld: %s", s->name, sigs[0], shape->m, shape->n, shape->k,
                     why);
        }
        assert_false(history_has(&h, &id.cfg)); /* never tried, never the best (history[0]) */
        assert_int_equal(id.cfg.dtype, dtype);
        for (int k = KNOB_FIRST_LATE; k < KNOB_COUNT; k++) /* late knobs are not walked */
            assert_int_equal(id.cfg.v[k], best.v[k]);
        assert_true(id.n_changed >= 1);
        assert_true((int)id.category >= 0 && id.category < IDEA_CAT_COUNT);
        assert_true(id.text[0] != '\0');
        knobs_signature(&id.cfg, sigs[i]);
        history_add(&h, &id.cfg, id.category);
    }
}

static void test_table(void **state)
{
    (void)state;
    char names[200];
    search_names(names, sizeof names);
    assert_string_equal(names, "heuristic, grid, random, agent");
    assert_int_equal(search_count(), 4);
    for (size_t i = 0; i < search_count(); i++)
        assert_ptr_equal(search_open(search_at(i)->name), search_at(i));
    assert_null(search_at(search_count()));
    assert_null(search_open("bogus"));
    assert_null(search_open(""));
    assert_null(search_open(NULL));
    assert_null(search_open("Heuristic")); /* names are exact */
    /* the default is the proposer, and what a checkpoint without "strategy" means */
    assert_string_equal(SEARCH_DEFAULT, CHECKPOINT_STRATEGY_DEFAULT);
    assert_ptr_equal(search_open(SEARCH_DEFAULT)->next, proposer_next);
    assert_null(search_open("agent")->next); /* external: IDEATE waits */
    assert_non_null(search_open("grid")->next);
    assert_non_null(search_open("random")->next);
    for (size_t i = 0; i < search_count(); i++)
        assert_true(strlen(search_at(i)->name) < SEARCH_NAME_MAX);
    struct checkpoint c;
    assert_true(sizeof c.strategy >= SEARCH_NAME_MAX);
}

static void test_random_deterministic_per_seed(void **state)
{
    (void)state;
    const struct search_strategy *s = search_open("random");
    static char a[60][CROQ_SIG_MAX], b[60][CROQ_SIG_MAX], c[60][CROQ_SIG_MAX];
    for (int dtype = 0; dtype < 2; dtype++) {
        run(s, &large, dtype, 7, 60, a);
        run(s, &large, dtype, 7, 60, b);
        run(s, &large, dtype, 8, 60, c);
        int same = 0;
        for (int i = 0; i < 60; i++) {
            assert_string_equal(a[i], b[i]); /* equal seed, equal sequence */
            same += !strcmp(a[i], c[i]);
        }
        assert_true(same < 3); /* another seed, other draws (among ~1.7 M valid) */
    }
}

static void test_random_only_valid_untried(void **state)
{
    (void)state;
    static char sigs[150][CROQ_SIG_MAX];
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int dtype = 0; dtype < 2; dtype++)
            run(search_open("random"), &shapes[i], dtype, 1 + i, 150, sigs); /* run asserts each */
}

/* Each early knob's value frequencies in the strategy's draws against those in an
 * independent rejection sample of the valid configurations (this test's own generator):
 * a biased draw (a walk from a random start, a modulo slip) moves some value by far more
 * than 6 standard deviations. */
static void test_random_uniform_over_valid(void **state)
{
    (void)state;
    enum { N = 3000 };
    static int got[KNOB_COUNT][CROQ_KNOB_MAX_VALUES], want[KNOB_COUNT][CROQ_KNOB_MAX_VALUES];
    struct croq_config best;
    char why[CROQ_WHY_MAX];
    static struct history h;
    knobs_default(&best, 0);
    h.n = 0;
    history_add(&h, &best, IDEA_MACRO);
    const struct search_strategy *s = search_open("random");
    for (int i = 0; i < N; i++) { /* empty history but the best: each seed one draw */
        struct proposer_ctx ctx = ctx_of(&large, &best, &h, 1000 + (unsigned long long)i);
        struct idea id;
        assert_int_equal(s->next(&ctx, &id), 0);
        for (int k = 0; k < KNOB_FIRST_LATE; k++)
            for (int v = 0; v < croq_knobs[k].n_values; v++)
                got[k][v] += id.cfg.v[k] == croq_knobs[k].values[v];
    }
    uint64_t x = 12345;
    for (int n = 0; n < N;) {
        struct croq_config c = best;
        for (int k = 0; k < KNOB_FIRST_LATE; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            c.v[k] = croq_knobs[k].values[(x >> 33) % (uint64_t)croq_knobs[k].n_values];
        }
        if (!knobs_validate(&c, &large, why, sizeof why) || !memcmp(&c, &best, sizeof c))
            continue;
        for (int k = 0; k < KNOB_FIRST_LATE; k++)
            for (int v = 0; v < croq_knobs[k].n_values; v++)
                want[k][v] += c.v[k] == croq_knobs[k].values[v];
        n++;
    }
    for (int k = 0; k < KNOB_FIRST_LATE; k++)
        for (int v = 0; v < croq_knobs[k].n_values; v++) {
            double p = (double)want[k][v] / N, sd = sqrt(2.0 * N * p * (1 - p)) + 1;
            if (fabs((double)(got[k][v] - want[k][v])) > 6 * sd)
                fail_msg("%s=%d: %d of %d draws, %d in the reference sample", croq_knobs[k].name,
                         croq_knobs[k].values[v], got[k][v], N, want[k][v]);
        }
}

/* grid_space_index inverts grid_space_point on every early knob; a value outside the
 * knob's list has no index. */
static void test_grid_space_index(void **state)
{
    (void)state;
    struct croq_config base, c;
    knobs_baseline(&base, 1);
    long np = grid_space_points(NULL);
    for (long x = 0; x < np; x += np / 997 + 1) {
        grid_space_point(NULL, x, &base, &c);
        assert_int_equal(grid_space_index(NULL, &c), x);
    }
    grid_space_point(NULL, np - 1, &base, &c);
    assert_int_equal(grid_space_index(NULL, &c), np - 1);
    c.v[KNOB_TILE_K] = 3; /* in no list */
    assert_int_equal(grid_space_index(NULL, &c), -1);
}

static void test_grid_in_table_order(void **state)
{
    (void)state;
    static char a[100][CROQ_SIG_MAX], b[100][CROQ_SIG_MAX];
    const struct search_strategy *s = search_open("grid");
    run(s, &large, 0, 1, 100, a); /* asserts valid and untried */
    run(s, &large, 0, 99, 100, b);
    long prev = -1;
    for (int i = 0; i < 100; i++) {
        assert_string_equal(a[i], b[i]); /* the seed plays no part */
        struct croq_config c;
        char err[200];
        assert_int_equal(knobs_parse_signature(&c, a[i], err, sizeof err), 0);
        long x = grid_space_index(NULL, &c);
        assert_true(x > prev);
        /* every point between two proposals is invalid (or the baseline, tried) */
        struct croq_config base;
        knobs_baseline(&base, 0);
        for (long y = prev + 1; y < x; y++) {
            struct croq_config p;
            char why[CROQ_WHY_MAX];
            grid_space_point(NULL, y, &base, &p);
            assert_true(!knobs_validate(&p, &large, why, sizeof why) || !memcmp(&p, &base, sizeof p));
        }
        prev = x;
    }
}

/* With ctx->measurable (a replay's dataset: src/backend/replay.c), every engine strategy
 * proposes only its configurations, each once, and says none is left (1) when every one
 * valid for the shape and of the best's dtype was proposed; grid in table order; random
 * another order for another seed. The list: 40 grid points valid for the shape, one of
 * the other dtype, one invalid for the shape, the baseline (the best: never proposed). */
static void test_measurable(void **state)
{
    (void)state;
    enum { NV = 40 };
    static struct croq_config list[NV + 3];
    static char got[NV + 3][CROQ_SIG_MAX], first[NV + 3][CROQ_SIG_MAX];
    struct croq_config base, c;
    char why[CROQ_WHY_MAX];
    knobs_baseline(&base, 0);
    size_t n = 0;
    long np = grid_space_points(NULL);
    for (long x = 7; n < NV; x += np / 4099) {
        grid_space_point(NULL, x % np, &base, &c);
        if (knobs_validate(&c, &large, why, sizeof why) && memcmp(&c, &base, sizeof c))
            list[n++] = c;
    }
    c.dtype = 1;
    list[n++] = c; /* the other dtype */
    struct croq_config bad = base;
    bad.v[KNOB_TILE_M] = 256, bad.v[KNOB_SPLIT_K] = 64; /* split-K of 8192 into 64 slices of 128: tile_k 64 fits, */
    bad.v[KNOB_TILE_K] = 256;                             /* 256 does not */
    assert_false(knobs_validate(&bad, &large, why, sizeof why));
    list[n++] = bad;
    list[n++] = base;
    qsort(list, n, sizeof *list, knobs_config_cmp);
    static const char *const names[] = {"heuristic", "grid", "random", "random"};
    for (int si = 0; si < 4; si++) {
        const struct search_strategy *s = search_open(names[si]);
        static struct history h;
        h.n = 0;
        history_add(&h, &base, IDEA_MACRO);
        h.e[0].start = true;
        int k = 0;
        long prev = -1;
        for (;;) {
            struct proposer_ctx ctx = ctx_of(&large, &base, &h, si == 3 ? 77 : 5);
            ctx.measurable = list;
            ctx.n_measurable = n;
            struct idea id;
            int rc = s->next(&ctx, &id);
            if (rc == 1)
                break;
            assert_int_equal(rc, 0);
            assert_true(k < NV);
            knobs_signature(&id.cfg, got[k]);
            if (!bsearch(&id.cfg, list, n, sizeof *list, knobs_config_cmp))
                fail_msg("%s proposed %s, not measurable", s->name, got[k]);
            assert_false(history_has(&h, &id.cfg));
            assert_true(knobs_validate(&id.cfg, &large, why, sizeof why));
            if (si == 1) { /* grid: table order */
                assert_true(grid_space_index(NULL, &id.cfg) > prev);
                prev = grid_space_index(NULL, &id.cfg);
            }
            history_add(&h, &id.cfg, id.category);
            k++;
        }
        assert_int_equal(k, NV); /* every valid one of the dtype, then none left */
        if (si == 2)
            memcpy(first, got, sizeof got);
        if (si == 3) { /* another seed, another order */
            int same = 0;
            for (int i = 0; i < NV; i++)
                same += !strcmp(first[i], got[i]);
            assert_true(same < NV / 2);
        }
    }
}

static void test_errors(void **state)
{
    (void)state;
    static struct history h;
    struct croq_config best;
    struct idea id;
    knobs_default(&best, 0);
    h.n = 0;
    struct croq_shape bad = {0, 8192, 8192};
    for (size_t i = 0; i < search_count(); i++) {
        const struct search_strategy *s = search_at(i);
        if (!s->next)
            continue;
        struct proposer_ctx ctx = ctx_of(&bad, &best, &h, 1);
        assert_int_equal(s->next(&ctx, &id), -1);
        assert_int_equal(s->next(NULL, &id), -1);
        ctx = ctx_of(&large, &best, &h, 1);
        assert_int_equal(s->next(&ctx, NULL), -1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_random_deterministic_per_seed),
        cmocka_unit_test(test_random_only_valid_untried),
        cmocka_unit_test(test_random_uniform_over_valid),
        cmocka_unit_test(test_grid_in_table_order),
        cmocka_unit_test(test_grid_space_index),
        cmocka_unit_test(test_measurable),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
