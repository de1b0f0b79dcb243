/* tests/unit/test_measure.c — the tuner's reading of croq-runner output
 * (src/measure): sample JSON of every kind (ok, verify-only, incorrect with NaN
 * mismatches, launch_error, truncated, missing or mistyped fields, wrong schema,
 * stray stdout lines, module ids, compare output, a ladder reply) and the process-level outcomes of measure_run
 * against fake runners (shell scripts): JSON, crash by signal, timeout, exit without
 * output, loader failure, missing runner. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "measure/measure.h"
#include "measure/numbers.h"
#include "util/paired.h"

static const char ok_json[] =
    "{\"schema\": 1, \"command\": \"run\", \"status\": \"ok\", \"gpu\": \"NVIDIA H200\", \"device\": 0,"
    " \"dtype\": \"f16\", \"m\": 4096, \"n\": 8192, \"k\": 4096, \"seed\": 1,"
    " \"abi\": {\"threads\": 384, \"smem_bytes\": 200704, \"tile_m\": 128, \"tile_n\": 256, \"tile_k\": 128,"
    "   \"split_k\": 1, \"persistent\": 0, \"cluster_m\": 1, \"cluster_n\": 1, \"grid\": [32, 32, 1],"
    "   \"regs\": 168, \"local_bytes\": 0},"
    " \"verify\": {\"passed\": true, \"reference\": \"cublas\", \"checked\": 33554432, \"mismatches\": 0,"
    "   \"max_abs_err\": 0.0156, \"max_err_over_tol\": 0.41, \"nan_or_unwritten\": 0,"
    "   \"first_mismatch\": null, \"first_mismatches\": [], \"phase\": \"after_timing\"},"
    " \"timing\": {\"warmup\": 10, \"iters\": 500, \"trials\": [0.281, 0.279, 0.280, 0.282, 0.280],"
    "   \"median_ms\": 0.280, \"spread_pct\": 1.071429, \"tflops\": 981.7068},"
    " \"gpu_state\": {\"nvml\": \"ok\", \"sm_clock_mhz\": [1755, 1740, 1740, 1725, 1740],"
    "   \"sm_clock_median_mhz\": 1740, \"sm_clock_max_mhz\": 1980, \"temp_c\": 51,"
    "   \"throttle_reasons\": [\"sw_power_cap\", \"sw_thermal\"], \"power_w\": 688.2,"
    "   \"processes\": [{\"pid\": 7, \"used_mib\": 900}]},"
    " \"peak\": {\"sparse_tflops_at_clock\": 1739.1, \"hw_eff_pct\": 56.44913, \"clock_mhz\": 1740,"
    "   \"clock_source\": \"nvml\", \"sparse_tflops_at_max_clock\": 1979, \"plausible\": true}}\n";

static void test_parse_ok(void **state)
{
    (void)state;
    struct measure_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(measure_parse(ok_json, &r), 0);
    assert_int_equal(r.status, MEASURE_OK);
    assert_string_equal(measure_status_name(r.status), "ok");
    assert_string_equal(r.gpu, "NVIDIA H200");
    assert_int_equal(r.dtype, CROQ_DTYPE_F16);
    assert_int_equal(r.m, 4096);
    assert_int_equal(r.k, 4096);
    assert_true(r.abi.present);
    assert_int_equal(r.abi.tile_n, 256);
    assert_int_equal(r.abi.grid[1], 32);
    assert_int_equal(r.abi.regs, 168);
    assert_true(r.verify.passed);
    assert_string_equal(r.verify.reference, "cublas");
    assert_string_equal(r.verify.phase, "after_timing");
    assert_int_equal(r.verify.checked, 33554432);
    assert_float_equal(r.verify.max_err_over_tol, 0.41, 1e-12);
    assert_int_equal(r.timing.n_trials, 5);
    assert_float_equal(r.timing.trial_ms[3], 0.282, 1e-12);
    assert_float_equal(r.timing.median_ms, 0.280, 1e-12);
    assert_float_equal(r.timing.tflops, 981.7068, 1e-9);
    assert_float_equal(r.gpu_state.sm_clock_median_mhz, 1740, 0);
    assert_string_equal(r.gpu_state.throttle, "sw_power_cap,sw_thermal");
    assert_int_equal(r.gpu_state.n_processes, 1);
    assert_float_equal(r.peak.hw_eff_pct, 56.44913, 1e-12);
    assert_true(r.peak.plausible);
}

static void test_parse_verify_only(void **state)
{
    (void)state;
    struct measure_result r;
    const char *j = "{\"schema\":1,\"status\":\"ok\",\"verify\":{\"passed\":true,\"checked\":16,"
                    "\"mismatches\":0,\"max_err_over_tol\":0.5}}";
    assert_int_equal(measure_parse(j, &r), 0);
    assert_int_equal(r.status, MEASURE_OK);
    assert_false(r.timing.present);
    assert_true(isnan(r.timing.tflops));
    assert_true(isnan(r.gpu_state.sm_clock_median_mhz));
}

static void test_parse_incorrect(void **state)
{
    (void)state;
    struct measure_result r;
    const char *j =
        "{\"schema\":1,\"command\":\"run\",\"status\":\"incorrect\",\"error\":\"verification failed\","
        "\"verify\":{\"passed\":false,\"reference\":\"cpu\",\"checked\":1024,\"mismatches\":3,"
        "\"max_abs_err\":2.5,\"max_err_over_tol\":\"inf\",\"nan_or_unwritten\":2,"
        "\"first_mismatch\":{\"row\":0,\"col\":5,\"got\":\"nan\",\"want\":1.5,\"tol\":0.002},"
        "\"first_mismatches\":[{\"row\":0,\"col\":5,\"got\":\"nan\",\"want\":1.5,\"tol\":0.002},"
        "{\"row\":3,\"col\":7,\"got\":4.0,\"want\":1.5,\"tol\":0.002}]}}";
    assert_int_equal(measure_parse(j, &r), 0);
    assert_int_equal(r.status, MEASURE_INCORRECT);
    assert_string_equal(r.error, "verification failed");
    assert_false(r.verify.passed);
    assert_int_equal(r.verify.mismatches, 3);
    assert_int_equal(r.verify.nan_or_unwritten, 2);
    assert_true(isinf(r.verify.max_err_over_tol));
    assert_int_equal(r.verify.listed, 2);
    assert_true(isnan(r.verify.first[0].got));
    assert_int_equal(r.verify.first[1].row, 3);
    assert_float_equal(r.verify.first[1].got, 4.0, 0);
}

static void test_parse_launch_error(void **state)
{
    (void)state;
    struct measure_result r;
    const char *j = "{\"schema\":1,\"command\":\"run\",\"status\":\"launch_error\",\"gpu\":\"NVIDIA H200\","
                    "\"error\":\"runner/launch.c:88: cuCtxSynchronize(): CUDA_ERROR_ILLEGAL_ADDRESS\"}";
    assert_int_equal(measure_parse(j, &r), 0);
    assert_int_equal(r.status, MEASURE_LAUNCH_ERROR);
    assert_non_null(strstr(r.error, "ILLEGAL_ADDRESS"));
    assert_false(r.verify.present);
}

/* Every status the runner may print maps to its enum value. */
static void test_parse_each_runner_status(void **state)
{
    (void)state;
    static const char *const names[] = {"ok", "incorrect", "launch_error", "bad_module", "bad_args",
                                        "unsupported_shape", "no_gpu", "internal_error"};
    for (int i = 1; i < 8; i++) {
        char j[256];
        struct measure_result r;
        snprintf(j, sizeof j, "{\"schema\":1,\"status\":\"%s\",\"error\":\"x\"}", names[i]);
        assert_int_equal(measure_parse(j, &r), 0);
        assert_int_equal(r.status, i);
        assert_int_equal(measure_status_parse(names[i]), i);
    }
}

static void expect_bad(const char *json, const char *needle)
{
    struct measure_result r;
    assert_int_equal(measure_parse(json, &r), -1);
    assert_int_equal(r.status, MEASURE_BAD_OUTPUT);
    if (!strstr(r.error, needle))
        fail_msg("error '%s' does not mention '%s'", r.error, needle);
}

static void test_parse_malformed(void **state)
{
    (void)state;
    char truncated[sizeof ok_json];
    memcpy(truncated, ok_json, 300);
    truncated[300] = '\0';
    expect_bad(truncated, "not JSON");
    expect_bad("", "empty");
    expect_bad("[1, 2]", "not a JSON object");
    expect_bad("Segmentation fault\n", "not JSON");
    expect_bad("{\"status\":\"ok\"}", "'schema' missing");
    expect_bad("{\"schema\":2,\"status\":\"ok\"}", "'schema' is not 1");
    expect_bad("{\"schema\":1}", "'status' missing");
    expect_bad("{\"schema\":1,\"status\":\"crash\"}", "not a runner status");
    expect_bad("{\"schema\":1,\"status\":\"great\"}", "not a runner status");
    expect_bad("{\"schema\":1,\"status\":\"ok\"}", "'verify' missing");
    expect_bad("{\"schema\":1,\"status\":\"ok\",\"verify\":{\"passed\":false,\"checked\":1,\"mismatches\":1,"
               "\"max_err_over_tol\":3}}", "'verify.passed' is not true");
    expect_bad("{\"schema\":1,\"status\":\"ok\",\"verify\":{\"passed\":true,\"checked\":1,\"mismatches\":0,"
               "\"max_err_over_tol\":0.1},\"timing\":{\"tflops\":1.0,\"spread_pct\":1}}", "'timing.median_ms' missing");
    expect_bad("{\"schema\":1,\"status\":\"ok\",\"verify\":{\"passed\":true,\"checked\":1,\"mismatches\":0,"
               "\"max_err_over_tol\":0.1},\"timing\":{\"tflops\":\"fast\",\"median_ms\":1,\"spread_pct\":1}}",
               "'timing.tflops' is not a number");
    expect_bad("{\"schema\":1,\"status\":\"ok\",\"verify\":\"yes\"}", "'verify' is not an object");
    expect_bad("{\"schema\":1,\"status\":\"incorrect\",\"verify\":{\"passed\":\"no\"}}", "'verify.passed' is not true/false");
}

/* A library printing to stdout before the runner's line does not hide the result. */
static void test_parse_stray_stdout(void **state)
{
    (void)state;
    struct measure_result r;
    char text[sizeof ok_json + 64];
    snprintf(text, sizeof text, "cuSPARSELt: some banner\n%s", ok_json);
    assert_int_equal(measure_parse(text, &r), 0);
    assert_int_equal(r.status, MEASURE_OK);
    assert_float_equal(r.timing.median_ms, 0.280, 1e-12);
}

/* The module identities of a reply (docs/runner-protocol.md): 16 lowercase hex digits, or
 * absent / "" (a module without one); anything else is bad output naming the field. */
static void test_parse_module_ids(void **state)
{
    (void)state;
    struct measure_result r;
    const char *ok = "{\"schema\":1,\"status\":\"ok\",\"module_id\":\"0123456789abcdef\","
                     "\"incumbent_module_id\":\"fedcba9876543210\",\"verify\":{\"passed\":true,\"checked\":16,"
                     "\"mismatches\":0,\"max_err_over_tol\":0.5}}";
    assert_int_equal(measure_parse(ok, &r), 0);
    assert_string_equal(r.module_id, "0123456789abcdef");
    assert_string_equal(r.incumbent_module_id, "fedcba9876543210");
    assert_int_equal(measure_parse("{\"schema\":1,\"status\":\"launch_error\",\"module_id\":\"\"}", &r), 0);
    assert_string_equal(r.module_id, "");
    assert_string_equal(r.incumbent_module_id, "");
    assert_int_equal(measure_parse("{\"schema\":1,\"status\":\"launch_error\",\"module_id\":null}", &r), 0);
    assert_string_equal(r.module_id, ""); /* null reads as absent, like every optional member */
    static const char *const bad[] = {"\"0123456789ABCDEF\"", "\"0123456789abcde\"", "\"0123456789abcdef0\"",
                                      "12", "\"croq-module-id:0123456789abcdef\""};
    for (int i = 0; i < 5; i++) {
        char j[256];
        snprintf(j, sizeof j, "{\"schema\":1,\"status\":\"launch_error\",\"incumbent_module_id\":%s}", bad[i]);
        assert_int_equal(measure_parse(j, &r), -1);
        assert_int_equal(r.status, MEASURE_BAD_OUTPUT);
        assert_non_null(strstr(r.error, "incumbent_module_id"));
        assert_string_equal(r.incumbent_module_id, "");
    }
    struct measure_compare c;
    assert_int_equal(measure_compare_parse("{\"schema\":1,\"status\":\"launch_error\",\"module_id\":\"00000000000000ff\"}",
                                           &c), 0);
    assert_string_equal(c.run.module_id, "00000000000000ff");
}

/* A ladder reply (serve op ladder): the trials and module ids taken as printed, the
 * clocks per trial (null: -1), "failed"; a time that is not a positive finite number, a
 * malformed module id, or a kernels member that is not a list of at most 16 is refused
 * with the member named. */
static void test_parse_ladder(void **state)
{
    (void)state;
    struct measure_ladder l;
    char err[256] = "";
    const char *ok = "{\"schema\":1,\"command\":\"serve\",\"op\":\"ladder\",\"status\":\"ok\",\"ladder\":{"
                     "\"order\":\"rotating\",\"rounds\":3,\"warmup\":{\"steady\":true},\"kernels\":["
                     "{\"cubin\":\"a.cubin\",\"module_id\":\"0123456789abcdef\",\"iters\":500,"
                     "\"trial_ms\":[0.4312,0.4301,0.4320],\"sm_clock_mhz\":[1365,null,1380]},"
                     "{\"cubin\":\"b.cubin\",\"module_id\":\"fedcba9876543210\",\"iters\":480,"
                     "\"trial_ms\":[0.4477,0.4470,0.4481],\"sm_clock_mhz\":[1365,1365,1350]}]}}";
    assert_int_equal(measure_ladder_parse(ok, &l, err, sizeof err), 0);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.failed, -1);
    assert_true(l.steady);
    assert_string_equal(l.k[0].module_id, "0123456789abcdef");
    assert_string_equal(l.k[1].module_id, "fedcba9876543210");
    assert_int_equal(l.k[0].trials, 3);
    assert_true(l.k[0].trial_ms[1] == 0.4301 && l.k[1].trial_ms[2] == 0.4481);
    assert_int_equal(l.k[0].clock_mhz[0], 1365);
    assert_int_equal(l.k[0].clock_mhz[1], -1);
    assert_int_equal(l.k[1].clock_mhz[2], 1350);

    /* a verification failure: the kernel named, the ones before it listed untimed */
    const char *bad_k = "{\"schema\":1,\"status\":\"incorrect\",\"failed\":1,\"ladder\":{\"kernels\":["
                        "{\"cubin\":\"a\",\"module_id\":\"0123456789abcdef\"},{\"cubin\":\"b\",\"module_id\":\"\"}]}}";
    assert_int_equal(measure_ladder_parse(bad_k, &l, err, sizeof err), 0);
    assert_int_equal(l.failed, 1);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.k[0].trials, 0);
    assert_string_equal(l.k[1].module_id, "");

    static const struct { const char *kernel, *names; } refused[] = {
        {"{\"module_id\":\"0123456789abcdef\",\"trial_ms\":[0.4,-0.4]}", "ladder.kernels[1].trial_ms[1]"},
        {"{\"module_id\":\"0123456789abcdef\",\"trial_ms\":[0.4,\"nan\"]}", "ladder.kernels[1].trial_ms[1]"},
        {"{\"module_id\":\"0123456789abcdef\",\"trial_ms\":[0]}", "ladder.kernels[1].trial_ms[0]"},
        {"{\"module_id\":\"0123456789abcdef\",\"trial_ms\":[]}", "ladder.kernels[1].trial_ms"},
        {"{\"module_id\":\"0123456789abcdef\",\"trial_ms\":0.4}", "ladder.kernels[1].trial_ms"},
        {"{\"module_id\":\"0123456789ABCDEF\",\"trial_ms\":[0.4]}", "ladder.kernels[1].module_id"},
        {"{\"module_id\":12,\"trial_ms\":[0.4]}", "ladder.kernels[1].module_id"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char j[512];
        snprintf(j, sizeof j, "{\"schema\":1,\"status\":\"ok\",\"ladder\":{\"kernels\":[{\"module_id\":\"\","
                 "\"trial_ms\":[0.4]},%s]}}", refused[i].kernel);
        err[0] = '\0';
        assert_int_equal(measure_ladder_parse(j, &l, err, sizeof err), -1);
        if (!strstr(err, refused[i].names))
            fail_msg("%s: the error does not name %s: %s", refused[i].kernel, refused[i].names, err);
    }
    assert_int_equal(measure_ladder_parse("{\"schema\":1,\"status\":\"ok\"}", &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "'ladder.kernels' is not an array of at most 16 kernels"));
    char many[4096] = "{\"schema\":1,\"status\":\"ok\",\"ladder\":{\"kernels\":[";
    for (int i = 0; i < 17; i++)
        strcat(many, i ? ",{\"trial_ms\":[0.4]}" : "{\"trial_ms\":[0.4]}");
    strcat(many, "]}}");
    assert_int_equal(measure_ladder_parse(many, &l, err, sizeof err), -1);
    assert_int_equal(measure_ladder_parse("{\"ladder\":", &l, err, sizeof err), -1);
}

static void test_parse_compare(void **state)
{
    (void)state;
    struct measure_compare c;
    const char *j =
        "{\"schema\":1,\"command\":\"compare\",\"status\":\"ok\",\"gpu\":\"NVIDIA H200\",\"dtype\":\"e4m3\","
        "\"results\":{"
        "\"cusparselt_default\":{\"name\":\"cusparselt_default\",\"available\":false,\"status\":\"unavailable\","
        "  \"note\":\"runner built without cuSPARSELt\"},"
        "\"cusparselt_search\":{\"name\":\"cusparselt_search\",\"available\":false,\"status\":\"unavailable\"},"
        "\"cublas\":{\"name\":\"cublas\",\"available\":true,\"status\":\"ok\",\"verify\":{\"passed\":true,"
        "  \"max_err_over_tol\":0.2},\"timing\":{\"tflops\":1200.5,\"median_ms\":0.22,\"spread_pct\":0.5},"
        "  \"gpu_state\":{\"sm_clock_median_mhz\":1500},\"peak\":{\"hw_eff_pct\":30.0}},"
        "\"ours\":{\"name\":\"ours\",\"available\":true,\"status\":\"incorrect\",\"error\":\"bad\","
        "  \"verify\":{\"passed\":false,\"max_err_over_tol\":9}}},"
        "\"ratios\":{\"ours_over_cusparselt_search\":null,\"ours_over_cusparselt_default\":null,"
        "  \"ours_over_cublas\":null,\"cusparselt_search_over_cublas\":null}}";
    assert_int_equal(measure_compare_parse(j, &c), 0);
    assert_int_equal(c.run.status, MEASURE_OK);
    assert_string_equal(c.run.gpu, "NVIDIA H200");
    assert_true(c.e[MEASURE_CMP_SLT_DEFAULT].present);
    assert_false(c.e[MEASURE_CMP_SLT_DEFAULT].available);
    assert_non_null(strstr(c.e[MEASURE_CMP_SLT_DEFAULT].note, "without cuSPARSELt"));
    assert_true(c.e[MEASURE_CMP_CUBLAS].verified);
    assert_float_equal(c.e[MEASURE_CMP_CUBLAS].tflops, 1200.5, 1e-9);
    assert_float_equal(c.e[MEASURE_CMP_CUBLAS].sm_clock_mhz, 1500, 0);
    assert_string_equal(c.e[MEASURE_CMP_OURS].status, "incorrect");
    assert_false(c.e[MEASURE_CMP_OURS].verified);
    assert_true(isnan(c.e[MEASURE_CMP_OURS].tflops));
    assert_true(isnan(c.ours_over_cublas));
    assert_int_equal(c.protocol, MEASURE_PROTO_BLOCKS); /* a runner from before "protocol" */
    assert_int_equal(c.rounds, 0);
    assert_int_equal(c.paired[MEASURE_CMP_CUBLAS].n, 0);
    assert_int_equal(measure_compare_parse("{\"schema\":1,\"status\":\"ok\"}", &c), -1);
    assert_non_null(strstr(c.run.error, "'results' missing"));
}

/* An interleaved compare: its rounds and the paired ratios ours / vendor; a protocol that
 * is neither name, or a paired median outside its interval, is bad output. */
static void test_parse_compare_protocol(void **state)
{
    (void)state;
    struct measure_compare c;
    char j[2048], bad[2048];
    const char *ok =
        "{\"schema\":1,\"command\":\"compare\",\"protocol\":\"interleaved\",\"status\":\"ok\",\"results\":{"
        "\"cublas\":{\"name\":\"cublas\",\"available\":true,\"status\":\"ok\",\"verify\":{\"passed\":true,"
        "  \"max_err_over_tol\":0.1},\"timing\":{\"tflops\":600,\"median_ms\":0.2,\"spread_pct\":1},"
        "  \"gpu_state\":{\"sm_clock_median_mhz\":1755}},"
        "\"ours\":{\"name\":\"ours\",\"available\":true,\"status\":\"ok\",\"verify\":{\"passed\":true,"
        "  \"max_err_over_tol\":0.2},\"timing\":{\"tflops\":900,\"median_ms\":0.133,\"spread_pct\":1},"
        "  \"gpu_state\":{\"sm_clock_median_mhz\":1740}}},"
        "\"interleave\":{\"protocol\":\"interleaved\",\"rounds\":%s,\"subjects\":[\"cublas\",\"ours\"]},"
        "\"ratios\":{\"ours_over_cublas\":1.5},"
        "\"paired\":{\"ours_over_cusparselt_search\":null,\"ours_over_cusparselt_default\":null,"
        "  \"ours_over_cublas\":{\"ratios\":[1.5,1.49,1.52,1.5,1.51,1.48],\"median\":%s,\"lo\":1.48,\"hi\":1.52,"
        "  \"confidence\":0.96875}}}";
    snprintf(j, sizeof j, ok, "6", "1.5");
    assert_int_equal(measure_compare_parse(j, &c), 0);
    assert_int_equal(c.protocol, MEASURE_PROTO_INTERLEAVED);
    assert_string_equal(measure_cmp_protocol_name(c.protocol), "interleaved");
    assert_int_equal(c.rounds, 6);
    assert_int_equal(c.paired[MEASURE_CMP_CUBLAS].n, 6);
    assert_float_equal(c.paired[MEASURE_CMP_CUBLAS].median, 1.5, 0);
    assert_float_equal(c.paired[MEASURE_CMP_CUBLAS].lo, 1.48, 0);
    assert_float_equal(c.paired[MEASURE_CMP_CUBLAS].hi, 1.52, 0);
    assert_int_equal(c.paired[MEASURE_CMP_SLT_SEARCH].n, 0);
    assert_true(isnan(c.paired[MEASURE_CMP_SLT_SEARCH].median));
    assert_float_equal(c.e[MEASURE_CMP_OURS].sm_clock_mhz, 1740, 0);
    snprintf(bad, sizeof bad, ok, "6", "1.53"); /* above hi */
    assert_int_equal(measure_compare_parse(bad, &c), -1);
    assert_int_equal(c.run.status, MEASURE_BAD_OUTPUT);
    assert_non_null(strstr(c.run.error, "'paired.ours_over_cublas' is not a positive median inside its interval"));
    snprintf(bad, sizeof bad, ok, "0", "1.5"); /* no rounds */
    assert_int_equal(measure_compare_parse(bad, &c), -1);
    assert_non_null(strstr(c.run.error, "'interleave.rounds' is not in [1, 100]"));
    static const char *const protocols[] = {"\"Interleaved\"", "\"\"", "\"blocks \"", "3"};
    for (size_t i = 0; i < sizeof protocols / sizeof *protocols; i++) {
        snprintf(j, sizeof j, ok, "6", "1.5");
        char *p = strstr(j, "\"interleaved\""); /* the top-level member comes first */
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(p - j), j, protocols[i], p + strlen("\"interleaved\""));
        assert_int_equal(measure_compare_parse(bad, &c), -1);
        assert_int_equal(c.run.status, MEASURE_BAD_OUTPUT);
        assert_non_null(strstr(c.run.error, "'protocol'"));
    }
    snprintf(j, sizeof j, ok, "6", "1.5");
    char *p = strstr(j, "\"interleaved\"");
    snprintf(bad, sizeof bad, "%.*s\"blocks\"%s", (int)(p - j), j, p + strlen("\"interleaved\""));
    assert_int_equal(measure_compare_parse(bad, &c), 0); /* "blocks" said outright */
    assert_int_equal(c.protocol, MEASURE_PROTO_BLOCKS);
    assert_int_equal(c.rounds, 0);
    /* numbers that would be recorded: each in range and what its inputs give (numbers.h) */
    static const struct {
        const char *from, *to, *err;
    } nums[] = {
        {"\"tflops\":600", "\"tflops\":\"inf\"", "results.cublas: timing.tflops inf is not a positive number"},
        {"\"tflops\":600", "\"tflops\":-600", "results.cublas: timing.tflops -600 is not a positive number"},
        {"\"tflops\":600", "\"tflops\":\"nan\"", "results.cublas: timing.tflops nan is not a positive number"},
        {"\"max_err_over_tol\":0.2", "\"max_err_over_tol\":3",
         "results.ours: verify.max_err_over_tol 3 of a passed verification is not in [0, 1]"},
        {"\"ratios\":[1.5,1.49,", "\"ratios\":[1.49,",
         "'paired.ours_over_cublas.ratios' holds 5 ratios, not one per round of 6"},
        {"\"ratios\":[1.5,1.49,", "\"ratios\":[\"1.5\",1.49,",
         "'paired.ours_over_cublas.ratios' holds something that is not a number"},
        {"\"median\":1.5,", "\"median\":1.49,",
         "paired.ours_over_cublas: paired.ratio_median 1.49 is not the median of paired.ratios (1.5)"},
        {"\"lo\":1.48,", "\"lo\":1.485,", "paired.ours_over_cublas: paired [ratio_lo 1.485, ratio_hi 1.52] is not the "
                                          "sign-test interval of paired.ratios ([1.48, 1.52])"},
        {"\"interleave\":{\"protocol\":\"interleaved\",\"rounds\":6,\"subjects\":[\"cublas\",\"ours\"]},", "",
         "'interleave' missing"},
        {"\"status\":\"ok\",\"results\"", "\"status\":\"ok\",\"m\":1024,\"n\":1024,\"k\":1024,\"results\"",
         "results.cublas: timing.tflops 600 is not 2MNK / timing.median_ms (10.73742)"},
        {"\"median_ms\":0.2,", "\"median_ms\":0.2,\"trials\":[0.2,0.2,0.2,0.2,0.2],",
         "'results.cublas.timing.trials' holds 5 trials, not one per round of 6"},
        {"\"median_ms\":0.2,", "\"median_ms\":0.2,\"trials\":[0.2,0.2,0.2,0.21,0.2,0.3],",
         "results.cublas: timing.spread_pct 1 is not (max - min) / median of timing.trials (50)"},
    };
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        snprintf(j, sizeof j, ok, "6", "1.5");
        char *at = strstr(j, nums[i].from);
        if (!at)
            fail_msg("case %zu: no '%s' in the reply", i, nums[i].from);
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - j), j, nums[i].to, at + strlen(nums[i].from));
        assert_int_equal(measure_compare_parse(bad, &c), -1);
        assert_int_equal(c.run.status, MEASURE_BAD_OUTPUT);
        if (!strstr(c.run.error, nums[i].err))
            fail_msg("case %zu: error \"%s\", want \"%s\"", i, c.run.error, nums[i].err);
    }
    /* trials one per round, their median and spread the printed ones: taken */
    snprintf(j, sizeof j, ok, "6", "1.5");
    const char *from = "\"median_ms\":0.2,";
    char *at = strstr(j, from);
    snprintf(bad, sizeof bad, "%.*s%s\"trials\":[0.2,0.2,0.199,0.201,0.2,0.2],%s", (int)(at - j), j, from,
             at + strlen(from));
    assert_int_equal(measure_compare_parse(bad, &c), 0);
    enum measure_cmp_protocol pr;
    assert_int_equal(measure_cmp_protocol_parse("interleaved", &pr), 0);
    assert_int_equal(pr, MEASURE_PROTO_INTERLEAVED);
    assert_int_equal(measure_cmp_protocol_parse("rounds", &pr), -1);
    assert_int_equal(measure_cmp_protocol_parse(NULL, &pr), -1);
}

static void test_default_timeout(void **state)
{
    (void)state;
    struct measure_opts o;
    measure_opts_default(&o);
    o.shape = (struct croq_shape){128, 256, 128};
    double small = measure_default_timeout(&o, false);
    assert_true(small >= 30.0 && small < 31.0);
    o.shape = (struct croq_shape){16384, 8192, 8192};
    double big = measure_default_timeout(&o, false);
    assert_true(big > 60.0);
    assert_true(measure_default_timeout(&o, true) > big);
}

/* ---- measure_run against fake runners ---- */

static char tmpdir[256];

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/croq-test-measure-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A fake runner: a shell script with the given body. Returns its path (static). */
static const char *fake_runner(const char *name, const char *body)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    chmod(path, 0755);
    return path;
}

static void run_fake(const char *name, const char *body, double timeout, struct measure_result *r)
{
    struct measure_opts o;
    measure_opts_default(&o);
    o.runner = fake_runner(name, body);
    o.cubin = "k.cubin";
    o.shape = (struct croq_shape){128, 256, 128};
    o.timeout_s = timeout;
    assert_int_equal(measure_run(&o, r), 0);
}

static void test_run_ok_keeps_raw_json(void **state)
{
    (void)state;
    struct measure_result r;
    char body[sizeof ok_json + 64];
    snprintf(body, sizeof body, "cat <<'EOF'\n%sEOF\necho diag >&2", ok_json);
    run_fake("ok.sh", body, 20, &r);
    assert_int_equal(r.status, MEASURE_OK);
    assert_int_equal(r.exit_code, 0);
    assert_non_null(r.raw_json);
    assert_non_null(strstr(r.raw_json, "\"tflops\": 981.7068"));
    assert_non_null(r.stderr_text);
    assert_non_null(strstr(r.command, " run --cubin k.cubin --shape 128x256x128 "));
    measure_result_release(&r);
}

static void test_run_crash_by_signal(void **state)
{
    (void)state;
    struct measure_result r;
    run_fake("segv.sh", "echo 'about to die' >&2; kill -SEGV $$", 20, &r);
    assert_int_equal(r.status, MEASURE_CRASH);
    assert_int_equal(r.term_signal, 11);
    assert_non_null(strstr(r.error, "signal 11"));
    measure_result_release(&r);
}

static void test_run_timeout(void **state)
{
    (void)state;
    struct measure_result r;
    run_fake("hang.sh", "sleep 30", 0.5, &r);
    assert_int_equal(r.status, MEASURE_TIMEOUT);
    assert_true(r.timed_out);
    assert_true(r.wall_s < 10);
    measure_result_release(&r);
}

static void test_run_exit_without_json(void **state)
{
    (void)state;
    struct measure_result r;
    run_fake("exit3.sh", "echo 'partial {' ; echo 'boom' >&2; exit 3", 20, &r);
    assert_int_equal(r.status, MEASURE_CRASH);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.error, "exit 3"));
    measure_result_release(&r);
}

static void test_run_exit_zero_garbage(void **state)
{
    (void)state;
    struct measure_result r;
    run_fake("garbage.sh", "echo hello", 20, &r);
    assert_int_equal(r.status, MEASURE_BAD_OUTPUT);
    measure_result_release(&r);
}

/* What is kept as the raw measurement file must say what the engine decided from it:
 * the runner's JSON when it parses and its status is the outcome; else the outcome as
 * croqtuner knows it, with the runner's output kept as text (nothing lost), so that the
 * audit can parse it and replays the same failure. */
static void test_raw_record_agrees_with_outcome(void **state)
{
    (void)state;
    struct measure_result r;
    json_error_t je;
    /* half a JSON line, then killed */
    run_fake("half.sh", "printf '{\"schema\": 1, \"status\": \"ok\", \"timing\": {\"tfl'; kill -9 $$", 20, &r);
    assert_int_equal(r.status, MEASURE_CRASH);
    char *text = measure_raw_record(&r);
    json_t *j = json_loads(text, 0, &je);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "status")), "crash");
    assert_non_null(strstr(json_string_value(json_object_get(j, "stdout")), "\"timing\": {\"tfl"));
    assert_int_equal(json_integer_value(json_object_get(j, "term_signal")), 9);
    json_decref(j);
    free(text);
    measure_result_release(&r);
    /* a whole "ok" result, but the process was killed after it: not an ok measurement */
    char body[sizeof ok_json + 64];
    snprintf(body, sizeof body, "cat <<'EOF'\n%sEOF\nkill -9 $$", ok_json);
    run_fake("okkilled.sh", body, 20, &r);
    assert_int_equal(r.status, MEASURE_CRASH);
    text = measure_raw_record(&r);
    j = json_loads(text, 0, &je);
    assert_string_equal(json_string_value(json_object_get(j, "status")), "crash");
    assert_non_null(strstr(json_string_value(json_object_get(j, "stdout")), "\"tflops\": 981.7068"));
    json_decref(j);
    free(text);
    measure_result_release(&r);
    /* an honest result is kept byte for byte */
    snprintf(body, sizeof body, "cat <<'EOF'\n%sEOF", ok_json);
    run_fake("okraw.sh", body, 20, &r);
    text = measure_raw_record(&r);
    assert_string_equal(text, r.raw_json);
    free(text);
    measure_result_release(&r);
}

static void test_run_loader_failure(void **state)
{
    (void)state;
    struct measure_result r;
    run_fake("noload.sh", "echo 'croq-runner: error while loading shared libraries: libcuda.so.1: cannot open' >&2; exit 127", 20, &r);
    assert_int_equal(r.status, MEASURE_NO_GPU);
    assert_non_null(strstr(r.error, "libcuda.so.1"));
    measure_result_release(&r);
}

static void test_run_launch_error_json(void **state)
{
    (void)state;
    struct measure_result r;
    run_fake("launch.sh", "echo '{\"schema\":1,\"status\":\"launch_error\",\"error\":\"trap\"}'; exit 3", 20, &r);
    assert_int_equal(r.status, MEASURE_LAUNCH_ERROR);
    assert_string_equal(r.error, "trap");
    measure_result_release(&r);
}

static void test_run_missing_runner(void **state)
{
    (void)state;
    struct measure_result r;
    struct measure_opts o;
    measure_opts_default(&o);
    o.runner = "/nonexistent/croq-runner";
    o.shape = (struct croq_shape){128, 256, 128};
    assert_int_equal(measure_run(&o, &r), 0);
    assert_int_equal(r.status, MEASURE_NO_RUNNER);
    measure_result_release(&r);
}

static void test_runner_path_env(void **state)
{
    (void)state;
    char p[512];
    setenv("CROQ_RUNNER", "/opt/x/croq-runner", 1);
    measure_runner_path(NULL, p, sizeof p);
    assert_string_equal(p, "/opt/x/croq-runner");
    measure_runner_path("/given", p, sizeof p);
    assert_string_equal(p, "/given");
    unsetenv("CROQ_RUNNER");
    measure_runner_path(NULL, p, sizeof p);
    assert_non_null(strstr(p, "croq-runner"));
}

/* The configuration is the launch contract of a source: the module's croq_abi must
 * launch what it claims (an agent's kernel that says tile_n=128 but is built for 256 is
 * not that candidate). */
static void test_abi_contract(void **state)
{
    (void)state;
    struct croq_config cfg;
    char why[160] = "";
    knobs_default(&cfg, CROQ_DTYPE_F16);
    struct measure_abi a = {.present = true, .threads = knobs_threads(&cfg), .smem_bytes = 1,
                            .tile_m = cfg.v[KNOB_TILE_M], .tile_n = cfg.v[KNOB_TILE_N], .tile_k = cfg.v[KNOB_TILE_K],
                            .split_k = cfg.v[KNOB_SPLIT_K], .persistent = cfg.v[KNOB_PERSISTENT],
                            .cluster_m = cfg.v[KNOB_CLUSTER_M], .cluster_n = cfg.v[KNOB_CLUSTER_N]};
    assert_true(measure_abi_matches(&a, &cfg, why, sizeof why)); /* smem is not compared */
    struct measure_abi b = a;
    b.tile_n = cfg.v[KNOB_TILE_N] / 2;
    assert_false(measure_abi_matches(&b, &cfg, why, sizeof why));
    char want[160];
    snprintf(want, sizeof want, "croq_abi tile_n=%d, the configuration claims %d", b.tile_n, cfg.v[KNOB_TILE_N]);
    assert_string_equal(why, want);
    b = a;
    b.threads = 128;
    assert_int_not_equal(knobs_threads(&cfg), 128); /* the f16 default has two consumers */
    assert_false(measure_abi_matches(&b, &cfg, why, sizeof why));
    assert_non_null(strstr(why, "threads=128"));
    b = a;
    b.cluster_m = 2;
    assert_false(measure_abi_matches(&b, &cfg, why, sizeof why));
    b.present = false; /* nothing reported: nothing to compare */
    assert_true(measure_abi_matches(&b, &cfg, why, sizeof why));
    /* stream_k=1 reports persistent=2 (kernels/abi.h); a plain persistent module does not match it */
    struct croq_config sk = cfg;
    sk.v[KNOB_PERSISTENT] = 1;
    sk.v[KNOB_STREAM_K] = 1;
    b = a;
    b.persistent = 2;
    assert_true(measure_abi_matches(&b, &sk, why, sizeof why));
    b.persistent = 1;
    assert_false(measure_abi_matches(&b, &sk, why, sizeof why));
    assert_string_equal(why, "croq_abi persistent=1, the configuration claims 2");
}

/* The numbers check (numbers.h): what the runner prints passes; each number out of its
 * range or inconsistent with its trials fails, naming the field and the value. */
static void numbers_base(struct measure_numbers *x, double *tr, double *inc)
{
    /* 5 trials as the runner prints them (7 digits), 1024x1024x4096 */
    static const double t[5] = {0.02877997, 0.02881043, 0.02879034, 0.02878835, 0.02916864};
    memcpy(tr, t, sizeof t);
    for (int i = 0; i < 5; i++)
        inc[i] = 1.02 * t[i];
    measure_numbers_init(x);
    x->flops = 2.0 * 1024 * 1024 * 4096;
    x->n_trials = 5, x->trial_ms = tr;
    x->median_ms = 0.02879034, x->spread_pct = 1.350008, x->tflops = 298.3617; /* a real H200 reply's */
    x->sm_clock_mhz = 1980, x->hw_eff_pct = 15.07639, x->peak_tflops = 1979.0;
    x->max_err_over_tol = 0.4760377;
}

static void expect_refused(const struct measure_numbers *x, unsigned what, const char *want)
{
    char why[400];
    assert_int_equal(measure_numbers_check(x, what, why, sizeof why), -1);
    if (!strstr(why, want))
        fail_msg("want '%s' in '%s'", want, why);
}

static void test_numbers_check(void **state)
{
    (void)state;
    struct measure_numbers x;
    double tr[8], inc[8];
    char why[400];
    const unsigned all = MEASURE_CHECK_TIMING | MEASURE_CHECK_VERIFY;
    numbers_base(&x, tr, inc);
    assert_int_equal(measure_numbers_check(&x, all, why, sizeof why), 0);
    assert_string_equal(why, "");
    /* an even count: the median is the mean of the middle two (runner/timing.c) */
    double even[4] = {1.0, 3.0, 2.0, 4.0};
    assert_true(paired_median(even, 4) == 2.5 && paired_median(even, 3) == 2.0);
    assert_true(even[0] == 1.0 && even[1] == 3.0); /* v is not sorted in place */
    assert_true(isnan(paired_median(even, 0)) && isnan(paired_median(even, PAIRED_MAX + 1)));
    /* not finite, not positive */
    numbers_base(&x, tr, inc), x.tflops = NAN;
    expect_refused(&x, all, "timing.tflops nan is not a positive number");
    numbers_base(&x, tr, inc), x.tflops = INFINITY;
    expect_refused(&x, all, "timing.tflops inf is not a positive number");
    numbers_base(&x, tr, inc), x.tflops = 0;
    expect_refused(&x, all, "timing.tflops 0 is not a positive number");
    numbers_base(&x, tr, inc), x.median_ms = -0.000138;
    expect_refused(&x, all, "timing.median_ms -0.000138 is not a positive number");
    numbers_base(&x, tr, inc), tr[2] = -0.02879034;
    expect_refused(&x, all, "timing.trials[2] -0.02879034 is not a positive number");
    numbers_base(&x, tr, inc), x.spread_pct = -1;
    expect_refused(&x, all, "timing.spread_pct -1 is not a number >= 0");
    numbers_base(&x, tr, inc), x.sm_clock_mhz = 0;
    expect_refused(&x, all, "gpu_state.sm_clock_median_mhz 0 is not in [1, 10000] MHz");
    numbers_base(&x, tr, inc), x.sm_clock_mhz = NAN; /* unknown (no NVML) is allowed */
    assert_int_equal(measure_numbers_check(&x, all, why, sizeof why), 0);
    numbers_base(&x, tr, inc), x.hw_eff_pct = -2;
    expect_refused(&x, all, "peak.hw_eff_pct -2 is not a number >= 0");
    numbers_base(&x, tr, inc), x.max_err_over_tol = 1.5;
    expect_refused(&x, all, "verify.max_err_over_tol 1.5 of a passed verification is not in [0, 1]");
    numbers_base(&x, tr, inc), x.max_err_over_tol = NAN;
    expect_refused(&x, MEASURE_CHECK_VERIFY, "verify.max_err_over_tol nan");
    /* consistent with its own trials, within the runner's 7-digit printing */
    numbers_base(&x, tr, inc), x.median_ms = 0.02879035; /* one unit of the 7th digit off: printing */
    x.tflops = x.flops / x.median_ms / 1e9;
    assert_int_equal(measure_numbers_check(&x, all, why, sizeof why), 0);
    numbers_base(&x, tr, inc), x.median_ms = 0.02878835; /* another trial's time */
    expect_refused(&x, all, "timing.median_ms 0.02878835 is not the median of timing.trials (0.02879034)");
    numbers_base(&x, tr, inc), x.spread_pct = 1.36;
    expect_refused(&x, all, "timing.spread_pct 1.36 is not (max - min) / median");
    numbers_base(&x, tr, inc), x.tflops = 100.0; /* the old fake workers' number */
    expect_refused(&x, all, "timing.tflops 100 is not 2MNK / timing.median_ms (298.3617)");
    numbers_base(&x, tr, inc), x.hw_eff_pct = 6.7;
    expect_refused(&x, all, "peak.hw_eff_pct 6.7 is not timing.tflops / the peak at the clock (15.07639)");
    numbers_base(&x, tr, inc), x.flops = 0; /* problem unknown: TFLOPS not compared */
    x.tflops = 100.0;
    x.hw_eff_pct = NAN;
    assert_int_equal(measure_numbers_check(&x, all, why, sizeof why), 0);
    /* paired: positive times, the candidate's are the timing's, the incumbent's summary */
    numbers_base(&x, tr, inc);
    x.pairs = 5, x.cand_ms = tr, x.inc_ms = inc;
    x.inc_median_ms = paired_median(inc, 5), x.inc_tflops = x.flops / x.inc_median_ms / 1e9;
    assert_int_equal(measure_numbers_check(&x, all, why, sizeof why), 0);
    inc[3] = 0;
    expect_refused(&x, all, "paired.incumbent_ms[3] 0 is not a positive number");
    numbers_base(&x, tr, inc);
    double other[5] = {0.03, 0.03, 0.03, 0.03, 0.03};
    x.pairs = 5, x.cand_ms = other, x.inc_ms = inc;
    expect_refused(&x, all, "paired.candidate_ms are not the trials of timing.trials");
    numbers_base(&x, tr, inc);
    x.pairs = 5, x.cand_ms = tr, x.inc_ms = inc, x.inc_tflops = 12.0;
    expect_refused(&x, all, "paired.incumbent_tflops 12 is not 2MNK / the incumbent's median");
    numbers_base(&x, tr, inc), x.ratio = 1.02, x.ratio_lo = 1.03, x.ratio_hi = 1.04;
    expect_refused(&x, all, "paired.ratio_median 1.02 is not within [ratio_lo 1.03, ratio_hi 1.04]");
    numbers_base(&x, tr, inc), x.ratio = NAN, x.ratio_lo = 1.0, x.ratio_hi = 1.1;
    expect_refused(&x, all, "paired.ratio_median nan is not a positive number");
}

/* A reply is refused for its numbers as bad output naming the field and the value: "nan"
 * strings (which JSON carries as text), negative and zero numbers, a timed reply without
 * its problem or trials. */
static void test_parse_refuses_numbers(void **state)
{
    (void)state;
    struct measure_result r;
    static const struct {
        const char *from, *to, *want;
    } cases[] = {
        {"\"tflops\": 981.7068", "\"tflops\": \"nan\"", "runner output: timing.tflops nan is not a positive number"},
        {"\"tflops\": 981.7068", "\"tflops\": -242.8", "runner output: timing.tflops -242.8 is not a positive number"},
        {"\"tflops\": 981.7068", "\"tflops\": 0", "runner output: timing.tflops 0 is not a positive number"},
        {"\"median_ms\": 0.280", "\"median_ms\": 0.281", "runner output: timing.median_ms 0.281 is not the median"},
        {"[0.281, 0.279, 0.280, 0.282, 0.280]", "[0.281, -0.279, 0.280, 0.282, 0.280]",
         "runner output: timing.trials[1] -0.279 is not a positive number"},
        {"[0.281, 0.279, 0.280, 0.282, 0.280]", "[0.281, \"x\", 0.280, 0.282, 0.280]",
         "'timing.trials' holds more than 100 trials or a value that is not a number"},
        {"\"max_err_over_tol\": 0.41", "\"max_err_over_tol\": \"inf\"",
         "runner output: verify.max_err_over_tol inf of a passed verification is not in [0, 1]"},
        {"\"sm_clock_median_mhz\": 1740", "\"sm_clock_median_mhz\": -5",
         "runner output: gpu_state.sm_clock_median_mhz -5 is not in [1, 10000] MHz"},
        {"\"m\": 4096, ", "", "runner output: 'm' (or 'n', 'k') is missing from a timed ok result"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[sizeof ok_json + 64];
        const char *at = strstr(ok_json, cases[i].from);
        assert_non_null(at);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - ok_json), ok_json, cases[i].to, at + strlen(cases[i].from));
        memset(&r, 0, sizeof r);
        assert_int_equal(measure_parse(text, &r), -1);
        assert_int_equal(r.status, MEASURE_BAD_OUTPUT);
        if (!strstr(r.error, cases[i].want))
            fail_msg("case %zu: want '%s' in '%s'", i, cases[i].want, r.error);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_check),
        cmocka_unit_test(test_parse_refuses_numbers),
        cmocka_unit_test(test_parse_ok),
        cmocka_unit_test(test_parse_verify_only),
        cmocka_unit_test(test_parse_incorrect),
        cmocka_unit_test(test_parse_launch_error),
        cmocka_unit_test(test_parse_each_runner_status),
        cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_parse_stray_stdout),
        cmocka_unit_test(test_parse_module_ids),
        cmocka_unit_test(test_parse_ladder),
        cmocka_unit_test(test_parse_compare),
        cmocka_unit_test(test_parse_compare_protocol),
        cmocka_unit_test(test_default_timeout),
        cmocka_unit_test(test_run_ok_keeps_raw_json),
        cmocka_unit_test(test_run_crash_by_signal),
        cmocka_unit_test(test_run_timeout),
        cmocka_unit_test(test_run_exit_without_json),
        cmocka_unit_test(test_run_exit_zero_garbage),
        cmocka_unit_test(test_raw_record_agrees_with_outcome),
        cmocka_unit_test(test_run_loader_failure),
        cmocka_unit_test(test_run_launch_error_json),
        cmocka_unit_test(test_run_missing_runner),
        cmocka_unit_test(test_runner_path_env),
        cmocka_unit_test(test_abi_contract),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
