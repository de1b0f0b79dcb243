/* tests/unit/test_target.c — the dtype-trait table (src/target/dtype.def) and the target
 * table (src/target/target.def): every row complete, the ids the ABI's, and the values
 * those that the code held as constants before the tables (the kernels' shared-memory
 * limit, 132 SMs, 1979 / 3958 TFLOPS at 1980 MHz, the tolerance terms, the operand
 * ranges), so reading the tables changed no number. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../../kernels/geometry.h"
#include "backend/backend.h"
#include "format/numeric.h"
#include "format/reference.h"
#include "knobs/knobs.h"
#include "target/dtype.h"
#include "target/target.h"

static void test_dtype_rows_complete(void **state)
{
    (void)state;
    assert_int_equal(CROQ_DTYPE_COUNT, 2);
    for (int d = 0; d < CROQ_DTYPE_COUNT; d++) {
        const struct croq_dtype_traits *t = croq_dtype_traits(d);
        assert_true(croq_dtype_valid(d));
        assert_int_equal(t->id, d); /* the row of id d is at d */
        assert_non_null(t->name);
        assert_true(strlen(t->name) > 0);
        assert_int_equal(croq_dtype_parse(t->name), d);
        assert_string_equal(croq_dtype_name(d), t->name);
        assert_true(t->bytes == 1 || t->bytes == 2);
        assert_int_equal(croq_dtype_size(d), t->bytes);
        assert_int_equal((int)numeric_dtype_bytes(d), t->bytes);
        /* a stage keeps its bytes: tile_k x bytes is the same for every dtype */
        assert_int_equal(t->tile_k_scale * t->bytes, 2);
        /* the magnitude is every bit below the sign of a bytes-wide element */
        assert_int_equal(t->mag_mask, (1u << (8 * t->bytes - 1)) - 1);
        assert_true(t->operand_range > 0 && isfinite(t->operand_range));
        assert_true(t->tol_acc > 0 && t->tol_acc < 1);
    }
    assert_false(croq_dtype_valid(-1));
    assert_false(croq_dtype_valid(CROQ_DTYPE_COUNT));
    assert_string_equal(croq_dtype_name(CROQ_DTYPE_COUNT), "?");
    assert_int_equal((int)numeric_dtype_bytes(CROQ_DTYPE_COUNT), 0);
    /* an unknown id reads as f16, as the branches the table replaced did */
    assert_ptr_equal(croq_dtype_traits(7), croq_dtype_traits(CROQ_DTYPE_F16));
}

/* The values the code had before the table (knobs.c, numeric.c, reference.h, rng.c,
 * sparse24.c, runner/data.c, recipes.c). */
static void test_dtype_values(void **state)
{
    (void)state;
    const struct croq_dtype_traits *f = croq_dtype_traits(CROQ_DTYPE_F16), *e = croq_dtype_traits(CROQ_DTYPE_E4M3);
    assert_string_equal(f->name, "f16");
    assert_string_equal(e->name, "e4m3");
    assert_int_equal(f->bytes, 2);
    assert_int_equal(e->bytes, 1);
    assert_int_equal(f->tile_k_scale, 1);
    assert_int_equal(e->tile_k_scale, 2);
    assert_int_equal(f->mag_mask, 0x7FFF);
    assert_int_equal(e->mag_mask, 0x7F);
    assert_true(f->operand_range == 1.0f && e->operand_range == 2.0f);
    assert_true(f->tol_acc == 0x1p-18 && e->tol_acc == 0x1p-9);
    /* the bound of reference.h: 2^-10 |ref| + e_acc absref + 2^-14 */
    assert_true(reference_tolerance(CROQ_DTYPE_F16, 64, 1.0, 2.0) == 0x1p-10 + 0x1p-18 * 2.0 + 0x1p-14);
    assert_true(reference_tolerance(CROQ_DTYPE_E4M3, 64, 1.0, 2.0) == 0x1p-10 + 0x1p-9 * 2.0 + 0x1p-14);
    struct croq_config c;
    knobs_default(&c, CROQ_DTYPE_F16);
    assert_int_equal(c.v[KNOB_TILE_K], 64);
    knobs_default(&c, CROQ_DTYPE_E4M3);
    assert_int_equal(c.v[KNOB_TILE_K], 128);
}

static void test_target_rows_complete(void **state)
{
    (void)state;
    assert_true(CROQ_TARGET_COUNT >= 1);
    for (int i = 0; i < CROQ_TARGET_COUNT; i++) {
        const struct croq_target *t = croq_target_row(i);
        assert_non_null(t);
        assert_true(t->name && strlen(t->name) > 0);
        assert_true(t->sms > 0);
        assert_true(t->smem_per_block > 0 && t->smem_per_block <= t->smem_per_sm);
        assert_true(t->regs_per_sm > 0 && t->regs_per_thread > 0 && t->regs_per_thread < t->regs_per_sm);
        assert_true(t->boost_mhz > 0);
        assert_true(t->l2_bytes > 0);
        for (int d = 0; d < CROQ_DTYPE_COUNT; d++) /* a peak for every dtype row */
            assert_true(t->peak_tflops[d] > 0);
    }
    assert_null(croq_target_row(CROQ_TARGET_COUNT));
    assert_null(croq_target_row(-1));
}

/* The H200 facts as the code held them: PROPOSER_SM_COUNT and SIM_SMS 132, SMEM_LIMIT
 * and SIM_SMEM_PER_SM 232448 (the kernels' CROQ_SMEM_LIMIT), 1979 / 3958 TFLOPS at
 * 1980 MHz (backend.c, runner/timing.h). */
static void test_target_values(void **state)
{
    (void)state;
    const struct croq_target *t = croq_target();
    assert_string_equal(t->name, "NVIDIA H200");
    assert_int_equal(t->sms, 132);
    assert_int_equal(t->smem_per_block, 232448);
    assert_int_equal(t->smem_per_block, CROQ_SMEM_LIMIT); /* the limit the kernels assert on */
    assert_int_equal(t->smem_per_sm, 228 * 1024);
    assert_int_equal(t->regs_per_sm, 65536);
    assert_int_equal(t->regs_per_thread, 255);
    assert_true(t->boost_mhz == 1980.0);
    assert_int_equal(t->l2_bytes, 60L * 1024 * 1024); /* what coldl2 read from the device */
    assert_true(t->peak_tflops[CROQ_DTYPE_F16] == 1979.0);
    assert_true(t->peak_tflops[CROQ_DTYPE_E4M3] == 3958.0);
    /* the peak at a clock, bit for bit the expression it replaced */
    const double clocks[] = {1980.0, 1425.0, 735.0, 1755.5};
    for (size_t i = 0; i < sizeof clocks / sizeof *clocks; i++) {
        assert_true(backend_peak_tflops(CROQ_DTYPE_F16, clocks[i]) == 1979.0 * clocks[i] / 1980.0);
        assert_true(backend_peak_tflops(CROQ_DTYPE_E4M3, clocks[i]) == 3958.0 * clocks[i] / 1980.0);
        assert_true(target_peak_tflops(t, 9, clocks[i]) == 1979.0 * clocks[i] / 1980.0); /* unknown: f16 */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_rows_complete),
        cmocka_unit_test(test_dtype_values),
        cmocka_unit_test(test_target_rows_complete),
        cmocka_unit_test(test_target_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
