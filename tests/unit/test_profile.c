/* tests/unit/test_profile.c — the PROFILE module without a GPU: the CSV reader, the ncu
 * raw-page parser, the classifier on every fixture in tests/fixtures/ncu (synthetic-*
 * written to the documented format, h200-* captured on the GPU machine; each with a
 * <fixture>.expect holding the category), and profile_run around a fake ncu
 * (success, ncu error, time-out, missing program, no launch profiled). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/csv.h"
#include "profile/profile.h"
#include "util/atomicio.h"

#define FIXTURE_DIR CROQ_SOURCE_DIR "/tests/fixtures/ncu"

/* ---- helpers ---------------------------------------------------------------------- */

static char *make_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/croq-profile-XXXXXX", base && *base ? base : "/tmp");
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1024];
    if (!d)
        return;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (!lstat(path, &sb) && S_ISDIR(sb.st_mode))
            remove_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static char *fixture_text(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", FIXTURE_DIR, name);
    char *t = read_file(path, NULL);
    if (!t)
        fail_msg("cannot read fixture '%s'", path);
    return t;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* ---- CSV reader --------------------------------------------------------------------- */

static void test_csv_quotes_commas_and_newlines(void **state)
{
    (void)state;
    struct csv_table t;
    char err[128];
    const char *text = "\"a\",\"1,234.5\",\"say \"\"hi\"\"\",plain\r\n"
                       "\"multi\nline\",,\"\"\n"
                       "\n"
                       "last,\"(32, 32, 1)\"";
    assert_int_equal(csv_parse(text, false, &t, err, sizeof err), 0);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.rows[0].n, 4);
    assert_string_equal(t.rows[0].fields[1], "1,234.5");
    assert_string_equal(t.rows[0].fields[2], "say \"hi\"");
    assert_string_equal(t.rows[0].fields[3], "plain");
    assert_int_equal(t.rows[1].n, 3);
    assert_string_equal(t.rows[1].fields[0], "multi\nline");
    assert_string_equal(t.rows[1].fields[1], "");
    assert_string_equal(t.rows[1].fields[2], "");
    assert_int_equal(t.rows[2].n, 2);
    assert_string_equal(t.rows[2].fields[1], "(32, 32, 1)");
    csv_release(&t);
}

static void test_csv_skips_tool_lines_only_when_asked(void **state)
{
    (void)state;
    struct csv_table t;
    char err[128];
    const char *text = "==PROF== Connected to process 1\n\"x\",\"y\"\n==WARNING== a, b\n\"1\",\"==2\"\n";
    assert_int_equal(csv_parse(text, true, &t, err, sizeof err), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.rows[0].fields[0], "x");
    assert_string_equal(t.rows[1].fields[1], "==2"); /* not at a line start: data */
    csv_release(&t);
    assert_int_equal(csv_parse(text, false, &t, err, sizeof err), 0);
    assert_int_equal(t.n, 4);
    assert_int_equal(t.rows[2].n, 2); /* "==WARNING== a" and " b" */
    csv_release(&t);
}

static void test_csv_unterminated_quote_is_an_error(void **state)
{
    (void)state;
    struct csv_table t;
    char err[128] = "";
    assert_int_equal(csv_parse("\"a\",\"b\n1,2\n", false, &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "unterminated"));
    assert_int_equal(t.n, 0);
}

/* ---- ncu parser ----------------------------------------------------------------------- */

static void test_parse_values_from_fixture(void **state)
{
    (void)state;
    struct profile_metrics m;
    char err[256];
    char *text = fixture_text("synthetic-dram-throughput.csv");
    assert_int_equal(profile_parse_ncu_csv(text, PROFILE_KERNEL_NAME, &m, err, sizeof err), 0);
    /* the croq_gemm_sp row, not the cuBLAS reference row before it (all 5.0) */
    assert_float_equal(m.dram_throughput_pct, 87.1, 1e-9);
    assert_float_equal(m.l2_throughput_pct, 62.0, 1e-9);
    assert_float_equal(m.tensor_pipe_pct, 48.0, 1e-9);
    assert_float_equal(m.sm_throughput_pct, 50.0, 1e-9);
    assert_float_equal(m.memory_throughput_pct, 87.1, 1e-9);
    assert_float_equal(m.smem_throughput_pct, 10.0, 1e-9);
    assert_float_equal(m.theoretical_occupancy_pct, 18.75, 1e-9);
    assert_float_equal(m.achieved_occupancy_pct, 18.4, 1e-9);
    /* "1,234,567" nsecond */
    assert_float_equal(m.duration_us, 1234.567, 1e-9);
    assert_float_equal(m.occ_limit_shared_mem, 1.0, 1e-9);
    assert_float_equal(m.occ_limit_warps, 5.0, 1e-9);
    assert_float_equal(m.registers_per_thread, 168.0, 1e-9);
    /* stall ratios: long_scoreboard 6, barrier 2, selected 1, 15 others 0.01 each;
     * the ".pct" columns (99 each) must not count */
    double total = 6 + 2 + 1 + 15 * 0.01;
    assert_float_equal(m.stall_long_scoreboard_pct, 100.0 * 6 / total, 1e-9);
    assert_float_equal(m.stall_barrier_pct, 100.0 * 2 / total, 1e-9);
    assert_float_equal(m.stall_no_instruction_pct, 100.0 * 0.01 / total, 1e-9);
    assert_string_equal(m.top_stall, "long_scoreboard");
    free(text);
}

/* A real H200 capture of a warp-specialized kernel (the ncu of CUDA 13.0, e4m3
 * 1024x8192x1024, the 150-iteration run's best, 2026-11-29): the values its CSV holds
 * for the named Hopper metrics, so the tensor-pipe name and the stall family that ncu
 * really reports are the ones parsed. */
static void test_parse_h200_warp_specialized(void **state)
{
    (void)state;
    struct profile_metrics m;
    char err[256];
    char *text = fixture_text("h200-e4m3-1024x8192x1024-ws-best.csv");
    assert_int_equal(profile_parse_ncu_csv(text, PROFILE_KERNEL_NAME, &m, err, sizeof err), 0);
    assert_float_equal(m.tensor_pipe_pct, 36.78, 1e-9);
    assert_float_equal(m.sm_throughput_pct, 31.41, 1e-9);
    assert_float_equal(m.l2_throughput_pct, 40.38, 1e-9);
    assert_float_equal(m.dram_throughput_pct, 12.73, 1e-9);
    assert_float_equal(m.theoretical_occupancy_pct, 18.75, 1e-9);
    assert_float_equal(m.achieved_occupancy_pct, 12.78, 1e-9);
    assert_float_equal(m.registers_per_thread, 168.0, 1e-9);
    assert_float_equal(m.occ_limit_registers, 1.0, 1e-9);
    assert_float_equal(m.occ_limit_shared_mem, 1.0, 1e-9);
    assert_float_equal(m.waves_per_sm, 1.0, 1e-9); /* persistent: grid = 132 SMs */
    assert_float_equal(m.duration_us, 14.88, 1e-9);
    assert_string_equal(m.top_stall, "long_scoreboard");
    assert_float_equal(m.stall_long_scoreboard_pct, 49.46764947, 1e-6);
    free(text);
}

static void test_parse_first_launch_of_any_kernel(void **state)
{
    (void)state;
    struct profile_metrics m;
    char err[256];
    char *text = fixture_text("synthetic-dram-throughput.csv");
    assert_int_equal(profile_parse_ncu_csv(text, NULL, &m, err, sizeof err), 0);
    assert_float_equal(m.dram_throughput_pct, 5.0, 1e-9); /* the reference kernel's row */
    free(text);
}

static void test_parse_errors(void **state)
{
    (void)state;
    struct profile_metrics m;
    char err[256] = "";
    assert_int_equal(profile_parse_ncu_csv("==PROF== nothing\n", NULL, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "no ncu raw CSV header"));
    const char *no_row = "\"ID\",\"Kernel Name\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
                         "\"\",\"\",\"%\"\n"
                         "\"0\",\"other_kernel\",\"12\"\n";
    assert_int_equal(profile_parse_ncu_csv(no_row, "croq_gemm_sp", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "no launch of 'croq_gemm_sp'"));
    assert_int_equal(profile_parse_ncu_csv(no_row, "other_kernel", &m, err, sizeof err), 0);
    assert_float_equal(m.dram_throughput_pct, 12.0, 1e-9);
    assert_true(isnan(m.l2_throughput_pct)); /* absent: NAN, not 0 */
    assert_true(isnan(m.duration_us));
}

/* A launch (or units) record with a cell fewer or more than the header would put every
 * later metric in the wrong column (a latency-bound profile read as smem-bound): refused,
 * naming the record. */
static void test_parse_cell_count_mismatch_is_an_error(void **state)
{
    (void)state;
    struct profile_metrics m;
    char err[256] = "";
    const char *fewer = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\","
                        "\"lts__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
                        "\"\",\"\",\"nsecond\",\"%\"\n"
                        "\"0\",\"croq_gemm_sp\",\"1500\"\n";
    assert_int_equal(profile_parse_ncu_csv(fewer, "croq_gemm_sp", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "record 3 (launch ID '0') has 3 cells, the header 4"));
    assert_true(isnan(m.duration_us)); /* nothing of it was read */
    const char *more = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
                       "\"\",\"\",\"nsecond\"\n"
                       "\"0\",\"other_kernel\",\"7\"\n"
                       "\"1\",\"croq_gemm_sp\",\"1,500\",\"9\"\n";
    assert_int_equal(profile_parse_ncu_csv(more, "croq_gemm_sp", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "record 4 (launch ID '1') has 4 cells, the header 3"));
    const char *units = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
                        "\"\",\"nsecond\"\n"
                        "\"0\",\"croq_gemm_sp\",\"1500\"\n";
    assert_int_equal(profile_parse_ncu_csv(units, "croq_gemm_sp", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "record 2 (units) has 2 cells, the header 3"));
}

/* ncu values that would be misread are errors naming the metric (issue 24, item 8): a
 * percentage outside 0..100, a non-finite or negative value, a decimal comma (stripping
 * it as a thousands separator made "87,1" 871), text; nothing of the table is used. */
static void test_parse_refuses_values_ncu_never_writes(void **state)
{
    (void)state;
    static const struct {
        const char *value, *unit, *why;
    } bad[] = {
        {"150.0", "%", "'150.0' (a percentage, 0..100): a percentage above 100"},
        {"-5.0", "%", "'-5.0' (a percentage, 0..100): negative"},
        {"inf", "%", "'inf' (a percentage, 0..100): not a finite number"},
        {"nan", "%", "'nan' (a percentage, 0..100): not a finite number"},
        {"87,1", "%", "'87,1' (a percentage, 0..100): a comma that is no thousands separator (a decimal comma?)"},
        {"1,23,456", "%", "a comma that is no thousands separator"},
        {",5", "%", "a comma that is no thousands separator"},
        {"87.1.2", "%", "'87.1.2' (a percentage, 0..100): not a number"},
        {"lots", "%", "not a number"},
        {"-1", "nsecond", "'-1': negative"},
        {"1e999", "nsecond", "'1e999': not a finite number"},
    };
    char text[1024], err[512], want[256];
    struct profile_metrics m;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *metric = strcmp(bad[i].unit, "%") ? "gpu__time_duration.sum"
                                                       : "dram__throughput.avg.pct_of_peak_sustained_elapsed";
        snprintf(text, sizeof text,
                 "\"ID\",\"Kernel Name\",\"lts__throughput.avg.pct_of_peak_sustained_elapsed\",\"%s\"\n"
                 "\"\",\"\",\"%%\",\"%s\"\n\"0\",\"croq_gemm_sp\",\"40.5\",\"%s\"\n",
                 metric, bad[i].unit, bad[i].value);
        err[0] = '\0';
        assert_int_equal(profile_parse_ncu_csv(text, "croq_gemm_sp", &m, err, sizeof err), -1);
        snprintf(want, sizeof want, "ncu metric '%s' is ", metric);
        if (!strstr(err, want) || !strstr(err, bad[i].why) || !strstr(err, "the profile is not used"))
            fail_msg("'%s' %s: %s", bad[i].value, bad[i].unit, err);
        assert_true(isnan(m.l2_throughput_pct)); /* no value of a refused table is used */
    }
    /* a stall ratio of the family in use is checked the same way */
    const char *stall = "\"ID\",\"Kernel Name\",\"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio\"\n"
                        "\"\",\"\",\"\"\n\"0\",\"croq_gemm_sp\",\"inf\"\n";
    assert_int_equal(profile_parse_ncu_csv(stall, "croq_gemm_sp", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio' is 'inf'"));
    /* what ncu does write still reads: thousands separators, 0 and 100, blanks, n/a */
    const char *good = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\","
                       "\"lts__throughput.avg.pct_of_peak_sustained_elapsed\","
                       "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
                       "\"dram__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
                       "\"\",\"\",\"nsecond\",\"%\",\"%\",\"%\"\n"
                       "\"0\",\"croq_gemm_sp\",\"1,234,567.5\",\"100\",\" 0.0 \",\"n/a\"\n";
    assert_int_equal(profile_parse_ncu_csv(good, "croq_gemm_sp", &m, err, sizeof err), 0);
    assert_float_equal(m.duration_us, 1234.5675, 1e-9);
    assert_float_equal(m.l2_throughput_pct, 100.0, 0);
    assert_float_equal(m.sm_throughput_pct, 0.0, 0);
    assert_true(isnan(m.dram_throughput_pct));
}

/* A CSV that starts with a UTF-8 byte-order mark (a tool that rewrote ncu's log) reads as
 * without it: the mark is not part of the header's "ID". */
static void test_parse_skips_a_byte_order_mark(void **state)
{
    (void)state;
    struct profile_metrics m;
    char err[256] = "";
    char *text = fixture_text("synthetic-dram-throughput.csv");
    size_t n = strlen(text);
    char *bom = malloc(n + 4);
    assert_non_null(bom);
    memcpy(bom, "\xEF\xBB\xBF", 3);
    memcpy(bom + 3, text, n + 1);
    assert_int_equal(profile_parse_ncu_csv(bom, PROFILE_KERNEL_NAME, &m, err, sizeof err), 0);
    assert_float_equal(m.dram_throughput_pct, 87.1, 1e-9);
    struct csv_table t;
    assert_int_equal(csv_parse("\xEF\xBB\xBF\"ID\",x\n", false, &t, err, sizeof err), 0);
    assert_string_equal(t.rows[0].fields[0], "ID");
    csv_release(&t);
    free(bom);
    free(text);
}

static void test_parse_time_units_and_missing_values(void **state)
{
    (void)state;
    struct profile_metrics m;
    char err[256];
    const char *text = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\","
                       "\"lts__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
                       "\"\",\"\",\"msecond\",\"%\"\n"
                       "\"0\",\"croq_gemm_sp\",\"1.5\",\"n/a\"\n";
    assert_int_equal(profile_parse_ncu_csv(text, "croq_gemm_sp", &m, err, sizeof err), 0);
    assert_float_equal(m.duration_us, 1500.0, 1e-9);
    assert_true(isnan(m.l2_throughput_pct));
}

/* ---- classifier ----------------------------------------------------------------------- */

static void test_every_fixture_classifies_as_expected(void **state)
{
    (void)state;
    DIR *d = opendir(FIXTURE_DIR);
    struct dirent *e;
    int checked = 0;
    assert_non_null(d);
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".csv"))
            continue;
        char expect_name[512], want[64] = "", err[256];
        snprintf(expect_name, sizeof expect_name, "%s.expect", e->d_name);
        char *expect = fixture_text(expect_name);
        sscanf(expect, "%63s", want);
        free(expect);
        enum croq_bottleneck b = bottleneck_parse(want);
        if (b == BN_UNKNOWN)
            fail_msg("fixture '%s': expect file names no category ('%s')", e->d_name, want);
        char *text = fixture_text(e->d_name);
        struct profile_metrics m;
        struct profile_result r = {0};
        if (profile_parse_ncu_csv(text, PROFILE_KERNEL_NAME, &m, err, sizeof err))
            fail_msg("fixture '%s': %s", e->d_name, err);
        profile_classify(&m, &r);
        if (r.category != b)
            fail_msg("fixture '%s': classified %s (%s), expected %s", e->d_name,
                     bottleneck_name(r.category), r.justification, want);
        assert_true(strlen(r.justification) > 0);
        free(text);
        checked++;
    }
    closedir(d);
    assert_true(checked >= 7); /* one synthetic fixture per category at least */
}

static struct profile_metrics quiet_metrics(void)
{
    struct profile_metrics m;
    profile_metrics_init(&m);
    m.sm_throughput_pct = 40;
    m.tensor_pipe_pct = 35;
    m.dram_throughput_pct = 30;
    m.l2_throughput_pct = 30;
    m.smem_throughput_pct = 10;
    m.l1tex_throughput_pct = 20;
    m.theoretical_occupancy_pct = 18.75;
    m.stall_long_scoreboard_pct = 10;
    m.stall_no_instruction_pct = 2;
    m.occ_limit_registers = 2;
    m.occ_limit_shared_mem = 1;
    m.occ_limit_warps = 5;
    m.occ_limit_blocks = 32;
    strcpy(m.top_stall, "barrier");
    m.top_stall_pct = 40;
    return m;
}

static enum croq_bottleneck classify_of(const struct profile_metrics *m, char *just)
{
    struct profile_result r = {0};
    profile_classify(m, &r);
    if (just)
        strcpy(just, r.justification);
    return r.category;
}

static void test_classifier_thresholds_and_order(void **state)
{
    (void)state;
    char just[256];
    struct profile_metrics m = quiet_metrics();
    assert_int_equal(classify_of(&m, just), BN_LATENCY_BOUND);
    assert_non_null(strstr(just, "top stall barrier 40.0%"));
    m.stall_long_scoreboard_pct = 30; /* occupancy rule: 18.75 < 50, smem binds */
    assert_int_equal(classify_of(&m, just), BN_OCCUPANCY_LIMITED);
    assert_non_null(strstr(just, "theoretical_occupancy 18.8% < 50%"));
    assert_null(strstr(just, "waves")); /* not reported: not applied, not claimed */
    m.waves_per_sm = 1.0; /* every CTA already resident: more occupancy adds no work */
    assert_int_equal(classify_of(&m, just), BN_LATENCY_BOUND);
    m.waves_per_sm = 1.5;
    assert_int_equal(classify_of(&m, just), BN_OCCUPANCY_LIMITED);
    assert_non_null(strstr(just, "waves 1.5 > 1"));
    m.occ_limit_warps = 0.5; /* warps bind instead: no longer occupancy_limited */
    assert_int_equal(classify_of(&m, NULL), BN_LATENCY_BOUND);
    m.stall_no_instruction_pct = 19.9;
    assert_int_equal(classify_of(&m, NULL), BN_LATENCY_BOUND);
    m.stall_no_instruction_pct = 20;
    assert_int_equal(classify_of(&m, just), BN_INSTRUCTION_FETCH);
    assert_string_equal(just, "stall_no_instruction 20.0% >= 20%");
    m.l1tex_throughput_pct = 70;
    assert_int_equal(classify_of(&m, just), BN_SMEM_THROUGHPUT);
    assert_string_equal(just, "l1tex_throughput 70.0% >= 70%");
    m.smem_throughput_pct = 71;
    assert_int_equal(classify_of(&m, just), BN_SMEM_THROUGHPUT);
    assert_string_equal(just, "smem_throughput 71.0% >= 70%");
    m.l2_throughput_pct = 69.9;
    assert_int_equal(classify_of(&m, NULL), BN_SMEM_THROUGHPUT);
    m.l2_throughput_pct = 70;
    assert_int_equal(classify_of(&m, NULL), BN_L2_THROUGHPUT);
    m.dram_throughput_pct = 95;
    assert_int_equal(classify_of(&m, just), BN_DRAM_THROUGHPUT);
    assert_string_equal(just, "dram_throughput 95.0% >= 70%");
    m.tensor_pipe_pct = 70;
    assert_int_equal(classify_of(&m, just), BN_COMPUTE_BOUND);
    assert_string_equal(just, "tensor_pipe 70.0% >= 70%");
    /* sm_throughput stands in for compute only when the tensor metric is missing */
    m = quiet_metrics();
    m.sm_throughput_pct = 90;
    assert_int_equal(classify_of(&m, NULL), BN_LATENCY_BOUND);
    m.tensor_pipe_pct = NAN;
    assert_int_equal(classify_of(&m, NULL), BN_COMPUTE_BOUND);
}

static void test_classifier_without_metrics_is_unknown(void **state)
{
    (void)state;
    struct profile_metrics m;
    char just[256];
    profile_metrics_init(&m);
    assert_int_equal(classify_of(&m, just), BN_UNKNOWN);
    assert_non_null(strstr(just, "no throughput metric"));
}

static void test_bottleneck_names_round_trip(void **state)
{
    (void)state;
    for (int b = 0; b < BN_COUNT; b++)
        assert_int_equal(bottleneck_parse(bottleneck_name((enum croq_bottleneck)b)), b);
    assert_string_equal(bottleneck_name(BN_DRAM_THROUGHPUT), "dram_throughput");
    assert_string_equal(bottleneck_name(BN_UNKNOWN), "unknown");
    assert_int_equal(bottleneck_parse("memory"), BN_UNKNOWN);
    assert_int_equal(bottleneck_parse(NULL), BN_UNKNOWN);
}

/* ---- profile_run with a fake ncu -------------------------------------------------------- */

/* The fake ncu records its arguments, then behaves as FAKE_MODE says. */
static const char fake_ncu[] =
    "#!/bin/sh\n"
    "log=''; prev=''\n"
    "for a in \"$@\"; do [ \"$prev\" = --log-file ] && log=\"$a\"; prev=\"$a\"; done\n"
    "printf '%s\\n' \"$@\" > \"$FAKE_ARGS\"\n"
    "case \"$FAKE_MODE\" in\n"
    "ok) echo '==PROF== Connected' > \"$log\"; cat \"$FAKE_FIXTURE\" >> \"$log\";"
    " echo '{\"status\": \"ok\"}'; exit 0;;\n"
    "error) echo '==ERROR== ERR_NVGPUCTRPERM - no permission to access GPU counters' > \"$log\";"
    " exit 1;;\n"
    "hang) sleep 30;;\n"
    "norow) printf '\"ID\",\"Kernel Name\"\\n\"\",\"\"\\n' > \"$log\";"
    " echo '{\"status\": \"incorrect\"}'; exit 0;;\n"
    "esac\n";

struct fake {
    char *dir;
    char ncu[1024], args[1024], out[1024];
};

static void fake_setup(struct fake *f, const char *mode)
{
    f->dir = make_tmpdir();
    snprintf(f->ncu, sizeof f->ncu, "%s/ncu", f->dir);
    snprintf(f->args, sizeof f->args, "%s/args.txt", f->dir);
    snprintf(f->out, sizeof f->out, "%s/perf/iter001", f->dir);
    write_text(f->ncu, fake_ncu);
    chmod(f->ncu, 0755);
    setenv("CROQ_NCU", f->ncu, 1);
    setenv("FAKE_ARGS", f->args, 1);
    setenv("FAKE_MODE", mode, 1);
    setenv("FAKE_FIXTURE", FIXTURE_DIR "/synthetic-latency-bound.csv", 1);
}

static void fake_teardown(struct fake *f)
{
    unsetenv("CROQ_NCU");
    remove_tree(f->dir);
    free(f->dir);
}

static bool file_exists(const char *dir, const char *name)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

/* argv as one line per argument, each a whole line */
static bool has_args(const char *args_text, const char *seq)
{
    char needle[512];
    snprintf(needle, sizeof needle, "\n%s\n", seq);
    char *t = malloc(strlen(args_text) + 2);
    t[0] = '\n';
    strcpy(t + 1, args_text);
    bool found = strstr(t, needle) != NULL;
    free(t);
    return found;
}

static void test_run_success(void **state)
{
    (void)state;
    struct fake f;
    struct profile_result r;
    struct croq_shape s = {4096, 8192, 8192};
    fake_setup(&f, "ok");
    assert_int_equal(profile_run("/opt/croq-runner", "/k/iter001.cubin", &s, CROQ_DTYPE_F16, f.out, 20, &r), 0);
    assert_true(r.ok);
    assert_int_equal(r.category, BN_LATENCY_BOUND);
    assert_float_equal(r.m.tensor_pipe_pct, 33.0, 1e-9);
    char *args = read_file(f.args, NULL);
    assert_non_null(args);
    assert_true(has_args(args, "--target-processes\nall"));
    assert_true(has_args(args, "--kernel-name\ncroq_gemm_sp"));
    assert_true(has_args(args, "--launch-skip\n2\n--launch-count\n1"));
    assert_true(has_args(args, "--clock-control\nnone"));
    assert_true(has_args(args, "--section\nWarpStateStats"));
    assert_true(has_args(args, "--csv\n--page\nraw\n--print-units\nbase"));
    assert_true(has_args(args, "/opt/croq-runner\nrun\n--cubin\n/k/iter001.cubin\n--shape\n4096x8192x8192\n"
                               "--warmup\n1\n--warmup-ms\n0\n--iters\n1\n--trials\n1\n--no-verify"));
    free(args);
    assert_true(file_exists(f.out, "ncu-raw.csv"));
    assert_true(file_exists(f.out, "runner.json"));
    assert_true(file_exists(f.out, "profile.json"));
    fake_teardown(&f);
}

static void test_run_ncu_error(void **state)
{
    (void)state;
    struct fake f;
    struct profile_result r;
    struct croq_shape s = {512, 512, 512};
    fake_setup(&f, "error");
    assert_int_equal(profile_run("runner", "k.cubin", &s, CROQ_DTYPE_F16, f.out, 20, &r), -1);
    assert_false(r.ok);
    assert_non_null(strstr(r.reason, "ERR_NVGPUCTRPERM"));
    assert_non_null(strstr(r.reason, "exit 1"));
    assert_true(file_exists(f.out, "profile.json")); /* the failure is on record too */
    profile_forget_denial(); /* the next tests' fake ncu is allowed */
    fake_teardown(&f);
}

/* ERR_NVGPUCTRPERM is a property of the machine, not of the kernel: the reason says what
 * it means and how to allow it, and later profiles of this process fail the same way
 * without starting ncu again (the fake ncu would rewrite its argument file). */
static void test_run_counter_permission_once(void **state)
{
    (void)state;
    struct fake f;
    struct profile_result r;
    struct croq_shape s = {512, 512, 512};
    fake_setup(&f, "error");
    assert_int_equal(profile_run("runner", "k.cubin", &s, CROQ_DTYPE_F16, f.out, 20, &r), -1);
    assert_false(r.ok);
    assert_non_null(strstr(r.reason, "ERR_NVGPUCTRPERM"));
    assert_non_null(strstr(r.reason, "performance counters"));
    assert_non_null(strstr(r.reason, "NVreg_RestrictProfilingToAdminUsers=0"));
    assert_int_equal(unlink(f.args), 0);
    setenv("FAKE_MODE", "ok", 1); /* would succeed now: it is not asked */
    assert_int_equal(profile_run("runner", "k2.cubin", &s, CROQ_DTYPE_F16, f.out, 20, &r), -1);
    assert_false(r.ok);
    assert_non_null(strstr(r.reason, "ERR_NVGPUCTRPERM"));
    assert_non_null(strstr(r.reason, "not retried"));
    assert_int_equal(access(f.args, F_OK), -1); /* ncu was not started */
    profile_forget_denial();
    assert_int_equal(profile_run("runner", "k3.cubin", &s, CROQ_DTYPE_F16, f.out, 20, &r), 0);
    fake_teardown(&f);
}

static void test_run_timeout(void **state)
{
    (void)state;
    struct fake f;
    struct profile_result r;
    struct croq_shape s = {512, 512, 512};
    fake_setup(&f, "hang");
    assert_int_equal(profile_run("runner", "k.cubin", &s, CROQ_DTYPE_E4M3, f.out, 0.5, &r), -1);
    assert_false(r.ok);
    assert_non_null(strstr(r.reason, "timed out"));
    fake_teardown(&f);
}

static void test_run_no_launch_names_runner_status(void **state)
{
    (void)state;
    struct fake f;
    struct profile_result r;
    struct croq_shape s = {512, 512, 512};
    fake_setup(&f, "norow");
    assert_int_equal(profile_run("runner", "k.cubin", &s, CROQ_DTYPE_F16, f.out, 20, &r), -1);
    assert_false(r.ok);
    assert_non_null(strstr(r.reason, "no launch of 'croq_gemm_sp'"));
    assert_non_null(strstr(r.reason, "runner status 'incorrect'"));
    fake_teardown(&f);
}

static void test_run_missing_ncu(void **state)
{
    (void)state;
    struct fake f;
    struct profile_result r;
    struct croq_shape s = {512, 512, 512};
    fake_setup(&f, "ok");
    setenv("CROQ_NCU", "/nonexistent/ncu", 1);
    assert_int_equal(profile_run("runner", "k.cubin", &s, CROQ_DTYPE_F16, f.out, 20, &r), -1);
    assert_false(r.ok);
    assert_non_null(strstr(r.reason, "/nonexistent/ncu"));
    assert_int_equal(profile_run(NULL, "k.cubin", &s, CROQ_DTYPE_F16, f.out, 20, &r), -1);
    assert_false(r.ok);
    fake_teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_quotes_commas_and_newlines),
        cmocka_unit_test(test_csv_skips_tool_lines_only_when_asked),
        cmocka_unit_test(test_csv_unterminated_quote_is_an_error),
        cmocka_unit_test(test_parse_values_from_fixture),
        cmocka_unit_test(test_parse_first_launch_of_any_kernel),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_time_units_and_missing_values),
        cmocka_unit_test(test_parse_refuses_values_ncu_never_writes),
        cmocka_unit_test(test_parse_skips_a_byte_order_mark),
        cmocka_unit_test(test_parse_cell_count_mismatch_is_an_error),
        cmocka_unit_test(test_parse_h200_warp_specialized),
        cmocka_unit_test(test_every_fixture_classifies_as_expected),
        cmocka_unit_test(test_classifier_thresholds_and_order),
        cmocka_unit_test(test_classifier_without_metrics_is_unknown),
        cmocka_unit_test(test_bottleneck_names_round_trip),
        cmocka_unit_test(test_run_success),
        cmocka_unit_test(test_run_ncu_error),
        cmocka_unit_test(test_run_counter_permission_once),
        cmocka_unit_test(test_run_timeout),
        cmocka_unit_test(test_run_no_launch_names_runner_status),
        cmocka_unit_test(test_run_missing_ncu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
