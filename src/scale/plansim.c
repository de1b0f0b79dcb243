/* src/scale/plansim.c — the predicted wall time of a parallel sweep (see plansim.h). */
#include "plansim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/log.h"
#include "util/utctime.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double plansim_busy_seconds(const double *stamps, size_t n)
{
    if (n < 2)
        return NAN;
    double *d = xmalloc((n - 1) * sizeof *d), sum = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        d[i] = stamps[i + 1] - stamps[i];
        if (!isfinite(d[i]) || d[i] < 0) {
            free(d);
            return NAN;
        }
    }
    double *sorted = xmalloc((n - 1) * sizeof *sorted);
    memcpy(sorted, d, (n - 1) * sizeof *d);
    qsort(sorted, n - 1, sizeof *sorted, cmp_double);
    const double median = sorted[(n - 2) / 2];
    const double pause = fmax(PLANSIM_PAUSE_MIN_S, PLANSIM_PAUSE_FACTOR * median);
    for (size_t i = 0; i + 1 < n; i++)
        sum += d[i] > pause ? median : d[i];
    free(sorted);
    free(d);
    return sum;
}

static double gflop_of(const struct croq_shape *s) { return 2.0 * (double)s->m * (double)s->n * (double)s->k / 1e9; }

int plansim_measure(const char *dir, struct plansim_point **pts, size_t *n, size_t *not_gpu, char *err,
                    size_t errlen)
{
    json_t *state = state_load(dir, err, errlen);
    if (!state)
        return -1;
    size_t nk, added = 0;
    const char **keys = state_shape_keys(state, &nk);
    int rc = 0;
    for (size_t i = 0; i < nk && !rc; i++) {
        struct shape_key k;
        char path[4096], why[600];
        struct state_shape e;
        if (!state_shape_get(state, keys[i], &e) || !state_shape_done(&e) || key_parse(keys[i], &k, why, sizeof why))
            continue;
        if (strcmp(e.backend, "gpu")) {
            ++*not_gpu;
            continue;
        }
        struct result_log log;
        snprintf(path, sizeof path, "%s/logs/%s/results.tsv", dir, keys[i]);
        if (result_log_read(path, &log, why, sizeof why) < 0) {
            snprintf(err, errlen, "%s: %s", path, why);
            rc = -1;
            break;
        }
        bool faulted = false;
        for (size_t r = 0; r < log.n; r++)
            faulted |= log.rows[r].decision == DEC_DISCARD_TIMEOUT || log.rows[r].decision == DEC_DISCARD_RUNTIME_CRASH;
        double *stamps = xmalloc((log.n ? log.n : 1) * sizeof *stamps);
        for (size_t r = 0; r < log.n; r++)
            stamps[r] = utc_parse(log.rows[r].timestamp);
        const double busy = plansim_busy_seconds(stamps, log.n);
        free(stamps);
        if (!faulted && log.n >= 2 && isfinite(busy)) {
            *pts = xrealloc(*pts, (*n + 1) * sizeof **pts);
            struct plansim_point *p = &(*pts)[(*n)++];
            snprintf(p->key, sizeof p->key, "%s", keys[i]);
            p->gflop = gflop_of(&k.shape);
            p->iterations = (int)log.n - 1;
            p->s_per_iter = busy / p->iterations;
            added++;
        }
        result_log_release(&log);
    }
    free(keys);
    json_decref(state);
    return rc ? -1 : (int)added;
}

void plansim_fit(const struct plansim_point *pts, size_t n, struct plansim_model *m)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        double w = pts[i].iterations, x = pts[i].gflop, y = pts[i].s_per_iter;
        sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
    }
    m->a_s = sw > 0 ? sy / sw : 0;
    m->b_s_per_gflop = 0;
    double det = sw * sxx - sx * sx;
    if (sw > 0 && det > 1e-9 * sw * sxx) {
        double b = (sw * sxy - sx * sy) / det;
        if (b > 0) {
            m->b_s_per_gflop = b;
            m->a_s = (sy - b * sx) / sw;
        }
    }
}

double plansim_shape_seconds(const struct plansim_model *m, const struct shape_key *k, int iterations)
{
    double per = m->a_s + m->b_s_per_gflop * gflop_of(&k->shape);
    return (iterations + 1) * (per > 0 ? per : 0); /* the baseline counts as one */
}

/* ---- the event loop --------------------------------------------------------------- */

enum sim_state { S_NEW = 0, S_INITING, S_INITED, S_TUNING, S_DONE };

struct sim_wave {
    const struct plan_wave *w;
    enum sim_state *st;
    double *dur;
    double start_s, longest_s;
    size_t longest;
    bool started;
};

struct sim_worker {
    double free_at;     /* when its current work ends */
    struct sim_wave *wave;
    size_t shape;       /* index in the wave */
    bool busy;
};

static bool wave_finished(const struct sim_wave *sw)
{
    for (size_t i = 0; i < sw->w->n; i++)
        if (sw->st[i] != S_DONE)
            return false;
    return true;
}

/* The claim next.c would make now: the dtype's first unfinished wave, INIT until every
 * shape of it is INITed, then TUNE. Returns the wave, with *idx and *tune set, or NULL. */
static struct sim_wave *claim(struct sim_wave waves[CROQ_DTYPE_COUNT][3], int nst, bool longest_first, size_t *idx, bool *tune)
{
    struct sim_wave *best = NULL;
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++) {
        struct sim_wave *cur = NULL;
        for (int s = 0; s < nst && !cur; s++)
            if (waves[dt][s].w && waves[dt][s].w->n && !wave_finished(&waves[dt][s]))
                cur = &waves[dt][s];
        if (!cur)
            continue;
        bool open = true;
        for (size_t i = 0; i < cur->w->n; i++)
            open &= cur->st[i] >= S_INITED;
        for (size_t i = 0; i < cur->w->n; i++) {
            if (!((!open && cur->st[i] == S_NEW) || (open && cur->st[i] == S_INITED)))
                continue;
            if (!open || !longest_first) { /* plan order; an INIT (seconds) always goes first */
                *idx = i;
                *tune = open;
                return cur;
            }
            if (!best || cur->dur[i] > best->dur[*idx])
                best = cur, *idx = i, *tune = true;
        }
    }
    return best;
}

void plansim_run(const struct scale_plan *p, int max_stage, int iters, int workers, const struct plansim_model *m,
                 struct plansim_result *out)
{
    struct sim_wave waves[CROQ_DTYPE_COUNT][3];
    memset(waves, 0, sizeof waves);
    memset(out, 0, sizeof *out);
    int nst = max_stage < 1 ? 1 : max_stage > 3 ? 3 : max_stage;
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++)
        for (int s = 0; s < nst; s++) {
            const struct plan_wave *w = &p->waves[dt][s];
            if (!p->dtypes[dt] || !w->n)
                continue;
            struct sim_wave *sw = &waves[dt][s];
            sw->w = w;
            sw->st = calloc(w->n, sizeof *sw->st);
            sw->dur = xmalloc(w->n * sizeof *sw->dur);
            for (size_t i = 0; i < w->n; i++) {
                int budget = w->s[i].k.mode == MODE_FROM_SCRATCH ? p->set.budget_scratch : p->set.budget_best;
                sw->dur[i] = plansim_shape_seconds(m, &w->s[i].k, iters > 0 ? iters : budget);
            }
        }
    struct sim_worker *wk = calloc((size_t)workers, sizeof *wk);
    double now = 0;
    for (;;) {
        /* hand out work to every free worker, in worker order (the first to look wins) */
        for (int i = 0; i < workers; i++) {
            if (wk[i].busy)
                continue;
            size_t idx;
            bool tune;
            struct sim_wave *sw = claim(waves, nst, m->longest_first, &idx, &tune);
            if (!sw)
                break;
            if (!sw->started)
                sw->started = true, sw->start_s = now;
            sw->st[idx] = tune ? S_TUNING : S_INITING;
            double d = tune ? sw->dur[idx] : m->init_s;
            if (tune && d > sw->longest_s)
                sw->longest_s = d, sw->longest = idx;
            out->busy_s += d;
            wk[i] = (struct sim_worker){now + d, sw, idx, true};
        }
        /* the next release */
        int next = -1;
        for (int i = 0; i < workers; i++)
            if (wk[i].busy && (next < 0 || wk[i].free_at < wk[next].free_at))
                next = i;
        if (next < 0)
            break; /* nothing running and nothing to claim: the sweep is over */
        now = wk[next].free_at;
        struct sim_wave *sw = wk[next].wave;
        enum sim_state *s = &sw->st[wk[next].shape];
        *s = *s == S_INITING ? S_INITED : S_DONE;
        wk[next].busy = false;
        if (*s == S_DONE && wave_finished(sw) && out->n_waves < sizeof out->waves / sizeof out->waves[0]) {
            /* idle so far: worker-seconds not spent on work up to now (work still running
             * counts only its part before now) */
            double busy_by_now = out->busy_s;
            for (int i = 0; i < workers; i++)
                if (wk[i].busy)
                    busy_by_now -= wk[i].free_at - now; /* handed out, not done yet */
            struct plansim_wave *ow = &out->waves[out->n_waves++];
            *ow = (struct plansim_wave){sw->w->dtype, sw->w->stage, sw->w->n, sw->start_s, now, sw->longest_s, "",
                                        now > 0 ? fmax(0, 1.0 - busy_by_now / (workers * now)) : 0};
            snprintf(ow->longest, sizeof ow->longest, "%s", sw->w->s[sw->longest].key);
        }
    }
    out->wall_s = now;
    out->idle_share = now > 0 ? fmax(0, 1.0 - out->busy_s / (workers * now)) : 0; /* not -0.0 from rounding */
    free(wk);
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++)
        for (int s = 0; s < 3; s++)
            free(waves[dt][s].st), free(waves[dt][s].dur);
}
