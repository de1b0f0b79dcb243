/* tests/unit/test_croqsparse.c — libcroqsparse without a GPU: argument and shape checks,
 * sizes, host prune/compress/validate, the pack format and the kernel choice, the default
 * pack built into the library, the driver loader (src/launch/driver.h). The library loads
 * libcuda.so.1 at run time; the test runs with the toolkit's stub under that name
 * (cmake/croqsparse.cmake), so creating a handle must fail with NO_DEVICE. */
#define _GNU_SOURCE /* memmem */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "croqsparse.h"
#include "../../lib/internal.h" /* cs_pack_trust, cs_handle_note */
#include "costmodel/costmodel.h"
#include "format/numeric.h"
#include "launch/driver.h"
#include "pack/pack.h"
#include "util/atomicio.h"
#include "util/hash.h"

extern const unsigned char croqsparse_default_pack[];
extern const size_t croqsparse_default_pack_size;

static void test_status_strings(void **state)
{
    (void)state;
    assert_string_equal(croqsparse_status_string(CROQSPARSE_STATUS_SUCCESS), "success");
    assert_string_equal(croqsparse_status_string(CROQSPARSE_STATUS_NOT_SPARSE), "input is not 2:4 sparse");
    assert_string_equal(croqsparse_status_string((croqsparse_status_t)99), "unknown status");
    for (int s = 0; s <= CROQSPARSE_STATUS_NAN; s++)
        assert_string_not_equal(croqsparse_status_string((croqsparse_status_t)s), "unknown status");
}

static void test_sizes(void **state)
{
    (void)state;
    assert_int_equal(croqsparse_values_bytes(CROQSPARSE_F16, 100, 128), 100 * 64 * 2);
    assert_int_equal(croqsparse_values_bytes(CROQSPARSE_E4M3, 100, 128), 100 * 64);
    /* ceil(100/64) = 2 blocks + 3 pad blocks, K/64 = 2 chunks, 128 words of 4 B */
    assert_int_equal(croqsparse_meta_bytes(100, 128), 5 * 2 * 128 * 4);
    assert_int_equal(croqsparse_meta_bytes(100, 100), 0);
    assert_int_equal(croqsparse_values_bytes((croqsparse_dtype_t)7, 64, 64), 0);
}

static void test_no_device(void **state)
{
    (void)state;
    croqsparse_handle_t h = (croqsparse_handle_t)1;
    assert_int_equal(croqsparse_create(NULL, 0), CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_create(&h, 0), CROQSPARSE_STATUS_NO_DEVICE);
    assert_null(h);
    assert_non_null(strstr(croqsparse_last_error(), "croqsparse_create: cuInit(0): CUresult 34 (CUDA_ERROR_STUB_LIBRARY"));
    assert_int_equal(croqsparse_destroy(NULL), CROQSPARSE_STATUS_SUCCESS);
}

/* The driver loader (issue 24 item 10): a missing library and a library without the
 * entries fail with a message naming them and leave no table; the stub (on
 * LD_LIBRARY_PATH as libcuda.so.1) gives every entry, each the very symbol cuda.h names,
 * and the process's table is that one. */
static void test_driver_loader(void **state)
{
    (void)state;
    struct kl_driver d;
    char err[512];
    memset(&d, 0xff, sizeof d);
    assert_int_equal(kl_driver_open("libcroq-no-such-driver.so.1", &d, err, sizeof err), -1);
    assert_string_equal(err, "cannot load the CUDA driver: libcroq-no-such-driver.so.1: cannot open shared object "
                             "file: No such file or directory (no NVIDIA driver installed, or not on the loader's path)");
    assert_null(d.cuInit);
    assert_int_equal(kl_driver_open("libm.so.6", &d, err, sizeof err), -1);
    assert_string_equal(err, "cannot load the CUDA driver: libm.so.6 has no cuInit (a driver older than CUDA 12.0?)");
    assert_null(d.cuInit);

    assert_int_equal(kl_driver_open(KL_DRIVER_SONAME, &d, err, sizeof err), 0);
    void *lib = dlopen(KL_DRIVER_SONAME, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(lib);
    /* cuda.h's versioned names: the entry a direct link would bind, not the old ABI's */
    assert_ptr_equal((void *)d.cuMemAlloc, dlsym(lib, "cuMemAlloc_v2"));
    assert_ptr_not_equal((void *)d.cuMemAlloc, dlsym(lib, "cuMemAlloc"));
    assert_ptr_equal((void *)d.cuCtxPushCurrent, dlsym(lib, "cuCtxPushCurrent_v2"));
    assert_ptr_equal((void *)d.cuTensorMapEncodeTiled, dlsym(lib, "cuTensorMapEncodeTiled"));
    assert_int_equal(d.cuInit(0), CUDA_ERROR_STUB_LIBRARY);
    dlclose(lib);

    const struct kl_driver *k = kl_driver();
    assert_non_null(k);
    assert_string_equal(kl_driver_error(), "");
    assert_ptr_equal((void *)k->cuInit, (void *)d.cuInit);
    assert_ptr_equal(kl_driver(), k); /* loaded once */
}

/* Arguments are checked in the header's one order (issue 24, item 11): NULL pointers,
 * then values (an enum, alpha, a dimension below 1: INVALID_VALUE), then the shape rules
 * (NOT_SUPPORTED). A fake handle is safe here: every call returns before using it. */
static void test_plan_checks(void **state)
{
    (void)state;
    croqsparse_plan_t p = (croqsparse_plan_t)1;
    croqsparse_handle_t fake = (croqsparse_handle_t)16;
    assert_int_equal(croqsparse_plan_create(NULL, NULL, CROQSPARSE_F16, 128, 128, 128, 0, 1.0f),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    /* a NULL handle is INVALID_VALUE whatever the shape */
    const long bad[][3] = {{128, 128, 100}, {128, 12, 128}, {0, 128, 128}, {-1, 128, 128}, {1L << 21, 128, 128},
                           {128, 128, 128}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        p = (croqsparse_plan_t)1;
        assert_int_equal(croqsparse_plan_create(NULL, &p, CROQSPARSE_F16, bad[i][0], bad[i][1], bad[i][2], 0, 1.0f),
                         CROQSPARSE_STATUS_INVALID_VALUE);
        assert_null(p);
        assert_string_equal(croqsparse_last_error(), "croqsparse_plan_create: handle is NULL");
    }
    assert_int_equal(croqsparse_plan_create(NULL, &p, CROQSPARSE_F16, 128, 128, 100, 7, NAN),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_string_equal(croqsparse_last_error(), "croqsparse_plan_create: handle is NULL");
    /* with a handle: the shape rules are NOT_SUPPORTED */
    assert_int_equal(croqsparse_plan_create(fake, &p, CROQSPARSE_F16, 128, 128, 100, 0, 1.0f),
                     CROQSPARSE_STATUS_NOT_SUPPORTED);
    assert_null(p);
    assert_non_null(strstr(croqsparse_last_error(), "K=100: K must be a multiple of 64"));
    assert_int_equal(croqsparse_plan_create(fake, &p, CROQSPARSE_F16, 128, 12, 128, 0, 1.0f),
                     CROQSPARSE_STATUS_NOT_SUPPORTED);
    assert_non_null(strstr(croqsparse_last_error(), "N=12"));
    assert_int_equal(croqsparse_plan_create(fake, &p, CROQSPARSE_F16, 1L << 21, 128, 128, 0, 1.0f),
                     CROQSPARSE_STATUS_NOT_SUPPORTED);
    assert_int_equal(croqsparse_plan_create(fake, &p, CROQSPARSE_F16, 128, 128, 128,
                                            CROQSPARSE_EPILOGUE_ALPHA_SCALES, 1.0f),
                     CROQSPARSE_STATUS_NOT_SUPPORTED);
    assert_non_null(strstr(croqsparse_last_error(), "e4m3"));
    /* a dimension below 1 is an out-of-range value (the header's INVALID_VALUE), M = -1 too */
    assert_int_equal(croqsparse_plan_create(fake, &p, CROQSPARSE_F16, -1, 128, 128, 0, 1.0f),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_string_equal(croqsparse_last_error(),
                        "croqsparse_plan_create: M=-1 N=128 K=128: every dimension must be at least 1");
    assert_int_equal(croqsparse_plan_create(fake, &p, CROQSPARSE_F16, 0, 128, 128, 0, 1.0f),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_plan_create(fake, &p, CROQSPARSE_F16, 128, -8, 128, 0, 1.0f),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    /* values before shape rules: a bad alpha or epilogue with a bad K is INVALID_VALUE */
    assert_int_equal(croqsparse_plan_create(fake, &p, CROQSPARSE_E4M3, 128, 128, 100, 0, NAN),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_non_null(strstr(croqsparse_last_error(), "alpha must be finite"));
    assert_int_equal(croqsparse_plan_create(fake, &p, CROQSPARSE_E4M3, 128, 128, 100, 5, 1.0f),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_plan_create(fake, &p, (croqsparse_dtype_t)7, 128, 128, 100, 0, 1.0f),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_matmul(NULL, (void *)16, (void *)16, (void *)16, (void *)16, NULL, NULL, NULL),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_prune(NULL, CROQSPARSE_F16, 4, 4, (void *)16, (void *)16, NULL),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_prune(NULL, CROQSPARSE_F16, -1, 3, (void *)16, (void *)16, NULL),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_compress(NULL, CROQSPARSE_F16, 4, 64, (void *)16, (void *)16, (void *)16, NULL),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_prune(fake, CROQSPARSE_F16, -1, 4, (void *)16, (void *)16, NULL),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_compress(fake, CROQSPARSE_F16, 4, 96, (void *)16, (void *)16, (void *)16, NULL),
                     CROQSPARSE_STATUS_NOT_SUPPORTED);
    /* the host functions: NULL first, then values, then the rules */
    assert_int_equal(croqsparse_prune_host(CROQSPARSE_F16, -1, 3, NULL, NULL), CROQSPARSE_STATUS_INVALID_VALUE);
    assert_string_equal(croqsparse_last_error(), "croqsparse_prune_host: dense or out is NULL");
    uint16_t buf[64] = {0};
    assert_int_equal(croqsparse_prune_host(CROQSPARSE_F16, -1, 4, buf, buf), CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_prune_host(CROQSPARSE_F16, 1, 6, buf, buf), CROQSPARSE_STATUS_NOT_SUPPORTED);
    assert_int_equal(croqsparse_validate_host(CROQSPARSE_F16, 0, 4, buf, NULL, NULL), CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_compress_host(CROQSPARSE_F16, 1, -64, buf, buf, buf), CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_compress_host(CROQSPARSE_F16, 1, 64, buf, NULL, buf), CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_plan_describe(NULL, NULL), CROQSPARSE_STATUS_INVALID_VALUE);
    assert_int_equal(croqsparse_plan_destroy(NULL), CROQSPARSE_STATUS_SUCCESS);
}

/* A NaN has no magnitude to rank: prune_host reports it as its own status, naming the
 * group, and writes nothing; the run-time version is the header's. */
static void test_nan_and_version(void **state)
{
    (void)state;
    uint16_t a[2 * 8], out[2 * 8];
    for (int i = 0; i < 16; i++)
        a[i] = numeric_f32_to_f16((float)(i + 1));
    a[8 + 5] = 0x7e00; /* row 1, group 1: a NaN */
    memset(out, 0xab, sizeof out);
    assert_int_equal(croqsparse_prune_host(CROQSPARSE_F16, 2, 8, a, out), CROQSPARSE_STATUS_NAN);
    assert_non_null(strstr(croqsparse_last_error(), "croqsparse_prune_host: "));
    assert_non_null(strstr(croqsparse_last_error(), "hold a NaN"));
    assert_non_null(strstr(croqsparse_last_error(), "row 1"));
    assert_int_equal(out[0], 0xabab); /* nothing written */
    assert_string_equal(croqsparse_status_string(CROQSPARSE_STATUS_NAN), "input holds a NaN");
    assert_int_equal(croqsparse_version(), CROQSPARSE_VERSION);
    assert_int_equal(CROQSPARSE_VERSION, 1005);
}

/* f16 [M][K] with entries (r, c) = r + c + 1 (all non-zero, magnitude rising along K). */
static uint16_t *dense_f16(long m, long k)
{
    uint16_t *a = malloc((size_t)m * k * 2);
    for (long i = 0; i < m * k; i++)
        a[i] = numeric_f32_to_f16((float)((i / k + i % k) % 50 + 1));
    return a;
}

static void test_host_format(void **state)
{
    (void)state;
    const long m = 70, k = 128;
    uint16_t *a = dense_f16(m, k), *p = malloc((size_t)m * k * 2);
    long row = -1, group = -1;
    assert_int_equal(croqsparse_validate_host(CROQSPARSE_F16, m, k, a, &row, &group), CROQSPARSE_STATUS_NOT_SPARSE);
    assert_int_equal(row, 0);
    assert_int_equal(group, 0);
    assert_int_equal(croqsparse_prune_host(CROQSPARSE_F16, m, k, a, p), CROQSPARSE_STATUS_SUCCESS);
    /* row 0, group 0 = 1 2 3 4: the two largest (3, 4) stay */
    assert_int_equal(p[0], 0);
    assert_int_equal(p[1], 0);
    assert_int_equal(p[2], numeric_f32_to_f16(3.0f));
    assert_int_equal(p[3], numeric_f32_to_f16(4.0f));
    assert_int_equal(croqsparse_validate_host(CROQSPARSE_F16, m, k, p, &row, &group), CROQSPARSE_STATUS_SUCCESS);
    p[3 * k + 4 * 5] = numeric_f32_to_f16(-7.0f); /* row 3, group 5 now holds 3 non-zeros */
    assert_int_equal(croqsparse_validate_host(CROQSPARSE_F16, m, k, p, &row, &group), CROQSPARSE_STATUS_NOT_SPARSE);
    assert_int_equal(row, 3);
    assert_int_equal(group, 5);
    assert_non_null(strstr(croqsparse_last_error(), "row 3, group 5 (K 20..23)"));
    void *values = malloc(croqsparse_values_bytes(CROQSPARSE_F16, m, k));
    uint32_t *meta = malloc(croqsparse_meta_bytes(m, k));
    assert_int_equal(croqsparse_compress_host(CROQSPARSE_F16, m, k, p, values, meta), CROQSPARSE_STATUS_NOT_SPARSE);
    p[3 * k + 4 * 5] = 0;
    assert_int_equal(croqsparse_compress_host(CROQSPARSE_F16, m, k, p, values, meta), CROQSPARSE_STATUS_SUCCESS);
    assert_int_equal(((uint16_t *)values)[0], numeric_f32_to_f16(3.0f));
    /* the pad blocks past ceil(70/64) = 2 hold 0x44444444 */
    size_t words = croqsparse_meta_bytes(m, k) / 4;
    assert_int_equal(meta[words - 1], 0x44444444u);
    assert_int_equal(croqsparse_compress_host(CROQSPARSE_F16, m, 96, p, values, meta), CROQSPARSE_STATUS_NOT_SUPPORTED);
    free(a);
    free(p);
    free(values);
    free(meta);
}

static const unsigned char fake_cubin[] = "not a real cubin";

static struct pack_entry entry(int dtype, long m, long n, long k, double tflops, bool fb, const char *key,
                               const char *sets)
{
    struct pack_entry e = {.dtype = dtype, .m = m, .n = n, .k = k, .tflops = tflops, .fallback = fb,
                           .cubin = fake_cubin, .cubin_bytes = sizeof fake_cubin};
    struct croq_config cfg;
    char err[256];
    knobs_default(&cfg, dtype);
    assert_int_equal(knobs_set_list(&cfg, sets, err, sizeof err), 0);
    knobs_signature(&cfg, e.config);
    snprintf(e.key, sizeof e.key, "%s", key);
    snprintf(e.hash, sizeof e.hash, "0123456789abcdef");
    snprintf(e.tuned_hash, sizeof e.tuned_hash, "%s", fb ? "-" : "fedcba9876543210");
    if (!fb) {
        e.measured = PACK_MEASURED_PAIR;
        e.l2 = PACK_L2_WARM;
    }
    return e;
}

static void test_pack_choose(void **state)
{
    (void)state;
    struct pack_entry e[] = {
        entry(CROQ_DTYPE_F16, 1024, 1024, 4096, 690, false, "f16_1024x1024x4096", "tile_n=64 tile_k=256 stages=3"),
        entry(CROQ_DTYPE_F16, 4096, 8192, 8192, 800, false, "f16_4096x8192x8192", "tile_n=128 tile_k=128 stages=3"),
        entry(CROQ_DTYPE_F16, 0, 0, 0, 0, true, "-", "tile_k=64 split_k=1"),
    };
    struct pack p = {.gpu = "NVIDIA H200", .cuda_major = 13, .n = 3, .e = e};
    enum pack_match match;
    char why[256];
    struct croq_shape exact = {1024, 1024, 4096}, near = {2048, 1024, 4096}, big = {8192, 8192, 8192};
    struct croq_shape k128 = {1024, 1024, 128}, k64 = {333, 1000, 64}, bad = {64, 12, 64};
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_F16, &exact, PACK_TRUST_HERE, &match, why, sizeof why), 0);
    assert_int_equal(match, PACK_EXACT);
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_F16, &near, PACK_TRUST_HERE, &match, why, sizeof why), 0);
    assert_int_equal(match, PACK_NEAREST);
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_F16, &big, PACK_TRUST_HERE, &match, why, sizeof why), 1);
    /* K = 128: the 1024 entry (tile_k 256) does not divide it, the 4096 one does */
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_F16, &k128, PACK_TRUST_HERE, &match, why, sizeof why), 1);
    assert_int_equal(match, PACK_NEAREST);
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_F16, &k64, PACK_TRUST_HERE, &match, why, sizeof why), 2);
    assert_int_equal(match, PACK_FALLBACK);
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_F16, &exact, PACK_TRUST_NONE, &match, why, sizeof why), 2);
    assert_int_equal(match, PACK_FALLBACK);
    /* tuned on another GPU: the kernel tuned at this shape still runs first, but as the
     * nearest (distance 0), never as an exact match */
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_F16, &exact, PACK_TRUST_ELSEWHERE, &match, why, sizeof why), 0);
    assert_int_equal(match, PACK_NEAREST);
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_F16, &big, PACK_TRUST_ELSEWHERE, &match, why, sizeof why), 1);
    assert_int_equal(match, PACK_NEAREST);
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_F16, &bad, PACK_TRUST_HERE, &match, why, sizeof why), -1);
    assert_non_null(strstr(why, "N=12"));
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_E4M3, &exact, PACK_TRUST_HERE, &match, why, sizeof why), -1);
    assert_non_null(strstr(why, "no e4m3 kernel"));
}

/* A fixture model: the prediction of each configuration by its tile_n and kernel. */
static double fixture_predict(const void *ctx, const struct croq_config *cfg, const struct croq_shape *s)
{
    (void)s;
    const double *by = ctx; /* [0] tile_k 256, [1] tile_n 128, [2] kernel 0, [3] the fallback */
    if (cfg->v[KNOB_TILE_K] == 256)
        return by[0];
    if (cfg->v[KNOB_KERNEL] == 0)
        return by[2];
    return cfg->v[KNOB_TILE_K] == 64 ? by[3] : by[1];
}

/* pack_rank of an f16 shape, its whole order asserted ("1 3 2": indices into p->e, best
 * first) with its match; pred NULL ranks without a model. */
static void expect_rank(const struct pack *p, const struct croq_shape *s, enum pack_trust trust, const double *pred,
                        enum pack_match want_match, const char *want)
{
    long out[16];
    enum pack_match match;
    char why[256], got[128] = "";
    long n = pack_rank(p, CROQ_DTYPE_F16, s, trust, pred ? fixture_predict : NULL, pred, out, 16, &match, why,
                       sizeof why);
    assert_true(n >= 1 && n <= 16);
    for (long i = 0; i < n; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%ld", i ? " " : "", out[i]);
    assert_string_equal(got, want);
    assert_int_equal(match, want_match);
}

/* Dispatch from a model (issue 26 item 1): for a shape not in the pack the valid entries
 * rank by the prediction, fallbacks included, and the best valid one runs; an entry the
 * knob rules refuse for the shape never does, however high its prediction; an exact
 * entry still comes first; without a model the order is the nearest shape's. */
static void test_pack_rank_model(void **state)
{
    (void)state;
    struct pack_entry e[] = {
        entry(CROQ_DTYPE_F16, 1024, 1024, 4096, 690, false, "f16_1024x1024x4096", "tile_n=64 tile_k=256 stages=3"),
        entry(CROQ_DTYPE_F16, 4096, 8192, 8192, 800, false, "f16_4096x8192x8192", "tile_n=128 tile_k=128 stages=3"),
        entry(CROQ_DTYPE_F16, 768, 768, 768, 132, false, "f16_768x768x768_fs",
              "kernel=0 tile_m=64 tile_n=64 tile_k=128 stages=2 consumers=1 persistent=0"),
        entry(CROQ_DTYPE_F16, 0, 0, 0, 0, true, "-", "tile_k=64 split_k=1"),
        entry(CROQ_DTYPE_E4M3, 2048, 1024, 128, 900, false, "e4m3_2048x1024x128", "tile_k=64"),
    };
    struct pack p = {.gpu = "NVIDIA H200", .cuda_major = 13, .n = 5, .e = e};
    struct croq_shape s = {2048, 1024, 128}, exact = {4096, 8192, 8192};
    long out[8];
    enum pack_match match;
    char why[256];
    /* entry 0 would be predicted fastest, but tile_k 256 does not divide K = 128; the
     * fallback is predicted above the 768 kernel */
    const double pred[] = {900, 500, 300, 400};
    expect_rank(&p, &s, PACK_TRUST_HERE, pred, PACK_MODEL, "1 3 2");
    /* without a model: the nearest shape (768^3 at distance 4.4, 4096x8192x8192 at 10), then the fallback */
    expect_rank(&p, &s, PACK_TRUST_HERE, NULL, PACK_NEAREST, "2 1 3");
    assert_int_equal(pack_choose(&p, CROQ_DTYPE_F16, &s, PACK_TRUST_HERE, &match, why, sizeof why), 2);
    /* an exact entry first, whatever the model says */
    const double fb_best[] = {900, 100, 300, 5000};
    expect_rank(&p, &exact, PACK_TRUST_HERE, fb_best, PACK_EXACT, "1 3 0 2");
    /* tuned on another GPU (the built-in pack on an H100): the entry tuned at this shape is
     * ranked by the model like every other, here last */
    expect_rank(&p, &exact, PACK_TRUST_ELSEWHERE, fb_best, PACK_MODEL, "3 0 2 1");
    /* no prediction (NaN, 0) for some: after the predicted ones, in the nearest order */
    const double partial[] = {NAN, NAN, 0, 50};
    expect_rank(&p, &s, PACK_TRUST_HERE, partial, PACK_MODEL, "3 2 1");
    /* a pack of another CUDA major: only the fallbacks; cap 1 writes one and counts all */
    out[1] = -7;
    assert_int_equal(pack_rank(&p, CROQ_DTYPE_F16, &s, PACK_TRUST_NONE, fixture_predict, pred, out, 1, &match, why,
                               sizeof why),
                     1);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], -7);
    assert_int_equal(match, PACK_MODEL);
    assert_int_equal(pack_rank(&p, CROQ_DTYPE_F16, &s, PACK_TRUST_HERE, fixture_predict, pred, out, 1, &match, why, sizeof why), 3);
    /* the shape rules first */
    struct croq_shape bad = {64, 12, 64};
    assert_int_equal(pack_rank(&p, CROQ_DTYPE_F16, &bad, PACK_TRUST_HERE, fixture_predict, pred, out, 8, &match, why, sizeof why),
                     -1);
    assert_non_null(strstr(why, "N=12"));
}

/* The search's finalists (cs_search_finalists): within CROQSPARSE_SEARCH_FINAL_WITHIN of
 * the fastest, at most CROQSPARSE_SEARCH_FINALISTS, fastest first, a tie to the higher
 * ranked (lower index: the plan's kernel first); untimed candidates (0) never. */
static void test_search_finalists(void **state)
{
    _Static_assert(CROQSPARSE_SEARCH_FINALISTS == 3 && CROQSPARSE_SEARCH_FINAL_WITHIN == 0.05, "the cases below");
    int out[CROQSPARSE_SEARCH_FINALISTS + 1] = {-1, -1, -1, -7};
    /* 100 fastest; 104.9 and 105 within 5 %, 105.1 not; 0 untimed */
    const double a[] = {105.0, 0, 100.0, 105.1, 104.9, 300};
    assert_int_equal(cs_search_finalists(a, 6, out), 3);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], 4);
    assert_int_equal(out[2], 0);
    assert_int_equal(out[3], -7); /* nothing past the limit */
    /* more than 3 within: the 3 fastest; equal times keep the ranking's order */
    const double b[] = {101, 100, 101, 100, 102};
    assert_int_equal(cs_search_finalists(b, 5, out), 3);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], 0);
    /* one within: no final; none timed: none */
    const double c[] = {200, 100, 0};
    assert_int_equal(cs_search_finalists(c, 3, out), 1);
    assert_int_equal(out[0], 1);
    const double d[] = {0, 0};
    assert_int_equal(cs_search_finalists(d, 2, out), 0);
    assert_int_equal(cs_search_finalists(d, 0, out), 0);
    (void)state;
}

/* A configuration registered as the best of several shapes is one kernel: the ranking
 * lists it once, at its best place (the exact entry when there is one), so a search's
 * places go to different kernels. */
static void test_pack_rank_one_per_config(void **state)
{
    (void)state;
    struct pack_entry e[] = {
        entry(CROQ_DTYPE_F16, 4096, 8192, 8192, 800, false, "f16_4096x8192x8192", "tile_n=128 tile_k=128 stages=3"),
        entry(CROQ_DTYPE_F16, 512, 8192, 8192, 850, false, "f16_512x8192x8192", "tile_n=128 tile_k=128 stages=3"),
        entry(CROQ_DTYPE_F16, 1024, 1024, 4096, 690, false, "f16_1024x1024x4096", "tile_n=64 tile_k=256 stages=3"),
        entry(CROQ_DTYPE_F16, 0, 0, 0, 0, true, "-", "tile_k=64 split_k=1"),
    };
    struct pack p = {.gpu = "NVIDIA H200", .cuda_major = 13, .n = 4, .e = e};
    struct croq_shape s = {2048, 4096, 4096}, at_second = {512, 8192, 8192};
    const double pred[] = {400, 500, 0, 300}; /* tile_k 256, tile_n 128, -, the fallback */
    /* by the model: the shared configuration once (the earlier entry of the tie), then the others */
    expect_rank(&p, &s, PACK_TRUST_HERE, pred, PACK_MODEL, "0 2 3");
    /* by distance (4096x8192x8192 and 1024x1024x4096 at 3, 512x8192x8192 at 4): the copy is left out */
    expect_rank(&p, &s, PACK_TRUST_HERE, NULL, PACK_NEAREST, "0 2 3");
    /* at the second entry's own shape it is the exact match, and the first is its copy */
    expect_rank(&p, &at_second, PACK_TRUST_HERE, pred, PACK_EXACT, "1 2 3");
}

/* Dispatch through the library's predictor (lib/model.c) with a real cost model in the
 * pack (issue 26 item 1): fitted on fixture rows where tile_n decides the speed, carried
 * by the pack (serialize, parse), parsed by the library; the shape's best valid kernel by
 * the model is the plan's pick, the one the model prefers but whose tile_k does not divide
 * K never is. A model section that does not parse leaves the pack usable without it. */
static void test_pack_model_dispatch(void **state)
{
    (void)state;
    static const int tile_n[] = {64, 128, 256};
    static const double speed[] = {900, 500, 250};
    static const struct croq_shape at[] = {{1024, 1024, 1024}, {4096, 4096, 4096}, {2048, 8192, 1024}};
    struct costmodel_sample rows[3 * 3 * 2];
    size_t n = 0;
    for (int sh = 0; sh < 3; sh++)
        for (int t = 0; t < 3; t++)
            for (int stages = 3; stages <= 4; stages++) {
                struct costmodel_sample *r = &rows[n++];
                char sets[64], err[256];
                knobs_default(&r->cfg, CROQ_DTYPE_F16);
                snprintf(sets, sizeof sets, "tile_n=%d stages=%d", tile_n[t], stages);
                assert_int_equal(knobs_set_list(&r->cfg, sets, err, sizeof err), 0);
                r->shape = at[sh];
                r->tflops = speed[t] * (1 + 0.01 * stages) * (1 + 0.1 * sh);
            }
    struct costmodel *m = calloc(1, sizeof *m);
    assert_int_equal(costmodel_fit_shapes(m, CROQ_DTYPE_F16, rows, n), 0);
    assert_true(m->n > 0);
    const struct costmodel *list[1] = {m};
    long len = costmodel_serialize(list, 1, NULL, 0);
    assert_true(len > 0);
    char *text = malloc((size_t)len + 1);
    costmodel_serialize(list, 1, text, (size_t)len + 1);
    struct pack_entry e[] = {
        entry(CROQ_DTYPE_F16, 1024, 1024, 4096, 690, false, "f16_1024x1024x4096", "tile_n=64 tile_k=256 stages=3"),
        entry(CROQ_DTYPE_F16, 4096, 8192, 8192, 800, false, "f16_4096x8192x8192", "tile_n=256 tile_k=64 stages=3"),
        entry(CROQ_DTYPE_F16, 16384, 16384, 16384, 600, false, "f16_16384x16384x16384", "tile_n=128 tile_k=128 stages=4"),
        entry(CROQ_DTYPE_F16, 0, 0, 0, 0, true, "-", "tile_k=64 split_k=1"),
    };
    struct pack p = {.gpu = "NVIDIA H200", .cuda_major = 13, .driver = "d", .n = 4, .e = e,
                     .model = (const unsigned char *)text, .model_bytes = (size_t)len},
                q;
    unsigned char *img;
    size_t ilen;
    char why[512];
    assert_int_equal(pack_serialize(&p, &img, &ilen, why, sizeof why), 0);
    assert_int_equal(pack_parse(img, ilen, &q, why, sizeof why), 0);
    struct cs_model *cm = cs_model_load(&q, why, sizeof why);
    assert_non_null(cm);
    struct croq_config c64, c128;
    knobs_parse_signature(&c64, e[0].config, why, sizeof why);
    knobs_parse_signature(&c128, e[2].config, why, sizeof why);
    struct croq_shape s = {3072, 4096, 128}; /* K = 128: tile_k 256 cannot run it */
    assert_true(cs_model_predict(cm, &c64, &s) > cs_model_predict(cm, &c128, &s));
    long out[8];
    enum pack_match match;
    assert_int_equal(pack_rank(&q, CROQ_DTYPE_F16, &s, PACK_TRUST_HERE, cs_model_predict, cm, out, 8, &match, why, sizeof why), 3);
    assert_int_equal(match, PACK_MODEL);
    assert_int_equal(out[0], 2); /* tile_n 128, the fastest valid one by the model */
    /* the nearest shape (4096x8192x8192 at 7.4, 16384^3 at 11.4) would run another */
    assert_int_equal(pack_choose(&q, CROQ_DTYPE_F16, &s, PACK_TRUST_HERE, &match, why, sizeof why), 1);
    /* the library's ranking (cs_rank, what plan_create and plan_search take) uses it */
    struct croqsparse_handle h = {.pack = q, .trust = PACK_TRUST_HERE, .model = cm};
    out[0] = -1;
    assert_int_equal(cs_rank(&h, CROQSPARSE_F16, &s, out, 8, &match, why, sizeof why), 3);
    assert_int_equal(out[0], 2);
    assert_int_equal(match, PACK_MODEL);
    h.model = NULL;
    assert_int_equal(cs_rank(&h, CROQSPARSE_F16, &s, out, 8, &match, why, sizeof why), 3);
    assert_int_equal(out[0], 1);
    assert_int_equal(match, PACK_NEAREST);
    /* no e4m3 model: no prediction, so e4m3 ranks by the nearest shape */
    struct croq_config e4;
    knobs_default(&e4, CROQ_DTYPE_E4M3);
    assert_true(cs_model_predict(cm, &e4, &s) == 0);
    cs_model_free(cm);
    pack_release(&q);
    free(img);
    /* a model section the library cannot read: the pack loads, the model is not used */
    p.model = (const unsigned char *)"not a model\n";
    p.model_bytes = 12;
    assert_int_equal(pack_serialize(&p, &img, &ilen, why, sizeof why), 0);
    assert_int_equal(pack_parse(img, ilen, &q, why, sizeof why), 0);
    assert_null(cs_model_load(&q, why, sizeof why));
    assert_non_null(strstr(why, "its model section: "));
    pack_release(&q);
    free(img);
    free(text);
    free(m);
}

static void test_pack_format(void **state)
{
    (void)state;
    struct pack_entry e[] = {entry(CROQ_DTYPE_E4M3, 512, 256, 1024, 1234.5, false, "e4m3_512x256x1024", "stages=3"),
                             entry(CROQ_DTYPE_F16, 0, 0, 0, 0, true, "-", "tile_k=64")};
    e[0].measured = PACK_MEASURED_LADDER;
    e[0].clock_mhz = 1755;
    e[0].l2 = PACK_L2_COLD;
    struct pack p = {.gpu = "NVIDIA H200", .cuda_major = 13, .cuda_minor = 0, .driver = "580.159.04", .n = 2, .e = e},
                q;
    unsigned char *img, *img2_unused = NULL;
    size_t len, len2_unused;
    char err[256];
    assert_int_equal(pack_serialize(&p, &img, &len, err, sizeof err), 0);
    assert_int_equal(pack_parse(img, len, &q, err, sizeof err), 0);
    assert_string_equal(q.gpu, "NVIDIA H200");
    assert_string_equal(q.driver, "580.159.04");
    assert_int_equal(q.cuda_major, 13);
    assert_int_equal(q.n, 2);
    assert_int_equal(q.e[0].m, 512);
    assert_true(fabs(q.e[0].tflops - 1234.5) < 1e-9);
    assert_string_equal(q.e[0].config, e[0].config);
    assert_string_equal(q.e[0].hash, "0123456789abcdef");
    assert_string_equal(q.e[0].tuned_hash, "fedcba9876543210");
    assert_string_equal(q.e[1].tuned_hash, "-");
    assert_int_equal(q.e[0].cubin_bytes, sizeof fake_cubin);
    assert_memory_equal(q.e[0].cubin, fake_cubin, sizeof fake_cubin);
    assert_true(q.e[1].fallback);
    pack_release(&q);
    assert_int_equal(pack_parse(img, len - 5, &q, err, sizeof err), -1);
    assert_non_null(strstr(err, "expected 'model' or 'sum' after the entries"));
    /* a cubin size that would wrap around, a negative shape, a NaN: refused */
    const char *bad[] = {
        "croqsparse-pack 3\ngpu G\ncuda 13.0\ndriver d\nentries 1\n"
        "entry f16 8 8 64 1.0 0 0123456789abcdef - f16_8x8x64 c pair - warm 18446744073709551615 0000000000000000\nxx\n",
        "croqsparse-pack 3\ngpu G\ncuda 13.0\ndriver d\nentries 1\n"
        "entry f16 -768 8 64 1.0 0 0123456789abcdef - k c pair - warm 2 0000000000000000\nxx\n",
        "croqsparse-pack 3\ngpu G\ncuda 13.0\ndriver d\nentries 1\n"
        "entry f16 8 8 64 1e300 0 0123456789abcdef - f16_8x8x64 c pair - warm 2 0000000000000000\nxx\n",
        "croqsparse-pack 3\ngpu G\ncuda 13.0\ndriver d\nentries 1\n"
        "entry f16 8 8 64 nan 0 0123456789abcdef - f16_8x8x64 c pair - warm 2 0000000000000000\nxx\n",
    };
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(pack_parse(bad[i], strlen(bad[i]), &q, err, sizeof err), -1);
        assert_true(i == 0 || strstr(err, "out of range"));
    }
    /* the writer refuses a TFLOPS no GPU measures (its line would not be bounded) */
    e[0].tflops = 1e300;
    assert_int_equal(pack_serialize(&p, &img2_unused, &len2_unused, err, sizeof err), -1);
    assert_non_null(strstr(err, "out of [0, 1e+06]"));
    e[0].tflops = 1234.5;
    assert_int_equal(pack_parse("hello\n", 6, &q, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a kernel pack"));
    /* a first line without its newline, or longer than any magic (300 B): refused as such,
     * from a buffer of exactly those bytes (finding 8: the magic was compared with a line
     * never read) */
    char *raw = malloc(300);
    assert_non_null(raw);
    memcpy(raw, "croqsparse-pack 1", 17);
    assert_int_equal(pack_parse(raw, 17, &q, err, sizeof err), -1);
    assert_string_equal(err, "not a kernel pack (no first line 'croqsparse-pack 3')");
    memset(raw, 'x', 299);
    raw[299] = '\n';
    assert_int_equal(pack_parse(raw, 300, &q, err, sizeof err), -1);
    assert_string_equal(err, "not a kernel pack (no first line 'croqsparse-pack 3')");
    assert_int_equal(pack_parse(raw, 0, &q, err, sizeof err), -1);
    assert_string_equal(err, "not a kernel pack (no first line 'croqsparse-pack 3')");
    free(raw);
    /* format 1 had no tuned_hash: refused with what to do, naming both versions */
    const char *v1 = "croqsparse-pack 1\ngpu G\ncuda 13.0\ndriver d\nentries 0\n";
    assert_int_equal(pack_parse(v1, strlen(v1), &q, err, sizeof err), -1);
    assert_non_null(strstr(err, "a pack of format 1; this library reads format 3"));
    assert_non_null(strstr(err, "export it again"));
    free(img);
}

/* Format 2 (issue 24 item 1: no checksums, no provenance, no model) is refused naming
 * both versions, never read as if it were 3; a format-2 pack that parsed before is one. */
static void test_pack_v2_refused(void **state)
{
    (void)state;
    struct pack q;
    char err[256];
    const char *v2 = "croqsparse-pack 2\ngpu NVIDIA H200\ncuda 13.0\ndriver d\nentries 1\n"
                     "entry f16 0 0 0 0.000 1 0123456789abcdef - - dtype=f16 2\nxx\n";
    assert_int_equal(pack_parse(v2, strlen(v2), &q, err, sizeof err), -1);
    assert_string_equal(err, "a pack of format 2; this library reads format 3 (format 2 had no checksums, no "
                             "measurement provenance, no model): export it again");
    const char *v9 = "croqsparse-pack 9\n";
    assert_int_equal(pack_parse(v9, strlen(v9), &q, err, sizeof err), -1);
    assert_string_equal(err, "a pack of format 9, newer than this library reads (format 3): use the croqsparse of "
                             "the croqtuner that exported it");
    const char *other = "croqsparse-pock 3\n";
    assert_int_equal(pack_parse(other, strlen(other), &q, err, sizeof err), -1);
    assert_string_equal(err, "not a kernel pack of format 3 (first line is not 'croqsparse-pack 3')");
}

/* Format 3's fields round-trip (provenance, the opaque model, the file's sum), and a
 * second serialization of the parsed pack is the same bytes. */
static void test_pack_v3_roundtrip(void **state)
{
    (void)state;
    static const unsigned char model[] = "croq-costmodel 1\nopaque to the pack\n";
    struct pack_entry e[] = {
        entry(CROQ_DTYPE_F16, 4096, 8192, 8192, 807.306, false, "f16_4096x8192x8192", "tile_n=128 tile_k=128"),
        entry(CROQ_DTYPE_F16, 4096, 8192, 4096, 811.5, false, "f16_4096x8192x4096_fs", "tile_n=64 tile_k=128"),
        entry(CROQ_DTYPE_F16, 0, 0, 0, 0, true, "-", "tile_k=64"),
    };
    e[0].measured = PACK_MEASURED_LADDER;
    e[0].clock_mhz = 1440;
    e[1].l2 = PACK_L2_COLD;
    struct pack p = {.gpu = "NVIDIA H200", .cuda_major = 13, .driver = "580", .n = 3, .e = e,
                     .model = model, .model_bytes = sizeof model - 1},
                q;
    unsigned char *img, *img2;
    size_t len, len2;
    char err[256];
    assert_int_equal(pack_serialize(&p, &img, &len, err, sizeof err), 0);
    assert_int_equal(pack_parse(img, len, &q, err, sizeof err), 0);
    assert_int_equal(q.e[0].measured, PACK_MEASURED_LADDER);
    assert_true(q.e[0].clock_mhz == 1440);
    assert_int_equal(q.e[0].l2, PACK_L2_WARM);
    assert_int_equal(q.e[1].measured, PACK_MEASURED_PAIR);
    assert_true(q.e[1].clock_mhz == 0);
    assert_int_equal(q.e[1].l2, PACK_L2_COLD);
    assert_int_equal(q.e[2].measured, PACK_MEASURED_NONE);
    assert_int_equal(q.e[2].l2, PACK_L2_NONE);
    assert_int_equal(q.e[0].line, 6);
    assert_int_equal(q.e[2].line, 8);
    assert_int_equal(q.model_bytes, sizeof model - 1);
    assert_memory_equal(q.model, model, sizeof model - 1);
    assert_int_equal(strlen(q.sum), 16);
    assert_non_null(memmem(img, len, "ladder 1440.0 warm ", 19));
    assert_non_null(memmem(img, len, " pair - cold ", 13));
    assert_int_equal(pack_serialize(&q, &img2, &len2, err, sizeof err), 0);
    assert_int_equal(len2, len);
    assert_memory_equal(img2, img, len);
    pack_release(&q);
    /* no model: no model section; the sum line follows the last cubin */
    p.model = NULL;
    p.model_bytes = 0;
    free(img2);
    assert_int_equal(pack_serialize(&p, &img2, &len2, err, sizeof err), 0);
    assert_int_equal(pack_parse(img2, len2, &q, err, sizeof err), 0);
    assert_null(q.model);
    assert_string_not_equal(q.sum, "");
    pack_release(&q);
    /* a tuned entry without provenance, or a key that is not its shape: the writer refuses */
    e[1].measured = PACK_MEASURED_NONE;
    assert_int_equal(pack_serialize(&p, &img2, &len2, err, sizeof err), -1);
    assert_non_null(strstr(err, "needs its measurement"));
    e[1].measured = PACK_MEASURED_PAIR;
    snprintf(e[1].key, sizeof e[1].key, "f16_1024x1024x1024");
    assert_int_equal(pack_serialize(&p, &img2, &len2, err, sizeof err), -1);
    assert_non_null(strstr(err, "key 'f16_1024x1024x1024' is not its f16 4096x8192x4096"));
    free(img);
    free(img2);
}

/* The checksums (issue 24 item 1): a flipped cubin byte names its entry; a flipped text
 * byte (an edited TFLOPS) or model byte is refused too. */
static void test_pack_checksum(void **state)
{
    (void)state;
    static const unsigned char model[] = "model bytes";
    unsigned char cubin[200];
    for (size_t i = 0; i < sizeof cubin; i++)
        cubin[i] = (unsigned char)(i * 7);
    struct pack_entry e[] = {
        entry(CROQ_DTYPE_F16, 1024, 1024, 4096, 690, false, "f16_1024x1024x4096", "tile_n=64 tile_k=256 stages=3"),
        entry(CROQ_DTYPE_F16, 0, 0, 0, 0, true, "-", "tile_k=64"),
    };
    e[0].cubin = cubin;
    e[0].cubin_bytes = sizeof cubin;
    struct pack p = {.gpu = "G", .cuda_major = 13, .driver = "d", .n = 2, .e = e, .model = model,
                     .model_bytes = sizeof model - 1},
                q;
    unsigned char *img;
    size_t len;
    char err[512];
    assert_int_equal(pack_serialize(&p, &img, &len, err, sizeof err), 0);
    assert_int_equal(pack_parse(img, len, &q, err, sizeof err), 0);
    size_t at = (size_t)(q.e[0].cubin - img), mat = (size_t)(q.model - img);
    pack_release(&q);
    img[at + 100] ^= 0x01; /* one bit of the tuned cubin */
    assert_int_equal(pack_parse(img, len, &q, err, sizeof err), -1);
    assert_non_null(strstr(err, "pack line 6: entry 'f16_1024x1024x4096': its cubin bytes sum to "));
    assert_non_null(strstr(err, "(the cubin is damaged)"));
    img[at + 100] ^= 0x01;
    char *tf = strstr((char *)img, " 690.000 ");
    assert_non_null(tf);
    tf[1] = '9'; /* 990 TFLOPS: a text byte */
    assert_int_equal(pack_parse(img, len, &q, err, sizeof err), -1);
    assert_non_null(strstr(err, "its sum line says"));
    tf[1] = '6';
    img[mat + 2] ^= 0x20;
    assert_int_equal(pack_parse(img, len, &q, err, sizeof err), -1);
    assert_non_null(strstr(err, "(the model is damaged)"));
    img[mat + 2] ^= 0x20;
    assert_int_equal(pack_parse(img, len, &q, err, sizeof err), 0);
    pack_release(&q);
    /* a byte after the sum line */
    unsigned char *more = malloc(len + 1);
    memcpy(more, img, len);
    more[len] = '\n';
    assert_int_equal(pack_parse(more, len + 1, &q, err, sizeof err), -1);
    assert_non_null(strstr(err, "1 bytes after the sum line"));
    free(more);
    free(img);
}

/* "entry" line of format 3 for e with cubin c, its sum computed (as a writer that edits a
 * pack would: the checksum finds damage, the duplicate rule does not rely on it). */
static size_t put_entry(char *out, size_t cap, const struct pack_entry *e, const unsigned char *c, size_t n)
{
    char sum[17];
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, c, n), sum);
    int w = snprintf(out, cap, "entry %s %ld %ld %ld %.3f %d %s %s %s %s %s - %s %zu %s\n", croq_dtype_name(e->dtype),
                     e->m, e->n, e->k, e->tflops, e->fallback, e->hash, e->tuned_hash, e->key, e->config,
                     pack_measured_name(e->measured), pack_l2_name(e->l2), n, sum);
    memcpy(out + w, c, n);
    out[w + n] = '\n';
    return (size_t)w + n + 1;
}

/* Issue 24 item 1's case: a second entry with the key of a measured one, 99999 TFLOPS and
 * 64 zeroed bytes in its cubin, all sums consistent: refused at load, naming both lines,
 * so it is never the one chosen (format 2 took it: the higher TFLOPS broke the tie); so
 * is one under the other tuning mode's key, and a second fallback of a dtype. */
/* An entry whose configuration the library could not launch for it (another dtype's, not
 * a signature) or whose hashes are not hex is refused at load, naming the line, instead of
 * being dropped silently when a plan is made (attack finding 6). */
static void test_pack_entry_config(void **state)
{
    (void)state;
    unsigned char cub[64];
    memset(cub, 7, sizeof cub);
    struct pack_entry good = entry(CROQ_DTYPE_E4M3, 0, 0, 0, 0, true, "-", "tile_k=64");
    struct pack_entry f16cfg = entry(CROQ_DTYPE_F16, 0, 0, 0, 0, true, "-", "tile_k=64");
    struct pack_entry bad[3] = {good, good, good};
    snprintf(bad[0].config, sizeof bad[0].config, "%s", f16cfg.config); /* an f16 config on an e4m3 entry */
    snprintf(bad[1].config, sizeof bad[1].config, "dtype=e4m3,tile_k=64");
    snprintf(bad[2].hash, sizeof bad[2].hash, "0123456789abcdeX");
    const char *want[3] = {"pack line 6: entry '-' is e4m3 but its config is f16",
                           "pack line 6: entry '-': config: signature: missing knob 'kernel'",
                           "pack line 6: entry '-': source hashes '0123456789abcdeX' / '-' are not 16 hex digits"};
    char *img = malloc(4096), err[512], sum[17];
    struct pack q;
    for (int b = 0; b < 4; b++) {
        size_t at = (size_t)sprintf(img, "croqsparse-pack 3\ngpu G\ncuda 13.0\ndriver d\nentries 1\n");
        at += put_entry(img + at, 4096 - at, b < 3 ? &bad[b] : &good, cub, sizeof cub);
        hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, img, at), sum);
        at += (size_t)sprintf(img + at, "sum %s\n", sum);
        if (b == 3) { /* the same pack with the good entry loads */
            assert_int_equal(pack_parse(img, at, &q, err, sizeof err), 0);
            pack_release(&q);
            continue;
        }
        assert_int_equal(pack_parse(img, at, &q, err, sizeof err), -1);
        assert_string_equal(err, want[b]);
    }
    free(img);
}

static void test_pack_duplicate(void **state)
{
    (void)state;
    unsigned char good[256], bad[256];
    for (size_t i = 0; i < sizeof good; i++)
        good[i] = bad[i] = (unsigned char)(i * 13 + 1);
    memset(bad + 64, 0, 64);
    struct pack_entry real = entry(CROQ_DTYPE_E4M3, 4096, 8192, 8192, 1782.14, false, "e4m3_4096x8192x8192",
                                   "tile_n=192 stages=5"),
                      dup = real, fb = entry(CROQ_DTYPE_E4M3, 0, 0, 0, 0, true, "-", "tile_k=64");
    dup.tflops = 99999;
    char *img = malloc(4096);
    struct pack q;
    char err[512], sum[17];
    for (int twice_fallback = 0; twice_fallback < 2; twice_fallback++) {
        size_t at = (size_t)sprintf(img, "croqsparse-pack 3\ngpu G\ncuda 13.0\ndriver d\nentries 3\n");
        at += put_entry(img + at, 4096 - at, &real, good, sizeof good);
        if (twice_fallback)
            at += put_entry(img + at, 4096 - at, &fb, good, sizeof good);
        else
            at += put_entry(img + at, 4096 - at, &dup, bad, sizeof bad);
        at += put_entry(img + at, 4096 - at, &fb, good, sizeof good);
        hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, img, at), sum);
        at += (size_t)sprintf(img + at, "sum %s\n", sum);
        assert_int_equal(pack_parse(img, at, &q, err, sizeof err), -1);
        if (twice_fallback)
            assert_string_equal(err, "pack line 8: a second e4m3 fallback entry (the first is line 7): one per dtype");
        else
            assert_string_equal(err, "pack line 7: entry 'e4m3_4096x8192x8192' (99999.000 TFLOPS) is a second "
                                     "kernel for e4m3 4096x8192x8192 (line 6: 'e4m3_4096x8192x8192', 1782.140 "
                                     "TFLOPS): a pack holds one kernel per shape");
    }
    /* the same shape under the other mode's key is a second kernel for it too */
    struct pack_entry fs = dup;
    snprintf(fs.key, sizeof fs.key, "e4m3_4096x8192x8192_fs");
    struct pack_entry two[] = {real, fs, fb};
    struct pack p = {.gpu = "G", .cuda_major = 13, .driver = "d", .n = 3, .e = two};
    unsigned char *out;
    size_t len;
    size_t at = (size_t)sprintf(img, "croqsparse-pack 3\ngpu G\ncuda 13.0\ndriver d\nentries 3\n");
    at += put_entry(img + at, 4096 - at, &real, good, sizeof good);
    at += put_entry(img + at, 4096 - at, &fs, bad, sizeof bad);
    at += put_entry(img + at, 4096 - at, &fb, good, sizeof good);
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, img, at), sum);
    at += (size_t)sprintf(img + at, "sum %s\n", sum);
    assert_int_equal(pack_parse(img, at, &q, err, sizeof err), -1);
    assert_non_null(strstr(err, "pack line 7: entry 'e4m3_4096x8192x8192_fs' (99999.000 TFLOPS) is a second kernel"));
    /* the writer refuses both too */
    assert_int_equal(pack_serialize(&p, &out, &len, err, sizeof err), -1);
    assert_non_null(strstr(err, "(line 6: 'e4m3_4096x8192x8192'"));
    two[1] = real;
    assert_int_equal(pack_serialize(&p, &out, &len, err, sizeof err), -1);
    assert_non_null(strstr(err, "a pack holds one kernel per shape"));
    free(img);
}

static char *tmp_dir(void)
{
    char *d = strdup("/tmp/croqsparse-test-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static void rm_dir(const char *d)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
}

/* The plan cache (issue 26 item 2): choices per key round-trip; a damaged file (a flipped
 * byte, a torn end, a repeated key with a consistent sum, another magic) is refused whole
 * with a warning naming the file and line, never trusted, and the next store replaces it. */
static void test_plancache(void **state)
{
    (void)state;
    char *d = tmp_dir(), path[600], key[CS_CACHE_KEY_MAX], key2[CS_CACHE_KEY_MAX], note[512], err[600];
    snprintf(path, sizeof path, "%s/plans", d);
    cs_plancache_key(key, sizeof key, "NVIDIA H200|x", 13000, "0123456789abcdef", PACK_TRUST_HERE, CROQSPARSE_F16, 1024, 8192, 1024,
                     CROQSPARSE_EPILOGUE_ALPHA);
    assert_string_equal(key, "NVIDIA H200_x|driver 13000|pack 0123456789abcdef|f16|1024x8192x1024|alpha|trust here|"
                             "croqsparse 1005");
    /* a choice made among other candidates (the pack's tuned kernels not yet trusted on
     * this GPU) is another key, so it is searched again rather than taken */
    char other[CS_CACHE_KEY_MAX];
    cs_plancache_key(other, sizeof other, "NVIDIA H200|x", 13000, "0123456789abcdef", PACK_TRUST_ELSEWHERE,
                     CROQSPARSE_F16, 1024, 8192, 1024, CROQSPARSE_EPILOGUE_ALPHA);
    assert_string_equal(other,
                        "NVIDIA H200_x|driver 13000|pack 0123456789abcdef|f16|1024x8192x1024|alpha|trust elsewhere|"
                        "croqsparse 1005");
    cs_plancache_key(key2, sizeof key2, "NVIDIA H200", 13000, "0123456789abcdef", PACK_TRUST_HERE, CROQSPARSE_E4M3, 1024, 8192, 1024,
                     CROQSPARSE_EPILOGUE_ALPHA_SCALES);
    struct cs_cache_choice got, ch[2] = {{"f16_768x768x768_fs", "dtype=f16,kernel=0", 12.5},
                                         {"-", "dtype=e4m3,tile_k=64", 7.25}};
    const char *keys[2] = {key, key2};
    assert_int_equal(cs_plancache_lookup(path, key, &got, note, sizeof note), CS_CACHE_MISS);
    assert_string_equal(note, "");
    assert_int_equal(cs_plancache_store(path, keys, ch, 2, err, sizeof err), 0);
    assert_int_equal(cs_plancache_lookup(path, key, &got, note, sizeof note), CS_CACHE_HIT);
    assert_string_equal(got.key, "f16_768x768x768_fs");
    assert_string_equal(got.config, "dtype=f16,kernel=0");
    assert_true(got.us == 12.5);
    assert_int_equal(cs_plancache_lookup(path, key2, &got, note, sizeof note), CS_CACHE_HIT);
    assert_string_equal(got.key, "-");
    /* a new choice for key replaces its line, key2's stays */
    ch[0].us = 11;
    assert_int_equal(cs_plancache_store(path, keys, ch, 1, err, sizeof err), 0);
    assert_int_equal(cs_plancache_lookup(path, key, &got, note, sizeof note), CS_CACHE_HIT);
    assert_true(got.us == 11);
    assert_int_equal(cs_plancache_lookup(path, key2, &got, note, sizeof note), CS_CACHE_HIT);
    size_t len;
    char *text = read_file(path, &len);
    assert_non_null(text);
    assert_non_null(strstr(text, "croqsparse-plan-cache 1\nplan NVIDIA H200|driver 13000|pack 0123456789abcdef|e4m3|"
                                 "1024x8192x1024|alpha_scales|trust here|croqsparse 1005\t-\tdtype=e4m3,tile_k=64\t7.25\n"
                                 "plan "));
    assert_int_equal(cs_plancache_lookup(path, other, &got, note, sizeof note), CS_CACHE_MISS);
    /* damage: each refused whole, naming the file */
    struct { size_t at; char to; const char *why; } flips[] = {
        {30, 'Q', "its sum does not match its bytes"},
        {0, 'X', "is not a plan cache (its first line is not 'croqsparse-plan-cache 1'): it is not used"},
    };
    for (size_t i = 0; i < 2; i++) {
        char *bad = malloc(len);
        memcpy(bad, text, len);
        bad[flips[i].at] = flips[i].to;
        assert_int_equal(atomic_write(path, bad, len), 0);
        assert_int_equal(cs_plancache_lookup(path, key2, &got, note, sizeof note), CS_CACHE_DAMAGED);
        assert_non_null(strstr(note, flips[i].why));
        assert_non_null(strstr(note, i ? "left as it is" : "the file is damaged and ignored"));
        assert_non_null(strstr(note, path));
        free(bad);
    }
    assert_int_equal(atomic_write(path, text, len - 3), 0); /* a torn end */
    assert_int_equal(cs_plancache_lookup(path, key2, &got, note, sizeof note), CS_CACHE_DAMAGED);
    assert_non_null(strstr(note, "(a torn or truncated file)"));
    /* a repeated key, its sum made consistent: still damage */
    char dup[4096], sum[17];
    int w = snprintf(dup, sizeof dup, "croqsparse-plan-cache 1\nplan %s\t-\tc\t5\nplan %s\t-\tc\t1\n", key, key);
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, dup, (size_t)w), sum);
    w += snprintf(dup + w, sizeof dup - (size_t)w, "sum %s\n", sum);
    assert_int_equal(atomic_write(path, dup, (size_t)w), 0);
    assert_int_equal(cs_plancache_lookup(path, key, &got, note, sizeof note), CS_CACHE_DAMAGED);
    assert_non_null(strstr(note, "line 3: a key given twice"));
    /* a line that is no record, sum consistent */
    w = snprintf(dup, sizeof dup, "croqsparse-plan-cache 1\nplan %s\t-\tc\t-5\n", key);
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, dup, (size_t)w), sum);
    w += snprintf(dup + w, sizeof dup - (size_t)w, "sum %s\n", sum);
    assert_int_equal(atomic_write(path, dup, (size_t)w), 0);
    assert_int_equal(cs_plancache_lookup(path, key, &got, note, sizeof note), CS_CACHE_DAMAGED);
    assert_non_null(strstr(note, "line 2: not 'plan"));
    /* microseconds as strtod takes them but the writer never prints them: hex, '+', a blank */
    const char *odd_us[] = {"0x10", "+5", " 5"};
    for (size_t i = 0; i < sizeof odd_us / sizeof *odd_us; i++) {
        w = snprintf(dup, sizeof dup, "croqsparse-plan-cache 1\nplan %s\t-\tc\t%s\n", key, odd_us[i]);
        hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, dup, (size_t)w), sum);
        w += snprintf(dup + w, sizeof dup - (size_t)w, "sum %s\n", sum);
        assert_int_equal(atomic_write(path, dup, (size_t)w), 0);
        assert_int_equal(cs_plancache_lookup(path, key, &got, note, sizeof note), CS_CACHE_DAMAGED);
        assert_non_null(strstr(note, "line 2: not 'plan"));
    }
    /* the next store replaces the damaged file: only what it stores is there */
    assert_int_equal(cs_plancache_store(path, keys + 1, ch + 1, 1, err, sizeof err), 0);
    assert_int_equal(cs_plancache_lookup(path, key2, &got, note, sizeof note), CS_CACHE_HIT);
    assert_int_equal(cs_plancache_lookup(path, key, &got, note, sizeof note), CS_CACHE_MISS);
    assert_string_equal(note, "");
    free(text);
    rm_dir(d);
    free(d);
}

/* A cache path that names some other file: a store never replaces it (a file without the
 * magic line is the caller's, a FIFO or device is never written) and a symbolic link is
 * written through, so it stays a link to the cache. */
static void test_plancache_foreign(void **state)
{
    (void)state;
    char *d = tmp_dir(), path[600], link[600], key[CS_CACHE_KEY_MAX], note[512], err[600];
    cs_plancache_key(key, sizeof key, "G", 13000, "0123456789abcdef", PACK_TRUST_HERE, CROQSPARSE_F16, 64, 64, 64,
                     CROQSPARSE_EPILOGUE_ALPHA);
    const char *keys[1] = {key};
    struct cs_cache_choice got, ch = {"-", "dtype=f16", 2.5};
    snprintf(path, sizeof path, "%s/data.txt", d);
    assert_int_equal(atomic_write(path, "the caller's data\n", 18), 0);
    assert_int_equal(cs_plancache_lookup(path, key, &got, note, sizeof note), CS_CACHE_DAMAGED);
    assert_non_null(strstr(note, "is not a plan cache"));
    assert_int_equal(cs_plancache_store(path, keys, &ch, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "is not a plan cache"));
    size_t len;
    char *text = read_file(path, &len);
    assert_non_null(text);
    assert_string_equal(text, "the caller's data\n");
    free(text);
    snprintf(path, sizeof path, "%s/fifo", d);
    assert_int_equal(mkfifo(path, 0644), 0);
    assert_int_equal(cs_plancache_store(path, keys, &ch, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "is not a regular file"));
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    snprintf(path, sizeof path, "%s/cache", d);
    snprintf(link, sizeof link, "%s/link", d);
    assert_int_equal(symlink("cache", link), 0);
    assert_int_equal(cs_plancache_store(link, keys, &ch, 1, err, sizeof err), -1); /* dangling */
    assert_int_equal(cs_plancache_store(path, keys, &ch, 1, err, sizeof err), 0);
    ch.us = 1.5;
    assert_int_equal(cs_plancache_store(link, keys, &ch, 1, err, sizeof err), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(cs_plancache_lookup(path, key, &got, note, sizeof note), CS_CACHE_HIT);
    assert_true(got.us == 1.5);
    rm_dir(d);
    free(d);
}

/* A writer of the plan cache killed (SIGKILL) at random points while rewriting a 5000-line
 * file: the file is always the old one or the new one, whole (issue 26 item 2: atomic). */
static void test_plancache_kill9(void **state)
{
    (void)state;
    enum { LINES = 5000 };
    char *d = tmp_dir(), path[600], err[600], note[512];
    snprintf(path, sizeof path, "%s/plans", d);
    char (*keys)[CS_CACHE_KEY_MAX] = malloc(LINES * sizeof *keys);
    const char **kp = malloc(LINES * sizeof *kp);
    struct cs_cache_choice *ch = calloc(LINES, sizeof *ch);
    for (int i = 0; i < LINES; i++) {
        cs_plancache_key(keys[i], sizeof keys[i], "NVIDIA H200", 13000, "0123456789abcdef", PACK_TRUST_HERE, CROQSPARSE_F16, 64 + i,
                         8192, 8192, CROQSPARSE_EPILOGUE_ALPHA);
        kp[i] = keys[i];
        snprintf(ch[i].key, sizeof ch[i].key, "f16_4096x8192x8192");
        snprintf(ch[i].config, sizeof ch[i].config, "dtype=f16,kernel=1,tile_m=128,tile_n=128,tile_k=128,stages=3,"
                 "consumers=2,swizzle=128,raster=1,group=4,meta_path=0,epilogue=1,l2_a=0,l2_b=0,persistent=1");
        ch[i].us = 100 + i;
    }
    assert_int_equal(cs_plancache_store(path, kp, ch, LINES, err, sizeof err), 0);
    srand(7);
    int torn = 0;
    for (int round = 0; round < 25; round++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            for (unsigned i = (unsigned)round;; i++) { /* rewrite the whole file, again and again */
                struct cs_cache_choice c = ch[i % LINES];
                c.us = 1 + i;
                cs_plancache_store(path, kp + i % LINES, &c, 1, err, sizeof err);
            }
        }
        struct timespec t = {0, (1 + rand() % 40) * 1000000L};
        nanosleep(&t, NULL);
        assert_int_equal(kill(pid, SIGKILL), 0);
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFSIGNALED(st));
        struct cs_cache_choice got;
        enum cs_cache_result r = cs_plancache_lookup(path, keys[LINES - 1], &got, note, sizeof note);
        torn += r != CS_CACHE_HIT;
        if (r != CS_CACHE_HIT)
            fprintf(stderr, "round %d: %s\n", round, note);
    }
    assert_int_equal(torn, 0);
    free(keys);
    free(kp);
    free(ch);
    rm_dir(d);
    free(d);
}

struct store_job {
    const char *path;
    int thread;
};

static void *store_many(void *arg)
{
    const struct store_job *j = arg;
    for (int i = 0; i < 40; i++) {
        char key[CS_CACHE_KEY_MAX], err[600];
        const char *keys[1] = {key};
        struct cs_cache_choice c = {"-", "dtype=f16", 1 + i};
        cs_plancache_key(key, sizeof key, "G", 13000, "0123456789abcdef", PACK_TRUST_HERE, CROQSPARSE_F16, 64 * (j->thread + 1), 8,
                         64 * (i + 1), CROQSPARSE_EPILOGUE_ALPHA);
        if (cs_plancache_store(j->path, keys, &c, 1, err, sizeof err))
            return (void *)1;
    }
    return NULL;
}

/* Threads of one process storing into one cache file (a handle may serve several): every
 * choice of every thread is in the whole file afterwards (they shared atomic_write's
 * per-process temp file before the store lock). */
static void test_plancache_threads(void **state)
{
    (void)state;
    char *d = tmp_dir(), path[600], note[512];
    snprintf(path, sizeof path, "%s/plans", d);
    pthread_t t[4];
    struct store_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (struct store_job){path, i};
        assert_int_equal(pthread_create(&t[i], NULL, store_many, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        void *rc;
        assert_int_equal(pthread_join(t[i], &rc), 0);
        assert_null(rc);
    }
    for (int th = 0; th < 4; th++)
        for (int i = 0; i < 40; i++) {
            char key[CS_CACHE_KEY_MAX];
            struct cs_cache_choice got;
            cs_plancache_key(key, sizeof key, "G", 13000, "0123456789abcdef", PACK_TRUST_HERE, CROQSPARSE_F16, 64 * (th + 1), 8,
                             64 * (i + 1), CROQSPARSE_EPILOGUE_ALPHA);
            assert_int_equal(cs_plancache_lookup(path, key, &got, note, sizeof note), CS_CACHE_HIT);
            assert_true(got.us == 1 + i);
        }
    rm_dir(d);
    free(d);
}

/* croqsparse_plan_search: the header's order of checks, then NO_DEVICE without a usable
 * driver (the stub answers CUDA_ERROR_STUB_LIBRARY), before any cache file is touched;
 * croqsparse_plan_candidates (host only) and _select (NO_DEVICE). A plan cannot be made
 * without a device: the one here is assembled from internal.h. */
static void test_plan_search_no_device(void **state)
{
    (void)state;
    croqsparse_search_info info;
    void *a = (void *)256;
    assert_int_equal(croqsparse_plan_search(NULL, a, a, a, NULL, NULL, NULL, NULL, &info),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_string_equal(croqsparse_last_error(), "croqsparse_plan_search: plan, a_values, meta or b is NULL");
    struct pack_entry e[] = {entry(CROQ_DTYPE_F16, 0, 0, 0, 0, true, "-", "tile_k=64 split_k=1")};
    struct croqsparse_handle *h = calloc(1, sizeof *h);
    pthread_mutex_init(&h->lock, NULL);
    h->pack = (struct pack){.gpu = "NVIDIA H200", .cuda_major = 13, .n = 1, .e = e};
    struct croqsparse_plan *p = calloc(1, sizeof *p);
    *p = (struct croqsparse_plan){.h = h, .dtype = CROQSPARSE_F16, .m = 256, .n = 256, .k = 256,
                                  .epilogue = CROQSPARSE_EPILOGUE_ALPHA, .alpha = 1};
    assert_int_equal(croqsparse_plan_search(p, (void *)257, a, a, NULL, NULL, NULL, NULL, &info),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_non_null(strstr(croqsparse_last_error(), "16-byte aligned"));
    assert_int_equal(croqsparse_plan_search(p, a, a, a, (float *)a, (float *)a, NULL, NULL, &info),
                     CROQSPARSE_STATUS_INVALID_VALUE);
    assert_non_null(strstr(croqsparse_last_error(), "scale vectors given to a plan without them"));
    char *d = tmp_dir(), path[600];
    snprintf(path, sizeof path, "%s/plans", d);
    assert_int_equal(croqsparse_plan_search(p, a, a, a, NULL, NULL, NULL, path, &info), CROQSPARSE_STATUS_NO_DEVICE);
    assert_non_null(strstr(croqsparse_last_error(), "croqsparse_plan_search: cuCtxGetCurrent"));
    assert_non_null(strstr(croqsparse_last_error(), "CUDA_ERROR_STUB_LIBRARY"));
    assert_int_equal(access(path, F_OK), -1);
    rm_dir(d);
    free(d);
    /* the ranked candidates are host work: listed without a device, in plan_create's order */
    struct pack_entry two[] = {
        entry(CROQ_DTYPE_F16, 512, 256, 256, 300, false, "f16_512x256x256", "tile_n=128 tile_k=128 stages=3"),
        entry(CROQ_DTYPE_F16, 256, 256, 256, 250, false, "f16_256x256x256", "tile_n=128 tile_k=64 stages=3"),
        entry(CROQ_DTYPE_F16, 0, 0, 0, 0, true, "-", "tile_k=64 split_k=1"),
    };
    h->pack.e = two;
    h->pack.n = 3;
    h->trust = PACK_TRUST_HERE;
    croqsparse_candidate_info ci[4];
    int count = -1;
    assert_int_equal(croqsparse_plan_candidates(p, ci, 4, &count), CROQSPARSE_STATUS_SUCCESS);
    assert_int_equal(count, 3);
    assert_string_equal(ci[0].key, "f16_256x256x256"); /* exact */
    assert_string_equal(ci[1].key, "f16_512x256x256");
    assert_string_equal(ci[2].key, "fallback");
    assert_true(ci[1].tuned_tflops == 300 && ci[1].tuned_m == 512 && ci[0].predicted_tflops == 0);
    assert_int_equal(croqsparse_plan_candidates(p, NULL, 0, &count), CROQSPARSE_STATUS_SUCCESS);
    assert_int_equal(count, 3);
    assert_int_equal(croqsparse_plan_candidates(p, NULL, 2, &count), CROQSPARSE_STATUS_INVALID_VALUE);
    /* selecting one needs the device; an index out of range is refused before */
    assert_int_equal(croqsparse_plan_select(p, 3), CROQSPARSE_STATUS_INVALID_VALUE);
    assert_non_null(strstr(croqsparse_last_error(), "index 3: the plan has 3 candidates"));
    assert_int_equal(croqsparse_plan_select(p, 1), CROQSPARSE_STATUS_NO_DEVICE);
    assert_non_null(strstr(croqsparse_last_error(), "CUDA_ERROR_STUB_LIBRARY"));
    assert_int_equal(croqsparse_plan_select(NULL, 0), CROQSPARSE_STATUS_INVALID_VALUE);
    pthread_mutex_destroy(&h->lock);
    free(h);
    free(p);
}

/* The pack built into the library: the bests of results/h200/sweep-typical (the 14 typical
 * shapes and the reference shape per dtype) plus a fallback per dtype. */
static void test_default_pack(void **state)
{
    (void)state;
    struct pack p;
    char err[256];
    int fallbacks = 0, tuned = 0, ref = 0;
    assert_int_equal(pack_parse(croqsparse_default_pack, croqsparse_default_pack_size, &p, err, sizeof err), 0);
    assert_string_equal(p.gpu, "NVIDIA H200");
    assert_int_equal(p.cuda_major, 13);
    for (size_t i = 0; i < p.n; i++) {
        fallbacks += p.e[i].fallback;
        tuned += !p.e[i].fallback;
        assert_true(p.e[i].cubin_bytes > 1000);
        assert_memory_equal(p.e[i].cubin, "\177ELF", 4);
        if (p.e[i].fallback) {
            assert_string_equal(p.e[i].tuned_hash, "-");
            continue;
        }
        /* export compiled each best's measured source (no --regenerate): the two hashes are one */
        assert_string_equal(p.e[i].hash, p.e[i].tuned_hash);
        /* the reference shape was tuned in both modes: the from-scratch best is the faster one,
         * its final ladder's 1846.471 TFLOPS at 1395 MHz, iteration 41's source */
        assert_string_not_equal(p.e[i].key, "e4m3_4096x8192x8192");
        assert_string_not_equal(p.e[i].key, "f16_4096x8192x8192");
        if (!strcmp(p.e[i].key, "e4m3_4096x8192x8192_fs")) {
            ref++;
            assert_true(fabs(p.e[i].tflops - 1846.471) < 1e-6);
            assert_true(fabs(p.e[i].clock_mhz - 1395.0) < 1e-9);
            assert_string_equal(p.e[i].tuned_hash, "df4c6d7ff9a627c2");
        }
    }
    assert_int_equal(ref, 1);
    assert_int_equal(fallbacks, 2);
    assert_int_equal(tuned, 30);
    /* format 3: provenance of each measurement (every sweep best is its final ladder's
     * number, warm L2) and the cost model export fitted on the directory's rows, one per dtype */
    for (size_t i = 0; i < p.n; i++) {
        assert_int_equal(p.e[i].measured, p.e[i].fallback ? PACK_MEASURED_NONE : PACK_MEASURED_LADDER);
        assert_int_equal(p.e[i].l2, p.e[i].fallback ? PACK_L2_NONE : PACK_L2_WARM);
    }
    assert_true(p.model_bytes > 1000);
    struct cs_model *m = cs_model_load(&p, err, sizeof err);
    assert_non_null(m);
    struct croq_config cfg;
    struct croq_shape s = {2048, 2048, 2048};
    for (int d = CROQ_DTYPE_F16; d <= CROQ_DTYPE_E4M3; d++) {
        knobs_default(&cfg, d);
        double t = cs_model_predict(m, &cfg, &s);
        assert_true(t > 10 && t < 5000);
    }
    cs_model_free(m);
    pack_release(&p);
}

/* A pack's tuned kernels count as tuned only on the GPU model and CUDA major version it
 * names; on another model they still run, ranked as untuned; on another CUDA major only
 * its fallbacks do. */
static void test_pack_identity(void **state)
{
    (void)state;
    struct pack p = {.gpu = "NVIDIA H200", .cuda_major = 13, .cuda_minor = 0};
    char note[512];
    assert_int_equal(cs_pack_trust(&p, "NVIDIA H200", 13, note, sizeof note), PACK_TRUST_HERE);
    assert_string_equal(note, "");
    assert_int_equal(cs_pack_trust(&p, "NVIDIA H100 80GB HBM3", 13, note, sizeof note), PACK_TRUST_ELSEWHERE);
    assert_string_equal(note, "pack tuned on 'NVIDIA H200', this GPU is 'NVIDIA H100 80GB HBM3'");
    assert_int_equal(cs_pack_trust(&p, "NVIDIA H200", 12, note, sizeof note), PACK_TRUST_NONE);
    assert_string_equal(note, "pack compiled with CUDA 13.0, the driver supports CUDA 12");
    assert_int_equal(cs_pack_trust(&p, "NVIDIA H100 80GB HBM3", 12, note, sizeof note), PACK_TRUST_NONE);
    /* the note a plan shows: the pack's and the model's reasons, each only when set */
    struct croqsparse_handle h = {.trust = PACK_TRUST_ELSEWHERE};
    char out[512];
    snprintf(h.pack_note, sizeof h.pack_note, "pack tuned on X");
    cs_handle_note(&h, out, sizeof out);
    assert_string_equal(out, "pack tuned on X");
    snprintf(h.model_note, sizeof h.model_note, "model refused");
    cs_handle_note(&h, out, sizeof out);
    assert_string_equal(out, "pack tuned on X; model refused");
    h.pack_note[0] = '\0';
    cs_handle_note(&h, out, sizeof out);
    assert_string_equal(out, "model refused");
}

/* croqsparse_load_pack (strict) takes a pack only where it names the GPU and the CUDA
 * major: a pack of another GPU model is refused (with its reason, not the built-in pack's
 * consequence), one of this GPU is taken with every kernel trusted as tuned. No driver is
 * called: the handle is built here. */
static void test_load_pack_identity(void **state)
{
    (void)state;
    struct pack def;
    char err[512];
    assert_int_equal(pack_parse(croqsparse_default_pack, croqsparse_default_pack_size, &def, err, sizeof err), 0);
    char *d = tmp_dir(), path[600];
    snprintf(path, sizeof path, "%s/default.pack", d);
    assert_int_equal(atomic_write(path, croqsparse_default_pack, croqsparse_default_pack_size), 0);
    struct croqsparse_handle h = {.cuda_major = def.cuda_major, .trust = PACK_TRUST_NONE};
    pthread_mutex_init(&h.lock, NULL);
    snprintf(h.gpu, sizeof h.gpu, "NVIDIA H100 80GB HBM3");
    assert_int_equal(croqsparse_load_pack(&h, path), CROQSPARSE_STATUS_PACK_MISMATCH);
    char want[1400];
    snprintf(want, sizeof want, "croqsparse_load_pack: '%s': pack tuned on '%s', this GPU is 'NVIDIA H100 80GB HBM3': "
             "refused", path, def.gpu);
    assert_string_equal(croqsparse_last_error(), want);
    assert_int_equal(h.pack.n, 0); /* the old pack (none) stays */
    snprintf(h.gpu, sizeof h.gpu, "%s", def.gpu);
    assert_int_equal(croqsparse_load_pack(&h, path), CROQSPARSE_STATUS_SUCCESS);
    assert_int_equal(h.trust, PACK_TRUST_HERE);
    assert_string_equal(h.pack_note, "");
    assert_true(h.pack.n == def.n);
    pack_release(&h.pack);
    free(h.pack_bytes);
    cs_model_free(h.model);
    pthread_mutex_destroy(&h.lock);
    pack_release(&def);
    rm_dir(d);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_strings), cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_no_device),      cmocka_unit_test(test_driver_loader),
        cmocka_unit_test(test_plan_checks),
        cmocka_unit_test(test_nan_and_version),
        cmocka_unit_test(test_host_format),    cmocka_unit_test(test_pack_choose),
        cmocka_unit_test(test_pack_format),    cmocka_unit_test(test_default_pack),
        cmocka_unit_test(test_pack_v2_refused), cmocka_unit_test(test_pack_v3_roundtrip),
        cmocka_unit_test(test_pack_checksum),  cmocka_unit_test(test_pack_duplicate),
        cmocka_unit_test(test_pack_entry_config),
        cmocka_unit_test(test_pack_rank_model),
        cmocka_unit_test(test_pack_rank_one_per_config), cmocka_unit_test(test_pack_model_dispatch),
        cmocka_unit_test(test_plancache), cmocka_unit_test(test_plancache_foreign),
        cmocka_unit_test(test_plancache_kill9), cmocka_unit_test(test_plancache_threads),
        cmocka_unit_test(test_plan_search_no_device),
        cmocka_unit_test(test_search_finalists),
        cmocka_unit_test(test_pack_identity), cmocka_unit_test(test_load_pack_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
