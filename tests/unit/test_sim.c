/* tests/unit/test_sim.c — the simulated GPU backend (src/backend/sim.c, sim_model.c):
 * determinism, the model's trade-offs, the physical peak, the fault list, and every
 * injected fault coming back as the status the engine records. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "util/atomicio.h"

static char tmpdir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/croq-test-sim.XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    char p[400];
    snprintf(p, sizeof p, "%s/srcs/k", tmpdir);
    mkdir_p(p);
    snprintf(p, sizeof p, "%s/srcs/k/iter001.cu", tmpdir);
    return atomic_write_str(p, "// source\n");
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static struct backend *open_sim(const char *faults)
{
    char err[256];
    struct backend_opts o = {.name = "sim", .sim_faults = faults ? faults : ""};
    struct backend *b = backend_open(&o, err, sizeof err);
    assert_non_null(b);
    assert_string_equal(b->name, "sim");
    return b;
}

static void req_for(struct cand_req *q, const struct croq_config *cfg, int iter, const char *tag)
{
    memset(q, 0, sizeof *q);
    q->dir = tmpdir;
    q->key = "k";
    q->iter = iter;
    q->tag = tag;
    q->is_candidate = true;
    q->cfg = cfg;
    q->shape = (struct croq_shape){4096, 8192, 8192};
    q->src_rel = "srcs/k/iter001.cu";
    q->src_hash = "0";
    q->seed = 7;
}

static void test_model_trade_offs(void **state)
{
    (void)state;
    struct croq_config base, ws, big;
    struct croq_shape s = {4096, 8192, 8192};
    struct sim_point a, b, c;
    knobs_baseline(&base, CROQ_DTYPE_F16);
    knobs_default(&ws, CROQ_DTYPE_F16); /* warp-specialized 128x256, 4 stages */
    sim_model(&base, &s, &a);
    sim_model(&ws, &s, &b);
    assert_true(b.tflops > a.tflops * 1.2); /* the family beats the baseline clearly */
    /* the clock drops as the tensor pipe gets busier (power) */
    assert_true(b.clock_mhz < a.clock_mhz);
    assert_true(a.clock_mhz <= 1980 && b.clock_mhz > 1000);
    /* never above the physical peak at its clock */
    assert_true(a.tflops < backend_peak_tflops(CROQ_DTYPE_F16, a.clock_mhz));
    assert_true(b.tflops < backend_peak_tflops(CROQ_DTYPE_F16, b.clock_mhz));
    /* e4m3 runs about twice the f16 rate of the same config */
    big = ws;
    big.dtype = CROQ_DTYPE_E4M3;
    big.v[KNOB_TILE_K] = 256;
    sim_model(&big, &s, &c);
    assert_true(c.tflops > 1.5 * b.tflops);
    /* one pipeline stage cannot hide memory latency */
    struct croq_config one = ws;
    one.v[KNOB_STAGES] = 1;
    sim_model(&one, &s, &c);
    assert_true(c.tflops < b.tflops);
    /* wave quantization: a shape with one tile fewer than a full wave beats one just over */
    struct croq_shape full = {128 * 132, 256, 1024}, over = {128 * 133, 256, 1024};
    sim_model(&ws, &full, &a);
    sim_model(&ws, &over, &c);
    assert_true(a.tflops > c.tflops * 1.3);
    /* a small problem is memory / latency bound, never compute bound at full rate */
    struct croq_shape tiny = {128, 256, 128};
    sim_model(&ws, &tiny, &a);
    assert_true(a.tflops < 100);
    assert_true(a.bottleneck >= 0 && a.bottleneck < BN_COUNT);
}

static void test_measure_is_deterministic(void **state)
{
    (void)state;
    struct backend *b = open_sim(NULL);
    struct croq_config cfg;
    struct cand_req q;
    struct cand_result r1, r2, r3;
    knobs_default(&cfg, CROQ_DTYPE_F16);
    req_for(&q, &cfg, 1, "cand");
    assert_int_equal(b->measure(b, &q, &r1), 0);
    assert_int_equal(b->measure(b, &q, &r2), 0);
    assert_int_equal(r1.status, CAND_OK);
    assert_true(r1.tflops == r2.tflops && r1.median_ms == r2.median_ms && r1.spread_pct == r2.spread_pct);
    assert_string_equal(r1.raw_hash, r2.raw_hash);
    assert_string_equal(r1.raw_rel, "perf/k/iter001-cand.json");
    /* a re-measurement is a different draw of the noise, close to the first */
    req_for(&q, &cfg, 1, "cand-re");
    assert_int_equal(b->measure(b, &q, &r3), 0);
    assert_true(r3.tflops != r1.tflops);
    assert_true(fabs(r3.tflops / r1.tflops - 1) < 0.05);
    assert_true(r1.spread_pct > 0 && r1.spread_pct < 10);
    assert_true(fabs(r1.tflops - 2.0 * 4096 * 8192 * 8192 / (r1.median_ms * 1e-3) / 1e12) < 1e-6 * r1.tflops);
    /* the raw file is labelled and hashes as reported */
    char path[4400], h[BACKEND_HASH_MAX];
    snprintf(path, sizeof path, "%s/%s", tmpdir, r1.raw_rel);
    char *text = read_file(path, NULL);
    assert_non_null(strstr(text, "\"backend\": \"sim\""));
    free(text);
    assert_int_equal(backend_hash_file(path, h), 0);
    assert_string_equal(h, r2.raw_hash);
    backend_close(b);
}

static void test_fault_list(void **state)
{
    (void)state;
    struct sim_faults f;
    char err[300];
    assert_int_equal(sim_faults_parse("crash@5,timeout@9,incorrect@12,compile@3*4,busy@2,spike@7", &f, err, sizeof err), 0);
    assert_int_equal(f.n, 6);
    assert_int_equal(sim_fault_at(&f, SIM_FAULT_CRASH, 5), 1);
    assert_int_equal(sim_fault_at(&f, SIM_FAULT_CRASH, 6), 0);
    assert_int_equal(sim_fault_at(&f, SIM_FAULT_COMPILE, 3), 4);
    assert_int_equal(sim_fault_at(&f, SIM_FAULT_BUSY, 2), 2); /* default: two busy checks */
    const char *bad[] = {"crash", "crash@", "crash@x", "boom@3", "crash@3*", "crash@3*0", "crash@-1", "crash@3junk"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = '\0';
        assert_int_equal(sim_faults_parse(bad[i], &f, err, sizeof err), -1);
        assert_non_null(strstr(err, "sim fault"));
    }
    assert_int_equal(sim_faults_parse("", &f, err, sizeof err), 0);
    assert_int_equal(f.n, 0);
    struct backend_opts o = {.name = "sim", .sim_faults = "nonsense"};
    assert_null(backend_open(&o, err, sizeof err));
    o.name = "tpu";
    assert_null(backend_open(&o, err, sizeof err));
    assert_non_null(strstr(err, "tpu"));
}

static void test_injected_faults(void **state)
{
    (void)state;
    struct backend *b = open_sim("crash@2,timeout@3,incorrect@4,compile@5*2,abovepeak@6,spike@7,busy@8,unusable@9");
    struct croq_config cfg;
    struct cand_req q;
    struct cand_result r;
    struct backend_health h;
    knobs_default(&cfg, CROQ_DTYPE_F16);
    const struct { int iter; enum cand_status st; } want[] = {
        {2, CAND_CRASH}, {3, CAND_TIMEOUT}, {4, CAND_INCORRECT}, {1, CAND_OK}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        req_for(&q, &cfg, want[i].iter, "cand");
        assert_int_equal(b->measure(b, &q, &r), 0);
        assert_int_equal(r.status, want[i].st);
        if (r.status != CAND_OK)
            assert_non_null(strstr(r.reason, "injected"));
    }
    /* faults hit candidates only: re-measuring the best at iteration 2 works */
    req_for(&q, &cfg, 2, "best-re");
    q.is_candidate = false;
    assert_int_equal(b->measure(b, &q, &r), 0);
    assert_int_equal(r.status, CAND_OK);
    /* compile@5*2: the first two attempts fail, the third builds */
    req_for(&q, &cfg, 5, "build");
    for (int a = 0; a < 3; a++) {
        q.attempt = a;
        assert_int_equal(b->build(b, &q, &r), 0);
        assert_int_equal(r.status, a < 2 ? CAND_COMPILE_ERROR : CAND_OK);
    }
    /* an invalid configuration does not build */
    struct croq_config bad = cfg;
    bad.v[KNOB_TILE_M] = 64;
    bad.v[KNOB_CONSUMERS] = 2;
    q.cfg = &bad;
    assert_int_equal(b->build(b, &q, &r), 0);
    assert_int_equal(r.status, CAND_COMPILE_ERROR);
    /* above the peak at the measured clock, every time */
    req_for(&q, &cfg, 6, "cand");
    assert_int_equal(b->measure(b, &q, &r), 0);
    assert_true(r.tflops > backend_peak_tflops(CROQ_DTYPE_F16, r.sm_clock_mhz));
    req_for(&q, &cfg, 6, "cand-re");
    assert_int_equal(b->measure(b, &q, &r), 0);
    assert_true(r.tflops > backend_peak_tflops(CROQ_DTYPE_F16, r.sm_clock_mhz));
    /* a spike on the first measurement only */
    struct cand_result s1, s2;
    req_for(&q, &cfg, 7, "cand");
    assert_int_equal(b->measure(b, &q, &s1), 0);
    req_for(&q, &cfg, 7, "cand-re");
    assert_int_equal(b->measure(b, &q, &s2), 0);
    assert_true(s1.tflops > 1.6 * s2.tflops);
    /* busy twice, then free; unusable stays unusable */
    req_for(&q, &cfg, 8, "health");
    assert_int_equal(b->health(b, &q, &h), 0);
    assert_int_equal(h.state, HEALTH_BUSY);
    assert_non_null(strstr(h.why, "pid"));
    assert_int_equal(b->health(b, &q, &h), 0);
    assert_int_equal(h.state, HEALTH_BUSY);
    assert_int_equal(b->health(b, &q, &h), 0);
    assert_int_equal(h.state, HEALTH_OK);
    req_for(&q, &cfg, 9, "health");
    assert_int_equal(b->health(b, &q, &h), 0);
    assert_int_equal(h.state, HEALTH_UNUSABLE);
    backend_close(b);
}

static void test_profile(void **state)
{
    (void)state;
    struct backend *b = open_sim(NULL);
    struct croq_config cfg;
    struct cand_req q;
    struct profile_out p;
    knobs_baseline(&cfg, CROQ_DTYPE_F16);
    req_for(&q, &cfg, 0, "profile");
    q.is_candidate = false;
    assert_int_equal(b->profile(b, &q, &p), 0);
    assert_true(p.r.ok);
    assert_true(p.r.category >= 0 && p.r.category < BN_COUNT);
    assert_true(p.r.justification[0] != '\0');
    assert_string_equal(p.raw_rel, "perf/k/iter000-profile.json");
    assert_true(strlen(p.raw_hash) == 16);
    backend_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_trade_offs),
        cmocka_unit_test(test_measure_is_deterministic),
        cmocka_unit_test(test_fault_list),
        cmocka_unit_test(test_injected_faults),
        cmocka_unit_test(test_profile),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
