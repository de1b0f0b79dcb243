/* src/report/stats.c — derived numbers (stats.h). */
#include "report/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts/state.h"
#include "scale/plansim.h"
#include "util/log.h"
#include "util/utctime.h"

static bool improves_best(const struct report_row *r)
{
    return (r->decision == RD_BASELINE || r->decision == RD_KEEP) && isfinite(r->tflops);
}

/* Running best: the engine's best_tflops column when written (it may re-measure), else
 * the running maximum of the BASELINE and KEEP rows. */
static void compute_best(struct report_shape *s)
{
    struct report_stats *st = &s->st;
    double cur = NAN;
    free(st->best_so_far);
    st->best_so_far = xmalloc((s->n_rows ? s->n_rows : 1) * sizeof *st->best_so_far);
    for (size_t i = 0; i < s->n_rows; i++) {
        const struct report_row *r = &s->rows[i];
        if (improves_best(r)) {
            cur = isnan(cur) || r->tflops > cur ? r->tflops : cur;
            st->best_iter = r->iter;
            st->best_hw_eff = r->hw_eff_pct;
            st->best_clock_mhz = r->sm_clock_mhz;
        }
        if (isfinite(r->best_tflops))
            cur = r->best_tflops;
        st->best_so_far[i] = cur;
        if (r->decision == RD_BASELINE && isnan(st->baseline))
            st->baseline = r->tflops;
    }
    st->best = cur;
}

static void derive_status(struct report_shape *s)
{
    const struct report_stats *st = &s->st;
    if (s->status[0])
        return;
    if (!s->have_results)
        snprintf(s->status, sizeof s->status, "no data");
    else if (st->budget > 0 && st->iters_done >= st->budget)
        snprintf(s->status, sizeof s->status, "complete");
    else
        snprintf(s->status, sizeof s->status, "unknown");
}

/* The run's busy seconds from its rows' stamps, a run cut and resumed later not counting
 * the pause: plan-sim's rule (plansim_busy_seconds), so the report's wall time is the one
 * `croqtuner plan-sim` fits its model to. NAN when fewer than two rows carry a stamp. */
static double busy_seconds(const struct report_shape *s)
{
    double *t = xmalloc((s->n_rows ? s->n_rows : 1) * sizeof *t), out;
    size_t n = 0;
    for (size_t i = 0; i < s->n_rows; i++) {
        double x = utc_parse(s->rows[i].timestamp);
        if (isfinite(x))
            t[n++] = x;
    }
    out = n >= 2 ? plansim_busy_seconds(t, n) : NAN;
    free(t);
    return out;
}

/* How fast the chained best converged: the first iteration at 95 % of its final value. */
static int reach95(const struct report_shape *s)
{
    double last = NAN;
    for (size_t i = s->n_rows; i-- > 0 && isnan(last);)
        last = s->st.best_so_far[i];
    for (size_t i = 0; isfinite(last) && i < s->n_rows; i++)
        if (isfinite(s->st.best_so_far[i]) && s->st.best_so_far[i] >= 0.95 * last)
            return s->rows[i].iter;
    return -1;
}

void stats_compute(struct report_shape *s)
{
    struct report_stats *st = &s->st;
    memset(st->n_decision, 0, sizeof st->n_decision);
    st->baseline = st->best = st->best_hw_eff = NAN;
    st->best_iter = -1;
    st->best_clock_mhz = NAN;
    compute_best(s);
    if (s->best_from_ladder && isfinite(s->state_best)) { /* the registered best: the ladder's winner */
        st->best = s->state_best;
        st->best_iter = s->ladder_best_iter;
        st->best_hw_eff = NAN; /* its row's: the efficiency of that configuration at that row's clock */
        st->best_clock_mhz = s->ladder_best_clock > 0 ? s->ladder_best_clock : NAN;
        for (size_t i = 0; i < s->n_rows; i++)
            if (s->rows[i].iter == st->best_iter)
                st->best_hw_eff = s->rows[i].hw_eff_pct;
    }
    for (size_t i = 0; i < s->n_rows; i++)
        st->n_decision[s->rows[i].decision]++;
    if (isnan(st->baseline) && s->in_state)
        st->baseline = s->state_baseline;
    if (isnan(st->best) && s->in_state)
        st->best = s->state_best;
    st->iters_done = s->n_rows ? s->rows[s->n_rows - 1].iter
                               : (s->in_state && s->state_iteration > 0 ? s->state_iteration : 0);
    st->budget = s->in_state ? s->state_budget : -1;
    st->reach95_iter = reach95(s);
    st->busy_s = busy_seconds(s);
    derive_status(s);
}

struct progression_step *stats_progression(const struct report_shape *s, size_t *n)
{
    struct progression_step *v = xmalloc((s->n_rows ? s->n_rows : 1) * sizeof *v);
    *n = 0;
    for (size_t i = 1; i < s->n_rows; i++) {
        const struct report_row *r = &s->rows[i];
        if (r->decision != RD_KEEP)
            continue;
        double before = s->st.best_so_far[i - 1];
        double after = isfinite(s->st.best_so_far[i]) ? s->st.best_so_far[i] : r->tflops;
        v[(*n)++] = (struct progression_step){r, before, after, (stats_ratio(after, before) - 1.0) * 100.0};
    }
    return v;
}

int stats_phase_budget(const struct report_shape *s)
{
    return s->st.budget > 0 ? s->st.budget : s->st.iters_done;
}

int stats_phase_of(int iter, int budget)
{
    if (budget <= 0 || iter > budget)
        return STATS_PHASES - 1;
    int p = (int)((long)(iter - 1) * STATS_PHASES / budget);
    return p < 0 ? 0 : p;
}

/* Smallest i >= 1 with (i-1)*3/budget >= phase, so that the ranges agree with
 * stats_phase_of exactly. */
static int phase_start(int phase, int budget)
{
    return (int)(((long)phase * budget + STATS_PHASES - 1) / STATS_PHASES) + 1;
}

void stats_phase_range(int phase, int budget, int *lo, int *hi)
{
    *lo = phase_start(phase, budget);
    *hi = phase == STATS_PHASES - 1 ? budget : phase_start(phase + 1, budget) - 1;
}

struct vendor_value stats_sparselt(const struct report_vendor *v)
{
    const struct vendor_value *a = &v->sl_default, *b = &v->sl_search;
    if (a->src == VSRC_NONE)
        return *b;
    if (b->src == VSRC_NONE)
        return *a;
    return a->tflops >= b->tflops ? *a : *b;
}

const char *stats_best_config(const struct report_shape *s)
{
    for (size_t i = 0; s->st.best_iter >= 0 && i < s->n_rows; i++)
        if (s->rows[i].iter == s->st.best_iter)
            return s->rows[i].config;
    return NULL;
}

double stats_best_same_run(const struct report_shape *s)
{
    const struct report_vendor *v = &s->vendor;
    const char *best = stats_best_config(s);
    return v->ours.src == VSRC_MEASURED && v->ours_config && best && !strcmp(best, v->ours_config) ? v->ours.tflops
                                                                                                   : NAN;
}

double stats_ratio(double a, double b)
{
    return isfinite(a) && isfinite(b) && a > 0 && b > 0 ? a / b : NAN;
}

double stats_geomean(const double *v, size_t n, size_t *used)
{
    double sum = 0;
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > 0) {
            sum += log(v[i]);
            c++;
        }
    if (used)
        *used = c;
    return c ? exp(sum / (double)c) : NAN;
}

double report_best_speedup(const struct report_shape *s)
{
    return state_best_speedup(s->st.best_iter, s->st.best, s->st.baseline, s->best_from_ladder,
                              s->have_ladder ? &s->ladder : NULL);
}
