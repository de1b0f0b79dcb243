/* tests/unit/test_engine_scenarios.c — expanding shapes.json's scenario descriptions
 * (src/shapes/shapes.c): the shipped file gives 134 distinct scenario shapes, 42 of
 * them near; the expansion rules on a small document whose answer is known. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "shapes/shapes.h"

static bool has(const struct scenario_set *s, long m, long n, long k, size_t *at)
{
    for (size_t i = 0; i < s->n_scenario; i++)
        if (s->scenario[i].m == m && s->scenario[i].n == n && s->scenario[i].k == k) {
            if (at)
                *at = i;
            return true;
        }
    return false;
}

static void test_shipped_file(void **state)
{
    (void)state;
    char path[PATH_MAX], err[512];
    struct scenario_set s;
    if (shapes_find_file(path, sizeof path, err, sizeof err)) {
        print_message("shapes.json not found (%s)\n", err);
        skip();
    }
    assert_int_equal(scenarios_load(path, &s, err, sizeof err), 0);
    assert_int_equal(s.n_scenario, 134);
    size_t near = 0;
    for (size_t i = 0; i < s.n_scenario; i++)
        near += scenarios_is_near(&s, &s.scenario[i]);
    assert_int_equal(near, 42);
    assert_int_equal(s.n_typical[CROQ_DTYPE_F16], 14);
    assert_int_equal(s.n_typical[CROQ_DTYPE_E4M3], 14);
    assert_int_equal(s.budget_scratch, 150);
    assert_int_equal(s.budget_best, 30);
    assert_int_equal(scenarios_budget(&s, false), 150);
    assert_int_equal(scenarios_budget(&s, true), 30);
    /* first shape of the first scenario (square 256), the reference shape, the tied sweeps */
    size_t at = 99;
    assert_true(has(&s, 256, 256, 256, &at));
    assert_int_equal(at, 0);
    assert_true(has(&s, 4096, 8192, 8192, NULL));
    assert_true(scenarios_is_near(&s, &(struct croq_shape){4096, 8192, 8192}));
    assert_true(has(&s, 128, 8192, 8192, NULL));   /* sweep_m smallest */
    assert_true(has(&s, 4096, 32768, 8192, NULL)); /* sweep_n largest */
    assert_true(has(&s, 12288, 12288, 4096, NULL)); /* sweep_mn fixK4096 */
    assert_true(has(&s, 8192, 8192, 128, NULL));   /* sweep_mn fixMN8192 vary K */
    assert_true(has(&s, 6144, 4096, 6144, NULL));  /* sweep_mk fixN4096 tied */
    assert_true(has(&s, 8192, 16384, 16384, NULL)); /* sweep_nk fixM8192 tied */
    assert_false(has(&s, 4096, 4096, 32768, NULL)); /* no scenario reaches it */
    /* every typical shape is a scenario shape and far */
    for (int dt = 0; dt < 2; dt++)
        for (size_t i = 0; i < s.n_typical[dt]; i++) {
            const struct croq_shape *t = &s.typical[dt][i];
            assert_true(has(&s, t->m, t->n, t->k, NULL));
            assert_false(scenarios_is_near(&s, t));
            assert_true(scenarios_is_typical(&s, dt, t));
        }
    assert_false(scenarios_is_typical(&s, CROQ_DTYPE_F16, &(struct croq_shape){4096, 8192, 8192}));
    /* no duplicates */
    for (size_t i = 0; i < s.n_scenario; i++)
        for (size_t j = i + 1; j < s.n_scenario; j++)
            assert_false(s.scenario[i].m == s.scenario[j].m && s.scenario[i].n == s.scenario[j].n &&
                         s.scenario[i].k == s.scenario[j].k);
    scenarios_release(&s);
}

static const char small_doc[] =
    "{\"scenarios\": {"
    " \"sq\": {\"type\": \"single\", \"M\": \"S\", \"N\": \"S\", \"K\": \"S\", \"sizes\": [256, 512, 64]},"
    " \"vm\": {\"type\": \"single\", \"M\": \"S\", \"N\": 512, \"K\": 512, \"sizes\": [512, 1024]},"
    " \"mn\": {\"type\": \"tied_pair\", \"tied_dims\": [\"M\", \"N\"], \"free_dim\": \"K\", \"sub_series\": {"
    "    \"a\": {\"fixed\": {\"K\": 256}, \"tied_sizes\": [256, 1024]},"
    "    \"b\": {\"fixed\": {\"M\": 2048, \"N\": 2048}, \"vary_sizes\": [128, 256]}}}},"
    " \"size_constraints\": {\"min_M\": 128, \"min_N\": 256, \"min_K\": 128},"
    " \"regions\": {\"near\": {\"M\": [512, 2048], \"N\": [512, 2048], \"K\": [256, 1024]}},"
    " \"typical_shapes_for_scratch\": {\"f16\": [[256, 256, 256]], \"e4m3\": []},"
    " \"iteration_budgets\": {\"from_scratch\": 7, \"from_current_best\": 3}}";

static void test_expansion_rules(void **state)
{
    (void)state;
    char err[256];
    struct scenario_set s;
    json_t *doc = json_loads(small_doc, 0, NULL);
    assert_non_null(doc);
    assert_int_equal(scenarios_parse(doc, &s, err, sizeof err), 0);
    /* sq: 256^3, 512^3 (64^3 is below the size constraints); vm: 512x512x512 again
     * (dropped), 1024x512x512; mn.a: 256x256x256 again, 1024x1024x256; mn.b: 2048x2048x128,
     * 2048x2048x256 */
    const long want[][3] = {{256, 256, 256}, {512, 512, 512}, {1024, 512, 512},
                            {1024, 1024, 256}, {2048, 2048, 128}, {2048, 2048, 256}};
    assert_int_equal(s.n_scenario, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(s.scenario[i].m, want[i][0]);
        assert_int_equal(s.scenario[i].n, want[i][1]);
        assert_int_equal(s.scenario[i].k, want[i][2]);
    }
    assert_true(scenarios_is_near(&s, &s.scenario[1]));
    assert_false(scenarios_is_near(&s, &s.scenario[0]));
    assert_false(scenarios_is_near(&s, &s.scenario[4])); /* K 128 below the near range */
    assert_int_equal(s.budget_scratch, 7);
    assert_int_equal(s.n_typical[CROQ_DTYPE_F16], 1);
    assert_int_equal(s.n_typical[CROQ_DTYPE_E4M3], 0);
    scenarios_release(&s);
    json_decref(doc);
}

static void test_malformed_documents(void **state)
{
    (void)state;
    char err[256];
    struct scenario_set s;
#define RULES "\"regions\": {\"near\": {\"M\": [1, 2], \"N\": [1, 2], \"K\": [1, 2]}}, "
#define BUDGETS "\"iteration_budgets\": {\"from_scratch\": 150, \"from_current_best\": 30}, "
    /* each document, and the member its error names */
    const char *bad[][2] = {
        {"[]", "not a JSON object"},
        {"{\"scenarios\": {\"x\": {\"type\": \"spiral\"}}, " RULES BUDGETS
         "\"typical_shapes_for_scratch\": {\"f16\": [], \"e4m3\": []}}", "unknown type 'spiral'"},
        {"{\"scenarios\": {}, \"regions\": {\"near\": {\"M\": [1, 2], \"N\": [1, 2]}}, " BUDGETS
         "\"typical_shapes_for_scratch\": {\"f16\": [], \"e4m3\": []}}", "regions.near.K"},
        {"{\"scenarios\": {}, " RULES BUDGETS "\"typical_shapes_for_scratch\": {\"f16\": [[1, 2]], \"e4m3\": []}}",
         "typical_shapes_for_scratch.f16[0]"},
        /* the budgets are the protocol's, never a default of ours */
        {"{\"scenarios\": {}, " RULES "\"typical_shapes_for_scratch\": {\"f16\": [], \"e4m3\": []}}",
         "iteration_budgets.from_scratch"},
        {"{\"scenarios\": {}, " RULES "\"iteration_budgets\": {\"from_scratch\": 150, \"from_current_best\": 0}, "
         "\"typical_shapes_for_scratch\": {\"f16\": [], \"e4m3\": []}}", "iteration_budgets.from_current_best"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *doc = json_loads(bad[i][0], 0, NULL);
        assert_non_null(doc);
        err[0] = '\0';
        assert_int_equal(scenarios_parse(doc, &s, err, sizeof err), -1);
        if (!strstr(err, bad[i][1]))
            fail_msg("document %zu: error '%s' does not name '%s'", i, err, bad[i][1]);
        json_decref(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_file),
        cmocka_unit_test(test_expansion_rules),
        cmocka_unit_test(test_malformed_documents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
