/* tests/unit/test_knobs.c — the knob table, assignments, validation rules, signatures,
 * derived geometry, and configurations as JSON (knobs_json.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "knobs/knobs.h"
#include "knobs/knobs_json.h"
#include "util/atomicio.h"

static const struct croq_shape big = {4096, 8192, 8192};

static void test_table_consistent(void **state)
{
    for (int i = 0; i < KNOB_COUNT; i++) {
        const struct croq_knob *k = &croq_knobs[i];
        assert_true(k->n_values >= 1 && k->n_values <= CROQ_KNOB_MAX_VALUES);
        assert_true(knobs_value_allowed(i, k->default_value));
        assert_int_equal(strncmp(k->macro, "CROQ_", 5), 0);
        assert_int_equal(knobs_find(k->name), i);
        assert_true(!strcmp(k->category, "macro") || !strcmp(k->category, "structural") ||
                    !strcmp(k->category, "variant") || !strcmp(k->category, "micro"));
        for (int j = 0; j < i; j++) {
            assert_string_not_equal(croq_knobs[j].name, k->name);
            assert_string_not_equal(croq_knobs[j].macro, k->macro);
        }
    }
    assert_int_equal(knobs_find("no_such_knob"), -1);
}

static void test_defaults_and_baseline_valid(void **state)
{
    int dtypes[] = {CROQ_DTYPE_F16, CROQ_DTYPE_E4M3};
    char why[CROQ_WHY_MAX];
    for (int d = 0; d < 2; d++) {
        struct croq_config c;
        knobs_default(&c, dtypes[d]);
        if (!knobs_validate(&c, &big, why, sizeof why))
            fail_msg("default %s invalid: %s", croq_dtype_name(dtypes[d]), why);
        knobs_baseline(&c, dtypes[d]);
        if (!knobs_validate(&c, &big, why, sizeof why))
            fail_msg("baseline %s invalid: %s", croq_dtype_name(dtypes[d]), why);
        assert_int_equal(c.v[KNOB_KERNEL], CROQ_V_BASELINE);
        assert_int_equal(knobs_threads(&c), 128);
    }
}

static void test_set_errors(void **state)
{
    struct croq_config c;
    char err[256];
    knobs_default(&c, CROQ_DTYPE_F16);
    assert_int_equal(knobs_set(&c, "stages=3", err, sizeof err), 0);
    assert_int_equal(c.v[KNOB_STAGES], 3);
    assert_int_equal(knobs_set(&c, "bogus=1", err, sizeof err), -1);
    assert_string_equal(err, "unknown knob 'bogus' (see 'croqtuner knobs')");
    assert_int_equal(knobs_set(&c, "stages=three", err, sizeof err), -1);
    assert_string_equal(err, "knob 'stages': value 'three' is not an integer");
    assert_int_equal(knobs_set(&c, "stages=9", err, sizeof err), -1);
    assert_string_equal(err, "knob 'stages': value 9 is not one of its allowed values (1, 2, 3, 4, 5, 6, 7, 8)");
    assert_int_equal(knobs_set(&c, "stages", err, sizeof err), -1);
    assert_int_equal(knobs_set(&c, "=3", err, sizeof err), -1);
    assert_int_equal(knobs_set(&c, "stages=", err, sizeof err), -1);
    assert_int_equal(c.v[KNOB_STAGES], 3); /* failed sets change nothing */
    /* blanks around the name and the value are ignored, on both sides alike */
    assert_int_equal(knobs_set(&c, " tile_m = 64\t", err, sizeof err), 0);
    assert_int_equal(c.v[KNOB_TILE_M], 64);
    assert_int_equal(knobs_set(&c, "tile_m= 256", err, sizeof err), 0);
    assert_int_equal(c.v[KNOB_TILE_M], 256);
    assert_int_equal(knobs_set(&c, "tile_m =", err, sizeof err), -1);
    assert_string_equal(err, "knob 'tile_m': value '' is not an integer");
    assert_int_equal(knobs_set(&c, " = 64", err, sizeof err), -1);
    assert_string_equal(err, "expected knob=value, got ' = 64'");
    assert_int_equal(knobs_set(&c, "tile_m=1 28", err, sizeof err), -1);
    assert_string_equal(err, "knob 'tile_m': value '1 28' is not an integer");
    assert_int_equal(c.v[KNOB_TILE_M], 256);
}

static void expect_invalid(const char *const *sets, int n, const struct croq_shape *shape, const char *reason)
{
    struct croq_config c;
    char err[256], why[CROQ_WHY_MAX];
    knobs_default(&c, CROQ_DTYPE_F16);
    for (int i = 0; i < n; i++)
        if (knobs_set(&c, sets[i], err, sizeof err))
            fail_msg("%s: %s", sets[i], err);
    assert_false(knobs_validate(&c, shape, why, sizeof why));
    if (!strstr(why, reason))
        fail_msg("reason '%s' does not contain '%s'", why, reason);
}

static void test_validate_rejects(void **state)
{
    const char *consumers[] = {"tile_m=64", "consumers=2"};
    expect_invalid(consumers, 2, NULL, "must be a multiple of 64 x consumers");
    const char *base[] = {"kernel=0", "consumers=1", "tile_m=64", "stages=4"};
    expect_invalid(base, 4, NULL, "kernel=0 (baseline) supports only");
    const char *pers[] = {"persistent=1", "split_k=2"};
    expect_invalid(pers, 2, NULL, "persistent=1 cannot be combined with split-K");
    /* Ping-pong: two consumers, a tile list (persistent), no split-K, not the baseline. */
    const char *pp_np[] = {"schedule=1", "tile_n=128"};
    expect_invalid(pp_np, 2, NULL, "schedule=1 (ping-pong) needs");
    const char *pp_c1[] = {"schedule=1", "persistent=1", "consumers=1", "tile_n=128"};
    expect_invalid(pp_c1, 4, NULL, "schedule=1 (ping-pong) needs");
    const char *pp_base[] = {"kernel=0", "consumers=1", "tile_m=64", "tile_n=128", "stages=2", "schedule=1"};
    expect_invalid(pp_base, 6, NULL, "kernel=0 (baseline) supports only");
    /* each consumer owns the whole 128x256 tile: 2 x 128 accumulators */
    const char *pp_acc[] = {"schedule=1", "persistent=1"};
    expect_invalid(pp_acc, 2, NULL, "in ping-pong (each owns the whole tile)");
    /* two 128x128 C staging tiles + 8 stages of 24 KB do not fit */
    const char *pp_smem[] = {"schedule=1", "persistent=1", "tile_n=128", "epilogue=1", "stages=7"};
    expect_invalid(pp_smem, 5, NULL, "of shared memory per CTA");
    /* Stream-K: persistent, no split-K, cooperative, no cluster, not the baseline. */
    const char *sk_np[] = {"stream_k=1"};
    expect_invalid(sk_np, 1, NULL, "stream_k=1 needs kernel=1, persistent=1, split_k=1, schedule=0");
    const char *sk_pp[] = {"stream_k=1", "persistent=1", "schedule=1", "tile_n=128"};
    expect_invalid(sk_pp, 4, NULL, "stream_k=1 needs");
    const char *sk_cl[] = {"stream_k=1", "persistent=1", "cluster_m=2"};
    expect_invalid(sk_cl, 3, NULL, "stream_k=1 needs");
    const char *sk_cn[] = {"stream_k=1", "persistent=1", "cluster_n=2"};
    expect_invalid(sk_cn, 3, NULL, "stream_k=1 needs");
    const char *sk_base[] = {"kernel=0", "consumers=1", "tile_m=64", "tile_n=128", "stages=2", "stream_k=1"};
    expect_invalid(sk_base, 6, NULL, "stream_k=1 needs");
    const char *one_stage[] = {"kernel=1", "stages=1"};
    expect_invalid(one_stage, 2, NULL, "needs stages >= 2");
    const char *acc[] = {"tile_m=256", "tile_n=256", "consumers=1"};
    expect_invalid(acc, 3, NULL, "accumulator registers");
    struct croq_shape oddk = {4096, 4096, 4000};
    expect_invalid(NULL, 0, &oddk, "K must be a multiple of 64");
    struct croq_shape oddn = {4096, 4100, 4096};
    expect_invalid(NULL, 0, &oddn, "N must be a multiple of 8");
    const char *split[] = {"tile_k=128", "stages=2", "split_k=8"};
    struct croq_shape k512 = {4096, 4096, 512};
    expect_invalid(split, 3, &k512, "not a multiple of tile_k x split_k");
}

/* e4m3 with tile_k = 512: a kernel=1 consumer holds its accumulators and two metadata
 * buffers; 192 of them (256x64x512, one consumer per tile) failed build --strict (spills,
 * C7515), 160 compiled (tests/cli/t0008-build-knob-asserts.sh compiles these). */
static void test_register_rule(void **state)
{
    (void)state;
    const struct {
        const char *sets;
        bool valid;
        int acc, meta;
    } cases[] = {
        {"persistent=1 schedule=1 tile_m=256 tile_n=64 tile_k=512 stages=2", false, 128, 64},
        {"persistent=1 schedule=1 tile_m=256 tile_n=64 tile_k=512 stages=2 meta_path=0", false, 128, 64},
        {"consumers=1 tile_m=256 tile_n=64 tile_k=512 stages=2", false, 128, 64},
        {"persistent=1 schedule=1 tile_m=256 tile_n=64 tile_k=256 stages=2", true, 128, 32},
        {"persistent=1 schedule=1 tile_m=128 tile_n=128 tile_k=512 stages=2", true, 128, 32},
        {"persistent=1 schedule=1 tile_m=192 tile_n=64 tile_k=512 stages=2", true, 96, 48},
        {"tile_m=256 tile_n=64 tile_k=512 stages=2", true, 64, 32},  /* cooperative: 2 split a tile */
        {"kernel=0 consumers=1 tile_m=256 tile_n=64 tile_k=512 stages=2", true, 128, 64}, /* no meta_buf */
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        struct croq_config c;
        char err[256], why[CROQ_WHY_MAX] = "";
        knobs_default(&c, CROQ_DTYPE_E4M3);
        if (knobs_set_list(&c, cases[t].sets, err, sizeof err))
            fail_msg("%s: %s", cases[t].sets, err);
        assert_int_equal(knobs_acc_regs(&c), cases[t].acc);
        assert_int_equal(knobs_meta_regs(&c), cases[t].meta);
        if (knobs_validate(&c, &big, why, sizeof why) != cases[t].valid)
            fail_msg("case %zu (%s): valid=%d wanted, reason '%s'", t, cases[t].sets, cases[t].valid, why);
    }
    struct croq_config c;
    char err[256], why[CROQ_WHY_MAX];
    knobs_default(&c, CROQ_DTYPE_E4M3);
    assert_int_equal(knobs_set_list(&c, cases[0].sets, err, sizeof err), 0);
    assert_false(knobs_validate(&c, NULL, why, sizeof why));
    assert_string_equal(why, "tile 256x64x512 with 1 consumer(s) per tile needs 128 accumulator + 64 metadata "
                             "registers per thread (max 160)");
}

/* What the kernel implements now and the rules once refused, or newly allow. */
static void test_validate_accepts(void **state)
{
    const char *ok[][7] = {
        {"persistent=1", "cluster_m=2", NULL},                                   /* persistent clusters */
        {"persistent=1", "cluster_m=2", "cluster_n=2", "epilogue=1", "stages=3", NULL},
        {"persistent=1", "schedule=1", "tile_n=128", NULL},                      /* 128x128 per consumer */
        {"persistent=1", "schedule=1", "tile_m=64", "epilogue=1", "stages=3", NULL}, /* 64x256 each */
        {"persistent=1", "schedule=1", "tile_n=128", "cluster_n=2", "epilogue=1", "stages=6", NULL},
        {"persistent=1", "stream_k=1", NULL},                                    /* stream-K, both epilogues */
        {"persistent=1", "stream_k=1", "epilogue=1", "stages=3", "meta_path=0", NULL},
        {"persistent=1", "stream_k=1", "tile_m=64", "consumers=1", "tile_n=128", NULL},
    };
    for (size_t t = 0; t < sizeof ok / sizeof ok[0]; t++) {
        struct croq_config c;
        char err[256], why[CROQ_WHY_MAX];
        knobs_default(&c, CROQ_DTYPE_F16);
        for (int i = 0; ok[t][i]; i++)
            if (knobs_set(&c, ok[t][i], err, sizeof err))
                fail_msg("%s: %s", ok[t][i], err);
        if (!knobs_validate(&c, &big, why, sizeof why))
            fail_msg("case %zu refused: %s", t, why);
    }
}

/* knobs_fit (fit.c): the nearest valid tile_k / swizzle / split_k, split_k kept first;
 * a config that already fits is left as it is; a shape nothing fits leaves cfg alone. */
static void test_fit(void **state)
{
    struct croq_config c, orig;
    char err[256], why[CROQ_WHY_MAX];
    knobs_default(&c, CROQ_DTYPE_F16);
    orig = c;
    assert_int_equal(knobs_fit(&c, &big), 0);
    assert_memory_equal(&c, &orig, sizeof c);
    /* tile_k=512 on K=128 (two stages, so shared memory holds 128): the nearest tile_k
     * that fits K is 128, split_k stays 1 */
    assert_int_equal(knobs_set(&c, "tile_k=512", err, sizeof err), 0);
    assert_int_equal(knobs_set(&c, "stages=2", err, sizeof err), 0);
    const struct croq_shape k128 = {4096, 4096, 128};
    assert_false(knobs_validate(&c, &k128, why, sizeof why));
    assert_int_equal(knobs_fit(&c, &k128), 0);
    assert_true(knobs_validate(&c, &k128, why, sizeof why));
    assert_int_equal(c.v[KNOB_TILE_K], 128);
    assert_int_equal(c.v[KNOB_SPLIT_K], 1);
    /* K=32 is below every tile_k: nothing fits, cfg unchanged */
    const struct croq_shape k32 = {4096, 4096, 32};
    orig = c;
    assert_int_equal(knobs_fit(&c, &k32), -1);
    assert_memory_equal(&c, &orig, sizeof c);
}

static void test_signature_round_trip(void **state)
{
    struct croq_config a, b;
    char sig[CROQ_SIG_MAX], err[256];
    knobs_default(&a, CROQ_DTYPE_E4M3);
    assert_int_equal(knobs_set(&a, "group=4", err, sizeof err), 0);
    knobs_signature(&a, sig);
    assert_int_equal(strncmp(sig, "dtype=e4m3,kernel=", 18), 0);
    assert_non_null(strstr(sig, ",group=4,"));
    assert_int_equal(knobs_parse_signature(&b, sig, err, sizeof err), 0);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(knobs_parse_signature(&b, "dtype=f16,kernel=1", err, sizeof err), -1);
    assert_non_null(strstr(err, "missing knob"));

    /* Late knobs: at the default they are not written, and a signature of a config that
     * predates them (what results.tsv rows hold) reads as the default; set, they are. */
    assert_null(strstr(sig, "schedule="));
    assert_int_equal(knobs_parse_signature(&b, sig, err, sizeof err), 0);
    assert_int_equal(b.v[KNOB_SCHEDULE], CROQ_V_COOPERATIVE);
    assert_int_equal(knobs_set(&a, "schedule=1", err, sizeof err), 0);
    knobs_signature(&a, sig);
    assert_non_null(strstr(sig, ",split_k=1,schedule=1"));
    assert_int_equal(knobs_parse_signature(&b, sig, err, sizeof err), 0);
    assert_memory_equal(&a, &b, sizeof a);
    /* stream_k (late): absent at 0, appended last when set */
    assert_null(strstr(sig, "stream_k="));
    assert_int_equal(b.v[KNOB_STREAM_K], 0);
    assert_int_equal(knobs_set(&a, "stream_k=1", err, sizeof err), 0);
    knobs_signature(&a, sig);
    assert_non_null(strstr(sig, ",schedule=1,stream_k=1"));
    assert_int_equal(knobs_parse_signature(&b, sig, err, sizeof err), 0);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(knobs_set(&a, "stream_k=0", err, sizeof err), 0);
    /* the old signature form of the default configuration, as recorded before schedule */
    assert_int_equal(knobs_parse_signature(&b,
                                           "dtype=f16,kernel=1,tile_m=128,tile_n=256,tile_k=64,stages=4,"
                                           "consumers=2,swizzle=128,raster=0,group=1,meta_path=1,epilogue=0,"
                                           "l2_a=0,l2_b=0,persistent=0,cluster_m=1,cluster_n=1,split_k=1",
                                           err, sizeof err),
                     0);
    knobs_default(&a, CROQ_DTYPE_F16);
    assert_memory_equal(&a, &b, sizeof a);
    knobs_signature(&a, sig);
    assert_string_equal(sig, "dtype=f16,kernel=1,tile_m=128,tile_n=256,tile_k=64,stages=4,"
                             "consumers=2,swizzle=128,raster=0,group=1,meta_path=1,epilogue=0,"
                             "l2_a=0,l2_b=0,persistent=0,cluster_m=1,cluster_n=1,split_k=1");
}

static void test_geometry(void **state)
{
    struct croq_config c;
    char err[256];
    knobs_default(&c, CROQ_DTYPE_F16);
    const char *sets[] = {"kernel=1", "tile_m=128", "tile_n=256", "tile_k=64", "stages=4", "consumers=2",
                          "meta_path=1", "epilogue=0"};
    for (int i = 0; i < 8; i++)
        assert_int_equal(knobs_set(&c, sets[i], err, sizeof err), 0);
    /* A 128x32x2 = 8192, B 256x64x2 = 32768 per stage; + 1024 alignment + 1024 barriers. */
    assert_int_equal(knobs_smem_bytes(&c), 1024 + 4 * (8192 + 32768) + 1024);
    assert_int_equal(knobs_threads(&c), 384);
    assert_int_equal(knobs_acc_regs(&c), 128);
    c.v[KNOB_META_PATH] = CROQ_V_META_TMA; /* + 2 m64 blocks x 1 k64 chunk x 512 B */
    assert_int_equal(knobs_smem_bytes(&c), 1024 + 4 * (8192 + 32768 + 1024) + 1024);
    c.v[KNOB_EPILOGUE] = CROQ_V_EPI_TMA; /* + 128x256 f16 C tile */
    assert_int_equal(knobs_smem_bytes(&c), 1024 + 4 * (8192 + 32768 + 1024) + 65536 + 1024);
    /* Ping-pong 128x128: each consumer owns the tile (2 slices x 64 accumulators) and
     * stages its own 128x128 f16 C tile. */
    c.v[KNOB_TILE_N] = 128;
    c.v[KNOB_PERSISTENT] = 1;
    c.v[KNOB_SCHEDULE] = CROQ_V_PINGPONG;
    assert_int_equal(knobs_tile_split(&c), 1);
    assert_int_equal(knobs_acc_regs(&c), 128);
    assert_int_equal(knobs_smem_bytes(&c), 1024 + 4 * (8192 + 16384 + 1024) + 2 * 32768 + 1024);
    c.v[KNOB_SCHEDULE] = CROQ_V_COOPERATIVE;
    assert_int_equal(knobs_tile_split(&c), 2);
    assert_int_equal(knobs_acc_regs(&c), 64);
    assert_int_equal(knobs_smem_bytes(&c), 1024 + 4 * (8192 + 16384 + 1024) + 32768 + 1024);
}

static void test_shape_parse(void **state)
{
    struct croq_shape s;
    assert_int_equal(shape_parse("4096x8192x1024", &s), 0);
    assert_int_equal(s.m, 4096);
    assert_int_equal(s.n, 8192);
    assert_int_equal(s.k, 1024);
    assert_int_equal(shape_parse("4096x8192", &s), -1);
    assert_int_equal(shape_parse("0x8x64", &s), -1);
    assert_int_equal(shape_parse("1x2x3x", &s), -1);
    assert_int_equal(shape_parse("axbxc", &s), -1);
    /* issue 24 item 13: a blank or a sign anywhere is refused, as a trailing blank is
     * (sscanf's %ld skipped leading blanks and took a '+') */
    assert_int_equal(shape_parse(" 1024x1024x1024", &s), -1);
    assert_int_equal(shape_parse("+1024x1024x1024", &s), -1);
    assert_int_equal(shape_parse("1024x 1024x1024", &s), -1);
    assert_int_equal(shape_parse("1024x1024x+1024", &s), -1);
    assert_int_equal(shape_parse("1024x1024x1024 ", &s), -1);
    assert_int_equal(shape_parse("1024x-1024x1024", &s), -1);
    /* too many digits for any shape (and no overflow) */
    assert_int_equal(shape_parse("1024x1024x99999999999999999999", &s), -1);
}

/* ---- JSON ---- */

static void test_json_round_trip(void **state)
{
    struct croq_config a, b;
    char err[256];
    knobs_baseline(&a, CROQ_DTYPE_E4M3);
    json_t *j = knobs_to_json(&a);
    assert_string_equal(json_string_value(json_object_get(j, "dtype")), "e4m3");
    assert_int_equal(json_integer_value(json_object_get(j, "kernel")), 0);
    assert_int_equal(json_object_size(j), KNOB_FIRST_LATE + 1); /* late knobs at default left out */
    assert_int_equal(knobs_from_json(&b, j, err, sizeof err), 0);
    assert_memory_equal(&a, &b, sizeof a);
    json_decref(j);

    /* Knobs left out take the dtype's defaults. */
    j = json_pack("{s:s, s:i}", "dtype", "f16", "stages", 2);
    assert_int_equal(knobs_from_json(&b, j, err, sizeof err), 0);
    knobs_default(&a, CROQ_DTYPE_F16);
    a.v[KNOB_STAGES] = 2;
    assert_memory_equal(&a, &b, sizeof a);
    json_decref(j);
}

static void expect_json_error(const char *text, const char *reason)
{
    struct croq_config c;
    char err[256];
    json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
    assert_non_null(j);
    assert_int_equal(knobs_from_json(&c, j, err, sizeof err), -1);
    if (strcmp(err, reason))
        fail_msg("for %s: got '%s', want '%s'", text, err, reason);
    json_decref(j);
}

static void test_json_errors(void **state)
{
    expect_json_error("{\"dtype\":\"f16\",\"tile_q\":1}",
                      "unknown key \"tile_q\" (not a knob; see 'croqtuner knobs')");
    expect_json_error("{\"dtype\":\"f16\",\"persistent\":true}", "knob \"persistent\" must be an integer");
    expect_json_error("{\"dtype\":\"f16\",\"tile_m\":128.0}", "knob \"tile_m\" must be an integer");
    expect_json_error("{\"dtype\":\"f16\",\"tile_m\":\"128\"}", "knob \"tile_m\" must be an integer");
    expect_json_error("{\"dtype\":\"f16\",\"tile_m\":96}", "knob \"tile_m\": value 96 is not one of its allowed values");
    expect_json_error("{\"dtype\":\"f16\",\"tile_m\":99999999999}",
                      "knob \"tile_m\": value 99999999999 is not one of its allowed values");
    expect_json_error("{\"tile_m\":128}", "missing \"dtype\" (\"f16\" or \"e4m3\")");
    expect_json_error("{\"dtype\":\"bf16\"}", "\"dtype\" must be \"f16\" or \"e4m3\"");
    expect_json_error("[1,2]", "a configuration must be a JSON object");
}

static void test_json_files_and_args(void **state)
{
    char dir[] = "/tmp/croq-test-knobs.XXXXXX", path[64], bad[64], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/cfg.json", dir);
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    struct croq_config a, b;
    knobs_default(&a, CROQ_DTYPE_F16);
    a.v[KNOB_GROUP] = 8;
    assert_int_equal(knobs_save(path, &a, err, sizeof err), 0);
    char *text = read_file(path, NULL);
    assert_int_equal(strncmp(text, "{\n  \"dtype\": \"f16\",\n  \"kernel\": ", 31), 0);
    free(text);
    assert_int_equal(knobs_load(path, &b, err, sizeof err), 0);
    assert_memory_equal(&a, &b, sizeof a);

    /* CLI composition: file, then --set on top; --dtype must agree with the file. */
    const char *sets[] = {"stages=2", "raster=1"};
    assert_int_equal(knobs_from_args(&b, "f16", path, sets, 2, err, sizeof err), 0);
    assert_int_equal(b.v[KNOB_GROUP], 8);
    assert_int_equal(b.v[KNOB_STAGES], 2);
    assert_int_equal(b.v[KNOB_RASTER], 1);
    assert_int_equal(knobs_from_args(&b, "e4m3", path, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "--dtype e4m3 disagrees with '"));
    assert_int_equal(knobs_from_args(&b, NULL, NULL, NULL, 0, err, sizeof err), -1);
    assert_string_equal(err, "--dtype is required (f16 or e4m3)");
    assert_int_equal(knobs_from_args(&b, "f32", NULL, NULL, 0, err, sizeof err), -1);
    assert_string_equal(err, "unknown dtype 'f32' (f16 or e4m3)");
    assert_int_equal(knobs_from_args(&b, "e4m3", NULL, NULL, 0, err, sizeof err), 0);
    knobs_default(&a, CROQ_DTYPE_E4M3);
    assert_memory_equal(&a, &b, sizeof a);

    assert_int_equal(atomic_write_str(bad, "{\"dtype\": \"f16\",\n \"stages\": 3,\n \"stages\": 4}\n"), 0);
    assert_int_equal(knobs_load(bad, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot parse '"));
    assert_non_null(strstr(err, "duplicate object key"));
    assert_int_equal(atomic_write_str(bad, "{\"dtype\": \"f16\", \"stages\": 30}\n"), 0);
    assert_int_equal(knobs_load(bad, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad configuration in '"));
    assert_non_null(strstr(err, "value 30 is not one of its allowed values"));
    unlink(bad);
    assert_int_equal(knobs_load(bad, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot read '"));
    unlink(path);
    rmdir(dir);
}


/* One parser for every --set (build, bench, compare, knobs, propose): blanks or commas. */
static void test_set_list(void **state)
{
    struct croq_config c;
    char err[256];
    knobs_default(&c, CROQ_DTYPE_F16);
    assert_int_equal(knobs_set_list(&c, "stages=3,group=8 raster=1", err, sizeof err), 0);
    assert_int_equal(c.v[KNOB_STAGES], 3);
    assert_int_equal(c.v[KNOB_GROUP], 8);
    assert_int_equal(c.v[KNOB_RASTER], 1);
    assert_int_equal(knobs_set_list(&c, " , ", err, sizeof err), -1);
    assert_string_equal(err, "empty --set (expected knob=value)");
    assert_int_equal(knobs_set_list(&c, "stages=2,nope=1", err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown knob 'nope'"));
    /* blanks next to '=' belong to the assignment, on either side (finding 8: "tile_m= 128"
     * was read as "tile_m=" and "128") */
    assert_int_equal(knobs_set_list(&c, "tile_m= 64, stages =5\tgroup = 4 raster=0 ", err, sizeof err), 0);
    assert_int_equal(c.v[KNOB_TILE_M], 64);
    assert_int_equal(c.v[KNOB_STAGES], 5);
    assert_int_equal(c.v[KNOB_GROUP], 4);
    assert_int_equal(c.v[KNOB_RASTER], 0);
    assert_int_equal(knobs_set_list(&c, "tile_m = ", err, sizeof err), -1);
    assert_string_equal(err, "knob 'tile_m': value '' is not an integer");
    /* a signature with blanks after its commas reads as the one without */
    struct croq_config d;
    char sig[CROQ_SIG_MAX], spaced[2 * CROQ_SIG_MAX], back[CROQ_SIG_MAX];
    knobs_signature(&c, sig);
    size_t n = 0;
    for (const char *p = sig; *p; p++) {
        spaced[n++] = *p;
        if (*p == ',')
            spaced[n++] = ' ';
    }
    spaced[n] = '\0';
    assert_int_equal(knobs_parse_signature(&d, spaced, err, sizeof err), 0);
    knobs_signature(&d, back);
    assert_string_equal(back, sig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_consistent),
        cmocka_unit_test(test_defaults_and_baseline_valid),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_validate_rejects),
        cmocka_unit_test(test_validate_accepts),
        cmocka_unit_test(test_fit),
        cmocka_unit_test(test_register_rule),
        cmocka_unit_test(test_set_list),
        cmocka_unit_test(test_signature_round_trip),
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_shape_parse),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_json_files_and_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
