/* tests/unit/test_engine_fsm.c — the engine's phase table (src/engine/phase.c): the
 * documented path is legal, everything else is refused with both phases named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "artifacts/artifacts.h"
#include "engine/run.h"

/* The transitions docs/engine.md draws, and only those. */
static const int legal[][2] = {
    {PH_INIT, PH_BASELINE},          {PH_BASELINE, PH_PROFILE},       {PH_BASELINE, PH_SHAPE_COMPLETE},
    {PH_PROFILE, PH_IDEATE},         {PH_IDEATE, PH_IMPLEMENT},       {PH_IDEATE, PH_SHAPE_COMPLETE},
    {PH_IMPLEMENT, PH_MEASURE},      {PH_IMPLEMENT, PH_IDEATE},       {PH_MEASURE, PH_DECIDE},
    {PH_MEASURE, PH_STORE},          {PH_DECIDE, PH_STORE},           {PH_STORE, PH_PROFILE},
    {PH_STORE, PH_SHAPE_COMPLETE},   {PH_SHAPE_COMPLETE, PH_NEXT_SHAPE}, {PH_NEXT_SHAPE, PH_INIT},
    {PH_NEXT_SHAPE, PH_PROFILE},     {PH_IDEATE, PH_LADDER},          {PH_STORE, PH_LADDER},
    {PH_LADDER, PH_SHAPE_COMPLETE},  {PH_NEXT_SHAPE, PH_LADDER},
};

static bool in_table(int a, int b)
{
    for (size_t i = 0; i < sizeof legal / sizeof *legal; i++)
        if (legal[i][0] == a && legal[i][1] == b)
            return true;
    return false;
}

static void test_table_is_exactly_the_documented_one(void **state)
{
    (void)state;
    int n = 0;
    for (int a = 0; a < PH_COUNT; a++)
        for (int b = 0; b < PH_COUNT; b++) {
            assert_int_equal(phase_allowed(a, b), in_table(a, b));
            n += phase_allowed(a, b);
        }
    assert_int_equal(n, (int)(sizeof legal / sizeof *legal));
}

static void test_illegal_transition_names_both_phases(void **state)
{
    (void)state;
    char err[128];
    enum engine_phase p = PH_IDEATE;
    assert_int_equal(phase_transition(&p, PH_STORE, err, sizeof err), -1);
    assert_int_equal(p, PH_IDEATE); /* unchanged */
    assert_string_equal(err, "illegal transition IDEATE -> STORE");
    p = PH_MEASURE;
    assert_int_equal(phase_transition(&p, PH_BASELINE, err, sizeof err), -1);
    assert_non_null(strstr(err, "MEASURE"));
    assert_non_null(strstr(err, "BASELINE"));
    /* skipping the profile or the measurement is impossible */
    p = PH_STORE;
    assert_int_equal(phase_transition(&p, PH_IDEATE, err, sizeof err), -1);
    p = PH_IMPLEMENT;
    assert_int_equal(phase_transition(&p, PH_DECIDE, err, sizeof err), -1);
    p = PH_INIT;
    assert_int_equal(phase_transition(&p, PH_PROFILE, err, sizeof err), -1);
}

static void test_documented_loop_walks(void **state)
{
    (void)state;
    char err[128];
    enum engine_phase p = PH_INIT;
    const enum engine_phase path[] = {PH_BASELINE, PH_PROFILE, PH_IDEATE, PH_IMPLEMENT, PH_IDEATE,
                                      PH_IMPLEMENT, PH_MEASURE, PH_DECIDE, PH_STORE, PH_PROFILE,
                                      PH_IDEATE, PH_IMPLEMENT, PH_MEASURE, PH_STORE, PH_SHAPE_COMPLETE,
                                      PH_NEXT_SHAPE, PH_INIT};
    for (size_t i = 0; i < sizeof path / sizeof *path; i++) {
        assert_int_equal(phase_transition(&p, path[i], err, sizeof err), 0);
        assert_int_equal(p, path[i]);
    }
}

static void test_names_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < PH_COUNT; i++)
        assert_int_equal(phase_parse(phase_name(i)), i);
    assert_int_equal(phase_parse("ideate"), -1);
    assert_int_equal(phase_parse(NULL), -1);
    assert_false(phase_allowed(PH_COUNT, PH_INIT));
    assert_false(phase_allowed(-1, PH_INIT));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_is_exactly_the_documented_one),
        cmocka_unit_test(test_illegal_transition_names_both_phases),
        cmocka_unit_test(test_documented_loop_walks),
        cmocka_unit_test(test_names_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
