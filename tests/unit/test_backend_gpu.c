/* tests/unit/test_backend_gpu.c — the gpu backend's parts that run without a GPU: its
 * health check when NVML cannot be loaded (issue 17 item 9). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "health/nvml.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_health_without_nvml_warns_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
