/* src/measure/compare.c — `croq-runner compare`: spawn and parse its "results" and
 * "ratios" (docs/runner-protocol.md, compare output). */
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numbers.h"
#include "parse_common.h"
#include "spawn_runner.h"

const char *const measure_cmp_names[MEASURE_CMP_COUNT] = {
    [MEASURE_CMP_SLT_DEFAULT] = "cusparselt_default",
    [MEASURE_CMP_SLT_SEARCH] = "cusparselt_search",
    [MEASURE_CMP_CUBLAS] = "cublas",
    [MEASURE_CMP_OURS] = "ours",
};

static void entry_clear(struct measure_cmp_entry *e)
{
    memset(e, 0, sizeof *e);
    e->max_err_over_tol = e->tflops = e->median_ms = e->spread_pct = NAN;
    e->sm_clock_mhz = e->hw_eff_pct = NAN;
}

/* A number array of at most max elements into out; its length, -1 (failed) when it is not one. */
static int read_numbers(struct jget *g, json_t *arr, const char *pfx, const char *key, double *out, int max)
{
    size_t i, n = json_array_size(arr);
    json_t *x;
    if (n > (size_t)max) {
        jget_fail(g, pfx, key, "holds more values than the runner's limit");
        return -1;
    }
    json_array_foreach(arr, i, x) {
        if (!jget_value_num(x, &out[i])) {
            jget_fail(g, pfx, key, "holds something that is not a number");
            return -1;
        }
    }
    return (int)n;
}

/* The numbers of a verified, timed subject, which vendor.json and the table record: in
 * range and consistent with its own trials (numbers.h), TFLOPS against 2MNK when the reply
 * names its problem (flops > 0), its trials one per round when interleaved (rounds > 0). */
static void check_entry(struct jget *g, const char *name, const struct measure_cmp_entry *e, bool timed,
                        const double *trials, int n_trials, double flops, int rounds)
{
    struct measure_numbers x;
    char why[400], pfx[64];
    if (!e->verified || !timed || g->failed)
        return;
    snprintf(pfx, sizeof pfx, "results.%s.timing", name);
    if (rounds > 0 && n_trials > 0 && n_trials != rounds) {
        snprintf(why, sizeof why, "holds %d trials, not one per round of %d", n_trials, rounds);
        jget_fail(g, pfx, "trials", why);
        return;
    }
    measure_numbers_init(&x);
    x.max_err_over_tol = e->max_err_over_tol;
    x.flops = flops;
    x.n_trials = n_trials, x.trial_ms = trials;
    x.median_ms = e->median_ms, x.spread_pct = e->spread_pct, x.tflops = e->tflops;
    x.sm_clock_mhz = e->sm_clock_mhz;
    if (measure_numbers_check(&x, MEASURE_CHECK_VERIFY | MEASURE_CHECK_TIMING, why, sizeof why)) {
        snprintf(g->err, g->errlen, "%sresults.%s: %s", g->ctx, name, why);
        g->failed = true;
    }
}

static void read_entry(struct jget *g, json_t *o, const char *name, struct measure_cmp_entry *e, double flops,
                       int rounds)
{
    json_t *v;
    bool passed = false;
    double trials[MEASURE_MAX_TRIALS];
    int n_trials = 0;
    bool timed = false;
    e->present = true;
    jget_bool(g, o, name, "available", true, &e->available);
    jget_text(g, o, name, "status", true, e->status, sizeof e->status);
    jget_text(g, o, name, "note", false, e->note, sizeof e->note);
    jget_text(g, o, name, "error", false, e->error, sizeof e->error);
    if ((v = jget_obj(g, o, name, "verify", false))) {
        jget_bool(g, v, name, "passed", true, &passed);
        jget_num(g, v, name, "max_err_over_tol", false, &e->max_err_over_tol);
        e->verified = passed;
    }
    if ((v = jget_obj(g, o, name, "timing", false))) {
        timed = true;
        jget_num(g, v, name, "tflops", true, &e->tflops);
        jget_num(g, v, name, "median_ms", true, &e->median_ms);
        jget_num(g, v, name, "spread_pct", false, &e->spread_pct);
        json_t *t = jget_array(g, v, name, "trials", false);
        if (t && (n_trials = read_numbers(g, t, name, "trials", trials, MEASURE_MAX_TRIALS)) < 0)
            n_trials = 0;
    }
    if ((v = jget_obj(g, o, name, "gpu_state", false)))
        jget_num(g, v, name, "sm_clock_median_mhz", false, &e->sm_clock_mhz);
    if ((v = jget_obj(g, o, name, "peak", false)))
        jget_num(g, v, name, "hw_eff_pct", false, &e->hw_eff_pct);
    check_entry(g, name, e, timed, trials, n_trials, flops, rounds);
}

static void read_ratios(struct jget *g, json_t *o, struct measure_compare *c)
{
    jget_num(g, o, "ratios", "ours_over_cusparselt_search", false, &c->ours_over_slt_search);
    jget_num(g, o, "ratios", "ours_over_cusparselt_default", false, &c->ours_over_slt_default);
    jget_num(g, o, "ratios", "ours_over_cublas", false, &c->ours_over_cublas);
    jget_num(g, o, "ratios", "cusparselt_search_over_cublas", false, &c->slt_search_over_cublas);
}

static const char *const protocol_names[] = {[MEASURE_PROTO_BLOCKS] = "blocks",
                                             [MEASURE_PROTO_INTERLEAVED] = "interleaved"};

const char *measure_cmp_protocol_name(enum measure_cmp_protocol p)
{
    return p == MEASURE_PROTO_INTERLEAVED ? protocol_names[p] : protocol_names[MEASURE_PROTO_BLOCKS];
}

int measure_cmp_protocol_parse(const char *text, enum measure_cmp_protocol *out)
{
    for (size_t i = 0; text && i < sizeof protocol_names / sizeof *protocol_names; i++)
        if (!strcmp(text, protocol_names[i])) {
            *out = (enum measure_cmp_protocol)i;
            return 0;
        }
    return -1;
}

/* paired.<name>: null, or {"ratios": [...], "median", "lo", "hi", ...} with lo <= median <= hi,
 * one ratio per round, median and interval those of the ratios (numbers.h). */
static void read_paired(struct jget *g, json_t *o, const char *name, int rounds, struct measure_cmp_paired *p)
{
    json_t *v = jget_obj_or_null(g, o, "paired", name);
    double ratios[MEASURE_MAX_TRIALS];
    char pfx[80], why[400];
    if (!v)
        return;
    snprintf(pfx, sizeof pfx, "paired.%s", name);
    json_t *r = jget_array(g, v, pfx, "ratios", true);
    jget_num(g, v, pfx, "median", true, &p->median);
    jget_num(g, v, pfx, "lo", true, &p->lo);
    jget_num(g, v, pfx, "hi", true, &p->hi);
    int n = r ? read_numbers(g, r, pfx, "ratios", ratios, MEASURE_MAX_TRIALS) : -1;
    if (g->failed)
        return;
    if (!(p->median > 0 && p->lo > 0 && p->lo <= p->median && p->median <= p->hi && isfinite(p->hi))) {
        jget_fail(g, "paired", name, "is not a positive median inside its interval [lo, hi]");
        return;
    }
    if (n != rounds) {
        snprintf(why, sizeof why, "holds %d ratios, not one per round of %d", n, rounds);
        jget_fail(g, pfx, "ratios", why);
        return;
    }
    struct measure_numbers x;
    measure_numbers_init(&x);
    x.ratio = p->median, x.ratio_lo = p->lo, x.ratio_hi = p->hi;
    x.n_ratios = n, x.ratios = ratios;
    if (measure_numbers_check(&x, MEASURE_CHECK_RATIOS, why, sizeof why)) {
        snprintf(g->err, g->errlen, "%s%s: %s", g->ctx, pfx, why);
        g->failed = true;
        return;
    }
    p->n = n;
}

static void compare_clear(struct measure_compare *c)
{
    for (int i = 0; i < MEASURE_CMP_COUNT; i++) {
        entry_clear(&c->e[i]);
        c->paired[i] = (struct measure_cmp_paired){NAN, NAN, NAN, 0};
    }
    c->ours_over_slt_search = c->ours_over_slt_default = c->ours_over_cublas = NAN;
    c->slt_search_over_cublas = NAN;
    c->protocol = MEASURE_PROTO_BLOCKS;
    c->rounds = 0;
}

/* "protocol" (absent: a runner from before it, which timed in blocks) and, interleaved,
 * the rounds of "interleave" and the paired ratios. */
static void read_protocol(struct jget *g, json_t *root, struct measure_compare *c)
{
    char name[32] = "";
    long long rounds = 0;
    json_t *o;
    if (jget_str(g, root, "", "protocol", false, name, sizeof name) && measure_cmp_protocol_parse(name, &c->protocol))
        jget_fail(g, "", "protocol", "is not \"interleaved\" or \"blocks\"");
    if (c->protocol != MEASURE_PROTO_INTERLEAVED)
        return;
    /* the rounds say what an interleaved reply's trials and paired ratios are */
    if ((o = jget_obj(g, root, "", "interleave", true)) &&
        jget_int_in(g, o, "interleave", "rounds", true, 1, MEASURE_MAX_TRIALS, &rounds))
        c->rounds = (int)rounds;
    if (g->failed)
        return;
    if ((o = jget_obj(g, root, "", "paired", false)))
        for (int i = 0; i < MEASURE_CMP_COUNT; i++)
            if (i != MEASURE_CMP_OURS) {
                char key[64];
                snprintf(key, sizeof key, "ours_over_%s", measure_cmp_names[i]);
                read_paired(g, o, key, c->rounds, &c->paired[i]);
            }
}

int measure_compare_parse(const char *text, struct measure_compare *c)
{
    struct jget g;
    json_t *o;
    compare_clear(c);
    json_t *root = parse_load(text, &c->run);
    if (!root)
        return -1;
    jget_init(&g, "runner output: ", c->run.error, sizeof c->run.error);
    parse_status(&g, root, &c->run);
    jget_text(&g, root, "", "gpu", false, c->run.gpu, sizeof c->run.gpu);
    jget_text(&g, root, "", "l2", false, c->run.l2, sizeof c->run.l2);
    if (c->run.l2[0] && strcmp(c->run.l2, "warm") && strcmp(c->run.l2, "cold"))
        jget_fail(&g, "", "l2", "is not \"warm\" or \"cold\"");
    parse_module_id(&g, root, "", "module_id", c->run.module_id); /* of --cubin */
    read_protocol(&g, root, c);
    /* the problem, when the reply names it (the runner does): each TFLOPS is 2MNK / its median */
    long long m = 0, n = 0, k = 0;
    double flops = jget_int(&g, root, "", "m", false, &m) && jget_int(&g, root, "", "n", false, &n) &&
                           jget_int(&g, root, "", "k", false, &k) && m > 0 && n > 0 && k > 0
                       ? 2.0 * (double)m * (double)n * (double)k
                       : 0;
    /* results are present whenever the runner got as far as measuring */
    json_t *results = jget_obj(&g, root, "", "results", c->run.status == MEASURE_OK);
    for (int i = 0; results && i < MEASURE_CMP_COUNT; i++)
        if ((o = jget_obj(&g, results, "results", measure_cmp_names[i], false)))
            read_entry(&g, o, measure_cmp_names[i], &c->e[i], flops, c->rounds);
    if ((o = jget_obj(&g, root, "", "ratios", false)))
        read_ratios(&g, o, c);
    json_decref(root);
    if (g.failed) {
        c->run.status = MEASURE_BAD_OUTPUT;
        return -1;
    }
    return 0;
}

int measure_compare_run(const struct measure_opts *o, struct measure_compare *c)
{
    bool parse;
    memset(c, 0, sizeof *c);
    compare_clear(c);
    measure_result_clear_fields(&c->run);
    c->run.exit_code = -1;
    double limit = o->timeout_s > 0 ? o->timeout_s : measure_default_timeout(o, true);
    if (spawn_runner("compare", o, limit, &c->run, &parse))
        return -1;
    if (parse) {
        measure_compare_parse(c->run.raw_json, c);
        spawn_runner_reconcile(&c->run);
    }
    /* a runner that timed with the other L2 than asked (one older than --l2 says nothing:
     * warm) measured something else than the command line says */
    const char *asked = o->cold_l2 ? "cold" : "warm", *got = c->run.l2[0] ? c->run.l2 : "warm";
    if (c->run.status == MEASURE_OK && strcmp(asked, got)) {
        c->run.status = MEASURE_BAD_OUTPUT;
        snprintf(c->run.error, sizeof c->run.error, "runner output: timed with a %s L2, asked for %s", got, asked);
    }
    return 0;
}

void measure_compare_release(struct measure_compare *c) { measure_result_release(&c->run); }
