/* tests/unit/test_codegen.c — generated source: knob defines from the table, include
 * flattening (once, recursive, relative names), unknown includes rejected, and the
 * real embedded kernel sources. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "util/atomicio.h"

#define F(name, text) {name, text, sizeof(text) - 1}

/* A fake kernel tree: family.cu includes a.h twice and ptx/b.cuh, which includes its
 * sibling by a relative name and climbs back up to a.h; a.h includes family.cu (a
 * cycle include-once must break). */
static const struct croq_embedded_file fake[] = {
    F("family.cu", "// family entry\n#include \"a.h\"\n#include <cuda.h>\n  #  include \"a.h\"\n"
                   "#include \"ptx/b.cuh\"\nFAMILY_BODY\n"),
    F("baseline.cu", "#include \"a.h\"\nBASELINE_BODY"), /* no final newline */
    F("a.h", "#pragma once\nA_BODY\n#include \"family.cu\"\n"),
    F("ptx/b.cuh", "#include \"c.cuh\"\n#include \"../a.h\"\nB_BODY\n"),
    F("ptx/c.cuh", "C_BODY\n"),
    {NULL, NULL, 0},
};

static const struct croq_embedded_file fake_unknown[] = {
    F("family.cu", "int x;\n#include \"ptx/nope.cuh\"\n"),
    {NULL, NULL, 0},
};

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_defines_match_config(void **state)
{
    struct croq_config cfg;
    knobs_default(&cfg, CROQ_DTYPE_E4M3);
    char err[256];
    assert_int_equal(knobs_set(&cfg, "tile_n=128", err, sizeof err), 0);
    assert_int_equal(knobs_set(&cfg, "stages=3", err, sizeof err), 0);
    assert_int_equal(knobs_set(&cfg, "group=8", err, sizeof err), 0);
    struct codegen_opts o = {.files = fake, .err = err, .errlen = sizeof err};
    char *src;
    assert_int_equal(codegen_emit(&cfg, &o, &src), 0);
    assert_non_null(strstr(src, "#define CROQ_DTYPE 1 "));
    assert_non_null(strstr(src, "#define CROQ_TILE_N 128\n"));
    assert_non_null(strstr(src, "#define CROQ_STAGES 3\n"));
    assert_non_null(strstr(src, "#define CROQ_GROUP 8\n"));
    /* Exactly one define per row of knobs.def, with the config's value; none for a late
     * knob at its default (the kernel sources default it, so older configs keep their bytes). */
    for (int i = KNOB_FIRST_LATE; i < KNOB_COUNT; i++) {
        char prefix[96];
        snprintf(prefix, sizeof prefix, "#define %s ", croq_knobs[i].macro);
        assert_int_equal(count(src, prefix), 0);
    }
    for (int i = 0; i < KNOB_FIRST_LATE; i++) {
        char line[128], prefix[96];
        snprintf(line, sizeof line, "#define %s %d\n", croq_knobs[i].macro, cfg.v[i]);
        snprintf(prefix, sizeof prefix, "#define %s ", croq_knobs[i].macro);
        assert_int_equal(count(src, line), 1);
        assert_int_equal(count(src, prefix), 1);
    }
    assert_null(strstr(src, "CROQ_INJECT_FAULT"));
    char sig[CROQ_SIG_MAX], sigline[CROQ_SIG_MAX + 16];
    knobs_signature(&cfg, sig);
    snprintf(sigline, sizeof sigline, " * config: %s\n", sig);
    assert_non_null(strstr(src, sigline));
    /* Defines come before the kernel text that reads them. */
    assert_true(strstr(src, "#define CROQ_KERNEL ") < strstr(src, "FAMILY_BODY"));
    free(src);
    /* set away from its default, a late knob is written like any other */
    assert_int_equal(knobs_set(&cfg, "persistent=1", err, sizeof err), 0);
    assert_int_equal(knobs_set(&cfg, "schedule=1", err, sizeof err), 0);
    assert_int_equal(codegen_emit(&cfg, &o, &src), 0);
    assert_int_equal(count(src, "#define CROQ_SCHEDULE 1\n"), 1);
    free(src);
}

static void test_flatten_once_recursive(void **state)
{
    struct croq_config cfg;
    knobs_default(&cfg, CROQ_DTYPE_F16);
    char err[256] = "";
    struct codegen_opts o = {.files = fake, .err = err, .errlen = sizeof err};
    char *src;
    assert_int_equal(codegen_emit(&cfg, &o, &src), 0);
    assert_int_equal(count(src, "A_BODY"), 1);
    assert_int_equal(count(src, "B_BODY"), 1);
    assert_int_equal(count(src, "C_BODY"), 1);
    assert_int_equal(count(src, "FAMILY_BODY"), 1);
    assert_int_equal(count(src, "BASELINE_BODY"), 0);
    assert_int_equal(count(src, "#include \""), 0);     /* every quoted include resolved */
    assert_int_equal(count(src, "#include <cuda.h>"), 1); /* angle brackets left alone */
    assert_int_equal(count(src, "#pragma once"), 0);
    /* Inlined where first included: c.cuh (inside b.cuh) before B_BODY, a.h first. */
    assert_true(strstr(src, "A_BODY") < strstr(src, "C_BODY"));
    assert_true(strstr(src, "C_BODY") < strstr(src, "B_BODY"));
    assert_true(strstr(src, "B_BODY") < strstr(src, "FAMILY_BODY"));
    assert_int_equal(count(src, "already inlined above"), 3); /* a.h again, family.cu, ../a.h */
    free(src);
}

static void test_entry_by_kernel_knob(void **state)
{
    struct croq_config cfg;
    knobs_baseline(&cfg, CROQ_DTYPE_F16);
    assert_string_equal(codegen_entry(&cfg), "baseline.cu");
    char err[256];
    struct codegen_opts o = {.files = fake, .err = err, .errlen = sizeof err};
    char *src;
    assert_int_equal(codegen_emit(&cfg, &o, &src), 0);
    assert_int_equal(count(src, "BASELINE_BODY\n"), 1); /* missing final newline added */
    assert_int_equal(count(src, "FAMILY_BODY"), 1);     /* via a.h -> family.cu */
    assert_non_null(strstr(src, "#define CROQ_KERNEL 0\n"));
    assert_non_null(strstr(src, " * entry: baseline.cu\n"));
    free(src);
}

static void test_unknown_include_rejected(void **state)
{
    struct croq_config cfg;
    knobs_default(&cfg, CROQ_DTYPE_F16);
    char err[256] = "";
    struct codegen_opts o = {.files = fake_unknown, .err = err, .errlen = sizeof err};
    char *src = (char *)1;
    assert_int_equal(codegen_emit(&cfg, &o, &src), -1);
    assert_null(src);
    assert_string_equal(err, "unknown include \"ptx/nope.cuh\" in 'family.cu' line 2: not among "
                             "the embedded kernel sources");

    static const struct croq_embedded_file empty[] = {{NULL, NULL, 0}};
    o.files = empty;
    assert_int_equal(codegen_emit(&cfg, &o, &src), -1);
    assert_non_null(strstr(err, "'family.cu' is not embedded"));
}

static void test_invalid_config_and_fault(void **state)
{
    struct croq_config cfg;
    knobs_default(&cfg, CROQ_DTYPE_F16);
    cfg.v[KNOB_TILE_M] = 64; /* 64 rows cannot feed 2 consumers */
    char err[256] = "";
    struct codegen_opts o = {.files = fake, .err = err, .errlen = sizeof err};
    char *src;
    assert_int_equal(codegen_emit(&cfg, &o, &src), -1);
    assert_non_null(strstr(err, "invalid configuration: tile_m=64"));

    knobs_default(&cfg, CROQ_DTYPE_F16);
    o.inject_fault = codegen_fault_parse("hang");
    assert_int_equal(o.inject_fault, CODEGEN_FAULT_HANG);
    o.note = "iteration 3 */ sneaky\nline";
    assert_int_equal(codegen_emit(&cfg, &o, &src), 0);
    assert_non_null(strstr(src, "#define CROQ_INJECT_FAULT 2 "));
    assert_non_null(strstr(src, " * note: iteration 3 * / sneaky line\n"));
    /* The note cannot close the header comment early: its first end is after the note. */
    assert_true(strstr(src, "*/") > strstr(src, "sneaky line"));
    free(src);
    assert_int_equal(codegen_fault_parse("trap"), 1);
    assert_int_equal(codegen_fault_parse("oob"), 3);
    assert_int_equal(codegen_fault_parse("none"), -1);
    assert_int_equal(codegen_fault_parse("segv"), -1);
}

static void test_write_atomic(void **state)
{
    char dir[] = "/tmp/croq-test-codegen.XXXXXX", path[64], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/k.cu", dir);
    struct croq_config cfg;
    knobs_default(&cfg, CROQ_DTYPE_F16);
    struct codegen_opts o = {.files = fake, .err = err, .errlen = sizeof err};
    assert_int_equal(codegen_write(&cfg, &o, path), 0);
    char *txt = read_file(path, NULL), *src;
    assert_int_equal(codegen_emit(&cfg, &o, &src), 0);
    assert_string_equal(txt, src);
    free(txt);
    free(src);
    unlink(path);
    rmdir(dir);
    snprintf(path, sizeof path, "%s/missing/k.cu", dir);
    assert_int_equal(codegen_write(&cfg, &o, path), -1);
    assert_non_null(strstr(err, "cannot write '"));
}

/* The table built from kernels/ by cmake/embed.cmake. */
static void test_real_embedded_sources(void **state)
{
    const struct croq_embedded_file *abi = embedded_find("abi.h");
    assert_non_null(abi);
    assert_int_equal(abi->size, strlen(abi->text));
    assert_non_null(strstr(abi->text, "struct croq_kernel_abi"));
    assert_non_null(embedded_find("geometry.h"));
    assert_non_null(embedded_find("knobs.def"));
    assert_null(embedded_find("no-such-file.cuh"));
    if (!embedded_find("family.cu") || !embedded_find("baseline.cu")) {
        print_message("kernels/family.cu or baseline.cu not embedded yet: real flatten skipped\n");
        return;
    }
    int dtypes[] = {CROQ_DTYPE_F16, CROQ_DTYPE_E4M3};
    for (int d = 0; d < 2; d++)
        for (int base = 0; base < 2; base++) {
            struct croq_config cfg;
            if (base)
                knobs_baseline(&cfg, dtypes[d]);
            else
                knobs_default(&cfg, dtypes[d]);
            char err[512] = "", *src;
            struct codegen_opts o = {.err = err, .errlen = sizeof err};
            if (codegen_emit(&cfg, &o, &src))
                fail_msg("codegen of %s: %s", codegen_entry(&cfg), err);
            assert_int_equal(count(src, "#include \""), 0);
            assert_int_equal(count(src, "/* ==== begin \"abi.h\" ==== */"), 1);
            free(src);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defines_match_config),
        cmocka_unit_test(test_flatten_once_recursive),
        cmocka_unit_test(test_entry_by_kernel_knob),
        cmocka_unit_test(test_unknown_include_rejected),
        cmocka_unit_test(test_invalid_config_and_fault),
        cmocka_unit_test(test_write_atomic),
        cmocka_unit_test(test_real_embedded_sources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
