/* src/measure/parse_run.c — runner `run` JSON -> struct measure_result. */
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/jsonget.h"
#include "numbers.h"
#include "parse_common.h"

static const char *const status_names[MEASURE_STATUS_COUNT] = {
    [MEASURE_OK] = "ok", [MEASURE_INCORRECT] = "incorrect", [MEASURE_LAUNCH_ERROR] = "launch_error",
    [MEASURE_BAD_MODULE] = "bad_module", [MEASURE_BAD_ARGS] = "bad_args",
    [MEASURE_UNSUPPORTED_SHAPE] = "unsupported_shape", [MEASURE_NO_GPU] = "no_gpu",
    [MEASURE_INTERNAL_ERROR] = "internal_error", [MEASURE_CRASH] = "crash",
    [MEASURE_TIMEOUT] = "timeout", [MEASURE_NO_RUNNER] = "no_runner", [MEASURE_BAD_OUTPUT] = "bad_output",
    [MEASURE_FOREIGN_REPLY] = "foreign_reply",
};

const char *measure_status_name(enum measure_status s)
{
    return (unsigned)s < MEASURE_STATUS_COUNT ? status_names[s] : "?";
}

int measure_status_parse(const char *s)
{
    for (int i = 0; s && i < MEASURE_STATUS_COUNT; i++)
        if (!strcmp(s, status_names[i]))
            return i;
    return -1;
}

static void read_mismatch(json_t *m, struct measure_mismatch *out)
{
    json_t *v;
    long long x = -1;
    struct jget g;
    char err[8];
    jget_init(&g, "runner output: ", err, sizeof err);
    out->row = jget_int(&g, m, "", "row", false, &x) ? (long)x : -1;
    out->col = jget_int(&g, m, "", "col", false, &x) ? (long)x : -1;
    out->got = out->want = out->tol = NAN;
    if ((v = json_object_get(m, "got"))) jget_value_num(v, &out->got);
    if ((v = json_object_get(m, "want"))) jget_value_num(v, &out->want);
    if ((v = json_object_get(m, "tol"))) jget_value_num(v, &out->tol);
}

static void read_verify(struct jget *g, json_t *v, struct measure_verify *out)
{
    const char *p = "verify";
    out->present = true;
    jget_bool(g, v, p, "passed", true, &out->passed);
    jget_text(g, v, p, "reference", false, out->reference, sizeof out->reference);
    jget_text(g, v, p, "phase", false, out->phase, sizeof out->phase);
    jget_int(g, v, p, "checked", true, &out->checked);
    jget_int(g, v, p, "mismatches", true, &out->mismatches);
    jget_int(g, v, p, "nan_or_unwritten", false, &out->nan_or_unwritten);
    jget_num(g, v, p, "max_abs_err", false, &out->max_abs_err);
    jget_num(g, v, p, "max_err_over_tol", true, &out->max_err_over_tol);
    json_t *list = jget_array(g, v, p, "first_mismatches", false), *m;
    size_t i;
    if (list) {
        json_array_foreach(list, i, m)
            if (out->listed < MEASURE_LISTED && json_is_object(m))
                read_mismatch(m, &out->first[out->listed++]);
    } else if ((m = jget_obj(g, v, p, "first_mismatch", false))) {
        read_mismatch(m, &out->first[out->listed++]);
    }
}

static void read_timing(struct jget *g, json_t *t, struct measure_timing *out)
{
    const char *p = "timing";
    long long x;
    out->present = true;
    if (jget_int(g, t, p, "warmup", false, &x)) out->warmup = (int)x;
    if (jget_int(g, t, p, "iters", false, &x)) out->iters = (int)x;
    jget_num(g, t, p, "median_ms", true, &out->median_ms);
    jget_num(g, t, p, "spread_pct", true, &out->spread_pct);
    jget_num(g, t, p, "tflops", true, &out->tflops);
    json_t *trials = jget_array(g, t, p, "trials", false), *v;
    size_t i;
    json_array_foreach(trials, i, v) {
        if (out->n_trials == MEASURE_MAX_TRIALS || !jget_value_num(v, &out->trial_ms[out->n_trials])) {
            jget_fail(g, p, "trials", "holds more than 100 trials or a value that is not a number");
            return;
        }
        out->n_trials++;
    }
}

static void read_abi(struct jget *g, json_t *a, struct measure_abi *out)
{
#define ABI_KEY(name, what) {#name, offsetof(struct measure_abi, name)},
    static const struct { const char *key; size_t off; } f[] = {
        CROQ_ABI_LAUNCH_FIELDS(ABI_KEY)
        {"regs", offsetof(struct measure_abi, regs)}, {"local_bytes", offsetof(struct measure_abi, local_bytes)},
    };
#undef ABI_KEY
    long long x;
    out->present = true;
    out->regs = out->local_bytes = -1;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (jget_int(g, a, "abi", f[i].key, false, &x))
            *(int *)((char *)out + f[i].off) = (int)x;
    json_t *grid = jget_array(g, a, "abi", "grid", false);
    for (size_t i = 0; i < 3 && i < json_array_size(grid); i++)
        out->grid[i] = (int)json_integer_value(json_array_get(grid, i));
}

static int read_ms_array(struct jget *g, json_t *o, const char *key, double *out)
{
    json_t *a = jget_array(g, o, "paired", key, true), *v;
    size_t i;
    int n = 0;
    json_array_foreach(a, i, v) {
        if (n == MEASURE_MAX_TRIALS || !jget_value_num(v, &out[n])) {
            jget_fail(g, "paired", key, "holds more than 100 trials or a value that is not a number");
            return n;
        }
        n++;
    }
    return n;
}

/* Both kernels' trials; the statistics are computed from them here, never read. */
static void read_paired(struct jget *g, json_t *p, struct measure_paired *out)
{
    long long x;
    out->present = true;
    int nc = read_ms_array(g, p, "candidate_ms", out->cand_ms);
    int ni = read_ms_array(g, p, "incumbent_ms", out->inc_ms);
    if (nc != ni)
        jget_fail(g, "paired", "incumbent_ms", "does not have as many trials as candidate_ms");
    out->n = nc < ni ? nc : ni;
    if (jget_int(g, p, "paired", "candidate_iters", false, &x)) out->cand_iters = (int)x;
    if (jget_int(g, p, "paired", "incumbent_iters", false, &x)) out->inc_iters = (int)x;
    jget_num(g, p, "paired", "incumbent_median_ms", false, &out->inc_median_ms);
    jget_num(g, p, "paired", "incumbent_tflops", false, &out->inc_tflops);
    out->stats_ok = paired_stats_compute(out->cand_ms, out->inc_ms, out->n, &out->st) == 0;
}

static void read_warmup(struct jget *g, json_t *w, struct measure_warmup *out)
{
    out->present = true;
    jget_num(g, w, "warmup", "ms", false, &out->ms);
    jget_int(g, w, "warmup", "launches", false, &out->launches);
    jget_bool(g, w, "warmup", "sampled", false, &out->sampled);
    jget_bool(g, w, "warmup", "steady", false, &out->steady);
    jget_num(g, w, "warmup", "sm_clock_mhz", false, &out->sm_clock_mhz);
    jget_num(g, w, "warmup", "power_w", false, &out->power_w);
}

/* Fields common to run and compare output. */
static void read_top(struct jget *g, json_t *root, struct measure_result *r)
{
    char dtype[16] = "";
    long long x;
    jget_text(g, root, "", "gpu", false, r->gpu, sizeof r->gpu);
    if (jget_int(g, root, "", "sm_count", false, &x) && x > 0 && x < 100000)
        r->sm_count = (int)x;
    if (jget_text(g, root, "", "dtype", false, dtype, sizeof dtype))
        r->dtype = croq_dtype_parse(dtype);
    if (jget_int(g, root, "", "m", false, &x)) r->m = (long)x;
    if (jget_int(g, root, "", "n", false, &x)) r->n = (long)x;
    if (jget_int(g, root, "", "k", false, &x)) r->k = (long)x;
}

static void read_run_fields(struct jget *g, json_t *root, struct measure_result *r)
{
    json_t *o;
    read_top(g, root, r);
    if ((o = jget_obj(g, root, "", "abi", false))) read_abi(g, o, &r->abi);
    if ((o = jget_obj(g, root, "", "verify", false))) read_verify(g, o, &r->verify);
    if ((o = jget_obj(g, root, "", "timing", false))) read_timing(g, o, &r->timing);
    if ((o = jget_obj(g, root, "", "gpu_state", false))) parse_gpu_state(g, o, "gpu_state", &r->gpu_state);
    if ((o = jget_obj(g, root, "", "peak", false))) parse_peak(g, o, "peak", &r->peak);
    if ((o = jget_obj(g, root, "", "paired", false))) read_paired(g, o, &r->paired);
    if ((o = jget_obj(g, root, "", "warmup", false))) read_warmup(g, o, &r->warmup);
    jget_text(g, root, "", "l2", false, r->l2, sizeof r->l2);
    parse_module_id(g, root, "", "module_id", r->module_id);
    parse_module_id(g, root, "", "incumbent_module_id", r->incumbent_module_id);
    if ((o = jget_obj(g, root, "", "phase_s", false))) {
        jget_num(g, o, "phase_s", "verify", false, &r->verify_s);
        jget_num(g, o, "phase_s", "time", false, &r->time_s);
    }
}

/* The numbers of an ok result, finite, in range and consistent with their own trials
 * (numbers.h) before anything records them: TFLOPS against the reply's own problem, so a
 * timed ok result must say it (the runner always does: runner/output.c). */
static void check_numbers(struct jget *g, const struct measure_result *r)
{
    struct measure_numbers x;
    char why[400];
    unsigned what = MEASURE_CHECK_VERIFY;
    measure_numbers_init(&x);
    x.max_err_over_tol = r->verify.max_err_over_tol;
    if (r->timing.present) {
        what |= MEASURE_CHECK_TIMING;
        if (!(r->m > 0 && r->n > 0 && r->k > 0))
            jget_fail(g, "", "m", "(or 'n', 'k') is missing from a timed ok result: its TFLOPS cannot be checked");
        x.flops = 2.0 * (double)r->m * (double)r->n * (double)r->k;
        x.n_trials = r->timing.n_trials, x.trial_ms = r->timing.trial_ms;
        if (!x.n_trials)
            jget_fail(g, "timing", "trials", "is missing or empty in a timed ok result");
        x.median_ms = r->timing.median_ms, x.spread_pct = r->timing.spread_pct, x.tflops = r->timing.tflops;
        x.sm_clock_mhz = r->gpu_state.sm_clock_median_mhz;
        x.hw_eff_pct = r->peak.hw_eff_pct, x.peak_tflops = r->peak.sparse_tflops_at_clock;
        if (r->paired.present) {
            x.pairs = r->paired.n, x.cand_ms = r->paired.cand_ms, x.inc_ms = r->paired.inc_ms;
            x.inc_median_ms = r->paired.inc_median_ms, x.inc_tflops = r->paired.inc_tflops;
        }
    }
    if (!g->failed && measure_numbers_check(&x, what, why, sizeof why)) {
        snprintf(g->err, g->errlen, "%s%s", g->ctx, why);
        g->failed = true;
    }
}

/* An ok status must carry what "ok" means: a passed, complete verification, and numbers
 * that can be recorded. */
static void check_ok(struct jget *g, const struct measure_result *r)
{
    if (r->status != MEASURE_OK)
        return;
    if (!r->verify.present)
        jget_fail(g, "", "verify", "missing from an ok result");
    else if (!r->verify.passed || r->verify.mismatches != 0)
        jget_fail(g, "verify", "passed", "is not true in an ok result");
    else
        check_numbers(g, r);
}

int measure_parse(const char *text, struct measure_result *r)
{
    struct jget g;
    json_t *root = parse_load(text, r);
    if (!root)
        return -1;
    jget_init(&g, "runner output: ", r->error, sizeof r->error);
    parse_status(&g, root, r);
    read_run_fields(&g, root, r);
    check_ok(&g, r);
    json_decref(root);
    if (g.failed) {
        r->status = MEASURE_BAD_OUTPUT;
        return -1;
    }
    return 0;
}
