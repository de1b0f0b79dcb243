/* tests/unit/test_replay.c — the replay backend (src/backend/replay.c): trials drawn from
 * the recorded ones and seeded, recorded failures replayed, configs outside the dataset
 * reported as such, the shape checked, the stand-in profile; a dataset read the same
 * from its gzip form (the committed datasets' form); a pair's and a ladder round's trials
 * sharing the GPU state as the GPU's alternating trials do. */
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
#include <zlib.h>

#include "backend/backend.h"
#include "dataset/dataset.h"
#include "bench/kernel.h"
#include "util/atomicio.h"

static const struct croq_shape shape = {1024, 1024, 4096};
static char dir[64], path[128];
static struct croq_config c_ok, c_crash, c_cc, c_out;

static void rec_of(struct ds_record *r, const struct croq_config *c, const char *status, const char *reason)
{
    memset(r, 0, sizeof *r);
    r->cfg = *c;
    knobs_signature(c, r->sig);
    snprintf(r->status, sizeof r->status, "%s", status);
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    r->tflops = r->median_ms = r->spread_pct = r->sm_clock_mhz = r->hw_eff_pct = r->max_err_over_tol = NAN;
    r->regs = r->smem_bytes = -1;
}

static int setup(void **state)
{
    char err[256];
    snprintf(dir, sizeof dir, "/tmp/croq-test-replay-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/d.jsonl", dir);
    knobs_default(&c_ok, CROQ_DTYPE_F16);
    c_crash = c_cc = c_out = c_ok;
    c_crash.v[KNOB_STAGES] = 3;
    c_cc.v[KNOB_STAGES] = 5;
    c_out.v[KNOB_GROUP] = 8;
    struct ds_record r;
    rec_of(&r, &c_ok, "ok", "");
    /* 5 trials of 0.1 .. 0.14 ms at 1500 .. 1540 MHz */
    r.n_trials = r.n_trial_clocks = 5;
    for (int i = 0; i < 5; i++)
        r.trial_ms[i] = 0.10 + 0.01 * i, r.trial_clock_mhz[i] = 1500 + 10 * i;
    r.median_ms = 0.12, r.tflops = 2.0 * 1024 * 1024 * 4096 / 0.12e-3 / 1e12, r.sm_clock_mhz = 1520;
    r.max_err_over_tol = 0.3;
    assert_int_equal(dataset_append(path, &r, CROQ_DTYPE_F16, &shape, NULL, err, sizeof err), 0);
    rec_of(&r, &c_crash, "crash", "signal 11 (Segmentation fault)");
    assert_int_equal(dataset_append(path, &r, CROQ_DTYPE_F16, &shape, NULL, err, sizeof err), 0);
    rec_of(&r, &c_cc, "compile_error", "ptxas: too many resources");
    assert_int_equal(dataset_append(path, &r, CROQ_DTYPE_F16, &shape, NULL, err, sizeof err), 0);
    /* the baseline, measured ok: a dataset without it is refused (every run starts there) */
    struct croq_config base;
    knobs_baseline(&base, CROQ_DTYPE_F16);
    rec_of(&r, &base, "ok", "");
    r.n_trials = 1, r.trial_ms[0] = r.median_ms = 0.5, r.tflops = 2.0 * 1024 * 1024 * 4096 / 0.5e-3 / 1e12;
    assert_int_equal(dataset_append(path, &r, CROQ_DTYPE_F16, &shape, NULL, err, sizeof err), 0);
    char src[160];
    snprintf(src, sizeof src, "%s/k.cu", dir);
    assert_int_equal(atomic_write_str(src, "// kernel\n"), 0);
    (void)state;
    return 0;
}

static int teardown(void **state)
{
    struct kernel_workdir wd = {.temporary = true};
    snprintf(wd.path, sizeof wd.path, "%s", dir);
    kernel_workdir_release(&wd);
    (void)state;
    return 0;
}

static struct backend *open_replay(void)
{
    char err[512];
    struct backend_opts o = {.name = "replay", .dataset = path};
    struct backend *b = backend_open(&o, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    assert_string_equal(b->name, "replay");
    return b;
}

static struct cand_req req(const struct croq_config *c, unsigned long long seed, int iter)
{
    return (struct cand_req){.dir = dir, .key = "f16_1024x1024x4096_fs", .iter = iter, .tag = "cand",
                             .is_candidate = true, .cfg = c, .shape = shape, .src_rel = "k.cu", .seed = seed};
}

static void test_ok_draws(void **state)
{
    struct backend *b = open_replay();
    struct cand_result a, a2, c;
    struct cand_req q = req(&c_ok, 1, 4);
    assert_int_equal(b->build(b, &q, &a), 0);
    assert_int_equal(a.status, CAND_OK);
    assert_int_equal(b->measure(b, &q, &a), 0);
    assert_int_equal(b->measure(b, &q, &a2), 0);
    assert_int_equal(a.status, CAND_OK);
    /* same request, same numbers; every median is one of the recorded trials */
    assert_true(a.median_ms == a2.median_ms && a.spread_pct == a2.spread_pct);
    bool recorded = false;
    for (int i = 0; i < 5; i++)
        recorded |= fabs(a.median_ms - (0.10 + 0.01 * i)) < 1e-12;
    assert_true(recorded);
    assert_true(fabs(a.tflops - 2.0 * 1024 * 1024 * 4096 / (a.median_ms * 1e-3) / 1e12) < 1e-9);
    assert_true(a.sm_clock_mhz >= 1500 && a.sm_clock_mhz <= 1540);
    /* the clock is the median trial's: trial 0.1 + 0.01 i ran at 1500 + 10 i */
    assert_true(fabs(a.sm_clock_mhz - (1500 + 1000 * (a.median_ms - 0.10))) < 1e-6);
    assert_true(a.max_err_over_tol == 0.3);
    assert_string_not_equal(a.raw_rel, "");
    /* other seeds draw other trials: over 20 seeds more than one median */
    int distinct = 0;
    double seen[20];
    for (int s = 0; s < 20; s++) {
        q = req(&c_ok, (unsigned long long)s + 2, 4);
        assert_int_equal(b->measure(b, &q, &c), 0);
        int k = 0;
        while (k < distinct && seen[k] != c.median_ms)
            k++;
        if (k == distinct)
            seen[distinct++] = c.median_ms;
        assert_true(c.spread_pct >= 0 && c.spread_pct <= 0.04 / c.median_ms * 100.0 + 1e-9);
    }
    assert_true(distinct >= 2);
    backend_close(b);
}

static void test_failures_and_outside(void **state)
{
    struct backend *b = open_replay();
    struct cand_result r;
    struct cand_req q = req(&c_crash, 1, 2);
    assert_int_equal(b->measure(b, &q, &r), 0);
    assert_int_equal(r.status, CAND_CRASH);
    assert_non_null(strstr(r.reason, "signal 11 (Segmentation fault)"));
    assert_true(r.tflops == 0);
    q = req(&c_cc, 1, 3);
    assert_int_equal(b->build(b, &q, &r), 0);
    assert_int_equal(r.status, CAND_COMPILE_ERROR);
    assert_non_null(strstr(r.reason, "ptxas: too many resources"));
    q = req(&c_out, 1, 5);
    assert_int_equal(b->build(b, &q, &r), 0);
    assert_int_equal(r.status, CAND_OK); /* it would compile; only its numbers are unknown */
    assert_int_equal(b->measure(b, &q, &r), 0);
    assert_int_equal(r.status, CAND_NOT_IN_DATASET);
    assert_non_null(strstr(r.reason, "not in the dataset (4 configurations"));
    assert_string_equal(cand_status_name(CAND_NOT_IN_DATASET), "not_in_dataset");
    assert_int_equal(cand_status_parse("not_in_dataset"), CAND_NOT_IN_DATASET);
    /* another shape: unusable, nothing replayed */
    q = req(&c_ok, 1, 6);
    q.shape.m = 2048;
    assert_int_equal(b->measure(b, &q, &r), 0);
    assert_int_equal(r.status, CAND_UNUSABLE);
    assert_non_null(strstr(r.reason, "holds f16 1024x1024x4096, not f16 2048x1024x4096"));
    /* the stand-in profile: the simulated category of the config */
    struct profile_out p;
    struct sim_point sp;
    q = req(&c_ok, 1, 7);
    q.tag = "profile";
    assert_int_equal(b->profile(b, &q, &p), 0);
    sim_model(&c_ok, &shape, &sp);
    assert_true(p.r.ok);
    assert_int_equal(p.r.category, sp.bottleneck);
    struct backend_health h;
    assert_int_equal(b->health(b, &q, &h), 0);
    assert_int_equal(h.state, HEALTH_OK);
    backend_close(b);
}

static void test_open_errors(void **state)
{
    char err[512];
    struct backend_opts o = {.name = "replay"};
    assert_null(backend_open(&o, err, sizeof err));
    assert_non_null(strstr(err, "needs a dataset"));
    o.dataset = "/nonexistent/d.jsonl";
    assert_null(backend_open(&o, err, sizeof err));
    assert_non_null(strstr(err, "cannot read dataset '/nonexistent/d.jsonl'"));
    /* a dataset without the baseline: refused, saying so */
    char nobase[160];
    struct ds_record r;
    snprintf(nobase, sizeof nobase, "%s/nobase.jsonl", dir);
    rec_of(&r, &c_ok, "ok", "");
    r.n_trials = 1, r.trial_ms[0] = r.median_ms = 0.12, r.tflops = 100;
    assert_int_equal(dataset_append(nobase, &r, CROQ_DTYPE_F16, &shape, NULL, err, sizeof err), 0);
    o.dataset = nobase;
    assert_null(backend_open(&o, err, sizeof err));
    assert_non_null(strstr(err, "cannot be replayed: it does not hold the baseline configuration measured ok (dtype=f16,kernel=0,"));
    assert_true(backend_name_known("replay") && backend_name_known("sim") && !backend_name_known("cpu"));
}

/* A dataset is refused whole, naming why, when one ok record has a time that is not positive
 * (it would replay as an impossibly fast kernel) or the file holds a NUL byte (the text scan
 * would stop there and drop the later records without a word). */
static void test_bad_datasets(void **state)
{
    char err[512], bad[160], line[4096];
    struct ds_record r;
    struct dataset ds;
    rec_of(&r, &c_out, "ok", "");
    r.n_trials = 1, r.trial_ms[0] = -0.001, r.median_ms = -0.001, r.tflops = 3.0;
    snprintf(bad, sizeof bad, "%s/neg.jsonl", dir);
    assert_int_equal(dataset_append(bad, &r, CROQ_DTYPE_F16, &shape, NULL, err, sizeof err), 0);
    assert_int_equal(dataset_load(bad, false, &ds, err, sizeof err), -1);
    assert_non_null(strstr(err, "neg.jsonl:1: an ok record with a time or TFLOPS that is not a positive number"));

    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    size_t n = fread(line, 1, sizeof line, in);
    fclose(in);
    assert_true(n > 10 && n < sizeof line);
    char *nl = memchr(line, '\n', n);
    assert_non_null(nl);
    nl[1] = '\0'; /* the first byte of the second record */
    snprintf(bad, sizeof bad, "%s/nul.jsonl", dir);
    FILE *out = fopen(bad, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(line, 1, n, out), n);
    fclose(out);
    assert_int_equal(dataset_load(bad, false, &ds, err, sizeof err), -1);
    assert_non_null(strstr(err, "holds a NUL byte at offset"));
    (void)state;
}

/* A dataset measured before a late knob existed (knobs.h KNOB_FIRST_LATE: schedule): its
 * records do not name it and read as its default (what they measured), so the replay
 * serves them under the new table, and the knob at another value is not in the dataset.
 * A record without a knob of the original table is still refused. */
static void test_record_without_a_knob(void **state)
{
    char err[512], old[160], line[4096];
    struct dataset ds;
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    assert_non_null(fgets(line, sizeof line, in)); /* c_ok's record */
    fclose(in);
    assert_null(strstr(line, "schedule=")); /* the default is left out, as before the knob */
    assert_int_equal(dataset_load(path, false, &ds, err, sizeof err), 0);
    assert_non_null(dataset_find(&ds, &c_ok));
    struct croq_config other = c_ok;
    other.v[KNOB_FIRST_LATE] = croq_knobs[KNOB_FIRST_LATE].values[0] == c_ok.v[KNOB_FIRST_LATE]
                                   ? croq_knobs[KNOB_FIRST_LATE].values[1]
                                   : croq_knobs[KNOB_FIRST_LATE].values[0];
    assert_null(dataset_find(&ds, &other));
    dataset_release(&ds);
    char *at = strstr(line, ",split_k=1");
    assert_non_null(at);
    memmove(at, at + strlen(",split_k=1"), strlen(at + strlen(",split_k=1")) + 1);
    snprintf(old, sizeof old, "%s/old.jsonl", dir);
    assert_int_equal(atomic_write_str(old, line), 0);
    assert_int_equal(dataset_load(old, false, &ds, err, sizeof err), -1);
    assert_non_null(strstr(err, "missing knob 'split_k'"));
    (void)state;
}

/* The dataset compressed with gzip (as bench/explore's wide datasets are committed) reads
 * as the same records, marked compressed; a gzip file cut short is refused, naming it. */
static void test_gzip_dataset(void **state)
{
    char err[512], gzpath[160], text[16384];
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    size_t n = fread(text, 1, sizeof text, in);
    fclose(in);
    assert_true(n > 100 && n < sizeof text);
    snprintf(gzpath, sizeof gzpath, "%s/d.jsonl.gz", dir);
    gzFile gz = gzopen(gzpath, "wb9");
    assert_non_null(gz);
    assert_int_equal(gzwrite(gz, text, (unsigned)n), (int)n);
    assert_int_equal(gzclose(gz), Z_OK);
    struct dataset plain, packed;
    assert_int_equal(dataset_load(path, false, &plain, err, sizeof err), 0);
    assert_int_equal(dataset_load(gzpath, false, &packed, err, sizeof err), 0);
    assert_false(plain.compressed);
    assert_true(packed.compressed);
    assert_int_equal(packed.n, plain.n);
    assert_true(plain.n >= 4);
    assert_int_equal(packed.valid_bytes, n);
    for (int i = 0; i < plain.n; i++) {
        assert_string_equal(packed.r[i].sig, plain.r[i].sig);
        assert_string_equal(packed.r[i].status, plain.r[i].status);
        assert_memory_equal(&packed.r[i].tflops, &plain.r[i].tflops, sizeof(double));
    }
    dataset_release(&plain);
    dataset_release(&packed);
    /* cut: the first half of the gzip file */
    size_t glen;
    char *bytes = read_file(gzpath, &glen);
    assert_non_null(bytes);
    assert_int_equal(atomic_write(gzpath, bytes, glen / 2), 0);
    free(bytes);
    assert_int_equal(dataset_load(gzpath, false, &packed, err, sizeof err), -1);
    assert_non_null(strstr(err, "d.jsonl.gz: gzip: cut short"));
    (void)state;
}

/* Two bimodal records whose every state has the same ratio (the incumbent 1.02x slower,
 * fast 0.100 / 0.102 ms, slow 0.120 / 0.1224): a pair drawn in one state has ratio 1.02,
 * a mixed one 0.85 or 1.224. replay.c shares the state in 0.6 of the draws, so a pair is
 * in one state with probability 0.6 + 0.4 / 2 = 0.8 (independent draws: 0.5). */
static void test_shared_state(void **state)
{
    char err[256], p2[160];
    snprintf(p2, sizeof p2, "%s/bimodal.jsonl", dir);
    struct croq_config a = c_ok, inc = c_ok, base;
    a.v[KNOB_GROUP] = 2;
    inc.v[KNOB_GROUP] = 4;
    knobs_baseline(&base, CROQ_DTYPE_F16);
    const struct croq_config *cfgs[3] = {&a, &inc, &base};
    const double fast[3] = {0.100, 0.102, 0.5}, slow[3] = {0.120, 0.1224, 0.5};
    for (int c = 0; c < 3; c++) {
        struct ds_record r;
        rec_of(&r, cfgs[c], "ok", "");
        r.n_trials = 10;
        for (int i = 0; i < 10; i++) /* two layouts: a rank is not a recorded position */
            r.trial_ms[i] = (c == 1 ? i >= 5 : i % 2) ? slow[c] : fast[c];
        r.max_err_over_tol = 0.25;
        r.median_ms = (fast[c] + slow[c]) / 2, r.tflops = 2.0 * 1024 * 1024 * 4096 / (r.median_ms * 1e-3) / 1e12;
        assert_int_equal(dataset_append(p2, &r, CROQ_DTYPE_F16, &shape, NULL, err, sizeof err), 0);
    }
    struct backend_opts o = {.name = "replay", .dataset = p2};
    struct backend *b = backend_open(&o, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    /* DECIDE's pairs: the interval [r_(2), r_(9)] of 10 pairs is the point 1.02 when at most
     * one pair is mixed either way, P = 0.527 here, 0.033 with independent draws */
    int point = 0;
    for (int s = 0; s < 100; s++) {
        struct cand_req q = req(&a, (unsigned long long)s + 1, 7);
        q.incumbent_cfg = &inc;
        struct cand_result r;
        assert_int_equal(b->measure(b, &q, &r), 0);
        if (r.status != CAND_OK)
            fail_msg("%s", r.reason);
        assert_true(r.ratio_lo >= 0.85 - 1e-9 && r.ratio_hi <= 1.224 + 1e-9);
        point += fabs(r.ratio_lo - 1.02) < 1e-9 && fabs(r.ratio_hi - 1.02) < 1e-9;
    }
    assert_in_range(point, 35, 80);
    /* the final ladder: any two entries of a round share its state as a pair does, so
     * both are in one state in ~0.8 of 400 rounds */
    int same = 0, rounds = 0;
    for (int s = 0; s < 20; s++) {
        struct ladder_req q = {.dir = dir, .key = "f16_1024x1024x4096_fs", .shape = shape, .seed = (unsigned long long)s,
                               .tag = "shared", .n = 2, .rounds = 20};
        q.e[0] = (struct ladder_entry_req){.iter = 1, .cfg = &a, .src_rel = "k.cu"};
        q.e[1] = (struct ladder_entry_req){.iter = 2, .cfg = &inc, .src_rel = "k.cu"};
        struct ladder_result l;
        assert_int_equal(b->ladder(b, &q, &l), 0);
        assert_int_equal(l.status, CAND_OK);
        assert_int_equal(l.e[0].trials, 20);
        assert_int_equal(l.e[1].trials, 20);
        for (int t = 0; t < 20; t++, rounds++)
            same += (l.e[0].trial_ms[t] < 0.11) == (l.e[1].trial_ms[t] < 0.11);
    }
    assert_in_range(same, 280, 360);
    backend_close(b);
    (void)state;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ok_draws),
        cmocka_unit_test(test_failures_and_outside),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_bad_datasets),
        cmocka_unit_test(test_record_without_a_knob),
        cmocka_unit_test(test_gzip_dataset),
        cmocka_unit_test(test_shared_state),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
