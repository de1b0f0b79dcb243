/* tests/unit/test_vendor.c — perf/<key>/vendor.json through its owner (artifacts/vendor.h):
 * a record written and read back is the same record (interleaved with ours, blocks without);
 * the lenient reader reports each bad member and leaves it out, refuses a file of another
 * shape or protocol, and says nothing of an absent file. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifacts/vendor.h"

struct problems {
    int n;
    char last[512];
};

static void collect(void *ctx, int line, const char *text)
{
    struct problems *p = ctx;
    p->n++;
    snprintf(p->last, sizeof p->last, "%d: %s", line, text);
}

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/croq-vendor.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void path_of(const struct vendor_record *r, char *path, size_t len)
{
    char key[64], d[4096];
    assert_int_equal(
        vendor_record_paths(dir, r->dtype, &r->shape, r->from_scratch, key, sizeof key, d, sizeof d, path, len), 0);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct vendor_record w = {.dtype = CROQ_DTYPE_F16, .shape = {4096, 8192, 8192},
                              .tflops = {908.9, 901.4, NAN}, .sm_clock_mhz = 1433, .timestamp = "2026-12-02T16:07:12Z",
                              .gpu = "NVIDIA H200", .timing = VENDOR_TIMING_INTERLEAVED, .rounds = 10,
                              .has_ours = true, .ours_tflops = 746.2, .ours_config = "dtype=f16,kernel=1",
                              .paired = {{0.817, 0.794, 0.827, 10}, {0.820, 0.811, 0.849, 10}, {0}}};
    char err[512], path[4200];
    struct vendor_record r;
    struct problems pr = {0};
    assert_int_equal(vendor_record_write(dir, &w, err, sizeof err), 0);
    path_of(&w, path, sizeof path);
    assert_int_equal(vendor_record_read(path, CROQ_DTYPE_F16, &w.shape, 1979, &r, collect, &pr), 0);
    assert_int_equal(pr.n, 0);
    assert_true(fabs(r.tflops[VENDOR_SLT_DEFAULT] - 908.9) < 1e-9 && fabs(r.tflops[VENDOR_SLT_SEARCH] - 901.4) < 1e-9);
    assert_true(isnan(r.tflops[VENDOR_CUBLAS])); /* not verified: null, and NAN again */
    assert_true(r.timing == VENDOR_TIMING_INTERLEAVED && r.rounds == 10 && r.has_ours && !r.cold_l2);
    assert_true(fabs(r.ours_tflops - 746.2) < 1e-9 && fabs(r.sm_clock_mhz - 1433) < 1e-9);
    assert_string_equal(r.ours_config, "dtype=f16,kernel=1");
    assert_string_equal(r.timestamp, "2026-12-02T16:07:12Z");
    assert_string_equal(r.gpu, "NVIDIA H200");
    assert_true(r.paired[VENDOR_SLT_DEFAULT].rounds == 10 && fabs(r.paired[VENDOR_SLT_DEFAULT].median - 0.817) < 1e-9);
    assert_true(fabs(r.paired[VENDOR_SLT_SEARCH].hi - 0.849) < 1e-9 && r.paired[VENDOR_CUBLAS].rounds == 0);

    /* blocks, --no-ours, cold L2: no rounds, no ours, no paired */
    struct vendor_record b = {.dtype = CROQ_DTYPE_E4M3, .shape = {768, 768, 768}, .tflops = {74.0, 74.3, 85.2},
                              .sm_clock_mhz = NAN, .cold_l2 = true, .timing = VENDOR_TIMING_BLOCKS};
    assert_int_equal(vendor_record_write(dir, &b, err, sizeof err), 0);
    path_of(&b, path, sizeof path);
    assert_int_equal(vendor_record_read(path, CROQ_DTYPE_E4M3, &b.shape, 3958, &r, collect, &pr), 0);
    assert_int_equal(pr.n, 0);
    assert_true(r.timing == VENDOR_TIMING_BLOCKS && r.rounds == 0 && !r.has_ours && r.cold_l2);
    assert_true(isnan(r.sm_clock_mhz) && isnan(r.ours_tflops) && r.timestamp[0]); /* stamped when written */
    assert_true(fabs(r.tflops[VENDOR_CUBLAS] - 85.2) < 1e-9);
}

/* The compares of a shape's two runs (from scratch and from the best) are two records: the
 * second never replaces the first (session 14's reference shape lost its from-scratch one). */
static void test_two_runs(void **state)
{
    (void)state;
    struct vendor_record fs = {.dtype = CROQ_DTYPE_F16, .shape = {4096, 8192, 8192}, .tflops = {885.2, 886.3, 637.8},
                               .sm_clock_mhz = 1395, .timing = VENDOR_TIMING_INTERLEAVED, .rounds = 10,
                               .has_ours = true, .ours_tflops = 930.0, .ours_config = "dtype=f16,kernel=1,group=8",
                               .from_scratch = true};
    struct vendor_record fb = fs;
    fb.from_scratch = false, fb.tflops[VENDOR_SLT_SEARCH] = 982.4, fb.ours_tflops = 911.3;
    snprintf(fb.ours_config, sizeof fb.ours_config, "dtype=f16,kernel=1,group=16");
    char err[512], pfs[4200], pfb[4200], key[64], d[4096];
    struct vendor_record r;
    struct problems pr = {0};
    assert_int_equal(vendor_record_write(dir, &fs, err, sizeof err), 0);
    assert_int_equal(vendor_record_write(dir, &fb, err, sizeof err), 0);
    assert_int_equal(vendor_record_paths(dir, fs.dtype, &fs.shape, true, key, sizeof key, d, sizeof d, pfs, sizeof pfs),
                     0);
    assert_string_equal(key, "f16_4096x8192x8192_fs");
    assert_int_equal(vendor_record_paths(dir, fb.dtype, &fb.shape, false, key, sizeof key, d, sizeof d, pfb, sizeof pfb), 0);
    assert_string_equal(key, "f16_4096x8192x8192");
    assert_int_equal(vendor_record_read(pfs, CROQ_DTYPE_F16, &fs.shape, 1979, &r, collect, &pr), 0);
    assert_true(fabs(r.tflops[VENDOR_SLT_SEARCH] - 886.3) < 1e-9 && fabs(r.ours_tflops - 930.0) < 1e-9);
    assert_string_equal(r.ours_config, "dtype=f16,kernel=1,group=8");
    assert_int_equal(vendor_record_read(pfb, CROQ_DTYPE_F16, &fb.shape, 1979, &r, collect, &pr), 0);
    assert_true(fabs(r.tflops[VENDOR_SLT_SEARCH] - 982.4) < 1e-9 && fabs(r.ours_tflops - 911.3) < 1e-9);
    assert_int_equal(pr.n, 0);
    /* the from-scratch record copied over the shape's: its key is not its directory's */
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", pfs, pfb);
    assert_int_equal(system(cmd), 0);
    assert_int_not_equal(vendor_record_read(pfb, CROQ_DTYPE_F16, &fb.shape, 1979, &r, collect, &pr), 0);
    assert_int_equal(pr.n, 1);
    assert_non_null(strstr(pr.last, "the record of another run: its 'key' is not its directory's"));
}

static void test_lenient(void **state)
{
    (void)state;
    struct croq_shape s = {1024, 1024, 1024};
    char path[256];
    struct vendor_record r;
    struct problems pr = {0};
    snprintf(path, sizeof path, "%s/v.json", dir);

    /* absent: -1, ENOENT, nothing said */
    errno = 0;
    assert_int_equal(vendor_record_read(path, CROQ_DTYPE_F16, &s, 1979, &r, collect, &pr), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(pr.n, 0);

    /* bad members: each said and left out, the rest used */
    write_text(path, "{\"dtype\": \"f16\", \"M\": 1024, \"cublas_tflops\": \"fast\", \"cusparselt_default_tflops\": -3,"
                     " \"cusparselt_search_tflops\": 99999, \"ours_tflops\": 500, \"ours_config\": \"x\","
                     " \"protocol\": \"interleaved\", \"rounds\": 0,"
                     " \"paired\": {\"ours_over_cublas\": {\"median\": 2, \"lo\": 3, \"hi\": 4}}}");
    assert_int_equal(vendor_record_read(path, CROQ_DTYPE_F16, &s, 1979, &r, collect, &pr), 0);
    assert_int_equal(pr.n, 5);
    for (int i = 0; i < VENDOR_SUBJECTS; i++)
        assert_true(isnan(r.tflops[i]));
    assert_true(fabs(r.ours_tflops - 500) < 1e-9 && r.rounds == 0 && r.paired[VENDOR_CUBLAS].rounds == 0);

    /* another shape, another protocol, not an object, not JSON: the file is not used */
    const char *bad[] = {"{\"dtype\": \"e4m3\", \"cublas_tflops\": 1}", "{\"K\": 2048, \"cublas_tflops\": 1}",
                         "{\"protocol\": \"sequential\", \"cublas_tflops\": 1}", "[1, 2]", "{\"cublas_tflops\":\n"};
    const char *said[] = {"another shape", "another shape", "'protocol'", "not a JSON object", "2: "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pr.n = 0;
        write_text(path, bad[i]);
        assert_int_equal(vendor_record_read(path, CROQ_DTYPE_F16, &s, 1979, &r, collect, &pr), -1);
        assert_int_equal(pr.n, 1);
        assert_non_null(strstr(pr.last, said[i]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lenient, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
