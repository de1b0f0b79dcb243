/* tests/unit/test_engine_artifacts.c — the engine's artifact formats: keys (never a
 * path trick), results.tsv escaping and rows, idea-log.jsonl lines, reading logs with a
 * torn tail, checkpoint JSON round trip and refusal of damaged files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifacts/artifacts.h"
#include "engine/engine.h"
#include "util/atomicio.h"
#include "util/regfile.h"
#include "util/strbuf.h"

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/croq-test-engine-art.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *hostile = "it's \"quoted\" $(touch /tmp/pwned) `id`\tTAB\nNEWLINE\r\\n \\t back\\slash \x01 é ✓";

/* ---- keys ---- */

static void test_key_format_and_parse(void **state)
{
    (void)state;
    struct shape_key k = {CROQ_DTYPE_E4M3, {4096, 8192, 512}, MODE_FROM_SCRATCH}, back;
    char key[KEY_MAX], err[200];
    key_format(&k, key);
    assert_string_equal(key, "e4m3_4096x8192x512_fs");
    assert_int_equal(key_parse(key, &back, err, sizeof err), 0);
    assert_int_equal(back.dtype, CROQ_DTYPE_E4M3);
    assert_int_equal(back.shape.m, 4096);
    assert_int_equal(back.shape.k, 512);
    assert_int_equal(back.mode, MODE_FROM_SCRATCH);
    assert_int_equal(key_parse("f16_128x256x128", &back, err, sizeof err), 0);
    assert_int_equal(back.mode, MODE_FROM_CURRENT_BEST);
}

static void test_key_refuses_path_tricks(void **state)
{
    (void)state;
    struct shape_key k;
    char err[200];
    const char *bad[] = {"../f16_128x256x128", "f16_128x256x128/..", "f16_128x256x128/../../etc",
                         "..", "f16_0128x256x128", "f16_+128x256x128", "f16_128x256x128_fs/",
                         "f16_128x256x128 ", "bf16_128x256x128", "f16_128x256x100", /* K % 64 */
                         "f16_128x250x128", /* N % 8 */ "f16_128x256x128_fsx", "f16_128x256", "",
                         "f16_99999999x256x128", "f16_128x256x128\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        assert_int_equal(key_parse(bad[i], &k, err, sizeof err), -1);
        assert_true(err[0] != '\0');
    }
    assert_int_equal(key_parse(NULL, &k, err, sizeof err), -1);
}

/* ---- TSV ---- */

static void test_tsv_escape_round_trip(void **state)
{
    (void)state;
    struct strbuf sb = STRBUF_INIT;
    char back[512];
    tsv_escape(&sb, hostile);
    const char *e = strbuf_str(&sb);
    assert_null(strchr(e, '\t'));
    assert_null(strchr(e, '\n'));
    assert_null(strchr(e, '\r'));
    assert_null(strchr(e, '\x01'));
    assert_int_equal(tsv_unescape(e, back, sizeof back), 0);
    assert_string_equal(back, hostile);
    strbuf_release(&sb);
    assert_int_equal(tsv_unescape("bad \\q escape", back, sizeof back), -1);
    assert_int_equal(tsv_unescape("trailing \\", back, sizeof back), -1);
    assert_int_equal(tsv_unescape("\\x4", back, sizeof back), -1);
    assert_int_equal(tsv_unescape("0123456789", back, 5), -1); /* too long */
}

static void fill_row(struct result_row *r)
{
    memset(r, 0, sizeof *r);
    r->iter = 17;
    snprintf(r->kernel, sizeof r->kernel, "srcs/f16_4096x8192x8192_fs/iter017.cu");
    snprintf(r->source_hash, sizeof r->source_hash, "0123456789abcdef");
    snprintf(r->config, sizeof r->config, "dtype=f16,kernel=1");
    r->measured = true;
    r->tflops = 812.345;
    r->median_ms = 0.338123;
    r->spread_pct = 1.25;
    r->hw_eff_pct = 55.5;
    r->sm_clock_mhz = 1740;
    r->decision = DEC_KEEP;
    r->best_tflops = 812.345;
    snprintf(r->bottleneck, sizeof r->bottleneck, "dram_throughput");
    snprintf(r->category, sizeof r->category, "micro");
    snprintf(r->idea, sizeof r->idea, "%s", hostile);
    r->max_err_over_tol = 0.41;
    snprintf(r->timestamp, sizeof r->timestamp, "2026-11-29T11:00:00Z");
    snprintf(r->command, sizeof r->command, "croq-runner run --cubin 'x y'");
    snprintf(r->note, sizeof r->note, "note\twith\ttabs");
}

static void test_row_round_trip(void **state)
{
    (void)state;
    struct result_row r, b;
    char err[200];
    fill_row(&r);
    char *line = row_format(&r);
    size_t len = strlen(line);
    assert_true(len > 0 && line[len - 1] == '\n');
    assert_ptr_equal(strchr(line, '\n'), line + len - 1); /* exactly one newline, at the end */
    int tabs = 0;
    for (char *p = line; *p; p++)
        tabs += *p == '\t';
    assert_int_equal(tabs, RESULTS_COLUMNS - 1);
    line[len - 1] = '\0';
    assert_int_equal(row_parse(line, &b, err, sizeof err), 0);
    assert_int_equal(b.iter, 17);
    assert_string_equal(b.idea, hostile);
    assert_string_equal(b.note, r.note);
    assert_string_equal(b.command, r.command);
    assert_true(b.measured);
    assert_true(fabs(b.tflops - 812.345) < 1e-9);
    assert_true(fabs(b.median_ms - 0.338123) < 1e-12);
    assert_int_equal(b.decision, DEC_KEEP);
    free(line);
    /* an unmeasured (failed) row keeps its numbers empty */
    r.measured = false;
    r.decision = DEC_DISCARD_TIMEOUT;
    r.max_err_over_tol = NAN;
    line = row_format(&r);
    line[strlen(line) - 1] = '\0';
    assert_int_equal(row_parse(line, &b, err, sizeof err), 0);
    assert_false(b.measured);
    assert_true(isnan(b.tflops));
    assert_true(isnan(b.max_err_over_tol));
    assert_int_equal(b.decision, DEC_DISCARD_TIMEOUT);
    free(line);
}

/* The records' numbers: each kind's decimals, at least 4 significant digits for the
 * positive quantities, plain decimal text that reads back as the rounded value. */
static void test_number_precision(void **state)
{
    (void)state;
    char buf[128];
    static const struct {
        double x;
        enum results_num kind;
        const char *text;
    } cases[] = {
        {812.34567, RN_TFLOPS, "812.346"},     {1.0, RN_TFLOPS, "1.000"},         {0.99996, RN_TFLOPS, "1.000"},
        {0.9994, RN_TFLOPS, "0.9994"},        {0.000190837, RN_TFLOPS, "0.0001908"}, {0.0099996, RN_TFLOPS, "0.01000"},
        {1e-20, RN_TFLOPS, "0.00000000000000000001000"}, {0.0, RN_TFLOPS, "0.000"}, {-0.5, RN_TFLOPS, "-0.5000"},
        {0.28012345678, RN_MEDIAN_MS, "0.280123"}, {0.006137, RN_MEDIAN_MS, "0.006137"},
        {0.00053678, RN_MEDIAN_MS, "0.0005368"}, {0.0144, RN_SPREAD_PCT, "0.014"}, {0.0004, RN_SPREAD_PCT, "0.000"},
        {2.514, RN_HW_EFF_PCT, "2.51"},       {0.000005, RN_HW_EFF_PCT, "0.00"},   {1739.6, RN_SM_CLOCK, "1740"},
        {1.01234567, RN_RATIO, "1.012346"},   {0.000123456, RN_RATIO, "0.0001235"}, {NAN, RN_TFLOPS, ""},
        {INFINITY, RN_MEDIAN_MS, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        results_num_text(buf, sizeof buf, cases[i].x, cases[i].kind);
        if (strcmp(buf, cases[i].text))
            fail_msg("case %zu: %.17g written '%s', want '%s'", i, cases[i].x, buf, cases[i].text);
        double r = results_round(cases[i].x, cases[i].kind);
        if (isfinite(cases[i].x)) {
            assert_true(r == strtod(cases[i].text, NULL));
            /* idempotent: the rounded value is written as the same text */
            assert_string_equal(results_num_text(buf, sizeof buf, r, cases[i].kind), cases[i].text);
        }
    }
    assert_string_equal(results_tflops_show(buf, sizeof buf, 812.34567), "812.3");
    assert_string_equal(results_tflops_show(buf, sizeof buf, 0.000190837), "0.0001908");
    assert_string_equal(results_tflops_show(buf, sizeof buf, NAN), "-");
    /* a row of a tiny shape reads back as written */
    struct result_row w = {.iter = 0, .measured = true, .tflops = 0.0001908, .median_ms = 0.005368, .spread_pct = 40.126,
                           .hw_eff_pct = 0.0, .sm_clock_mhz = 1973, .decision = DEC_BASELINE, .best_tflops = 0.0001908,
                           .max_err_over_tol = 0.25}, back;
    char *line = row_format(&w), err[200];
    *strchr(line, '\n') = '\0';
    assert_int_equal(row_parse(line, &back, err, sizeof err), 0);
    assert_true(back.tflops == 0.0001908 && back.best_tflops == 0.0001908 && back.median_ms == 0.005368);
    assert_non_null(strstr(line, "\t0.0001908\t0.005368\t40.126\t0.00\t1973\tBASELINE\t0.0001908\t"));
    free(line);
}

static void test_row_parse_rejects(void **state)
{
    (void)state;
    struct result_row b;
    char err[200];
    assert_int_equal(row_parse("1\t2\t3", &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "fields"));
    struct result_row r;
    fill_row(&r);
    char *line = row_format(&r);
    line[strlen(line) - 1] = '\0';
    char *bad = strdup(line);
    memcpy(bad, "x7", 2); /* iteration not a number */
    assert_int_equal(row_parse(bad, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "iter"));
    free(bad);
    char *dec = strstr(line, "\tKEEP\t");
    assert_non_null(dec);
    memcpy(dec + 1, "KEPT", 4);
    assert_int_equal(row_parse(line, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "decision"));
    free(line);
}

/* ---- idea log ---- */

static void test_idea_round_trip(void **state)
{
    (void)state;
    struct idea_record r = {0}, b;
    char err[200];
    r.iter = 3;
    snprintf(r.idea, sizeof r.idea, "%s", hostile);
    snprintf(r.category, sizeof r.category, "variant");
    snprintf(r.bottleneck, sizeof r.bottleneck, "smem_throughput");
    snprintf(r.justification, sizeof r.justification, "smem 81%% \"high\"");
    snprintf(r.config, sizeof r.config, "dtype=e4m3,kernel=1");
    snprintf(r.source_hash, sizeof r.source_hash, "feedfacecafebeef");
    snprintf(r.origin, sizeof r.origin, "agent");
    snprintf(r.backend, sizeof r.backend, "sim");
    r.decision = DEC_DISCARD_INCORRECT;
    r.tflops = NAN;
    r.best_tflops = 700.5;
    char *line = idea_format(&r);
    assert_int_equal(strchr(line, '\n') - line, (long)strlen(line) - 1);
    line[strlen(line) - 1] = '\0';
    assert_int_equal(idea_parse(line, &b, err, sizeof err), 0);
    assert_string_equal(b.idea, hostile);
    assert_string_equal(b.justification, r.justification);
    assert_int_equal(b.decision, DEC_DISCARD_INCORRECT);
    assert_true(isnan(b.tflops));
    assert_true(fabs(b.best_tflops - 700.5) < 1e-9);
    assert_string_equal(b.backend, "sim");
    free(line);
    assert_int_equal(idea_parse("{\"schema\":1,\"iter\":3", &b, err, sizeof err), -1);
    assert_int_equal(idea_parse("{\"schema\":2,\"iter\":3}", &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "schema"));
}

static void test_text_check(void **state)
{
    (void)state;
    char err[200], big[700];
    assert_int_equal(idea_text_check(hostile, IDEA_TEXT_MAX, err, sizeof err), 0);
    assert_int_equal(idea_text_check("bad \xff byte", IDEA_TEXT_MAX, err, sizeof err), -1);
    assert_non_null(strstr(err, "UTF-8"));
    assert_int_equal(idea_text_check("overlong \xc0\xaf", IDEA_TEXT_MAX, err, sizeof err), -1);
    assert_int_equal(idea_text_check("cut \xe2\x9c", IDEA_TEXT_MAX, err, sizeof err), -1);
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(idea_text_check(big, IDEA_TEXT_MAX, err, sizeof err), -1);
}

/* ---- logs ---- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_result_log_torn_and_malformed(void **state)
{
    (void)state;
    char path[300], err[600];
    struct result_log l;
    struct result_row r;
    snprintf(path, sizeof path, "%s/results.tsv", tmpdir);
    assert_int_equal(result_log_read(path, &l, err, sizeof err), 1); /* missing */
    assert_int_equal(result_log_create(path, "results", "sim", DECIDE_RULES, err, sizeof err), 0);
    fill_row(&r);
    r.iter = 0;
    char *row = row_format(&r);
    assert_int_equal(append_record(path, row, strlen(row)), 0);
    /* a torn tail: complete rows are read, the fragment comes back apart */
    FILE *f = fopen(path, "a");
    fputs("1\tsrcs/x", f);
    fclose(f);
    assert_int_equal(result_log_read(path, &l, err, sizeof err), 0);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.backend, "sim");
    assert_int_equal(l.decide_rules, DECIDE_RULES);
    assert_string_equal(l.torn, "1\tsrcs/x");
    assert_string_equal(l.rows[0].idea, hostile);
    result_log_release(&l);
    /* a malformed complete line is an error naming file and line */
    f = fopen(path, "a");
    fputs("\n", f);
    fclose(f);
    assert_int_equal(result_log_read(path, &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 4"));
    assert_non_null(strstr(err, path));
    /* another schema */
    char *h = result_log_header("results", "sim", DECIDE_RULES);
    h[strlen("# croqtuner results schema=")] = '9';
    write_file(path, h);
    free(h);
    assert_int_equal(result_log_read(path, &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 1"));
    write_file(path, "# croqtuner results schema=1 backend=sim\niter\tkernel\n");
    assert_int_equal(result_log_read(path, &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 2"));
    /* rules a newer croqtuner wrote are refused, not decided under other rules */
    h = result_log_header("results", "sim", DECIDE_RULES);
    char *d = strstr(h, " decide=") + strlen(" decide=");
    *d = '9';
    write_file(path, h);
    free(h);
    assert_int_equal(result_log_read(path, &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "decision rules"));
    /* only exactly " decide=N" ends line 1 */
    const char *bad[] = {"decide=2abc", "decide=02", "decide=+2", "decide= 2", "decide=2 decide=1",
                         "decide=4294967298", "decide=0", "decide=2\r"};
    h = result_log_header("results", "sim", 1);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[2048];
        snprintf(text, sizeof text, "# croqtuner results schema=1 backend=sim %s\n%s", bad[i], strchr(h, '\n') + 1);
        write_file(path, text);
        assert_int_equal(result_log_read(path, &l, err, sizeof err), -1);
    }
    free(h);
    free(row);
}

/* ---- checkpoint ---- */

static void sample_checkpoint(struct checkpoint *c)
{
    checkpoint_init(c);
    c->sk = (struct shape_key){CROQ_DTYPE_F16, {4096, 8192, 8192}, MODE_FROM_SCRATCH};
    key_format(&c->sk, c->key);
    snprintf(c->backend, sizeof c->backend, "sim");
    c->seed = 18446744073709551615ull; /* does not fit a JSON integer */
    c->budget = 150;
    c->phase = PH_DECIDE;
    c->iteration = 41;
    c->n_attempts = 3;
    c->compile_failures = 1;
    snprintf(c->seed_config, sizeof c->seed_config, "dtype=f16,kernel=0");
    c->other_bests = calloc(2, sizeof *c->other_bests);
    snprintf(c->other_bests[0], CROQ_SIG_MAX, "dtype=f16,kernel=1");
    snprintf(c->other_bests[1], CROQ_SIG_MAX, "dtype=f16,kernel=0");
    c->n_other_bests = 2;
    c->have_best = true;
    c->best.iter = 40;
    snprintf(c->best.config, sizeof c->best.config, "dtype=f16,kernel=1");
    c->best.p = (struct perf_numbers){901.125, 0.305011, 1.5, 1755, NAN, NAN, NAN};
    c->baseline_tflops = 600.5;
    c->profile.done = true;
    c->profile.category = BN_LATENCY_BOUND;
    profile_metrics_init(&c->profile.m);
    c->profile.m.tensor_pipe_pct = 61.5;
    snprintf(c->profile.m.top_stall, sizeof c->profile.m.top_stall, "long_scoreboard");
    c->pending.active = true;
    c->pending.iter = 42;
    c->pending.measured = true;
    snprintf(c->pending.idea, sizeof c->pending.idea, "%s", hostile);
    c->pending.cand.status = CAND_OK;
    c->pending.cand.p = (struct perf_numbers){0.1 + 0.2, 1.0 / 3.0, NAN, 1740, NAN, NAN, NAN};
    c->pending.remeasured = true;
    c->pending.cand_first.status = CAND_OK;
    c->pending.cand_first.p.tflops = 3000;
    c->pending.decision = DEC_DISCARD;
}

static void test_checkpoint_round_trip_exact(void **state)
{
    (void)state;
    struct checkpoint c, b;
    char err[600];
    sample_checkpoint(&c);
    json_t *j = checkpoint_to_json(&c);
    char *s = json_dumps(j, 0);
    json_decref(j);
    j = json_loads(s, 0, NULL);
    assert_int_equal(checkpoint_from_json(j, &b, err, sizeof err), 0);
    json_decref(j);
    free(s);
    assert_string_equal(b.key, c.key);
    assert_true(b.seed == c.seed);
    assert_int_equal(b.phase, PH_DECIDE);
    assert_int_equal(b.iteration, 41);
    assert_int_equal(b.n_attempts, 3);
    assert_int_equal(b.compile_failures, 1);
    assert_int_equal(b.n_other_bests, 2);
    assert_string_equal(b.other_bests[1], "dtype=f16,kernel=0");
    assert_true(b.best.p.tflops == c.best.p.tflops); /* bit-exact: resume decides alike */
    assert_true(b.pending.cand.p.tflops == c.pending.cand.p.tflops);
    assert_true(b.pending.cand.p.median_ms == c.pending.cand.p.median_ms);
    assert_true(isnan(b.pending.cand.p.spread_pct));
    assert_true(b.pending.remeasured);
    assert_false(b.pending.best_remeasured);
    assert_string_equal(b.pending.idea, hostile);
    assert_int_equal(b.profile.category, BN_LATENCY_BOUND);
    assert_true(b.profile.m.tensor_pipe_pct == 61.5);
    assert_true(isnan(b.profile.m.dram_throughput_pct));
    assert_string_equal(b.profile.m.top_stall, "long_scoreboard");
    checkpoint_release(&b);
    checkpoint_release(&c);
}

/* The search strategy (docs/search.md): absent for the default, so the default's
 * checkpoints are what they were before strategies, and an absent member reads as it;
 * another round-trips; a member that is no strategy name is refused by name. */
static void test_checkpoint_strategy(void **state)
{
    (void)state;
    struct checkpoint c, b;
    char err[600];
    sample_checkpoint(&c);
    assert_string_equal(c.strategy, CHECKPOINT_STRATEGY_DEFAULT);
    json_t *j = checkpoint_to_json(&c);
    assert_null(json_object_get(j, "strategy"));
    assert_int_equal(checkpoint_from_json(j, &b, err, sizeof err), 0);
    assert_string_equal(b.strategy, "heuristic");
    checkpoint_release(&b);
    json_decref(j);
    snprintf(c.strategy, sizeof c.strategy, "random");
    j = checkpoint_to_json(&c);
    assert_string_equal(json_string_value(json_object_get(j, "strategy")), "random");
    assert_int_equal(checkpoint_from_json(j, &b, err, sizeof err), 0);
    assert_string_equal(b.strategy, "random");
    checkpoint_release(&b);
    static const char *const bad[] = {"", "Random", "ran dom", "../x", "a-strategy-name-far-too-long-to-fit"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_object_set_new(j, "strategy", json_string(bad[i]));
        assert_int_equal(checkpoint_from_json(j, &b, err, sizeof err), -1);
        assert_non_null(strstr(err, "strategy"));
        checkpoint_release(&b);
    }
    json_object_set_new(j, "strategy", json_integer(1));
    assert_int_equal(checkpoint_from_json(j, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "strategy"));
    checkpoint_release(&b);
    json_decref(j);
    checkpoint_release(&c);
}

/* A replay shape's dataset (path, FNV-1a 64 of its bytes): absent unless recorded, so the
 * checkpoints of other backends are what they were; it round-trips; a hash that is not 16
 * lowercase hex digits, or a dataset on a shape of another backend, is refused by name. */
static void test_checkpoint_dataset(void **state)
{
    (void)state;
    struct checkpoint c, b;
    char err[600];
    sample_checkpoint(&c);
    json_t *j = checkpoint_to_json(&c);
    assert_null(json_object_get(j, "dataset"));
    json_decref(j);
    snprintf(c.backend, sizeof c.backend, "replay");
    snprintf(c.dataset, sizeof c.dataset, "/data/%s.jsonl.gz", hostile);
    snprintf(c.dataset_hash, sizeof c.dataset_hash, "0123456789abcdef");
    j = checkpoint_to_json(&c);
    assert_int_equal(checkpoint_from_json(j, &b, err, sizeof err), 0);
    assert_string_equal(b.dataset, c.dataset);
    assert_string_equal(b.dataset_hash, "0123456789abcdef");
    checkpoint_release(&b);
    static const char *const bad[] = {"", "0123456789ABCDEF", "0123456789abcde", "0123456789abcdefa", "0123456789abcdeg"};
    json_t *ds = json_object_get(j, "dataset");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_object_set_new(ds, "hash", json_string(bad[i]));
        assert_int_equal(checkpoint_from_json(j, &b, err, sizeof err), -1);
        assert_non_null(strstr(err, "dataset"));
        checkpoint_release(&b);
    }
    json_object_set_new(ds, "hash", json_string("0123456789abcdef"));
    json_object_set_new(j, "backend", json_string("sim"));
    assert_int_equal(checkpoint_from_json(j, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "replay"));
    checkpoint_release(&b);
    json_decref(j);
    checkpoint_release(&c);
}

/* state.json's typed view: an entry written from a checkpoint reads back as its fields,
 * absent members keep the init values, the sweep and failed records round-trip. */
static void test_state_model(void **state)
{
    (void)state;
    struct checkpoint c;
    struct state_shape e;
    char err[300];
    sample_checkpoint(&c);
    json_t *root = json_pack("{s:i, s:{}}", "schema", 1, "shapes");
    json_object_set_new(json_object_get(root, "shapes"), c.key, state_entry(&c, "active"));
    assert_int_equal(state_validate(root, err, sizeof err), 0);
    assert_true(state_shape_get(root, c.key, &e));
    assert_true(e.key_ok);
    assert_int_equal(e.sk.shape.m, c.sk.shape.m);
    assert_string_equal(e.status, "active");
    assert_false(state_shape_done(&e));
    assert_string_equal(e.phase, "DECIDE");
    assert_int_equal(e.iteration, 41);
    assert_int_equal(e.budget, c.budget);
    assert_string_equal(e.backend, c.backend);
    assert_true(e.have_best);
    assert_int_equal(e.best.iter, c.best.iter);
    assert_true(e.best.tflops == c.best.p.tflops);
    assert_string_equal(e.best.config, c.best.config);
    assert_int_equal(state_shape_count(root), 1);
    assert_false(state_shape_get(root, "f16_128x256x128", &e));
    assert_int_equal(e.iteration, -1);
    assert_true(isnan(e.baseline_tflops));
    /* old forms only when asked for */
    json_t *old = json_pack("{s:f, s:{s:f}}", "baseline", 7.0, "best", "tflops", 9.5);
    state_shape_from_json(old, "f16_128x256x128", 0, &e);
    assert_true(isnan(e.baseline_tflops));
    assert_true(e.have_best && e.best.tflops == 9.5);
    state_shape_from_json(old, "f16_128x256x128", STATE_OLD_FORMS, &e);
    assert_true(e.baseline_tflops == 7.0);
    json_decref(old);

    struct state_sweep sw = {.dtype = "all", .plan = "default", .backend = "sim", .seed = "7", .iters = 3,
                             .shapes = "/x/shapes.json", .status = "running", .waves = true}, back;
    assert_false(state_sweep_get(root, &back));
    state_sweep_put(root, &sw);
    assert_true(state_sweep_get(root, &back));
    assert_true(back.complete && back.waves && state_sweep_unfinished(&back));
    assert_string_equal(back.shapes, "/x/shapes.json");
    assert_int_equal(back.iters, 3);

    struct state_failed f = {.key = "f16_128x256x128", .why = "GPU gone", .at = "2026-12-01T00:00:00Z",
                             .host = "h", .pid = 42}, *list;
    assert_int_equal(state_scale_check(root, err, sizeof err), 0);
    state_failed_put(root, &f);
    assert_true(state_failed_has(root, f.key));
    assert_int_equal(state_failed_list(root, &list), 1);
    assert_string_equal(list[0].why, "GPU gone");
    assert_int_equal(list[0].pid, 42);
    free(list);
    state_failed_clear(root);
    assert_int_equal(state_failed_count(root), 0);
    json_object_set_new(json_object_get(root, "scale"), "claims", json_string("x"));
    assert_int_equal(state_scale_check(root, err, sizeof err), -1);
    json_decref(root);
    checkpoint_release(&c);
}

static char *slurp(const char *path)
{
    return read_file(path, NULL);
}

static void test_checkpoint_damage_refused_untouched(void **state)
{
    (void)state;
    struct checkpoint c, b;
    char err[800], dir[300], path[400];
    snprintf(dir, sizeof dir, "%s/ck", tmpdir);
    snprintf(path, sizeof path, "%s/checkpoints", dir);
    assert_int_equal(mkdir_p(path), 0);
    sample_checkpoint(&c);
    assert_int_equal(checkpoint_save(dir, &c, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/checkpoints/%s.json", dir, c.key);
    assert_int_equal(checkpoint_load(dir, c.key, &b, err, sizeof err), 0);
    checkpoint_release(&b);
    char *whole = slurp(path);
    size_t len = strlen(whole);
    /* truncated */
    assert_int_equal(truncate(path, (off_t)(len / 2)), 0);
    char *before = slurp(path);
    assert_int_equal(checkpoint_load(dir, c.key, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "left as it is"));
    char *after = slurp(path);
    assert_string_equal(before, after);
    free(before);
    free(after);
    /* valid JSON describing another key */
    char *other = strdup(whole);
    char *k = strstr(other, "\"key\": \"f16_4096x8192x8192_fs\"");
    assert_non_null(k);
    memcpy(k + 8, "f16_4096x8192x4096_fs", 21);
    write_file(path, other);
    assert_int_equal(checkpoint_load(dir, c.key, &b, err, sizeof err), -1);
    /* a phase that does not exist */
    write_file(path, whole);
    char *ph = strstr(whole, "\"DECIDE\"");
    memcpy(ph, "\"DEC1DE\"", 8);
    write_file(path, whole);
    assert_int_equal(checkpoint_load(dir, c.key, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "phase"));
    free(other);
    free(whole);
    checkpoint_release(&c);
}

/* A refused entry makes its shape unreadable, not the file; a writer never writes what the
 * reader would refuse, and keeps a refused entry as it was read. */
static void test_state_refuses_a_shape(void **state)
{
    (void)state;
    struct checkpoint a, b;
    struct state_shape e;
    char err[800], dir[300], path[400], why[600];
    snprintf(dir, sizeof dir, "%s/st", tmpdir);
    assert_int_equal(mkdir_p(dir), 0);
    snprintf(path, sizeof path, "%s/state.json", dir);
    sample_checkpoint(&a);
    sample_checkpoint(&b);
    b.sk.shape.k = 4096;
    key_format(&b.sk, b.key);
    assert_int_equal(state_put(dir, &a, "active", err, sizeof err), 0);
    assert_int_equal(state_put(dir, &b, "active", err, sizeof err), 0);
    /* the writer: a best of 0 TFLOPS (a tiny shape's, rounded by fixed decimals) is not written */
    char *before = read_file(path, NULL);
    b.best.p.tflops = 0.0;
    assert_int_equal(state_put(dir, &b, "active", err, sizeof err), -1);
    assert_non_null(strstr(err, "state.json not written (its reader would refuse it): shape 'f16_4096x8192x4096_fs': "
                                "'best.tflops' is not a positive number"));
    char *after = read_file(path, NULL);
    assert_string_equal(before, after);
    free(after);
    b.best.p.tflops = -242.8;
    assert_int_equal(state_put(dir, &b, "active", err, sizeof err), -1);
    b.best.p.tflops = 901.125;
    b.baseline_tflops = -5;
    assert_int_equal(state_put(dir, &b, "active", err, sizeof err), -1);
    assert_non_null(strstr(err, "'baseline.tflops' is not a positive number"));
    b.baseline_tflops = 600.5;
    /* the checkpoint's writer too */
    snprintf(err, sizeof err, "%s/checkpoints", dir);
    assert_int_equal(mkdir_p(err), 0);
    b.best.p.tflops = 0.0;
    assert_int_equal(checkpoint_save(dir, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "is not written (its reader would refuse it): member 'best.tflops' is not a positive"));
    b.best.p.tflops = 901.125;
    /* the reader: a damaged number in a's entry refuses a alone */
    char *text = strdup(before), *at = strstr(strstr(text, "\"f16_4096x8192x8192_fs\""), "\"tflops\": 901.125");
    assert_non_null(at);
    memcpy(at, "\"tflops\": -901.12", 17); /* as long as the text it replaces */
    write_file(path, text);
    free(text);
    json_t *st = state_load(dir, err, sizeof err);
    if (!st)
        fail_msg("%s", err);
    assert_true(state_shape_refused(st, a.key, why, sizeof why));
    assert_string_equal(why, "shape 'f16_4096x8192x8192_fs': 'best.tflops' is not a positive number");
    assert_false(state_shape_get(st, a.key, &e));
    assert_true(state_shape_get(st, b.key, &e) && e.best.tflops == 901.125);
    size_t n;
    const char **keys = state_shape_keys(st, &n);
    assert_int_equal(n, 1);
    assert_string_equal(keys[0], b.key);
    free(keys);
    assert_int_equal(state_shape_count(st), 1);
    keys = state_refused_keys(st, &n);
    assert_int_equal(n, 1);
    assert_string_equal(keys[0], a.key);
    free(keys);
    json_decref(st);
    assert_int_equal(state_entry_refused(dir, a.key, why, sizeof why), 1);
    assert_int_equal(state_entry_refused(dir, b.key, why, sizeof why), 0);
    /* b's process writes its entry: a's is kept byte for byte, the reader's record is not written */
    b.iteration = 42;
    assert_int_equal(state_put(dir, &b, "active", err, sizeof err), 0);
    after = read_file(path, NULL);
    assert_non_null(strstr(after, "\"tflops\": -901.12"));
    assert_null(strstr(after, STATE_REFUSED_MEMBER));
    free(after);
    snprintf(path, sizeof path, "%s/RESUME.md", dir);
    after = read_file(path, NULL);
    assert_non_null(strstr(after, "| f16_4096x8192x8192_fs | - | - | unreadable |"));
    free(after);
    /* a's entry written again from its checkpoint is read again */
    assert_int_equal(state_put(dir, &a, "active", err, sizeof err), 0);
    assert_int_equal(state_entry_refused(dir, a.key, why, sizeof why), 0);
    /* what refuses the file still does: a key that is not a shape key */
    snprintf(path, sizeof path, "%s/state.json", dir);
    write_file(path, "{\"schema\": 1, \"shapes\": {\"../x\": {}}}");
    assert_null(state_load(dir, err, sizeof err));
    free(before);
    checkpoint_release(&a);
    checkpoint_release(&b);
}

/* state_best_speedup: the baseline kernel is 1; a ladder's winner is the ladder's own
 * ratio of the baseline's entry to the winner's, not best / the baseline's first row (the
 * status/report x column that showed a ladder winner at a lower clock as a slowdown);
 * without the baseline in the ladder, or without a ladder, best / baseline. */
static void test_best_speedup(void **state)
{
    (void)state;
    struct state_ladder l = {.ok = true, .n = 3};
    l.e[0].iter = 0, l.e[0].rel = 2.0, l.e[0].tflops = 420.0;
    l.e[1].iter = 4, l.e[1].rel = 0.9, l.e[1].tflops = 930.0;
    l.e[2].iter = 7, l.e[2].rel = 1.0, l.e[2].tflops = 840.0;
    assert_true(fabs(state_best_speedup(4, 930.0, 1000.0, true, &l) - 2.0 / 0.9) < 1e-12);
    assert_true(fabs(state_best_speedup(4, 930.0, 1000.0, false, &l) - 0.93) < 1e-12);
    assert_true(fabs(state_best_speedup(4, 930.0, 1000.0, true, NULL) - 0.93) < 1e-12);
    assert_true(fabs(state_best_speedup(9, 930.0, 1000.0, true, &l) - 0.93) < 1e-12); /* not in it */
    l.e[0].iter = 2; /* the baseline not timed */
    assert_true(fabs(state_best_speedup(4, 930.0, 500.0, true, &l) - 1.86) < 1e-12);
    assert_true(state_best_speedup(0, 900.0, 1000.0, true, &l) == 1.0);
    assert_true(isnan(state_best_speedup(-1, NAN, 1000.0, false, NULL)));
    assert_true(isnan(state_best_speedup(3, 900.0, NAN, false, NULL)));
}

/* The sweep's plan copy: written once from the first file, the same bytes from another
 * file accepted, other bytes refused naming both files with nothing changed; an older
 * record's absolute file counts while it is there. */
static void test_plan_snapshot(void **unused)
{
    (void)unused;
    char dir[300], a[300], b[300], snap[400], path[ENGINE_PATH_MAX], err[1200];
    snprintf(dir, sizeof dir, "%s/plan-dir", tmpdir);
    snprintf(a, sizeof a, "%s/a.json", tmpdir);
    snprintf(b, sizeof b, "%s/b.json", tmpdir);
    snprintf(snap, sizeof snap, "%s/" STATE_PLAN_FILE, dir);
    assert_int_equal(atomic_write_str(a, "{\"plan\": 1}\n"), 0);
    assert_int_equal(atomic_write_str(b, "{\"plan\": 2}\n"), 0);

    struct state_sweep sw = {.shapes = STATE_PLAN_FILE};
    assert_int_equal(state_plan_path(dir, &sw, path), 0);
    assert_string_equal(path, snap);
    snprintf(sw.shapes, sizeof sw.shapes, "%s", a);
    assert_int_equal(state_plan_path(dir, &sw, path), 0);
    assert_string_equal(path, a); /* an older record: as recorded */

    /* an older record's file there and of other bytes: refused, no copy written */
    assert_int_equal(state_plan_keep(dir, b, a, err, sizeof err), 1);
    assert_non_null(strstr(err, b));
    assert_non_null(strstr(err, a));
    assert_false(regfile_is(snap));
    /* ... gone: the copy is taken from the file given */
    char gone[300];
    snprintf(gone, sizeof gone, "%s/gone.json", tmpdir);
    assert_int_equal(state_plan_keep(dir, a, gone, err, sizeof err), 0);
    char *t = read_file(snap, NULL);
    assert_non_null(t);
    assert_string_equal(t, "{\"plan\": 1}\n");
    free(t);
    /* the same bytes, also from the copy itself: accepted; other bytes refused, unchanged */
    assert_int_equal(state_plan_keep(dir, a, NULL, err, sizeof err), 0);
    assert_int_equal(state_plan_keep(dir, snap, NULL, err, sizeof err), 0);
    assert_int_equal(state_plan_keep(dir, b, NULL, err, sizeof err), 1);
    assert_non_null(strstr(err, b));
    assert_non_null(strstr(err, snap));
    t = read_file(snap, NULL);
    assert_string_equal(t, "{\"plan\": 1}\n");
    free(t);
    /* an unreadable input is an error, not a refusal */
    assert_int_equal(state_plan_keep(dir, gone, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, gone));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_refuses_a_shape),
        cmocka_unit_test(test_key_format_and_parse),
        cmocka_unit_test(test_key_refuses_path_tricks),
        cmocka_unit_test(test_tsv_escape_round_trip),
        cmocka_unit_test(test_row_round_trip),
        cmocka_unit_test(test_number_precision),
        cmocka_unit_test(test_row_parse_rejects),
        cmocka_unit_test(test_idea_round_trip),
        cmocka_unit_test(test_text_check),
        cmocka_unit_test(test_result_log_torn_and_malformed),
        cmocka_unit_test(test_checkpoint_round_trip_exact),
        cmocka_unit_test(test_checkpoint_strategy),
        cmocka_unit_test(test_checkpoint_dataset),
        cmocka_unit_test(test_checkpoint_damage_refused_untouched),
        cmocka_unit_test(test_state_model),
        cmocka_unit_test(test_best_speedup),
        cmocka_unit_test(test_plan_snapshot),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
