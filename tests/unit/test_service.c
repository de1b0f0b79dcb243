/* tests/unit/test_service.c — the measurement service (src/measure/service.h) against a
 * fake worker speaking the serve protocol (tests/fixtures/serve/fake-serve.sh): an ok
 * candidate alone and paired, a kernel fault (launch_error, the worker exits), a hang
 * (deadline, SIGKILL of the group), half a reply line, a segfault, a wrong result, each
 * with the status and reason a one-shot run would get, the worker restarted after each
 * loss and the incumbent set again on the new one; replies that answer another request (a
 * late duplicate dropped, a foreign line repeated on a new worker, twice: foreign_reply);
 * a missing runner; a worker that reports no GPU; the final ladder's request and replies
 * (service_ladder) and its deadline. And the paired statistics
 * (src/util/paired.h) on real numbers, and the balanced order of interleaved rounds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/paired.h"
#include "measure/service.h"

static void test_paired_ten(void **state)
{
    (void)state;
    const double cand[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    const double inc[10] = {1.05, 1.03, 1.04, 1.02, 1.06, 1.01, 1.05, 1.04, 1.03, 1.00};
    struct paired_stats st;
    assert_int_equal(paired_stats_compute(cand, inc, 10, &st), 0);
    assert_int_equal(st.n, 10);
    assert_true(fabs(st.median - 1.035) < 1e-12); /* (1.03 + 1.04) / 2 */
    assert_int_equal(st.k, 2);                    /* P(X <= 1) = 11/1024 <= 2.5% < P(X <= 2) */
    assert_true(st.lo == 1.01 && st.hi == 1.05);
    assert_true(fabs(st.coverage - (1.0 - 22.0 / 1024.0)) < 1e-12);
    assert_true(st.ratio[4] == 1.06);
}

static void test_paired_sizes(void **state)
{
    (void)state;
    double c[20], i[20];
    struct paired_stats st;
    for (int k = 0; k < 20; k++)
        c[k] = 0.5, i[k] = 0.5 * (1.0 + 0.001 * k); /* ratios 1.000, 1.001, ... 1.019 */
    assert_int_equal(paired_stats_compute(c, i, 6, &st), 0); /* smallest: min..max, 96.9% */
    assert_int_equal(st.k, 1);
    assert_true(fabs(st.lo - 1.0) < 1e-12 && fabs(st.hi - 1.005) < 1e-12);
    assert_true(fabs(st.coverage - (1.0 - 2.0 / 64.0)) < 1e-12);
    assert_int_equal(paired_stats_compute(c, i, 20, &st), 0); /* P(X <= 5) = 21700/2^20 */
    assert_int_equal(st.k, 6);
    assert_true(fabs(st.lo - 1.005) < 1e-12 && fabs(st.hi - 1.014) < 1e-12);
    assert_true(fabs(st.median - 1.0095) < 1e-12);
    assert_int_equal(paired_stats_compute(c, i, 5, &st), -1); /* too few for 95% */
    c[3] = 0;
    assert_int_equal(paired_stats_compute(c, i, 10, &st), -1);
    c[3] = NAN;
    assert_int_equal(paired_stats_compute(c, i, 10, &st), -1);
    assert_int_equal(st.n, 0);
}

/* Williams' design: every round a permutation; over one period each kernel in each
 * position equally often and each ordered pair adjacent equally often; the known rows. */
static void test_paired_round_order(void **state)
{
    (void)state;
    int o[8];
    for (int n = 1; n <= 8; n++) {
        int period = n % 2 ? 2 * n : n, pos[8][8] = {{0}}, next[8][8] = {{0}};
        for (int r = 0; r < period; r++) {
            int seen = 0;
            paired_round_order(n, r, o);
            for (int p = 0; p < n; p++) {
                assert_true(o[p] >= 0 && o[p] < n);
                seen |= 1 << o[p];
                pos[o[p]][p]++;
                if (p)
                    next[o[p - 1]][o[p]]++;
            }
            assert_int_equal(seen, (1 << n) - 1);
        }
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                assert_int_equal(pos[a][b], period / n);
                assert_int_equal(next[a][b], a == b ? 0 : period / n);
            }
        int again[8];
        paired_round_order(n, period + 1, again); /* periodic */
        paired_round_order(n, 1, o);
        assert_memory_equal(o, again, (size_t)n * sizeof *o);
    }
    const int four[2][4] = {{0, 1, 3, 2}, {1, 2, 0, 3}}, three[4][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int r = 0; r < 2; r++) {
        paired_round_order(4, r, o);
        assert_memory_equal(o, four[r], sizeof four[r]);
        paired_round_order(2, r, o);
        assert_true(o[0] == r && o[1] == 1 - r); /* the alternation of a pair */
    }
    for (int r = 0; r < 4; r++) {
        paired_round_order(3, r, o);
        assert_memory_equal(o, three[r], sizeof three[r]);
    }
}

static char fake[1024], log_path[1024];

static struct measure_service *open_fake(const char *runner)
{
    struct service_opts o = {.runner = runner, .dtype = CROQ_DTYPE_F16, .shape = {256, 256, 256}, .seed = 1,
                             .start_timeout_s = 10};
    return service_new(&o);
}

static void measure(struct measure_service *s, const char *cubin, const char *inc, double timeout,
                    struct measure_result *r)
{
    struct service_req q = {.cubin = cubin, .incumbent = inc, .verify_seed = 1, .timeout_s = timeout};
    assert_int_equal(service_measure(s, &q, r), 0);
}

static int log_count(const char *what)
{
    FILE *f = fopen(log_path, "r");
    char line[4096];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return n;
}

static void test_service_outcomes(void **state)
{
    (void)state;
    struct measure_result r;
    struct measure_service *s = open_fake(fake);
    assert_int_equal(service_pid(s), 0); /* nothing starts before the first request */

    measure(s, "/k/ok.cubin", NULL, 10, &r);
    assert_int_equal(r.status, MEASURE_OK);
    assert_true(r.verify.passed && r.timing.present && !r.paired.present);
    assert_true(r.timing.tflops == 16.77722); /* 2 x 256^3 / 0.002 ms, as the fake prints it */
    assert_int_equal(service_starts(s), 1);
    int pid = service_pid(s);
    assert_true(pid > 0);
    assert_non_null(strstr(r.command, "serve --dtype f16 --shape 256x256x256 --seed 1"));
    assert_non_null(strstr(r.command, "\"cubin\":\"/k/ok.cubin\""));
    measure_result_release(&r);

    measure(s, "/k/ok2.cubin", "/k/inc.cubin", 10, &r); /* incumbent set, then paired */
    assert_int_equal(r.status, MEASURE_OK);
    assert_true(r.paired.present && r.paired.stats_ok);
    assert_int_equal(r.paired.n, 10);
    assert_true(fabs(r.paired.st.median - 0.5) < 1e-12 && fabs(r.paired.st.lo - 0.5) < 1e-12);
    assert_int_equal(service_pid(s), pid); /* the same worker */
    measure_result_release(&r);

    measure(s, "/k/trap.cubin", "/k/inc.cubin", 10, &r); /* a kernel fault ends the worker */
    assert_int_equal(r.status, MEASURE_LAUNCH_ERROR);
    assert_non_null(strstr(r.error, "CUDA_ERROR_LAUNCH_FAILED"));
    assert_int_equal(service_pid(s), 0);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(r.stderr_text);
    assert_non_null(strstr(r.stderr_text, "the context is poisoned"));
    measure_result_release(&r);

    measure(s, "/k/ok3.cubin", "/k/inc.cubin", 10, &r); /* a new worker, the incumbent set again */
    assert_int_equal(r.status, MEASURE_OK);
    assert_int_equal(service_starts(s), 2);
    assert_int_equal(log_count("\"op\":\"set_incumbent\""), 2);
    measure_result_release(&r);

    double t0 = (double)time(NULL);
    measure(s, "/k/hang.cubin", NULL, 1.0, &r); /* the deadline: the group is killed */
    assert_int_equal(r.status, MEASURE_TIMEOUT);
    assert_string_equal(r.error, "timed out after 1.0 s");
    assert_true(r.timed_out);
    assert_true((double)time(NULL) - t0 < 5);
    assert_int_equal(service_pid(s), 0);
    measure_result_release(&r);

    measure(s, "/k/half.cubin", NULL, 10, &r); /* half a line, exit 1: a crash, as for run */
    assert_int_equal(r.status, MEASURE_CRASH);
    assert_non_null(strstr(r.error, "exit 1 without a result"));
    assert_non_null(strstr(r.stderr_text, "dying mid-reply"));
    measure_result_release(&r);

    measure(s, "/k/segv.cubin", NULL, 10, &r);
    assert_int_equal(r.status, MEASURE_CRASH);
    assert_non_null(strstr(r.error, "signal 11"));
    assert_non_null(strstr(r.error, "about to segfault")); /* the last stderr line, as for run */
    assert_int_equal(r.term_signal, 11);
    measure_result_release(&r);

    measure(s, "/k/wrong.cubin", NULL, 10, &r); /* incorrect: the worker stays */
    assert_int_equal(r.status, MEASURE_INCORRECT);
    assert_true(r.verify.present && !r.verify.passed);
    assert_int_equal(r.verify.mismatches, 12);
    int starts = service_starts(s);
    assert_int_equal(starts, 5); /* one more after each of trap, hang, half, segv */
    measure_result_release(&r);
    measure(s, "/k/ok4.cubin", NULL, 10, &r);
    assert_int_equal(r.status, MEASURE_OK);
    assert_int_equal(service_starts(s), starts); /* wrong + ok: no new worker */
    measure_result_release(&r);
    assert_int_equal(service_losses(s), 4); /* trap, hang, half, segv */

    measure(s, "/k/twice.cubin", NULL, 10, &r); /* answered, then a stray second line ... */
    assert_int_equal(r.status, MEASURE_OK);
    measure_result_release(&r);
    /* ... which is never taken as the next request's answer: a late duplicate of an earlier
     * request, dropped (between the requests, or while this one waits), the worker kept */
    measure(s, "/k/ok5.cubin", NULL, 10, &r);
    assert_int_equal(r.status, MEASURE_OK);
    assert_non_null(strstr(r.raw_json, "\"cubin\":\"/k/ok5.cubin\""));
    measure_result_release(&r);
    assert_int_equal(service_starts(s), starts);
    measure(s, "/k/stale.cubin", NULL, 10, &r); /* a late duplicate first, then the reply */
    assert_int_equal(r.status, MEASURE_OK);
    assert_non_null(strstr(r.raw_json, "\"cubin\":\"/k/stale.cubin\""));
    assert_non_null(r.stderr_text);
    assert_non_null(strstr(r.stderr_text, "dropped a late reply to an earlier request"));
    assert_non_null(strstr(r.stderr_text, "/k/ok5.cubin")); /* the line dropped: ok5's reply again */
    assert_int_equal(service_starts(s), starts); /* not the worker's loss */
    assert_int_equal(service_losses(s), 4);
    measure_result_release(&r);
    measure(s, "/k/foreign.cubin", NULL, 10, &r); /* an id never sent: dropped, repeated once */
    assert_int_equal(r.status, MEASURE_OK);
    assert_non_null(strstr(r.raw_json, "\"cubin\":\"/k/foreign.cubin\""));
    assert_int_equal(service_starts(s), starts + 1);
    assert_int_equal(log_count("\"cubin\":\"/k/foreign.cubin\""), 2);
    measure_result_release(&r);
    measure(s, "/k/alien.cubin", "/k/inc.cubin", 10, &r); /* another cubin's reply, on two workers */
    assert_int_equal(r.status, MEASURE_FOREIGN_REPLY);
    assert_string_equal(measure_status_name(r.status), "foreign_reply");
    assert_non_null(strstr(r.error, "twice, on two workers"));
    assert_non_null(strstr(r.error, "/elsewhere/other.cubin"));
    assert_false(r.verify.present || r.timing.present); /* nothing of it is taken */
    assert_int_equal(service_starts(s), starts + 2); /* the second worker is dropped too */
    assert_int_equal(service_pid(s), 0);
    assert_int_equal(log_count("\"cubin\":\"/k/alien.cubin\""), 2);
    measure_result_release(&r);
    measure(s, "/k/ok5b.cubin", NULL, 10, &r);
    assert_int_equal(r.status, MEASURE_OK);
    assert_int_equal(service_starts(s), starts + 3);
    measure_result_release(&r);
    t0 = (double)time(NULL);
    measure(s, "/k/orphan.cubin", NULL, 20, &r); /* its exit ends the wait, not the deadline */
    assert_int_equal(r.status, MEASURE_CRASH);
    assert_non_null(strstr(r.error, "exit 1"));
    assert_true((double)time(NULL) - t0 < 8);
    measure_result_release(&r);
    t0 = (double)time(NULL);
    measure(s, "/k/endless.cubin", NULL, 20, &r); /* no line ever: capped, dropped */
    assert_int_equal(r.status, MEASURE_BAD_OUTPUT);
    assert_non_null(strstr(r.error, "longer than"));
    assert_true(r.raw_json && strlen(r.raw_json) <= 65536);
    assert_true((double)time(NULL) - t0 < 8);
    measure_result_release(&r);
    measure(s, "/k/ok6.cubin", NULL, 10, &r); /* a worker again, told to quit at the end */
    assert_int_equal(r.status, MEASURE_OK);
    measure_result_release(&r);
    service_free(s);
    assert_int_equal(log_count("\"op\":\"quit\""), 1);
}

/* service_ladder: one request naming every cubin, the rounds and the L2 state; the reply's
 * status is its own (ok, though it has no top-level verify block; incorrect naming the
 * kernel); a kernel fault ends the worker and the next ladder starts a new one; the
 * deadline grows with kernels, rounds and the shape. */
static void test_service_ladder(void **state)
{
    (void)state;
    struct measure_result r;
    struct measure_ladder l;
    char err[256];
    struct measure_service *s = open_fake(fake);
    const char *const cubins[3] = {"/k/l0.cubin", "/k/l1.cubin", "/k/l2.cubin"};
    struct service_ladder_req q = {.cubins = cubins, .n = 3, .rounds = 5, .cold_l2 = true, .timeout_s = 10};
    int before = log_count("\"op\":\"ladder\"");
    assert_int_equal(service_ladder(s, &q, &r), 0);
    assert_int_equal(r.status, MEASURE_OK);
    assert_int_equal(log_count("\"op\":\"ladder\""), before + 1);
    assert_int_equal(log_count("\"cubins\":[\"/k/l0.cubin\",\"/k/l1.cubin\",\"/k/l2.cubin\"]"), 1);
    assert_int_equal(log_count("\"rounds\":5"), 1);
    assert_non_null(strstr(r.command, "\"l2\":\"cold\""));
    assert_int_equal(measure_ladder_parse(r.raw_json, &l, err, sizeof err), 0);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.failed, -1);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(l.k[i].trials, 5);
        assert_true(l.k[i].trial_ms[4] == 0.002 && l.k[i].clock_mhz[4] == 1500);
    }
    int pid = service_pid(s);
    assert_true(pid > 0);
    measure_result_release(&r);

    q.rounds = 0; /* the default: LADDER_DEFAULT_ROUNDS (12) */
    q.cold_l2 = false;
    assert_int_equal(service_ladder(s, &q, &r), 0);
    assert_int_equal(r.status, MEASURE_OK);
    assert_non_null(strstr(r.command, "\"rounds\":12"));
    assert_non_null(strstr(r.command, "\"l2\":\"warm\""));
    assert_int_equal(service_pid(s), pid); /* the same worker */
    measure_result_release(&r);

    service_free(s);

    setenv("FAKE_SERVE_LADDER_FAIL", "1", 1); /* seen by workers started from now on */
    s = open_fake(fake);
    assert_int_equal(service_ladder(s, &q, &r), 0);
    unsetenv("FAKE_SERVE_LADDER_FAIL");
    pid = service_pid(s);
    assert_true(pid > 0);
    assert_int_equal(r.status, MEASURE_INCORRECT);
    assert_non_null(strstr(r.error, "verification failed"));
    assert_int_equal(measure_ladder_parse(r.raw_json, &l, err, sizeof err), 0);
    assert_int_equal(l.failed, 1);
    assert_int_equal(service_pid(s), pid); /* an incorrect kernel does not end the worker */
    measure_result_release(&r);

    const char *const trapping[2] = {"/k/l0.cubin", "/k/trap.cubin"};
    struct service_ladder_req t = {.cubins = trapping, .n = 2, .rounds = 3, .timeout_s = 10};
    assert_int_equal(service_ladder(s, &t, &r), 0);
    assert_int_equal(r.status, MEASURE_LAUNCH_ERROR);
    assert_non_null(strstr(r.error, "CUDA_ERROR_LAUNCH_FAILED"));
    assert_int_equal(r.exit_code, 3);
    assert_int_equal(service_pid(s), 0);
    assert_int_equal(measure_ladder_parse(r.raw_json, &l, err, sizeof err), 0);
    assert_int_equal(l.failed, 1);
    measure_result_release(&r);
    int starts = service_starts(s);
    assert_int_equal(service_ladder(s, &q, &r), 0); /* a new worker */
    assert_int_equal(r.status, MEASURE_OK);
    assert_int_equal(service_starts(s), starts + 1);
    measure_result_release(&r);
    service_free(s);

    /* 30 s + 4 x (2 s + n (rounds + 2) (20 ms + a launch) + 4n launches + the base set's
     * host work); a launch of 4096^3 at 100 TFLOPS is 1.37 ms */
    struct croq_shape big = {4096, 4096, 4096};
    struct service_ladder_req d = {.n = 4, .rounds = 12};
    double launch = 2.0 * 4096 * 4096 * 4096 / 100e12, host = 2.0 * 4 * 4096.0 * 4096 / 50e6;
    double want = 30 + 4 * (2 + 4 * (14 * (0.020 + launch) + 4 * launch) + host);
    assert_true(fabs(service_ladder_timeout(&big, &d) - want) < 1e-9);
    d.rounds = 24;
    assert_true(service_ladder_timeout(&big, &d) > want + 4 * 4 * 12 * 0.020);
    d.n = 8;
    assert_true(service_ladder_timeout(&big, &d) > 2 * want - 30 - 4 * (2 + host));
}

static void test_service_start_failures(void **state)
{
    (void)state;
    struct measure_result r;
    struct measure_service *s = open_fake("/nonexistent/croq-runner");
    measure(s, "/k/ok.cubin", NULL, 10, &r);
    assert_int_equal(r.status, MEASURE_NO_RUNNER);
    measure_result_release(&r);
    service_free(s);

    setenv("FAKE_SERVE_START", "no_gpu", 1);
    s = open_fake(fake);
    measure(s, "/k/ok.cubin", NULL, 10, &r);
    unsetenv("FAKE_SERVE_START");
    assert_int_equal(r.status, MEASURE_NO_GPU);
    assert_string_equal(r.error, "fake: no CUDA device");
    assert_int_equal(r.exit_code, 6);
    assert_int_equal(service_pid(s), 0);
    measure_result_release(&r);
    service_free(s);
}

int main(void)
{
    const char *src = getenv("CROQ_SOURCE_DIR") ? getenv("CROQ_SOURCE_DIR") : CROQ_SOURCE_DIR;
    snprintf(fake, sizeof fake, "%s/tests/fixtures/serve/fake-serve.sh", src);
    char tmpl[] = "/tmp/croq-test-service.XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0)
        close(fd);
    snprintf(log_path, sizeof log_path, "%s", tmpl);
    setenv("FAKE_SERVE_LOG", log_path, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paired_ten),
        cmocka_unit_test(test_paired_sizes),
        cmocka_unit_test(test_paired_round_order),
        cmocka_unit_test(test_service_outcomes),
        cmocka_unit_test(test_service_start_failures),
        cmocka_unit_test(test_service_ladder),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(log_path);
    return rc;
}
