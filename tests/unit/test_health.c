/* tests/unit/test_health.c — the health module's parts that need no GPU: the names of
 * NVML's clocks-event ("throttle") reason bits, as logs, runner JSON and the health
 * line show them. A bit the table does not know is shown with its value (issue 24,
 * item 9), never as a bare "other". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <jansson.h>

#include "health/nvml.h"

static void test_known_bits_are_named_in_bit_order(void **state)
{
    (void)state;
    char names[GPU_REASONS_MAX][GPU_REASON_NAME_MAX], text[256];
    int n = nvml_reason_names(0x4 | 0x1 | 0x400, names, GPU_REASONS_MAX);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "gpu_idle");
    assert_string_equal(names[1], "sw_power_cap");
    assert_string_equal(names[2], "reliability");
    nvml_reasons_text(0x40 | 0x80, text, sizeof text);
    assert_string_equal(text, "hw_thermal,power_brake");
    nvml_reasons_text(0, text, sizeof text);
    assert_string_equal(text, "");
    nvml_reasons_text(-1, text, sizeof text); /* unknown mask: nothing, not every bit */
    assert_string_equal(text, "");
}

static void test_unknown_bits_show_their_hex_value(void **state)
{
    (void)state;
    char names[GPU_REASONS_MAX][GPU_REASON_NAME_MAX], text[256];
    int n = nvml_reason_names(0x4 | 0x800 | (1LL << 40), names, GPU_REASONS_MAX);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "sw_power_cap");
    assert_string_equal(names[1], "other(0x800)");
    assert_string_equal(names[2], "other(0x10000000000)");
    nvml_reasons_text(0x1000 | 0x8, text, sizeof text);
    assert_string_equal(text, "hw_slowdown,other(0x1000)");
    json_t *j = nvml_reasons_json(0x2000);
    assert_int_equal(json_array_size(j), 1);
    assert_string_equal(json_string_value(json_array_get(j, 0)), "other(0x2000)");
    json_decref(j);
    j = nvml_reasons_json(-1);
    assert_true(json_is_null(j));
    json_decref(j);
    /* the text is cut to its buffer, never overrun */
    char small[12];
    nvml_reasons_text(0x4 | 0x800, small, sizeof small);
    assert_string_equal(small, "sw_power_ca");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_bits_are_named_in_bit_order),
        cmocka_unit_test(test_unknown_bits_show_their_hex_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
