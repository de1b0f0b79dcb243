/* tests/unit/test_backend_gpu.c — the gpu backend's parts that run without a GPU: its
 * health check when NVML cannot be loaded (issue 17 item 9); the final ladder against a
 * fake worker with stand-ins for nvcc and cuobjdump (issue 22 item 4). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "health/nvml.h"
#include "knobs/knobs.h"
#include "util/atomicio.h"

/* Run the health check with stderr going to a file; what it printed. */
static char *health_stderr(struct backend *b, struct backend_health *h)
{
    char path[] = "/tmp/croq-test-gpu.XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    assert_true(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, 2);
    struct cand_req q = {0};
    assert_int_equal(b->health(b, &q, h), 0);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    char *text = read_file(path, NULL);
    unlink(path);
    return text;
}

/* Without NVML the GPU is measured blind: the check says so in every record ("not
 * checked"), and the process warns once, naming what cannot be seen. */
static void test_health_without_nvml_warns_once(void **state)
{
    (void)state;
    char err[256];
    if (!nvml_open(err, sizeof err))
        skip(); /* a machine with NVML: nothing to test here */
    struct backend_opts o = {.name = "gpu"};
    struct backend *b = backend_open(&o, err, sizeof err);
    assert_non_null(b);
    struct backend_health h;
    char *first = health_stderr(b, &h);
    assert_int_equal(h.state, HEALTH_OK);
    assert_non_null(strstr(h.why, "not checked: "));
    assert_non_null(first);
    assert_non_null(strstr(first, "warning: NVML is not available"));
    assert_non_null(strstr(first, "other processes"));
    char *second = health_stderr(b, &h);
    assert_non_null(strstr(h.why, "not checked: ")); /* still recorded with each measurement */
    assert_string_equal(second, "");                /* but said once */
    free(first);
    free(second);
    backend_close(b);
}

/* ---- the final ladder through the gpu backend (gpu_ladder) ------------------------------
 * Stand-ins for nvcc and cuobjdump (a "cubin" of the source's checksum and the identity the
 * build asks for) and the fake worker (tests/fixtures/serve/fake-serve.sh): every entry
 * built through the cache, one ladder request for all of them, the trials summarised by the
 * tuner, the raw file written and hashed; a reply that lists too few kernels or was timed
 * with the other L2 state is nobody's timing. */
static char ladder_tmp[256];

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void ladder_setup(void)
{
    char path[512];
    snprintf(ladder_tmp, sizeof ladder_tmp, "/tmp/croq-test-ladder.XXXXXX");
    assert_non_null(mkdtemp(ladder_tmp));
    snprintf(path, sizeof path, "%s/nvcc", ladder_tmp);
    write_text(path, "#!/bin/sh\n"
                     "case \" $* \" in *\" --version \"*) echo \"stand-in nvcc 1.0\"; exit 0 ;; esac\n"
                     "{ echo STANDIN; echo \"src-cksum $(cksum < kernel.cu)\"; cat croq_module_id.h; } > kernel.cubin\n");
    chmod(path, 0755);
    setenv("CROQ_NVCC", path, 1);
    snprintf(path, sizeof path, "%s/cuobjdump", ladder_tmp);
    write_text(path, "#!/bin/sh\necho \"        /*0100*/  HGMMA.SP.64x128x32.F32 R24, gdesc[UR4], RZ, R2, 0x0 ;\"\n");
    chmod(path, 0755);
    setenv("CROQ_CUOBJDUMP", path, 1);
    snprintf(path, sizeof path, "%s/cache", ladder_tmp);
    setenv("CROQ_CACHE_DIR", path, 1);
    snprintf(path, sizeof path, "%s/t/srcs/f16_256x256x256", ladder_tmp);
    assert_int_equal(mkdir_p(path), 0);
    for (int i = 1; i <= 3; i++) {
        char src[600], text[64];
        snprintf(src, sizeof src, "%s/iter%03d.cu", path, i);
        snprintf(text, sizeof text, "// entry %d\n", i * 7);
        write_text(src, text);
    }
    snprintf(path, sizeof path, "%s/requests.log", ladder_tmp);
    setenv("FAKE_SERVE_LOG", path, 1);
}

static int ladder_run(struct ladder_req *q, struct ladder_result *out)
{
    char err[256], fake[1024];
    const char *src = getenv("CROQ_SOURCE_DIR") ? getenv("CROQ_SOURCE_DIR") : CROQ_SOURCE_DIR;
    snprintf(fake, sizeof fake, "%s/tests/fixtures/serve/fake-serve.sh", src);
    struct backend_opts o = {.name = "gpu", .runner = fake};
    struct backend *b = backend_open(&o, err, sizeof err);
    assert_non_null(b);
    assert_non_null(b->ladder);
    int rc = b->ladder(b, q, out);
    backend_close(b); /* the worker goes with it: the next run's sees its own environment */
    return rc;
}

static void test_ladder_through_fake_worker(void **state)
{
    (void)state;
    char dir[512], rel[3][64], path[1024], hash[BACKEND_HASH_MAX];
    struct croq_config cfg;
    struct ladder_result out;
    knobs_baseline(&cfg, CROQ_DTYPE_F16);
    ladder_setup();
    snprintf(dir, sizeof dir, "%s/t", ladder_tmp);
    struct ladder_req q = {.dir = dir, .key = "f16_256x256x256", .shape = {256, 256, 256}, .seed = 1,
                           .tag = "final", .n = 3, .rounds = 4, .cold_l2 = true};
    for (int i = 0; i < 3; i++) {
        snprintf(rel[i], sizeof rel[i], "srcs/f16_256x256x256/iter%03d.cu", i + 1);
        q.e[i] = (struct ladder_entry_req){.iter = i + 1, .cfg = &cfg, .src_rel = rel[i]};
    }
    assert_int_equal(ladder_run(&q, &out), 0);
    assert_int_equal(out.status, CAND_OK);
    assert_int_equal(out.failed, -1);
    assert_int_equal(out.n, 3);
    assert_string_equal(out.l2, "cold");
    assert_true(out.steady);
    for (int i = 0; i < 3; i++) {
        const struct ladder_entry_result *e = &out.e[i];
        char cubin[1024];
        assert_int_equal(e->status, CAND_OK);
        assert_int_equal(e->trials, 4);
        assert_int_equal((int)strlen(e->module_id), 16);
        /* the identity the build put in the cubin (the fake read it from the same bytes) */
        snprintf(cubin, sizeof cubin, "%s/build/f16_256x256x256/iter%03d.cubin", dir, i + 1);
        char *bytes = read_file(cubin, NULL);
        assert_non_null(bytes);
        assert_non_null(strstr(bytes, e->module_id));
        free(bytes);
        /* the fake's trials (0.002 ms, or 0.0019 for an even checksum), summarised here */
        double t = e->trial_ms[0];
        assert_true(t == 0.002 || t == 0.0019);
        assert_true(e->trial_ms[3] == t && e->trial_clock_mhz[3] == 1500);
        assert_true(e->median_ms == t && e->spread_pct == 0 && e->sm_clock_mhz == 1500);
        assert_true(fabs(e->tflops - 2.0 * 256 * 256 * 256 / (t * 1e-3) / 1e12) < 1e-9);
    }
    assert_string_equal(out.raw_rel, "perf/f16_256x256x256/ladder-final.json");
    snprintf(path, sizeof path, "%s/%s", dir, out.raw_rel);
    assert_int_equal(backend_hash_file(path, hash), 0);
    assert_string_equal(out.raw_hash, hash);
    char *raw = read_file(path, NULL);
    assert_non_null(raw);
    assert_non_null(strstr(raw, "\"backend\": \"gpu\""));
    assert_non_null(strstr(raw, "\"op\": \"ladder\"")); /* the worker's reply, kept beside */
    free(raw);
    snprintf(path, sizeof path, "%s/requests.log", ladder_tmp);
    char *log = read_file(path, NULL);
    assert_non_null(log);
    assert_non_null(strstr(log, "\"l2\":\"cold\""));
    assert_non_null(strstr(log, "\"rounds\":4"));
    assert_non_null(strstr(log, "iter001.cubin\",\"")); /* one request names every entry */
    assert_non_null(strstr(log, "iter003.cubin\"]"));
    free(log);

    setenv("FAKE_SERVE_LADDER_SHORT", "1", 1);
    assert_int_equal(ladder_run(&q, &out), 0);
    unsetenv("FAKE_SERVE_LADDER_SHORT");
    assert_int_equal(out.status, CAND_CRASH);
    assert_non_null(strstr(out.reason, "the ladder's reply lists 2 kernels, 3 were asked for"));

    setenv("FAKE_SERVE_L2", "warm", 1);
    assert_int_equal(ladder_run(&q, &out), 0);
    unsetenv("FAKE_SERVE_L2");
    assert_int_equal(out.status, CAND_CRASH);
    assert_non_null(strstr(out.reason, "timed with l2 'warm', asked for 'cold'"));
    snprintf(path, sizeof path, "%s/%s", dir, out.raw_rel);
    assert_int_equal(access(path, F_OK), 0); /* written either way */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", ladder_tmp); /* a mkdtemp name: no quote in it */
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_health_without_nvml_warns_once),
        cmocka_unit_test(test_ladder_through_fake_worker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
