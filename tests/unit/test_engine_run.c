/* tests/unit/test_engine_run.c — a whole from-scratch run (150 iterations) on the
 * simulated backend, with injected faults, in this process: every artifact of
 * docs/artifacts.md exists, parses, says backend=sim, and agrees with the others. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifacts/artifacts.h"
#include "artifacts/srcstore.h"
#include "engine/decide.h"
#include "engine/engine.h"
#include "scale/scale.h"
#include "util/hash.h"
#include "util/atomicio.h"

static char dir[256];
static const char *key = "f16_4096x8192x8192_fs";

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/croq-test-engine-run.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    struct engine_opts o;
    engine_opts_default(&o);
    o.dir = dir;
    o.backend = "sim";
    o.quiet = true;
    o.seed = 11;
    o.seed_given = true;
    o.sim_faults = "compile@3,crash@5,timeout@9,incorrect@12,spike@15,abovepeak@18";
    o.shapes = CROQ_SOURCE_DIR "/tests/fixtures/shapes.json"; /* the budget: 150 from scratch */
    struct shape_key k = {CROQ_DTYPE_F16, {4096, 8192, 8192}, MODE_FROM_SCRATCH};
    return engine_tune(&o, &k) == ENGINE_DONE ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *out, const char *fmt, const char *arg)
{
    char rel[512];
    snprintf(rel, sizeof rel, fmt, arg);
    snprintf(out, 1024, "%s/%s", dir, rel);
}

/* A recorded source's bytes (kept as a recipe once the shape is done). */
static char *source_of(const char *rel, size_t *len)
{
    char err[700];
    char *src = NULL;
    if (srcstore_read(dir, rel, &src, len, err, sizeof err))
        fail_msg("%s", err);
    return src;
}

static void test_results_tsv(void **state)
{
    (void)state;
    char path[1024], err[600], src[1024], h[BACKEND_HASH_MAX];
    struct result_log l;
    size_t len;
    path_of(path, "logs/%s/results.tsv", key);
    assert_int_equal(result_log_read(path, &l, err, sizeof err), 0);
    assert_null(l.torn);
    assert_string_equal(l.backend, "sim");
    assert_int_equal(l.n, 151);
    for (size_t i = 0; i < l.n; i++) {
        const struct result_row *r = &l.rows[i];
        assert_int_equal(r->iter, (int)i);
        snprintf(src, sizeof src, "%s/%s", dir, r->kernel);
        assert_int_not_equal(access(src, F_OK), 0); /* done: only the recipe is kept */
        char *text = source_of(r->kernel, &len);
        hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, text, len), h);
        free(text);
        assert_string_equal(h, r->source_hash); /* the regenerated source is the measured one */
        assert_int_equal(strlen(r->timestamp), 20);
        if (i == 0)
            assert_int_equal(r->decision, DEC_BASELINE);
        if (r->decision == DEC_KEEP) { /* rules 4: the screen's lower bound cleared the floor ... */
            const char *iv = strstr(r->note, "95% interval [");
            double lo = 0, ratio = 0, clo = 0;
            assert_non_null(iv);
            assert_int_equal(sscanf(iv, "95%% interval [%lf,", &lo), 1);
            assert_true(lo > 1.0 + DECIDE_PAIRED_FLOOR_PCT / 100.0);
            /* ... the confirmation's cleared 1, and the best is the old one times its median */
            const char *cf = strstr(r->note, "paired again to confirm: ");
            assert_non_null(cf);
            assert_int_equal(sscanf(cf, "paired again to confirm: %lf [%lf,", &ratio, &clo), 2);
            assert_true(clo > 1.0);
            assert_true(fabs(r->best_tflops - l.rows[i - 1].best_tflops * ratio) < 1e-3 * r->best_tflops);
            assert_non_null(strstr(r->note, "verified again on a new operand set"));
        }
        if (r->decision == DEC_BASELINE)
            assert_true(r->best_tflops == r->tflops);
        else if (i > 0) /* the shape's one scale: the best never falls */
            assert_true(r->best_tflops >= l.rows[i - 1].best_tflops);
        if (!decision_kept(r->decision))
            assert_true(r->decision == DEC_DISCARD || !r->measured);
        if (r->measured && !strstr(r->note, "above the physical peak")) /* that one is recorded as measured */
            assert_true(r->tflops > 0 && r->median_ms > 0 && r->sm_clock_mhz > 0 && r->hw_eff_pct < 100);
    }
    assert_int_equal(l.rows[5].decision, DEC_DISCARD_RUNTIME_CRASH);
    assert_int_equal(l.rows[9].decision, DEC_DISCARD_TIMEOUT);
    assert_int_equal(l.rows[12].decision, DEC_DISCARD_INCORRECT);
    assert_non_null(strstr(l.rows[5].note, "injected"));
    assert_non_null(strstr(l.rows[15].note, "re-measured"));
    assert_int_equal(l.rows[18].decision, DEC_DISCARD);
    assert_non_null(strstr(l.rows[18].note, "above the physical peak twice"));
    result_log_release(&l);
}

static void test_attempts_and_ideas(void **state)
{
    (void)state;
    char path[1024], err[600];
    struct result_log a, res;
    struct idea_log il;
    path_of(path, "logs/%s/attempts.tsv", key);
    assert_int_equal(result_log_read(path, &a, err, sizeof err), 0);
    assert_int_equal(a.n, 1); /* compile@3: one attempt, no iteration consumed */
    assert_int_equal(a.rows[0].iter, 3);
    assert_int_equal(a.rows[0].decision, DEC_COMPILE_ERROR);
    assert_false(a.rows[0].measured);
    path_of(path, "logs/%s/results.tsv", key);
    assert_int_equal(result_log_read(path, &res, err, sizeof err), 0);
    assert_string_not_equal(res.rows[3].config, a.rows[0].config); /* iteration 3 is another idea */
    size_t len;
    char *failed = source_of(a.rows[0].kernel, &len); /* the failed source is kept */
    assert_non_null(strstr(failed, a.rows[0].config));
    free(failed);
    path_of(path, "logs/%s/idea-log.jsonl", key);
    assert_int_equal(idea_log_read(path, &il, err, sizeof err), 0);
    assert_int_equal(il.n, 151);
    for (size_t i = 0; i < il.n; i++) {
        assert_int_equal(il.recs[i].iter, (int)i);
        assert_int_equal(il.recs[i].decision, res.rows[i].decision);
        assert_string_equal(il.recs[i].config, res.rows[i].config);
        assert_string_equal(il.recs[i].idea, res.rows[i].idea);
        assert_string_equal(il.recs[i].backend, "sim");
        assert_string_equal(il.recs[i].origin, "engine");
        if (i > 0) {
            assert_true(idea_category_parse(il.recs[i].category) >= 0);
            assert_true(bottleneck_parse(il.recs[i].bottleneck) != BN_UNKNOWN);
        }
    }
    idea_log_release(&il);
    result_log_release(&res);
    result_log_release(&a);
}

static void test_perf_and_sources(void **state)
{
    (void)state;
    char path[1024], rel[64];
    for (int i = 0; i <= 150; i++) {
        snprintf(rel, sizeof rel, "srcs/%%s/iter%03d.gen.json", i);
        path_of(path, rel, key);
        assert_int_equal(access(path, R_OK), 0);
        snprintf(rel, sizeof rel, "perf/%%s/iter%03d-cand.json", i);
        path_of(path, rel, key);
        json_error_t je;
        json_t *j = json_load_file(path, 0, &je);
        assert_non_null(j);
        assert_string_equal(json_string_value(json_object_get(j, "backend")), "sim");
        json_decref(j);
    }
    char src_rel[128];
    size_t len;
    snprintf(src_rel, sizeof src_rel, "srcs/%s/iter000.cu", key);
    char *src = source_of(src_rel, &len);
    assert_non_null(strstr(src, "backend=sim")); /* the generated source says where it was measured */
    free(src);
}

static void test_checkpoint_state_resume_md(void **state)
{
    (void)state;
    char path[1024], err[600];
    struct checkpoint c;
    assert_int_equal(checkpoint_load(dir, key, &c, err, sizeof err), 0);
    assert_int_equal(c.phase, PH_NEXT_SHAPE);
    assert_int_equal(c.iteration, 150);
    assert_int_equal(c.budget, 150);
    assert_true(c.have_best);
    assert_false(c.pending.active);
    assert_true(c.health_checked);
    assert_true(c.profile.done);
    assert_string_equal(c.profile.config, c.best.config);
    assert_string_equal(c.backend, "sim");
    json_t *st = state_load(dir, err, sizeof err);
    assert_non_null(st);
    json_t *e = json_object_get(json_object_get(st, "shapes"), key);
    assert_string_equal(json_string_value(json_object_get(e, "status")), "done");
    assert_string_equal(json_string_value(json_object_get(e, "backend")), "sim");
    assert_int_equal(json_integer_value(json_object_get(e, "iteration")), 150);
    /* the registered best: the final ladder's winner, at the ladder's number */
    assert_true(c.ladder.done && c.ladder.ok && c.ladder.winner >= 0 && c.ladder.n >= 2);
    assert_true(json_real_value(json_object_get(json_object_get(e, "best"), "tflops")) ==
                c.ladder.e[c.ladder.winner].tflops);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "best"), "iter")),
                     c.ladder.e[c.ladder.winner].iter);
    assert_string_equal(json_string_value(json_object_get(json_object_get(e, "best"), "measured")), "ladder");
    json_decref(st);
    path_of(path, "RESUME.md", "");
    char *md = read_file(path, NULL);
    assert_non_null(md);
    assert_non_null(strstr(md, key));
    assert_non_null(strstr(md, "| done |"));
    free(md);
    /* the registered best kernel (the ladder's winner) is published under kernels/ */
    size_t len;
    path_of(path, "kernels/gemm_sp_f16/%s_best.cu", key);
    char *a = read_file(path, NULL), *b = source_of(c.ladder.e[c.ladder.winner].kernel, &len);
    assert_non_null(a);
    assert_string_equal(a, b);
    free(a);
    free(b);
    path_of(path, "progress/%s.json", key);
    json_error_t je;
    json_t *p = json_load_file(path, 0, &je);
    assert_non_null(p);
    assert_string_equal(json_string_value(json_object_get(p, "phase")), "NEXT_SHAPE");
    json_decref(p);
    checkpoint_release(&c);
}

static void test_status_json(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(engine_status(dir, true, f), ENGINE_DONE);
    fclose(f);
    json_error_t je;
    json_t *j = json_loads(buf, 0, &je);
    assert_non_null(j);
    json_t *s = json_array_get(json_object_get(j, "shapes"), 0);
    assert_string_equal(json_string_value(json_object_get(s, "key")), key);
    assert_true(json_is_null(json_object_get(s, "live"))); /* nobody tunes it now */
    json_decref(j);
    free(buf);
}

static void test_done_shape_is_not_rerun(void **state)
{
    (void)state;
    char path[1024];
    struct engine_opts o;
    engine_opts_default(&o);
    o.dir = dir;
    o.backend = "sim";
    o.quiet = true;
    struct shape_key k = {CROQ_DTYPE_F16, {4096, 8192, 8192}, MODE_FROM_SCRATCH};
    path_of(path, "logs/%s/results.tsv", key);
    char *before = read_file(path, NULL);
    assert_int_equal(engine_tune(&o, &k), ENGINE_DONE);
    assert_int_equal(sweep_resume(&o), ENGINE_DONE); /* the resume command */
    char *after = read_file(path, NULL);
    assert_string_equal(before, after);
    free(before);
    free(after);
    /* another backend on the same shape is refused */
    o.backend = "gpu";
    assert_int_equal(engine_tune(&o, &k), ENGINE_FAILED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_tsv),
        cmocka_unit_test(test_attempts_and_ideas),
        cmocka_unit_test(test_perf_and_sources),
        cmocka_unit_test(test_checkpoint_state_resume_md),
        cmocka_unit_test(test_status_json),
        cmocka_unit_test(test_done_shape_is_not_rerun),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
