/* tests/unit/test_report_read.c — the report's readers of tuning artifacts and the
 * numbers it derives: results.tsv escaping, column lookup by name, torn and malformed
 * lines reported with path:line and skipped; idea-log, state.json, vendor.json and the
 * anchors; best-so-far, progression gains, phases, speed-ups and their geomean. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifacts/results.h"
#include "report/read.h"
#include "report/stats.h"
#include "report/sweep.h"
#include "report/tables.h"
#include "util/atomicio.h"

static char tmpdir[] = "/tmp/croq-test-report.XXXXXX";

static int setup(void **state)
{
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *write_tmp(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    assert_int_equal(atomic_write(path, text, strlen(text)), 0);
    return path;
}

static struct report_shape shape_of(const char *key)
{
    struct report_shape s;
    memset(&s, 0, sizeof s);
    assert_int_equal(shape_key_parse(key, &s), 0);
    s.state_budget = s.state_iteration = -1;
    s.state_baseline = s.state_best = NAN;
    return s;
}

/* Does any note contain text? */
static bool has_note(const struct report_notes *nl, enum note_kind kind, const char *text)
{
    for (size_t i = 0; i < nl->n; i++)
        if (nl->v[i].kind == kind && strstr(nl->v[i].text, text))
            return true;
    return false;
}

static void test_shape_key(void **state)
{
    struct report_shape s = {0};
    assert_int_equal(shape_key_parse("f16_4096x8192x1024_fs", &s), 0);
    assert_string_equal(s.dtype, "f16");
    assert_int_equal(s.m, 4096);
    assert_int_equal(s.n, 8192);
    assert_int_equal(s.k, 1024);
    assert_true(s.from_scratch);
    assert_string_equal(s.base_key, "f16_4096x8192x1024");
    const char *bad[] = {"f16_4096x8192", "F16_1x2x3", "f16_1x2x3_xx", "../x_1x2x3", "f16_0x2x3", "f16_1x2x3/",
                         "f16_-1x2x3", "", "f16__1x2x3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(shape_key_parse(bad[i], &s), -1);
}

static void test_unescape_split(void **state)
{
    char f[] = "a\\tb\\\\n\\nc\\x41\\q\\x00";
    tsv_unescape_lenient(f);
    assert_string_equal(f, "a\tb\\n\ncA\\q\\x00");
    char line[] = "1\t\tx\t";
    char *v[8];
    assert_int_equal(tsv_split(line, v, 8), 4);
    assert_string_equal(v[0], "1");
    assert_string_equal(v[1], "");
    assert_string_equal(v[2], "x");
    assert_string_equal(v[3], "");
}

/* Columns in an unusual order with an extra one; a torn last line. */
static const char results_text[] =
    "# croqtuner results schema=1 backend=sim\n"
    "decision\titer\textra\ttflops\tbest_tflops\tidea\tbottleneck\n"
    "BASELINE\t0\tz\t500.0\t500.0\t\t\n"
    "KEEP\t1\tz\t550.5\t550.5\ttile\\tm <b>\\n2\tdram_throughput\n"
    "DISCARD\t2\tz\t540.0\t550.5\tx\tdram_throughput\n"
    "DISCARD_INCORRECT\t3\tz\t\t550.5\ty\tl2_throughput\n"
    "KEEP\t2\tz\t600.0\t600.0\tnot after 3\tl2_throughput\n"
    "KEEP\t4\tz\tfast\t600.0\tbad number\tl2_throughput\n"
    "KEEP\t5\tz\n"
    "DISCARD_SOMETHING_NEW\t6\tz\t\t550.5\tnew\tcompute_bound\n"
    "KEEP\t7\tz\t605.5\t605.5\tlast\tcompute_bound\n"
    "KEEP\t8\tz\t700";

static void test_results_read(void **state)
{
    struct report_shape s = shape_of("f16_256x256x256");
    struct report_notes nl = {0};
    const char *p = write_tmp("results.tsv", results_text);
    assert_int_equal(results_read(&s, p, "logs/k/results.tsv", &nl), 0);
    assert_true(s.simulated);
    assert_int_equal(s.n_rows, 6); /* 0 1 2 3 6 7 */
    int iters[] = {0, 1, 2, 3, 6, 7};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(s.rows[i].iter, iters[i]);
    assert_string_equal(s.rows[1].idea, "tile\tm <b>\n2");
    assert_true(isnan(s.rows[3].tflops));
    assert_int_equal(s.rows[3].decision, RD_INCORRECT);
    assert_int_equal(s.rows[4].decision, RD_OTHER);
    assert_string_equal(s.rows[4].decision_text, "DISCARD_SOMETHING_NEW");
    assert_true(has_note(&nl, NOTE_MALFORMED, "logs/k/results.tsv:7: bad iteration does not follow"));
    assert_true(has_note(&nl, NOTE_MALFORMED, "logs/k/results.tsv:8: bad tflops"));
    assert_true(has_note(&nl, NOTE_MALFORMED, "logs/k/results.tsv:9: 3 fields, the header has 7"));
    assert_true(has_note(&nl, NOTE_INFO, "logs/k/results.tsv:10: unknown decision 'DISCARD_SOMETHING_NEW'"));
    assert_true(has_note(&nl, NOTE_INFO, "logs/k/results.tsv:12: last line has no newline"));
    assert_int_equal(notes_count(&nl, NOTE_MALFORMED, NULL), 3);

    stats_compute(&s);
    assert_true(fabs(s.st.baseline - 500.0) < 1e-9);
    assert_true(fabs(s.st.best - 605.5) < 1e-9);
    assert_int_equal(s.st.best_iter, 7);
    assert_int_equal(s.st.iters_done, 7);
    assert_int_equal(s.st.n_decision[RD_KEEP], 2);
    assert_int_equal(s.st.n_decision[RD_INCORRECT], 1);
    size_t n;
    struct progression_step *pg = stats_progression(&s, &n);
    assert_int_equal(n, 2);
    assert_int_equal(pg[0].row->iter, 1);
    assert_true(fabs(pg[0].before - 500.0) < 1e-9 && fabs(pg[0].after - 550.5) < 1e-9);
    assert_true(fabs(pg[0].gain_pct - 10.1) < 1e-9);
    assert_true(fabs(pg[1].before - 550.5) < 1e-9 && fabs(pg[1].after - 605.5) < 1e-9);
    assert_true(fabs(pg[1].gain_pct - (605.5 / 550.5 - 1) * 100) < 1e-9);
    free(pg);
    shape_release(&s);
    notes_release(&nl);
}

static void test_results_missing_and_headerless(void **state)
{
    struct report_shape s = shape_of("f16_256x256x256");
    struct report_notes nl = {0};
    char p[600];
    snprintf(p, sizeof p, "%s/nope.tsv", tmpdir);
    assert_int_equal(results_read(&s, p, "nope.tsv", &nl), -1);
    assert_int_equal(nl.n, 0);
    const char *q = write_tmp("noheader.tsv", "# croqtuner results schema=1 backend=gpu\niteration\tverdict\n");
    assert_int_equal(results_read(&s, q, "x.tsv", &nl), -1);
    assert_true(has_note(&nl, NOTE_MALFORMED, "x.tsv: no header line with 'iter' and 'decision'"));
    assert_false(s.have_results);
    shape_release(&s);
    notes_release(&nl);
}

/* Best-so-far uses the engine's best_tflops when written: a re-measured best can go down. */
static void test_best_column_authoritative(void **state)
{
    struct report_shape s = shape_of("e4m3_512x512x512");
    struct report_notes nl = {0};
    const char *p = write_tmp("remeasured.tsv", "# croqtuner results schema=1 backend=gpu\n"
                                                "iter\tdecision\ttflops\tbest_tflops\n"
                                                "0\tBASELINE\t100\t100\n"
                                                "1\tKEEP\t130\t130\n"
                                                "2\tDISCARD\t120\t125\n"
                                                "3\tKEEP\t140\t140\n");
    assert_int_equal(results_read(&s, p, "r.tsv", &nl), 0);
    stats_compute(&s);
    double want[] = {100, 130, 125, 140};
    for (int i = 0; i < 4; i++)
        assert_true(fabs(s.st.best_so_far[i] - want[i]) < 1e-9);
    size_t n;
    struct progression_step *pg = stats_progression(&s, &n);
    assert_int_equal(n, 2);
    assert_true(fabs(pg[1].before - 125) < 1e-9);
    assert_true(fabs(pg[1].gain_pct - 12.0) < 1e-9);
    free(pg);
    shape_release(&s);
    notes_release(&nl);
}

/* The vendor speed-ups take the best re-measured in the compare run only when that run
 * measured exactly the best row's configuration. */
static void test_best_same_run(void **state)
{
    struct report_notes nl = {0};
    char tsv[512], vendor[3][512]; /* write_tmp returns a static buffer */
    snprintf(tsv, sizeof tsv, "%s", write_tmp("same.tsv", "# croqtuner results schema=1 backend=gpu\n"
                                                          "iter\tdecision\tconfig\ttflops\tbest_tflops\n"
                                                          "0\tBASELINE\tdtype=f16,kernel=0\t100\t100\n"
                                                          "1\tKEEP\tdtype=f16,kernel=1\t130\t130\n"
                                                          "2\tDISCARD\tdtype=f16,kernel=1,x=2\t120\t130\n"));
    snprintf(vendor[0], sizeof vendor[0], "%s",
             write_tmp("v-same.json", "{\"cublas_tflops\": 100, \"ours_tflops\": 126.5,"
                                      " \"ours_config\": \"dtype=f16,kernel=1\"}"));
    snprintf(vendor[1], sizeof vendor[1], "%s",
             write_tmp("v-other.json", "{\"cublas_tflops\": 100, \"ours_tflops\": 126.5,"
                                       " \"ours_config\": \"dtype=f16,kernel=1,x=2\"}"));
    snprintf(vendor[2], sizeof vendor[2], "%s", write_tmp("v-old.json", "{\"cublas_tflops\": 100}"));
    const double want[] = {126.5, NAN, NAN};
    for (int i = 0; i < 3; i++) {
        struct report_shape s = shape_of("f16_512x512x512");
        struct vendor_value none = {NAN, VSRC_NONE};
        s.vendor.cublas = s.vendor.sl_default = s.vendor.sl_search = s.vendor.ours = none;
        assert_int_equal(results_read(&s, tsv, "r.tsv", &nl), 0);
        assert_int_equal(vendor_read(&s, vendor[i], "perf/x/vendor.json", &nl), 0);
        stats_compute(&s);
        assert_int_equal(s.st.best_iter, 1);
        double got = stats_best_same_run(&s);
        if (isnan(want[i]))
            assert_true(isnan(got));
        else
            assert_true(fabs(got - want[i]) < 1e-12);
        shape_release(&s);
    }
    notes_release(&nl);
}

static void test_phases(void **state)
{
    int budgets[] = {1, 2, 3, 10, 30, 149, 150};
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
        int B = budgets[b], seen = 0;
        for (int p = 0; p < STATS_PHASES; p++) {
            int lo, hi;
            stats_phase_range(p, B, &lo, &hi);
            for (int i = lo; i <= hi; i++, seen++)
                assert_int_equal(stats_phase_of(i, B), p);
        }
        assert_int_equal(seen, B); /* the three ranges tile 1..B exactly */
    }
    int lo, hi;
    stats_phase_range(1, 150, &lo, &hi);
    assert_int_equal(lo, 51);
    assert_int_equal(hi, 100);
    assert_int_equal(stats_phase_of(151, 150), 2); /* past the budget: late */
}

static void test_geomean_ratio(void **state)
{
    double v[] = {2.0, 8.0, NAN, -1.0, 0.0};
    size_t used;
    assert_true(fabs(stats_geomean(v, 5, &used) - 4.0) < 1e-12);
    assert_int_equal(used, 2);
    assert_true(isnan(stats_geomean(v + 2, 3, &used)));
    assert_int_equal(used, 0);
    assert_true(fabs(stats_ratio(3.0, 2.0) - 1.5) < 1e-12);
    assert_true(isnan(stats_ratio(3.0, NAN)));
    assert_true(isnan(stats_ratio(3.0, 0.0)));
}

static void test_idealog(void **state)
{
    struct report_shape s = shape_of("f16_256x256x256");
    struct report_notes nl = {0};
    const char *p = write_tmp("idea-log.jsonl", "{\"iter\": 1, \"justification\": \"dram=87\", \"idea\": \"a\"}\n"
                                                "{not json\n"
                                                "[1, 2]\n"
                                                "{\"iter\": 2, \"idea\": \"b\"}\n"
                                                "{\"iter\": 3");
    assert_int_equal(idealog_read(&s, p, "logs/k/idea-log.jsonl", &nl), 0);
    assert_int_equal(s.n_ideas, 2);
    assert_string_equal(shape_idea_justification(&s, 1), "dram=87");
    assert_null(shape_idea_justification(&s, 2));
    assert_true(has_note(&nl, NOTE_MALFORMED, "logs/k/idea-log.jsonl:2: not JSON"));
    assert_true(has_note(&nl, NOTE_MALFORMED, "logs/k/idea-log.jsonl:3: not an object"));
    assert_true(has_note(&nl, NOTE_INFO, "logs/k/idea-log.jsonl:5: last line has no newline"));
    shape_release(&s);
    notes_release(&nl);
}

static void test_state_forms(void **state)
{
    struct report_sweep sw = {0};
    const char *p = write_tmp("state-obj.json",
                              "{\"schema\": 1, \"shapes\": {"
                              "\"f16_128x256x128\": {\"status\": \"done\", \"mode\": \"from_current_best\","
                              " \"iteration\": 30, \"budget\": 30, \"stop_reason\": \"exhausted\","
                              " \"baseline\": {\"tflops\": 10.5}, \"best\": {\"iter\": 3, \"tflops\": 12.25}},"
                              "\"bogus/../key\": {\"status\": \"done\"}},"
                              " \"sweep\": {\"dtype\": \"all\", \"plan\": \"default\", \"status\": \"running\","
                              " \"shapes\": \"plan.json\", \"backend\": \"gpu\"}}");
    assert_int_equal(state_read(&sw, p), 0);
    assert_int_equal(sw.n_shapes, 1);
    struct report_shape *s = sweep_find(&sw, "f16_128x256x128");
    assert_non_null(s);
    assert_string_equal(s->status, "done");
    assert_string_equal(s->stop_reason, "exhausted");
    assert_int_equal(s->state_budget, 30);
    assert_true(fabs(s->state_baseline - 10.5) < 1e-12);
    assert_true(fabs(s->state_best - 12.25) < 1e-12);
    assert_true(shape_finished(s));
    assert_true(sw.have_sweep);
    assert_string_equal(sw.sweep.shapes, "plan.json");
    assert_int_equal(sw.sweep.last_wave, 0); /* absent: every wave */
    assert_true(has_note(&sw.notes, NOTE_MALFORMED, "'bogus/../key' is not a shape key"));
    sweep_release(&sw);

    p = write_tmp("state-arr.json", "{\"schema\": 1, \"shapes\": [{\"key\": \"e4m3_128x256x128_fs\", "
                                    "\"status\": \"active\", \"baseline\": 7, \"best\": 9.5, \"budget\": 150}, {}]}");
    assert_int_equal(state_read(&sw, p), 0);
    s = sweep_find(&sw, "e4m3_128x256x128_fs");
    assert_non_null(s);
    assert_true(shape_running(s));
    assert_true(fabs(s->state_best - 9.5) < 1e-12);
    assert_true(has_note(&sw.notes, NOTE_MALFORMED, "shapes[1] has no 'key'"));
    sweep_release(&sw);

    p = write_tmp("state-bad.json", "{\"schema\": 1,\n \"shapes\": {,}}");
    assert_int_equal(state_read(&sw, p), -1);
    assert_true(has_note(&sw.notes, NOTE_MALFORMED, "state.json:2:"));
    sweep_release(&sw);
}

static void test_vendor_and_anchors(void **state)
{
    struct report_shape s = shape_of("f16_4096x8192x8192");
    struct report_notes nl = {0};
    struct vendor_value none = {NAN, VSRC_NONE};
    s.vendor.cublas = s.vendor.sl_default = s.vendor.sl_search = none;
    const char *p = write_tmp("vendor.json", "{\"schema\": 1, \"cublas_tflops\": 650.5, "
                                             "\"cusparselt_default_tflops\": null, \"cusparselt_search_tflops\": 990.25}");
    assert_int_equal(vendor_read(&s, p, "perf/x/vendor.json", &nl), 0);
    assert_int_equal(s.vendor.cublas.src, VSRC_MEASURED);
    assert_int_equal(s.vendor.sl_default.src, VSRC_NONE);
    json_error_t err;
    json_t *anchors = json_loads("{\"rows\": [{\"dtype\": \"f16\", \"M\": 4096, \"N\": 8192, \"K\": 8192,"
                                 " \"cublas_dense_tflops\": 1.0, \"cusparselt_default_tflops\": 992.5,"
                                 " \"cusparselt_search_tflops\": 2.0}]}", 0, &err);
    assert_non_null(anchors);
    assert_int_equal(vendor_fill_from_anchors(&s, anchors), 1); /* only the missing one */
    assert_true(fabs(s.vendor.cublas.tflops - 650.5) < 1e-12);
    assert_int_equal(s.vendor.sl_default.src, VSRC_ANCHOR);
    struct vendor_value sl = stats_sparselt(&s.vendor);
    assert_true(fabs(sl.tflops - 992.5) < 1e-12);
    assert_int_equal(sl.src, VSRC_ANCHOR);
    struct report_shape other = shape_of("e4m3_4096x8192x8192");
    other.vendor.cublas = other.vendor.sl_default = other.vendor.sl_search = none;
    assert_int_equal(vendor_fill_from_anchors(&other, anchors), 0);
    json_decref(anchors);
    /* a number written as a string is not taken, and the notes say so */
    p = write_tmp("vendor-str.json", "{\"cublas_tflops\": \"600\", \"ours_tflops\": null}");
    assert_int_equal(vendor_read(&other, p, "perf/y/vendor.json", &nl), 0);
    assert_int_equal(other.vendor.cublas.src, VSRC_NONE);
    assert_true(has_note(&nl, NOTE_MALFORMED, "perf/y/vendor.json: 'cublas_tflops' is not a number"));
    assert_false(has_note(&nl, NOTE_MALFORMED, "'ours_tflops'"));
    shape_release(&s);
    shape_release(&other);
    notes_release(&nl);
}

/* vendor.json's "protocol": absent (a file from before it) is a block-timed compare,
 * "blocks" and "interleaved" are read as such, anything else leaves the file unread with a
 * note; the summary's vendor source marks each measured row and its caption explains the
 * marks. */
static void test_vendor_protocol(void **state)
{
    static const struct {
        const char *json;
        int rc;
        enum vendor_protocol want;
    } cases[] = {
        {"{\"cublas_tflops\": 650.5}", 0, VPROTO_BLOCKS},
        {"{\"cublas_tflops\": 650.5, \"protocol\": \"blocks\"}", 0, VPROTO_BLOCKS},
        {"{\"cublas_tflops\": 650.5, \"protocol\": \"interleaved\", \"rounds\": 10}", 0, VPROTO_INTERLEAVED},
        {"{\"cublas_tflops\": 650.5, \"protocol\": \"Interleaved\"}", -1, VPROTO_NONE},
        {"{\"cublas_tflops\": 650.5, \"protocol\": 2}", -1, VPROTO_NONE},
        {"{\"cublas_tflops\": 650.5, \"protocol\": null}", -1, VPROTO_NONE},
    };
    struct report_sweep sw = {0};
    sw.shapes = calloc(2, sizeof *sw.shapes);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct report_notes nl = {0};
        struct report_shape s = shape_of("f16_1024x1024x1024");
        vendor_clear(&s.vendor);
        assert_int_equal(s.vendor.protocol, VPROTO_NONE);
        assert_int_equal(vendor_read(&s, write_tmp("v.json", cases[i].json), "perf/x/vendor.json", &nl), cases[i].rc);
        assert_int_equal(s.vendor.protocol, cases[i].want);
        if (cases[i].rc == 0) {
            assert_int_equal(s.vendor.cublas.src, VSRC_MEASURED);
            assert_int_equal(nl.n, 0);
        } else { /* nothing of the file is used, and the note says why */
            assert_int_equal(s.vendor.cublas.src, VSRC_NONE);
            assert_null(s.vendor.path);
            assert_true(has_note(&nl, NOTE_MALFORMED,
                                 "perf/x/vendor.json: 'protocol' is not \"interleaved\" or \"blocks\" (file ignored)"));
        }
        if (i == 0 || i == 2) /* a block-timed and an interleaved shape for the summary */
            sw.shapes[sw.n_shapes++] = s;
        else
            shape_release(&s);
        notes_release(&nl);
    }
    sw.shapes[1].m = 2048; /* two shapes, not one shape twice */
    struct report_table t;
    tables_summary(&sw, &t);
    size_t col = t.ncols;
    for (size_t c = 0; c < t.ncols; c++)
        if (!strcmp(t.cols[c].head, "vendor source"))
            col = c;
    assert_true(col < t.ncols);
    assert_int_equal(t.nrows, 2);
    assert_string_equal(table_at(&t, 0, col)->text, "measured [b]");
    assert_string_equal(table_at(&t, 1, col)->text, "measured [i]");
    assert_non_null(strstr(t.caption, "[i]: measured by a compare that timed the vendors and ours interleaved"));
    assert_non_null(strstr(t.caption, "[b]: by an older compare that timed them one after the other in blocks"));
    table_release(&t);
    /* no measured vendor number: no legend */
    for (size_t i = 0; i < sw.n_shapes; i++)
        vendor_clear(&sw.shapes[i].vendor);
    tables_summary(&sw, &t);
    assert_null(strstr(t.caption, "vendor source"));
    assert_string_equal(table_at(&t, 0, col)->text, "");
    table_release(&t);
    for (size_t i = 0; i < sw.n_shapes; i++)
        shape_release(&sw.shapes[i]);
    free(sw.shapes);
}

/* vendor.json as a hostile or damaged file: numbers that cannot be TFLOPS are noted and
 * left out (the others still read), another shape's record and a FIFO or truncated file
 * are noted and nothing of them is used, an interleaved record's rounds and paired ratios
 * are checked. */
static void test_vendor_hostile(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        int rc;
        bool cublas; /* cublas_tflops (650.5) taken */
        const char *note;
    } cases[] = {
        {"{\"cublas_tflops\": -5, \"cusparselt_search_tflops\": 990}", 0, false,
         "'cublas_tflops' is -5, not a positive number (ignored)"},
        {"{\"cublas_tflops\": 0}", 0, false, "'cublas_tflops' is 0, not a positive number (ignored)"},
        {"{\"cublas_tflops\": 1e300}", 0, false, "'cublas_tflops' is 1e+300, above the f16 sparse peak at the boost "
                                                  "clock ("},
        {"{\"cublas_tflops\": 650.5, \"ours_tflops\": -1, \"ours_config\": \"x\"}", 0, true,
         "'ours_tflops' is -1, not a positive number (ignored)"},
        {"{\"cublas_tflops\": 650.5, \"dtype\": \"f16\", \"M\": 2048, \"N\": 1024, \"K\": 1024}", -1, false,
         "the record of another shape: its 'M' is not 1024 (file ignored)"},
        {"{\"cublas_tflops\": 650.5, \"dtype\": \"e4m3\"}", -1, false,
         "the record of another shape: its 'dtype' is not f16 (file ignored)"},
        {"{\"cublas_tflops\": 650.5, \"K\": \"1024\"}", -1, false, "its 'K' is not 1024 (file ignored)"},
        {"{\"cublas_tflops\": 650.5, \"protocol\": \"interleaved\", \"rounds\": 0}", 0, true,
         "'rounds' of an interleaved compare is not a whole number >= 1"},
        {"{\"cublas_tflops\": 650.5, \"protocol\": \"interleaved\", \"rounds\": 10, \"paired\": "
         "{\"ours_over_cublas\": {\"median\": 1.08, \"lo\": 1.09, \"hi\": 1.07, \"rounds\": 10}}}", 0, true,
         "'paired.ours_over_cublas' is not a positive median inside its interval [lo, hi]"},
        {"{\"cublas_tflops\": 650.5, \"protocol\": \"interleaved\", \"rounds\": 10, \"paired\": [1]}", 0, true,
         "'paired' is not an object"},
        {"{\"cublas_tflops\": 650.5,\n \"cusparselt_se", -1, false, "perf/x/vendor.json:2: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct report_notes nl = {0};
        struct report_shape s = shape_of("f16_1024x1024x1024");
        vendor_clear(&s.vendor);
        assert_int_equal(vendor_read(&s, write_tmp("v.json", cases[i].json), "perf/x/vendor.json", &nl), cases[i].rc);
        assert_int_equal(s.vendor.cublas.src, cases[i].cublas ? VSRC_MEASURED : VSRC_NONE);
        assert_int_equal(s.vendor.ours.src, VSRC_NONE);
        if (!has_note(&nl, NOTE_MALFORMED, cases[i].note))
            fail_msg("case %zu: no note \"%s\" (%zu notes%s%s)", i, cases[i].note, nl.n, nl.n ? ": " : "",
                     nl.n ? nl.v[0].text : "");
        if (i == 0) /* the others of the file are still read */
            assert_int_equal(s.vendor.sl_search.src, VSRC_MEASURED);
        shape_release(&s);
        notes_release(&nl);
    }
    /* a FIFO in its place: refused at once, never read */
    char path[600];
    snprintf(path, sizeof path, "%s/fifo-vendor.json", tmpdir);
    assert_int_equal(mkfifo(path, 0644), 0);
    struct report_notes nl = {0};
    struct report_shape s = shape_of("f16_1024x1024x1024");
    vendor_clear(&s.vendor);
    assert_int_equal(vendor_read(&s, path, "perf/x/vendor.json", &nl), -1);
    assert_true(has_note(&nl, NOTE_MALFORMED, "perf/x/vendor.json: not a regular file"));
    unlink(path);
    /* absent: no note (a shape without a compare) */
    notes_release(&nl);
    assert_int_equal(vendor_read(&s, path, "perf/x/vendor.json", &nl), -1);
    assert_int_equal(nl.n, 0);
    shape_release(&s);
    notes_release(&nl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_key),        cmocka_unit_test(test_unescape_split),
        cmocka_unit_test(test_results_read),     cmocka_unit_test(test_results_missing_and_headerless),
        cmocka_unit_test(test_best_column_authoritative), cmocka_unit_test(test_phases),
        cmocka_unit_test(test_geomean_ratio),    cmocka_unit_test(test_idealog),
        cmocka_unit_test(test_state_forms),      cmocka_unit_test(test_vendor_and_anchors), cmocka_unit_test(test_vendor_protocol),
        cmocka_unit_test(test_vendor_hostile),
        cmocka_unit_test(test_best_same_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
