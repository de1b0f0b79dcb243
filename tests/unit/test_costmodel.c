/* tests/unit/test_costmodel.c — the cost model module (src/costmodel): the serialized
 * format round-trips to the same predictions, a damaged or other-version model is refused
 * with a message naming the problem, and the fit over several shapes ranks a known better
 * configuration above a worse one on a shape it has not seen, and leave-one-shape-out
 * judges it on each shape in turn. (The proposer's use of the
 * model: test_proposer_model.c.) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/costmodel.h"

/* A synthetic GPU: a shape's level grows with its size; 5 stages x1.3, group 8 x1.1,
 * the 64-B swizzle x0.8, a tile_n of 128 x0.9 (so tiles matter too); and a wave whose
 * operand panels overflow the L2 loses 5 % per doubling of the overflow, as the model's
 * feature wave_l2_over measures it: a real GPU pays for it (the H200's library run,
 * docs/library.md), so a fit that could not find its weight would misrank these shapes'
 * groups and tiles; and deeper pipelines pay more on grids of more waves (feature
 * stages_waves: exp(0.08 x), the weight the fit on the H200 sweep gives it). */
static int feature_index(const char *name)
{
    char f[64];
    for (int j = 0; costmodel_feature_name(j, f, sizeof f) == 0; j++)
        if (!strcmp(f, name))
            return j;
    fail_msg("no feature '%s'", name);
    return -1;
}

static double truth(const struct croq_config *c, const struct croq_shape *s)
{
    double x[COSTMODEL_FEATURES];
    int p = costmodel_features(c, s, x);
    assert_true(p > 0);
    int over = feature_index("wave_l2_over"), sw = feature_index("stages_waves");
    double level = 100 * log((double)s->m * (double)s->n * (double)s->k) / log(2) / 36;
    return level * (c->v[KNOB_STAGES] == 5 ? 1.3 : 1) * (c->v[KNOB_GROUP] == 8 ? 1.1 : 1) *
           (c->v[KNOB_SWIZZLE] == 64 ? 0.8 : 1) * (c->v[KNOB_TILE_N] == 128 ? 0.9 : 1) * pow(0.95, x[over]) *
           exp(0.08 * x[sw]);
}

/* Half of a 3 x 3 x 2 x 2 grid of (stages, group, swizzle, tile_n) per shape, with a
 * shape-dependent half so every value is seen somewhere. */
static size_t samples(const struct croq_shape *shapes, int n_shapes, struct costmodel_sample *out)
{
    const int stages[] = {3, 4, 5}, groups[] = {1, 4, 8}, swz[] = {128, 64}, tn[] = {256, 128};
    size_t n = 0;
    for (int h = 0; h < n_shapes; h++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                for (int s = 0; s < 2; s++)
                    for (int t = 0; t < 2; t++) {
                        if ((a + b + s + t + h) % 2)
                            continue;
                        struct costmodel_sample *o = &out[n++];
                        knobs_default(&o->cfg, CROQ_DTYPE_F16);
                        o->cfg.v[KNOB_STAGES] = stages[a];
                        o->cfg.v[KNOB_GROUP] = groups[b];
                        o->cfg.v[KNOB_SWIZZLE] = swz[s];
                        o->cfg.v[KNOB_TILE_N] = tn[t];
                        o->shape = shapes[h];
                        o->tflops = truth(&o->cfg, &o->shape);
                    }
    return n;
}

static const struct croq_shape train[] = {{4096, 8192, 8192}, {8192, 8192, 8192}, {4096, 4096, 8192}, {8192, 4096, 4096}};
static const struct croq_shape unseen = {6144, 6144, 8192};

static struct costmodel fitted, parsed[2];

static void fit_fixture(void)
{
    static struct costmodel_sample s[256];
    size_t n = samples(train, 4, s);
    assert_int_equal(costmodel_fit_shapes(&fitted, CROQ_DTYPE_F16, s, n), 0);
    assert_int_equal(fitted.n, (int)n);
    assert_int_equal(fitted.n_groups, 4);
    assert_true(fitted.has_level);
}

/* The fit ranks by what the rows say, on a shape none of them had. */
static void test_fit_shapes_ranks_unseen_shape(void **state)
{
    (void)state;
    fit_fixture();
    struct croq_config good, bad;
    knobs_default(&good, CROQ_DTYPE_F16);
    good.v[KNOB_STAGES] = 5, good.v[KNOB_GROUP] = 8, good.v[KNOB_SWIZZLE] = 128, good.v[KNOB_TILE_N] = 256;
    bad = good;
    bad.v[KNOB_STAGES] = 3, bad.v[KNOB_SWIZZLE] = 64;
    double pg = costmodel_predict(&fitted, &good, &unseen, NULL), pb = costmodel_predict(&fitted, &bad, &unseen, NULL);
    if (!(pg > 1.3 * pb))
        fail_msg("good %.1f vs bad %.1f TFLOPS predicted on the unseen shape", pg, pb);
    /* the level carries too: within 10 % of the synthetic truth */
    double t = truth(&good, &unseen);
    if (!(fabs(pg / t - 1) < 0.10))
        fail_msg("predicted %.1f, truth %.1f", pg, t);
    /* another dtype's rows only: no model */
    static struct costmodel_sample s[256];
    size_t n = samples(train, 4, s);
    struct costmodel *m = malloc(sizeof *m);
    assert_non_null(m);
    assert_int_equal(costmodel_fit_shapes(m, CROQ_DTYPE_E4M3, s, n), 0);
    assert_int_equal(m->n, 0);
    /* one shape: no cross-shape model either */
    assert_int_equal(costmodel_fit_shapes(m, CROQ_DTYPE_F16, s, n / 4), 0);
    assert_int_equal(m->n, 0);
    free(m);
}

static char *serialize(const struct costmodel *const *v, size_t n, long *len)
{
    *len = costmodel_serialize(v, n, NULL, 0);
    assert_true(*len > 0);
    char *buf = malloc((size_t)*len + 1);
    assert_non_null(buf);
    assert_int_equal(costmodel_serialize(v, n, buf, (size_t)*len + 1), *len);
    assert_int_equal(strlen(buf), (size_t)*len);
    return buf;
}

/* serialize -> parse -> the same bits for every prediction; serialize again -> the same text. */
static void test_round_trip(void **state)
{
    (void)state;
    fit_fixture();
    static struct costmodel e4;
    e4 = fitted;
    e4.dtype = CROQ_DTYPE_E4M3;
    e4.level[0] += 1;
    const struct costmodel *v[] = {&fitted, &e4};
    long len;
    char *text = serialize(v, 2, &len);
    static const char head[] = "croq-costmodel 2\nmodel f16\ntarget 132 232448 62914560\n";
    assert_true(!strncmp(text, head, strlen(head)));
    size_t n = 0;
    char err[256] = "";
    if (costmodel_parse(text, (size_t)len, parsed, 2, &n, err, sizeof err))
        fail_msg("parse: %s", err);
    assert_int_equal(n, 2);
    assert_int_equal(parsed[0].dtype, CROQ_DTYPE_F16);
    assert_ptr_equal(costmodel_find(parsed, n, CROQ_DTYPE_E4M3), &parsed[1]);
    static struct costmodel_sample s[256];
    const struct croq_shape all[] = {{4096, 8192, 8192}, {6144, 6144, 8192}, {768, 768, 768}, {1024, 8192, 1024}};
    size_t ns = samples(all, 4, s);
    for (size_t i = 0; i < ns; i++) {
        int u1, u2;
        double a = costmodel_predict(&fitted, &s[i].cfg, &s[i].shape, &u1);
        double b = costmodel_predict(&parsed[0], &s[i].cfg, &s[i].shape, &u2);
        if (memcmp(&a, &b, sizeof a) || u1 != u2)
            fail_msg("sample %zu: %.17g (unseen %d) fitted, %.17g (unseen %d) parsed", i, a, u1, b, u2);
        struct croq_config e = s[i].cfg;
        e.dtype = CROQ_DTYPE_E4M3;
        a = costmodel_predict(&e4, &e, &s[i].shape, NULL);
        b = costmodel_predict(&parsed[1], &e, &s[i].shape, NULL);
        assert_memory_equal(&a, &b, sizeof a);
    }
    /* a knob value no row had is still "unseen" after the round trip */
    struct croq_config odd = s[0].cfg;
    odd.v[KNOB_TILE_M] = croq_knobs[KNOB_TILE_M].values[0] == odd.v[KNOB_TILE_M] ? croq_knobs[KNOB_TILE_M].values[1]
                                                                                   : croq_knobs[KNOB_TILE_M].values[0];
    int u;
    costmodel_predict(&parsed[0], &odd, &all[0], &u);
    assert_int_equal(u, 1);
    const struct costmodel *w[] = {&parsed[0], &parsed[1]};
    long len2;
    char *again = serialize(w, 2, &len2);
    assert_int_equal(len2, len);
    assert_string_equal(again, text);
    /* a buffer too small gets a NUL-terminated prefix and the length it needs */
    char small[40];
    assert_int_equal(costmodel_serialize(v, 2, small, sizeof small), len);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_true(!strncmp(small, text, sizeof small - 1));
    free(again);
    free(text);
}

/* Parse a copy of text with one edit; expect a refusal whose message contains want. */
static void refused(const char *text, const char *what, const char *with, const char *want)
{
    char *t = malloc(strlen(text) + strlen(with) + 1);
    assert_non_null(t);
    const char *at = strstr(text, what);
    assert_non_null(at);
    size_t pre = (size_t)(at - text);
    memcpy(t, text, pre);
    strcpy(t + pre, with);
    strcat(t, at + strlen(what));
    size_t n = 99;
    char err[256] = "";
    if (!costmodel_parse(t, strlen(t), parsed, 2, &n, err, sizeof err))
        fail_msg("accepted with '%s' -> '%s'", what, with);
    if (!strstr(err, want))
        fail_msg("'%s' -> '%s': message '%s' lacks '%s'", what, with, err, want);
    free(t);
}

/* The sum of a text edited after its sum line was written: recomputed, so the checks
 * behind the sum (version, fields, names) are reached. */
static char *resum(const char *text)
{
    size_t len = strlen(text);
    const char *last = text + len - 1;
    while (last > text && last[-1] != '\n')
        last--;
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = text; p < last; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    char *out = malloc(len + 32);
    assert_non_null(out);
    snprintf(out, len + 32, "%.*ssum %016llx\n", (int)(last - text), text, (unsigned long long)h);
    return out;
}

static void refused_resummed(const char *text, const char *what, const char *with, const char *want)
{
    char *t = malloc(strlen(text) + strlen(with) + 1);
    assert_non_null(t);
    const char *at = strstr(text, what);
    assert_non_null(at);
    memcpy(t, text, (size_t)(at - text));
    strcpy(t + (at - text), with);
    strcat(t, at + strlen(what));
    char *r = resum(t);
    size_t n = 99;
    char err[256] = "";
    if (!costmodel_parse(r, strlen(r), parsed, 2, &n, err, sizeof err))
        fail_msg("accepted with '%s' -> '%s'", what, with);
    if (!strstr(err, want))
        fail_msg("'%s' -> '%s': message '%s' lacks '%s'", what, with, err, want);
    free(r);
    free(t);
}

static void test_refused(void **state)
{
    (void)state;
    fit_fixture();
    const struct costmodel *v[] = {&fitted};
    long len;
    char *text = serialize(v, 1, &len);
    size_t n;
    char err[256];
    /* damaged: one digit, a truncation, nothing */
    refused(text, "\nmean ", "\nmean 1", "does not match");
    assert_int_equal(costmodel_parse(text, (size_t)len - 10, parsed, 2, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "no 'sum' line"));
    assert_int_equal(costmodel_parse(text, 0, parsed, 2, &n, err, sizeof err), -1);
    /* another version, another magic, another target, an unknown feature, a bad number,
     * a missing field, too many models for the caller */
    refused_resummed(text, "croq-costmodel 2\n", "croq-costmodel 3\n", "format version 3; this build reads version 2");
    /* version 1 had no L2 on its target line, and wave_l2_over was fitted for some L2 */
    refused_resummed(text, "croq-costmodel 2\n", "croq-costmodel 1\n", "format version 1; this build reads version 2");
    refused_resummed(text, "croq-costmodel 2\n", "croq-pack 1\n", "not a cost model");
    refused_resummed(text, "target 132 ", "target 114 ", "assume 114 SMs");
    refused_resummed(text, " 232448 62914560\n", " 232448 52428800\n", "and 52428800 bytes of L2");
    refused_resummed(text, " 232448 62914560\n", " 232448\n", "'target' needs 3 fields, has 2");
    refused_resummed(text, "f waves ", "f waves2 ", "feature 'waves2' is unknown");
    refused_resummed(text, "\nmean 0\n", "\nmean x\n", "line 5: mean 'x' is not a finite number");
    refused_resummed(text, "\nmean 0\n", "\nmean nan\n", "mean 'nan' is not a finite number");
    refused_resummed(text, "\nmean 0\n", "\nmean 0 \n", "a trailing space");
    refused_resummed(text, "\nfit ", "\nfit 3 ", "'fit' needs 3 fields");
    refused_resummed(text, "model f16", "model f32", "unknown dtype 'f32'");
    refused_resummed(text, "\nend\n", "\n", "the text ends early");
    refused_resummed(text, "\nend\n", "\nend\nmodel e4m3\n", "the text ends early");
    refused_resummed(text, "\nend\n", "\nfin\n", "expected 'end', read 'fin'");
    /* consistent only in its sum (attack finding 7): one shape, more shapes than rows, a
     * negative sigma, no features, a mean or a weight no fit of ln TFLOPS gives */
    {
        char fitline[128], mod[160];
        const char *f = strstr(text, "\nfit ");
        assert_non_null(f);
        snprintf(fitline, sizeof fitline, "%.*s", (int)(strchr(f + 1, '\n') - f), f);
        long rows = 0, shapes = 0;
        double sigma = 0;
        assert_int_equal(sscanf(fitline, "\nfit %ld %ld %lf", &rows, &shapes, &sigma), 3);
        snprintf(mod, sizeof mod, "\nfit %ld 1 %.17g", rows, sigma);
        refused_resummed(text, fitline, mod, "a model is fitted on 2 or more shapes");
        snprintf(mod, sizeof mod, "\nfit 2 3 %.17g", sigma);
        refused_resummed(text, fitline, mod, "fit of 2 rows over 3 shapes");
        snprintf(mod, sizeof mod, "\nfit %ld %ld -0.5", rows, shapes);
        refused_resummed(text, fitline, mod, "sigma -0.5 is not in [0, 1000]");
        snprintf(mod, sizeof mod, "\nfit %ld %ld 1e300", rows, shapes);
        refused_resummed(text, fitline, mod, "sigma 1e+300 is not in [0, 1000]");
        /* numbers as strtod/strtol take them but the writer never prints them */
        snprintf(mod, sizeof mod, "\nfit %ld %ld 0x1p-3", rows, shapes);
        refused_resummed(text, fitline, mod, "sigma '0x1p-3' is not a finite number");
        snprintf(mod, sizeof mod, "\nfit %ld %ld +%.17g", rows, shapes, sigma);
        refused_resummed(text, fitline, mod, "is not a finite number");
    }
    refused_resummed(text, " 232448 62914560\n", " 232448 +62914560\n", "L2 bytes '+62914560' is not an integer");
    refused_resummed(text, " 232448 62914560\n", " 232448 062914560\n", "L2 bytes '062914560' is not an integer");
    refused_resummed(text, " 232448 62914560\n", " 232448 \t62914560\n", "a byte that is no printable ASCII at column");
    refused_resummed(text, "croq-costmodel 2\n", "croq-costmodel 2\r\n", "line 1: a carriage return at column 17");
    refused_resummed(text, "\nlevel 1 ", "\nlevel 1 1e308 0 0 0\nlevel-was ", "level coefficient 1e+308 is no logarithm");
    refused_resummed(text, "\nmean 0\n", "\nmean 1e308\n", "mean 1e+308 is no logarithm of a TFLOPS");
    refused_resummed(text, "\nfeatures ", "\nfeatures 0\nfeatures-was ", "features '0' is not an integer in [1,");
    refused_resummed(text, "\nf waves 0 ", "\nf waves 0 0 1e300\nf-was ", "weight 1e+300");
    const struct costmodel *two[] = {&fitted, &fitted};
    long len2;
    char *dup = serialize(two, 2, &len2);
    assert_int_equal(costmodel_parse(dup, (size_t)len2, parsed, 2, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "a second model of dtype f16"));
    assert_int_equal(costmodel_parse(dup, (size_t)len2, parsed, 1, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 1 models"));
    /* an unfitted model is not written */
    static struct costmodel empty;
    const struct costmodel *e[] = {&empty};
    assert_int_equal(costmodel_serialize(e, 1, NULL, 0), -1);
    free(dup);
    free(text);
}

/* A model whose file lacks a feature (an older knob table) still reads: it weighs 0. */
static void test_missing_feature_weighs_zero(void **state)
{
    (void)state;
    fit_fixture();
    const struct costmodel *v[] = {&fitted};
    long len;
    char *text = serialize(v, 1, &len);
    char *at = strstr(text, "\nf waves ");
    assert_non_null(at);
    char *eol = strchr(at + 1, '\n');
    memmove(at, eol, strlen(eol) + 1);
    char *cnt = strstr(text, "\nfeatures ");
    int p = atoi(cnt + 10);
    char num[16];
    snprintf(num, sizeof num, "%d", p);
    char with[16];
    snprintf(with, sizeof with, "%d", p - 1);
    memcpy(cnt + 10, with, strlen(with)); /* the same width (70 -> 69) */
    assert_int_equal(strlen(with), strlen(num));
    char *r = resum(text);
    size_t n;
    char err[256] = "";
    if (costmodel_parse(r, strlen(r), parsed, 2, &n, err, sizeof err))
        fail_msg("parse: %s", err);
    assert_int_equal(n, 1);
    int j = p - COSTMODEL_DERIVED - COSTMODEL_SHAPE_EXTRA; /* waves: the first derived feature */
    assert_true(fitted.w[j] != 0);
    assert_true(parsed[0].w[j] == 0 && parsed[0].xbar[j] == 0);
    assert_true(parsed[0].w[j + 1] == fitted.w[j + 1]);
    free(r);
    free(text);
}

/* Leave-one-shape-out on the synthetic GPU: each shape held out is predicted from the other
 * three, the model's pick is the best configuration, and a dtype with one shape gets no model. */
/* The interactions on the shapes that chose them (docs/proposer.md): one wave of 128x256
 * tiles with a k-loop of 64 (e4m3 8192x512x8192 of the H200's library run), where a deep
 * pipeline pays in full, and 62 waves of them, where it pays 1/sqrt(62) of that. */
static void test_interaction_features(void **state)
{
    (void)state;
    struct croq_config c;
    knobs_default(&c, CROQ_DTYPE_E4M3);
    c.v[KNOB_TILE_M] = 128, c.v[KNOB_TILE_N] = 256, c.v[KNOB_TILE_K] = 128, c.v[KNOB_STAGES] = 5;
    c.v[KNOB_SPLIT_K] = 1, c.v[KNOB_PERSISTENT] = 0;
    const struct croq_shape one = {8192, 512, 8192}, many = {16384, 16384, 8192};
    int sk = feature_index("stages_kloop"), sw = feature_index("stages_waves"), pk = feature_index("persistent_kloop");
    double x[COSTMODEL_FEATURES];
    assert_true(costmodel_features(&c, &one, x) > sk);
    assert_float_equal(x[sk], log2(5) * 6 / 8, 1e-12); /* 128 CTAs: waves < 1 counts as 1 */
    assert_float_equal(x[sw], 0, 1e-12);
    assert_float_equal(x[pk], 0, 1e-12); /* not persistent */
    assert_true(costmodel_features(&c, &many, x) > sk);
    double waves = 128.0 * 64 / COSTMODEL_SM_COUNT;
    assert_float_equal(x[sk], log2(5) * 6 / 8 / sqrt(waves), 1e-12);
    assert_float_equal(x[sw], log2(5) * log2(waves) / 4, 1e-12);
    c.v[KNOB_PERSISTENT] = 1;
    assert_true(costmodel_features(&c, &many, x) > pk);
    assert_float_equal(x[pk], 6.0 / 8, 1e-12);
}

static void test_leave_out(void **state)
{
    (void)state;
    static struct costmodel_sample s[256];
    static double row_err[256];
    struct costmodel_heldout h[8];
    size_t n = samples(train, 4, s), nh;
    s[n] = s[0];
    s[n].cfg.dtype = CROQ_DTYPE_E4M3; /* another dtype: not held out, not fitted */
    n++;
    assert_int_equal(costmodel_leave_out(CROQ_DTYPE_F16, s, n, h, 8, &nh, row_err), 0);
    assert_int_equal(nh, 4);
    for (size_t i = 0; i < nh; i++) {
        assert_memory_equal(&h[i].shape, &train[i], sizeof train[i]);
        assert_true(h[i].fitted);
        assert_int_equal(h[i].fit_shapes, 3);
        assert_int_equal(h[i].rows, 18);
        assert_int_equal(h[i].configs, 18);
        assert_int_equal(h[i].best_rank, 0);
        assert_true(h[i].pick_ratio == 1 && h[i].top_ratio == 1);
        assert_memory_equal(&h[i].pick, &h[i].best, sizeof h[i].best);
        if (!(h[i].err_median < 0.1 && h[i].err_worst < 0.2 && h[i].rel_err_worst < 0.1))
            fail_msg("shape %zu: err median %.3f worst %.3f, rel worst %.3f", i, h[i].err_median, h[i].err_worst,
                     h[i].rel_err_worst);
    }
    for (size_t i = 0; i + 1 < n; i++)
        assert_false(isnan(row_err[i]));
    assert_true(isnan(row_err[n - 1]));
    /* too small an output array; a single e4m3 shape: held out with nothing to fit on */
    assert_int_equal(costmodel_leave_out(CROQ_DTYPE_F16, s, n, h, 3, &nh, NULL), -1);
    assert_int_equal(costmodel_leave_out(CROQ_DTYPE_E4M3, s, n, h, 8, &nh, NULL), 0);
    assert_int_equal(nh, 1);
    assert_false(h[0].fitted);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_shapes_ranks_unseen_shape),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_missing_feature_weighs_zero),
        cmocka_unit_test(test_interaction_features),
        cmocka_unit_test(test_leave_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
