/* src/backend/backend.c — choosing a backend, and what every backend shares. */
#include "backend.h"

#include <jansson.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/numbers.h"
#include "target/target.h"
#include "util/atomicio.h"
#include "util/hash.h"
#include "util/paired.h"

struct backend *sim_open(const struct backend_opts *o, char *err, size_t errlen);
struct backend *gpu_open(const struct backend_opts *o, char *err, size_t errlen);
struct backend *replay_open(const struct backend_opts *o, char *err, size_t errlen);

bool backend_name_known(const char *name)
{
    return name && (!strcmp(name, "sim") || !strcmp(name, "gpu") || !strcmp(name, "replay"));
}

struct backend *backend_open(const struct backend_opts *o, char *err, size_t errlen)
{
    if (o->name && !strcmp(o->name, "sim"))
        return sim_open(o, err, errlen);
    if (o->name && !strcmp(o->name, "gpu"))
        return gpu_open(o, err, errlen);
    if (o->name && !strcmp(o->name, "replay"))
        return replay_open(o, err, errlen);
    snprintf(err, errlen, "unknown backend '%s' (gpu, sim or replay)", o->name ? o->name : "");
    return NULL;
}

void backend_close(struct backend *b)
{
    if (b)
        b->release(b);
}

static const char *const status_names[] = {
    [CAND_OK] = "ok",           [CAND_COMPILE_ERROR] = "compile_error", [CAND_INCORRECT] = "incorrect",
    [CAND_CRASH] = "crash",     [CAND_TIMEOUT] = "timeout",             [CAND_UNUSABLE] = "unusable",
    [CAND_NOT_IN_DATASET] = "not_in_dataset",
};

const char *cand_status_name(enum cand_status s)
{
    return (unsigned)s < sizeof status_names / sizeof *status_names ? status_names[s] : "?";
}

int cand_status_parse(const char *s)
{
    for (size_t i = 0; s && i < sizeof status_names / sizeof *status_names; i++)
        if (!strcmp(s, status_names[i]))
            return (int)i;
    return -1;
}

double backend_peak_tflops(int dtype, double sm_clock_mhz)
{
    return target_peak_tflops(croq_target(), dtype, sm_clock_mhz);
}

int backend_hash_file(const char *path, char out[BACKEND_HASH_MAX])
{
    size_t len;
    char *data = read_file(path, &len);
    if (!data)
        return -1;
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, data, len), out);
    free(data);
    return 0;
}

int backend_write_raw(const struct cand_req *r, json_t *j, const char *backend_name, struct cand_result *out)
{
    char dir[4096], path[4096];
    snprintf(out->raw_rel, sizeof out->raw_rel, "perf/%s/iter%03d-%s.json", r->key, r->iter, r->tag);
    if ((size_t)snprintf(dir, sizeof dir, "%s/perf/%s", r->dir, r->key) >= sizeof dir ||
        (size_t)snprintf(path, sizeof path, "%s/%s", r->dir, out->raw_rel) >= sizeof path)
        return -1;
    json_object_set_new(j, "backend", json_string(backend_name));
    /* 17 digits: the text reads back as the very double the engine decided on, so an
     * audit re-deriving the row from this file rounds exactly as the engine did */
    char *s = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    int rc = (!s || mkdir_p(dir) || atomic_write_str(path, s) || backend_hash_file(path, out->raw_hash)) ? -1 : 0;
    if (rc)
        snprintf(out->reason, sizeof out->reason, "cannot write '%.200s': %s", path, strerror(errno));
    free(s);
    return rc;
}

/* What out claims, for measure_numbers_check: against r's problem, with the per-launch
 * trials when the caller has them (n 0: none). */
static void numbers_of(const struct cand_req *r, const struct cand_result *out, const double *trial_ms, int n,
                       struct measure_numbers *x)
{
    measure_numbers_init(x);
    x->flops = 2.0 * (double)r->shape.m * (double)r->shape.n * (double)r->shape.k;
    x->n_trials = n, x->trial_ms = trial_ms;
    x->median_ms = out->median_ms, x->spread_pct = out->spread_pct, x->tflops = out->tflops;
    x->sm_clock_mhz = out->sm_clock_mhz, x->hw_eff_pct = out->hw_eff_pct;
    x->max_err_over_tol = out->max_err_over_tol;
    x->ratio = out->ratio, x->ratio_lo = out->ratio_lo, x->ratio_hi = out->ratio_hi;
}

int backend_result_check(const struct cand_req *r, const struct cand_result *out, char *why, size_t len)
{
    struct measure_numbers x;
    if (out->status != CAND_OK)
        return 0;
    numbers_of(r, out, NULL, 0, &x);
    return measure_numbers_check(&x, MEASURE_CHECK_VERIFY | (r->no_time ? 0 : MEASURE_CHECK_TIMING), why, len);
}

void backend_ok_result(const struct cand_req *r, const double *trial_ms, int n, double clock_mhz,
                       double max_err_over_tol, const char *reference, json_t *j, struct cand_result *out)
{
    double lo, hi;
    double flops = 2.0 * (double)r->shape.m * (double)r->shape.n * (double)r->shape.k;
    n = n < BACKEND_MAX_TRIALS ? n : BACKEND_MAX_TRIALS;
    lo = hi = trial_ms[0];
    for (int i = 1; i < n; i++)
        lo = fmin(lo, trial_ms[i]), hi = fmax(hi, trial_ms[i]);
    out->status = CAND_OK;
    out->median_ms = paired_median(trial_ms, n); /* the runner's: the mean of the middle two when n is even */
    out->spread_pct = (hi - lo) / out->median_ms * 100.0;
    out->tflops = flops / (out->median_ms * 1e-3) / 1e12;
    out->sm_clock_mhz = clock_mhz;
    double peak = backend_peak_tflops(r->cfg->dtype, clock_mhz);
    out->hw_eff_pct = out->tflops / peak * 100.0;
    out->max_err_over_tol = max_err_over_tol;
    json_object_set_new(j, "status", json_string("ok"));
    json_t *v = json_object(), *t = json_object(), *g = json_object(), *a = json_array();
    json_object_set_new(v, "passed", json_true());
    json_object_set_new(v, "reference", json_string(reference));
    json_object_set_new(v, "max_err_over_tol", json_real(out->max_err_over_tol));
    json_object_set_new(j, "verify", v);
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_real(trial_ms[i]));
    json_object_set_new(t, "trials", a);
    json_object_set_new(t, "median_ms", json_real(out->median_ms));
    json_object_set_new(t, "spread_pct", json_real(out->spread_pct));
    json_object_set_new(t, "tflops", json_real(out->tflops));
    json_object_set_new(j, "timing", t);
    json_object_set_new(g, "sm_clock_median_mhz", json_real(clock_mhz));
    json_object_set_new(j, "gpu_state", g);
    /* The worker's replies pass this check before they count (src/measure); the model's
     * numbers too: a model or a dataset that yields a time that is not positive (a tiny
     * shape's noise, a damaged record) is a failed measurement, recorded as such, never a
     * number in a row. The raw file says so, so the audit derives the same failure. */
    struct measure_numbers x;
    char why[400];
    numbers_of(r, out, trial_ms, n, &x);
    x.peak_tflops = peak;
    if (measure_numbers_check(&x, MEASURE_CHECK_VERIFY | MEASURE_CHECK_TIMING, why, sizeof why)) {
        out->status = CAND_CRASH;
        snprintf(out->reason, sizeof out->reason, "bad_output: %.240s", why);
        out->tflops = out->median_ms = out->spread_pct = out->sm_clock_mhz = out->hw_eff_pct = NAN;
        json_object_set_new(j, "status", json_string("bad_output"));
        json_object_set_new(j, "error", json_string(why));
    }
}

void backend_verified_result(double max_err_over_tol, const char *reference, json_t *j, struct cand_result *out)
{
    out->status = CAND_OK;
    out->tflops = out->median_ms = out->spread_pct = out->sm_clock_mhz = out->hw_eff_pct = NAN;
    out->max_err_over_tol = max_err_over_tol;
    json_object_set_new(j, "status", json_string("ok"));
    json_object_set_new(j, "verify", json_pack("{s:b, s:s, s:f}", "passed", 1, "reference", reference,
                                               "max_err_over_tol", max_err_over_tol));
}

json_t *backend_paired_result(const struct cand_req *r, const double *cand_ms, const double *inc_ms, int n,
                              struct cand_result *out)
{
    struct paired_stats st;
    char sig[CROQ_SIG_MAX];
    json_t *pj = json_object(), *c = json_array(), *i = json_array();
    for (int k = 0; k < n; k++) {
        json_array_append_new(c, json_real(cand_ms[k]));
        json_array_append_new(i, json_real(inc_ms[k]));
    }
    json_object_set_new(pj, "candidate_ms", c);
    json_object_set_new(pj, "incumbent_ms", i);
    knobs_signature(r->incumbent_cfg, sig);
    json_object_set_new(pj, "incumbent_config", json_string(sig));
    if (paired_stats_compute(cand_ms, inc_ms, n, &st) == 0) {
        out->ratio = st.median, out->ratio_lo = st.lo, out->ratio_hi = st.hi, out->pairs = st.n;
        json_object_set_new(pj, "ratio_median", json_real(st.median));
        json_object_set_new(pj, "ratio_lo", json_real(st.lo));
        json_object_set_new(pj, "ratio_hi", json_real(st.hi));
    }
    return pj;
}

uint64_t backend_req_seed(const struct cand_req *r)
{
    char sig[CROQ_SIG_MAX], it[32];
    uint64_t h = hash_fnv1a64(HASH_FNV1A64_INIT, &r->seed, sizeof r->seed);
    knobs_signature(r->cfg, sig);
    snprintf(it, sizeof it, "%d", r->iter);
    h = hash_fnv1a64_str(h, r->key);
    h = hash_fnv1a64_str(h, it);
    h = hash_fnv1a64_str(h, r->tag);
    return hash_fnv1a64_str(h, sig);
}

void backend_ladder_summarise(const struct ladder_req *q, struct ladder_result *out)
{
    double flops = 2.0 * (double)q->shape.m * (double)q->shape.n * (double)q->shape.k;
    for (int i = 0; i < out->n; i++) {
        struct ladder_entry_result *e = &out->e[i];
        double c[LADDER_MAX_ROUNDS];
        int nc = 0;
        e->median_ms = e->tflops = e->spread_pct = e->sm_clock_mhz = NAN;
        if (e->status != CAND_OK || e->trials < 1 || e->trials > LADDER_MAX_ROUNDS)
            continue;
        double lo = e->trial_ms[0], hi = e->trial_ms[0];
        for (int k = 0; k < e->trials; k++) {
            lo = fmin(lo, e->trial_ms[k]), hi = fmax(hi, e->trial_ms[k]);
            if (e->trial_clock_mhz[k] > 0)
                c[nc++] = e->trial_clock_mhz[k];
        }
        e->median_ms = paired_median(e->trial_ms, e->trials); /* the runner's median */
        e->spread_pct = (hi - lo) / e->median_ms * 100.0;
        e->tflops = flops / (e->median_ms * 1e-3) / 1e12;
        e->sm_clock_mhz = nc ? paired_median(c, nc) : NAN;
    }
    /* rel: every entry ran in every round, so round r's trials share its clock history */
    int rounds = out->n ? out->e[0].trials : 0;
    for (int i = 0; i < out->n; i++) {
        out->e[i].rel = NAN;
        if (out->e[i].status != CAND_OK || out->e[i].trials != rounds || rounds < 1 || rounds > LADDER_MAX_ROUNDS)
            rounds = 0;
    }
    for (int i = 0; i < out->n && rounds; i++) {
        double v[LADDER_MAX_ROUNDS];
        for (int r = 0; r < rounds; r++) {
            double lg = 0;
            for (int k = 0; k < out->n; k++)
                lg += log(out->e[k].trial_ms[r]);
            v[r] = out->e[i].trial_ms[r] / exp(lg / out->n);
        }
        out->e[i].rel = paired_median(v, rounds);
    }
}

int backend_write_ladder_raw(const struct ladder_req *q, json_t *j, const char *backend_name, struct ladder_result *out)
{
    char dir[4096], path[4096];
    snprintf(out->raw_rel, sizeof out->raw_rel, "perf/%s/ladder-%s.json", q->key, q->tag);
    if ((size_t)snprintf(dir, sizeof dir, "%s/perf/%s", q->dir, q->key) >= sizeof dir ||
        (size_t)snprintf(path, sizeof path, "%s/%s", q->dir, out->raw_rel) >= sizeof path)
        return -1;
    json_object_set_new(j, "backend", json_string(backend_name));
    char *s = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(17)); /* as backend_write_raw */
    int rc = (!s || mkdir_p(dir) || atomic_write_str(path, s) || backend_hash_file(path, out->raw_hash)) ? -1 : 0;
    if (rc)
        snprintf(out->reason, sizeof out->reason, "cannot write '%.200s': %s", path, strerror(errno));
    free(s);
    return rc;
}

uint64_t backend_ladder_seed(const struct ladder_req *q)
{
    char sig[CROQ_SIG_MAX];
    uint64_t h = hash_fnv1a64(HASH_FNV1A64_INIT, &q->seed, sizeof q->seed);
    h = hash_fnv1a64_str(hash_fnv1a64_str(hash_fnv1a64_str(h, q->key), "ladder"), q->tag);
    for (int i = 0; i < q->n; i++) {
        knobs_signature(q->e[i].cfg, sig);
        h = hash_fnv1a64_str(h, sig);
    }
    return h;
}

void backend_ladder_json_finish(const struct ladder_req *q, const struct ladder_result *out, json_t *j)
{
    char sig[CROQ_SIG_MAX];
    json_t *es = json_array();
    for (int i = 0; i < q->n; i++) {
        const struct ladder_entry_result *e = &out->e[i];
        json_t *t = json_array(), *c = json_array();
        for (int k = 0; k < e->trials; k++) {
            json_array_append_new(t, json_real(e->trial_ms[k]));
            json_array_append_new(c, e->trial_clock_mhz[k] > 0 ? json_integer(e->trial_clock_mhz[k]) : json_null());
        }
        knobs_signature(q->e[i].cfg, sig);
        json_array_append_new(es, json_pack("{s:i, s:s, s:s, s:o, s:o}", "iter", q->e[i].iter, "config", sig, "status",
                                            cand_status_name(e->status), "trial_ms", t, "sm_clock_mhz", c));
    }
    json_object_set_new(j, "entries", es);
    json_object_set_new(j, "status", json_string(cand_status_name(out->status)));
    if (out->status != CAND_OK)
        json_object_set_new(j, "error", json_string(out->reason));
}
