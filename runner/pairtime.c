/* runner/pairtime.c — warm-up to steady state, launches per trial, alternating trials. */
#include "pairtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/paired.h"

#define WARM_CHUNK_MS 10.0 /* one warm-up chunk per kernel */
#define STEADY_WINDOW 4    /* samples compared with the 4 before them */
#define STEADY_CLOCK 0.01  /* relative change of the mean clock that counts as settled */
#define STEADY_POWER 0.05  /* ... of the mean power (NVML averages power over up to 1 s) */

void pair_opts_default(struct pair_opts *o)
{
    *o = (struct pair_opts){.pairs = PAIRED_DEFAULT_PAIRS, .min_trial_ms = 20.0, .max_iters = 500,
                            .warmup_min_ms = 150.0, .warmup_max_ms = 2000.0};
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* What the JSON will say: 7 significant digits, read back. */
static double round7(double x)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.7g", x);
    return strtod(buf, NULL);
}

static int launches_for(double ms_per_launch, double want_ms, int max_iters)
{
    double n = ms_per_launch > 0 ? ceil(want_ms / ms_per_launch) : 1;
    return n < 1 ? 1 : n > max_iters ? max_iters : (int)n;
}

static double mean_of(const struct warm_sample *s, int from, int n, bool power)
{
    double sum = 0;
    for (int i = from; i < from + n; i++)
        sum += power ? s[i].power_w : s[i].clock_mhz;
    return sum / n;
}

static bool settled(const struct warmup_rec *w)
{
    int n = w->n;
    if (n < 2 * STEADY_WINDOW)
        return false;
    for (int i = n - 2 * STEADY_WINDOW; i < n; i++)
        if (w->s[i].clock_mhz <= 0)
            return false;
    double c1 = mean_of(w->s, n - 2 * STEADY_WINDOW, STEADY_WINDOW, false);
    double c2 = mean_of(w->s, n - STEADY_WINDOW, STEADY_WINDOW, false);
    if (fabs(c2 - c1) > STEADY_CLOCK * c2)
        return false;
    for (int i = n - 2 * STEADY_WINDOW; i < n; i++)
        if (w->s[i].power_w < 0)
            return true; /* no power reading: the clock alone */
    double p1 = mean_of(w->s, n - 2 * STEADY_WINDOW, STEADY_WINDOW, true);
    double p2 = mean_of(w->s, n - STEADY_WINDOW, STEADY_WINDOW, true);
    return fabs(p2 - p1) <= STEADY_POWER * p2;
}

/* One chunk of each kernel, timed with events; NVML sampled while they run. k, est: nk
 * entries; ev: 2 nk created events. */
static int warm_chunk(const struct gpu *g, const struct pair_opts *o, const struct pair_kernel *const *k, int nk,
                      double *est, CUevent *ev, struct warmup_rec *w, double t0)
{
    int n[PAIR_MAX_KERNELS];
    for (int j = 0; j < nk; j++) {
        n[j] = launches_for(est[j], WARM_CHUNK_MS, o->max_iters);
        CU_CHECK(RS_LAUNCH_ERROR, cuEventRecord(ev[2 * j], g->stream));
        for (int i = 0; i < n[j]; i++)
            TRY(k[j]->fn(k[j]->ctx));
        CU_CHECK(RS_LAUNCH_ERROR, cuEventRecord(ev[2 * j + 1], g->stream));
        w->launches += n[j];
    }
    struct gpu_snapshot snap;
    nvml_snapshot(g->nvml_index, &snap);
    CU_CHECK(RS_LAUNCH_ERROR, cuEventSynchronize(ev[2 * nk - 1]));
    CU_CHECK(RS_LAUNCH_ERROR, cuCtxSynchronize());
    for (int j = 0; j < nk; j++) {
        float ms = 0;
        CU_CHECK(RS_LAUNCH_ERROR, cuEventElapsedTime(&ms, ev[2 * j], ev[2 * j + 1]));
        est[j] = (double)ms / n[j];
    }
    if (w->n < WARM_SAMPLES_MAX)
        w->s[w->n++] = (struct warm_sample){now_ms() - t0, snap.sm_clock_mhz, snap.power_w};
    w->sampled |= snap.sm_clock_mhz > 0;
    return 0;
}

/* One launch of each kernel, timed with events: est[j] its ms. */
static int time_each_once(const struct gpu *g, const struct pair_kernel *const *k, int nk, double *est, CUevent *ev,
                          struct warmup_rec *w)
{
    for (int j = 0; j < nk; j++) {
        float ms = 0;
        CU_CHECK(RS_LAUNCH_ERROR, cuEventRecord(ev[0], g->stream));
        TRY(k[j]->fn(k[j]->ctx));
        CU_CHECK(RS_LAUNCH_ERROR, cuEventRecord(ev[1], g->stream));
        CU_CHECK(RS_LAUNCH_ERROR, cuEventSynchronize(ev[1]));
        CU_CHECK(RS_LAUNCH_ERROR, cuEventElapsedTime(&ms, ev[0], ev[1]));
        est[j] = ms;
        w->launches++;
    }
    return 0;
}

static int warm_up(const struct gpu *g, const struct pair_opts *o, const struct pair_kernel *const *k, int nk,
                   double *est, CUevent *ev, struct warmup_rec *w)
{
    double t0 = now_ms();
    if (o->warmup_max_ms <= 0) { /* no timed warm-up: warmup_min_launches (at least one) */
        for (long n = 0; n < (o->warmup_min_launches > 1 ? o->warmup_min_launches : 1); n++)
            TRY(time_each_once(g, k, nk, est, ev, w));
        w->ms = now_ms() - t0;
        return 0;
    }
    TRY(time_each_once(g, k, nk, est, ev, w)); /* the first estimate */
    for (;;) {
        TRY(warm_chunk(g, o, k, nk, est, ev, w, t0));
        double t = now_ms() - t0;
        if (t >= o->warmup_min_ms && w->launches >= o->warmup_min_launches && (w->sampled ? settled(w) : true)) {
            w->steady = w->sampled;
            break;
        }
        if (t >= o->warmup_max_ms)
            break;
    }
    w->ms = now_ms() - t0;
    return 0;
}

static int trial(const struct gpu *g, const struct pair_kernel *k, int iters, CUevent ev[2], struct timing_result *t)
{
    int i = t->trials;
    TRY(timing_trial(g, iters, k->fn, k->ctx, ev, &t->trial_ms[i], &t->snap[i]));
    t->trial_ms[i] = round7(t->trial_ms[i]);
    t->trials++;
    return 0;
}

int pair_run(const struct gpu *g, const struct pair_opts *o, double flops, const struct pair_kernel *cand,
             const struct pair_kernel *inc, struct pair_result *r)
{
    CUevent ev[4] = {NULL, NULL, NULL, NULL};
    const struct pair_kernel *k[2] = {cand, inc};
    int nk = inc ? 2 : 1, rc = -1;
    double est[2] = {0, 0};
    memset(r, 0, sizeof *r);
    r->paired = inc != NULL;
    r->cand.sm_clock_median_mhz = r->inc.sm_clock_median_mhz = -1;
    int pairs = o->pairs < 1 ? 1 : o->pairs > TIMING_MAX_TRIALS ? TIMING_MAX_TRIALS : o->pairs;
    for (int i = 0; i < 4; i++)
        if (cuEventCreate(&ev[i], CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
            runner_fail(RS_LAUNCH_ERROR, "cuEventCreate failed");
            goto out;
        }
    if (warm_up(g, o, k, nk, est, ev, &r->w))
        goto out;
    r->cand_est_ms = est[0];
    r->inc_est_ms = inc ? est[1] : 0;
    r->cand_iters = launches_for(est[0], o->min_trial_ms, o->max_iters);
    r->inc_iters = inc ? launches_for(est[1], o->min_trial_ms, o->max_iters) : 0;
    for (int p = 0; p < pairs; p++) {
        bool cand_first = p % 2 == 0;
        if (cand_first && trial(g, cand, r->cand_iters, ev, &r->cand))
            goto out;
        if (inc && trial(g, inc, r->inc_iters, ev, &r->inc))
            goto out;
        if (!cand_first && trial(g, cand, r->cand_iters, ev, &r->cand))
            goto out;
        struct paired_stats st;
        if (inc && o->stop_below > 0 && p + 1 >= PAIRED_MIN_PAIRS &&
            paired_stats_compute(r->cand.trial_ms, r->inc.trial_ms, p + 1, &st) == 0 && st.hi < o->stop_below)
            break; /* slower at the optimistic end already: more pairs cannot make it a KEEP */
    }
    timing_summarise(&r->cand, flops);
    if (inc)
        timing_summarise(&r->inc, flops);
    rc = 0;
out:
    for (int i = 0; i < 4; i++)
        if (ev[i])
            cuEventDestroy(ev[i]);
    return rc;
}

json_t *pair_warmup_json(const struct warmup_rec *w)
{
    json_t *samples = json_array();
    for (int i = 0; i < w->n; i++)
        json_array_append_new(samples, json_pack("[f, o, o]", w->s[i].t_ms,
                                                 w->s[i].clock_mhz > 0 ? json_integer(w->s[i].clock_mhz) : json_null(),
                                                 w->s[i].power_w >= 0 ? json_real(w->s[i].power_w) : json_null()));
    const struct warm_sample *last = w->n ? &w->s[w->n - 1] : NULL;
    return json_pack("{s:f, s:I, s:b, s:b, s:o, s:o, s:o}", "ms", w->ms, "launches", (json_int_t)w->launches,
                     "sampled", w->sampled, "steady", w->steady, "sm_clock_mhz",
                     last && last->clock_mhz > 0 ? json_integer(last->clock_mhz) : json_null(), "power_w",
                     last && last->power_w >= 0 ? json_real(last->power_w) : json_null(), "samples", samples);
}

static json_t *ms_array(const struct timing_result *t)
{
    json_t *a = json_array();
    for (int i = 0; i < t->trials; i++)
        json_array_append_new(a, json_real(t->trial_ms[i]));
    return a;
}

json_t *pair_json(const struct pair_result *r)
{
    struct paired_stats st;
    json_t *clocks = json_array();
    for (int i = 0; i < r->inc.trials; i++)
        json_array_append_new(clocks, r->inc.snap[i].sm_clock_mhz > 0 ? json_integer(r->inc.snap[i].sm_clock_mhz)
                                                                       : json_null());
    json_t *o = json_pack("{s:o, s:o, s:i, s:i, s:s, s:f, s:f, s:o}", "candidate_ms", ms_array(&r->cand),
                          "incumbent_ms", ms_array(&r->inc), "candidate_iters", r->cand_iters, "incumbent_iters",
                          r->inc_iters, "order", "alternating, candidate first in even pairs",
                          "incumbent_median_ms", r->inc.median_ms, "incumbent_tflops", r->inc.tflops,
                          "incumbent_sm_clock_mhz", clocks);
    if (paired_stats_compute(r->cand.trial_ms, r->inc.trial_ms, r->cand.trials, &st) == 0) {
        json_t *ratios = json_array();
        for (int i = 0; i < st.n; i++)
            json_array_append_new(ratios, json_real(st.ratio[i]));
        json_object_set_new(o, "ratios", ratios);
        json_object_set_new(o, "ratio_median", json_real(st.median));
        json_object_set_new(o, "ratio_lo", json_real(st.lo));
        json_object_set_new(o, "ratio_hi", json_real(st.hi));
        json_object_set_new(o, "confidence", json_real(st.coverage));
    }
    return o;
}

int ladder_time(const struct gpu *g, const struct pair_opts *o, double flops, const struct pair_kernel *k, int n,
                int rounds, struct ladder_timing *r)
{
    return rounds_time(g, o, flops, k, n, rounds, ROUND_ROTATE, r);
}

int rounds_time(const struct gpu *g, const struct pair_opts *o, double flops, const struct pair_kernel *k, int n,
                int rounds, enum round_order order, struct ladder_timing *r)
{
    CUevent ev[2 * PAIR_MAX_KERNELS];
    const struct pair_kernel *kp[PAIR_MAX_KERNELS];
    double est[PAIR_MAX_KERNELS];
    int rc = -1, nev = 0, ord[PAIR_MAX_KERNELS];
    memset(r, 0, sizeof *r);
    r->failed = -1;
    if (n < 1 || n > PAIR_MAX_KERNELS || rounds < 1 || rounds > TIMING_MAX_TRIALS) {
        runner_fail(RS_BAD_ARGS, "ladder: %d kernels (1..%d), %d rounds (1..%d)", n, PAIR_MAX_KERNELS, rounds,
                    TIMING_MAX_TRIALS);
        return -1;
    }
    for (int i = 0; i < n; i++)
        kp[i] = &k[i], est[i] = 0, r->t[i].sm_clock_median_mhz = -1;
    for (nev = 0; nev < 2 * n; nev++)
        if (cuEventCreate(&ev[nev], CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
            runner_fail(RS_LAUNCH_ERROR, "cuEventCreate failed");
            goto out;
        }
    if (warm_up(g, o, kp, n, est, ev, &r->w))
        goto out;
    for (int i = 0; i < n; i++)
        r->iters[i] = launches_for(est[i], o->min_trial_ms, o->max_iters);
    for (int round = 0; round < rounds; round++) {
        if (order == ROUND_BALANCED)
            paired_round_order(n, round, ord);
        else
            for (int j = 0; j < n; j++) /* round r starts with kernel r mod n */
                ord[j] = (round + j) % n;
        for (int j = 0; j < n; j++) {
            int i = ord[j];
            if (trial(g, kp[i], r->iters[i], ev, &r->t[i])) {
                r->failed = i;
                goto out;
            }
        }
    }
    for (int i = 0; i < n; i++)
        timing_summarise(&r->t[i], flops);
    r->n = n;
    rc = 0;
out:
    for (int i = 0; i < nev; i++)
        cuEventDestroy(ev[i]);
    return rc;
}

json_t *ladder_timing_json(const struct ladder_timing *r, int i)
{
    json_t *clocks = json_array();
    for (int t = 0; t < r->t[i].trials; t++)
        json_array_append_new(clocks, r->t[i].snap[t].sm_clock_mhz > 0 ? json_integer(r->t[i].snap[t].sm_clock_mhz)
                                                                        : json_null());
    return json_pack("{s:i, s:o, s:o, s:f, s:f, s:o}", "iters", r->iters[i], "trial_ms", ms_array(&r->t[i]),
                     "sm_clock_mhz", clocks, "median_ms", r->t[i].median_ms, "tflops", r->t[i].tflops, "gpu_state",
                     timing_gpu_state_json(&r->t[i]));
}
