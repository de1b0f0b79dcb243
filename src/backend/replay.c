/* src/backend/replay.c — the replay backend (backend.h): measurements served from an
 * explore dataset (src/dataset/dataset.h), so a whole tuning run replays on the CPU.
 *
 * build:   the source must exist and the config pass knobs_validate (as sim); a config
 *          the dataset recorded as compile_error fails again with the recorded reason.
 * measure: a config the dataset measured ok gets as many trials as were recorded (10 paired
 *          with the incumbent's, drawn from its record with the pair's shared state (below)
 *          when the engine asks for a paired measurement: DECIDE rules 3), each
 *          drawn (with replacement) from the recorded trials by a generator seeded from
 *          (seed, key, iteration, tag, config) as the sim's noise is: the same run
 *          replays the same numbers, and another seed sees another draw of the measured
 *          noise. Median, spread and TFLOPS as the runner computes them. The SM clock is
 *          the recorded clock of the median trial when the dataset has per-trial clocks,
 *          else the record's median clock. A recorded failure (incorrect, crash, timeout)
 *          comes back with its status and reason. A config the dataset never measured is
 *          CAND_NOT_IN_DATASET ("not in the dataset ..."): no numbers, so it can never
 *          become a best and is excluded from any score. The backend names the dataset's
 *          configurations (backend.measurable), and the engine keeps every strategy of
 *          its own inside them, so only an agent's idea can be one of these.
 * profile: a documented stand-in, the simulated profile (sim_model) of the config: the
 *          datasets hold no ncu profiles, and the sim's classifier has the same categories
 *          and reacts to the same knobs.
 * health:  always ok.
 * Everything it writes says backend=replay and names the dataset.
 */
#include "backend.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "dataset/dataset.h"
#include "format/rng.h"
#include "target/target.h"
#include "util/log.h"
#include "util/paired.h"
#include "util/regfile.h"

struct replay {
    struct dataset ds;
    char path[1024];
    struct croq_config *cfgs; /* backend.measurable */
};

/* The dataset's configurations as backend.measurable wants them: sorted, each once
 * (dataset_load refuses a configuration measured twice). Returns how many. */
static size_t measurable_init(struct replay *p)
{
    size_t n = (size_t)p->ds.n;
    p->cfgs = xmalloc((n + 1) * sizeof *p->cfgs);
    for (size_t i = 0; i < n; i++)
        p->cfgs[i] = p->ds.r[i].cfg;
    qsort(p->cfgs, n, sizeof *p->cfgs, knobs_config_cmp);
    return n;
}

static int replay_health(struct backend *b, const struct cand_req *r, struct backend_health *out)
{
    struct replay *p = b->priv;
    (void)r;
    memset(out, 0, sizeof *out);
    out->state = HEALTH_OK;
    out->sm_clock_mhz = out->temp_c = NAN;
    snprintf(out->why, sizeof out->why, "ok (replay of '%.200s')", p->path);
    return 0;
}

/* 0 when r's shape is the dataset's; else CAND_UNUSABLE in out: replaying another
 * shape's numbers would be wrong for every config. */
static int check_shape(const struct replay *p, const struct cand_req *r, struct cand_result *out)
{
    if (r->cfg->dtype == p->ds.dtype && !memcmp(&r->shape, &p->ds.shape, sizeof r->shape))
        return 0;
    out->status = CAND_UNUSABLE;
    snprintf(out->reason, sizeof out->reason, "replay: dataset '%.100s' holds %s %ldx%ldx%ld, not %s %ldx%ldx%ld",
             p->path, croq_dtype_name(p->ds.dtype), p->ds.shape.m, p->ds.shape.n, p->ds.shape.k,
             croq_dtype_name(r->cfg->dtype), r->shape.m, r->shape.n, r->shape.k);
    return -1;
}

static int replay_build(struct backend *b, const struct cand_req *r, struct cand_result *out)
{
    struct replay *p = b->priv;
    char why[CROQ_WHY_MAX], path[4096];
    memset(out, 0, sizeof *out);
    if (check_shape(p, r, out))
        return 0;
    snprintf(path, sizeof path, "%s/%s", r->dir, r->src_rel);
    int fd = regfile_open(path, O_RDONLY, 0, 0); /* O_NONBLOCK: a FIFO there cannot block */
    if (fd < 0) {
        out->status = CAND_COMPILE_ERROR;
        snprintf(out->reason, sizeof out->reason, "replay: cannot open '%s': %s", r->src_rel, regfile_strerror(errno));
        return 0;
    }
    close(fd);
    const struct ds_record *rec = dataset_find(&p->ds, r->cfg);
    if (!knobs_validate(r->cfg, &r->shape, why, sizeof why)) {
        out->status = CAND_COMPILE_ERROR;
        snprintf(out->reason, sizeof out->reason, "replay: static_assert failed: %.200s", why);
    } else if (rec && !strcmp(rec->status, "compile_error")) {
        out->status = CAND_COMPILE_ERROR;
        snprintf(out->reason, sizeof out->reason, "replay: %.230s", rec->reason);
    } else {
        out->status = CAND_OK;
    }
    return 0;
}

/* Trials timed back to back share the GPU's state. A recorded trial's time is mostly the
 * SM clock the power cap left it (the H100 datasets' records are bimodal, ~1500 against
 * 1800-1980 MHz), and on the GPU a pair of DECIDE (rules 3) or a round of the final ladder
 * runs its subjects within milliseconds, at one clock. Drawing every subject's trial
 * independently loses that: the paired ratios' spread becomes the two records' spreads
 * added. So a subject's draw is, with probability REPLAY_STATE_SHARED, the trial at the
 * pair's or round's common quantile of its own record (slow with slow, fast with fast, as
 * far as two records hold their modes in the same proportion: quantiles are matched, not
 * recorded clocks, which lag the trials), else an independent one. Calibration
 * (bench/pair-coupling.py on the H200 typical sweep's 603 paired measurements of 10 pairs,
 * 2026-12-08): the sign-test interval's width / median ratio is 1.20 % as measured (median
 * over the measurements; 5.20 % at the 90th percentile); the same trials re-paired
 * independently give 2.10 % (9.86 %), always at the common quantile 0.60 % (3.70 %), at it
 * in 0.6 of the draws 1.11 % (5.74 %): 0.6 lies between the median's fit (~0.57) and the
 * 90th percentile's (~0.7). */
#define REPLAY_STATE_SHARED 0.6

/* The rank (0 = fastest) of trial k among rec's trials, ties in recorded order. */
static int trial_rank(const struct ds_record *rec, int k)
{
    int below = 0;
    for (int q = 0; q < rec->n_trials; q++)
        below += rec->trial_ms[q] < rec->trial_ms[k] || (rec->trial_ms[q] == rec->trial_ms[k] && q < k);
    return below;
}

/* The index of rec's trial at quantile u in [0, 1): rank floor(u x n_trials). */
static int trial_at(const struct ds_record *rec, double u)
{
    int want = (int)(u * rec->n_trials);
    for (int k = 0; k < rec->n_trials; k++)
        if (trial_rank(rec, k) == want)
            return k;
    return rec->n_trials - 1; /* not reached: the ranks are 0..n_trials-1 */
}

/* A subject's draw in a pair or round whose state is quantile u: with probability shared
 * the trial at u, else an independent one. */
static int draw_trial(const struct ds_record *rec, double u, double shared, struct rng *g)
{
    return rng_uniform(g) < shared ? trial_at(rec, u) : (int)(rng_next(g) % (uint64_t)rec->n_trials);
}

static int replay_measure(struct backend *b, const struct cand_req *r, struct cand_result *out)
{
    struct replay *p = b->priv;
    char sig[CROQ_SIG_MAX];
    memset(out, 0, sizeof *out);
    out->ratio = out->ratio_lo = out->ratio_hi = NAN;
    if (check_shape(p, r, out))
        return 0;
    knobs_signature(r->cfg, sig);
    snprintf(out->command, sizeof out->command, "replay: dataset %.200s, seed %llu, iteration %d, tag %s", p->path,
             r->seed, r->iter, r->tag);
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_integer(1));
    json_object_set_new(j, "command", json_string("run"));
    json_object_set_new(j, "iter", json_integer(r->iter));
    json_object_set_new(j, "tag", json_string(r->tag));
    json_object_set_new(j, "config", json_string(sig));
    json_object_set_new(j, "dataset", json_string(p->path));
    const struct ds_record *rec = dataset_find(&p->ds, r->cfg);
    if (!rec || strcmp(rec->status, "ok")) {
        int st = rec ? cand_status_parse(rec->status) : CAND_NOT_IN_DATASET;
        out->status = st < 0 || st == CAND_OK || st == CAND_UNUSABLE ? CAND_CRASH : (enum cand_status)st;
        if (rec)
            snprintf(out->reason, sizeof out->reason, "replay: %s: %.220s", rec->status, rec->reason);
        else
            snprintf(out->reason, sizeof out->reason, CAND_NOT_IN_DATASET_REASON " (%d configurations of %.150s): "
                     "never measured, excluded from the score", p->ds.n, p->path);
        json_object_set_new(j, "status", json_string(cand_status_name(out->status)));
        json_object_set_new(j, "error", json_string(out->reason));
    } else if (r->no_time) { /* a verification only (a KEEP's check on a new operand set) */
        backend_verified_result(rec->max_err_over_tol, "replay", j, out);
    } else {
        struct rng g;
        double trial[BACKEND_MAX_TRIALS], clock[BACKEND_MAX_TRIALS], inc[BACKEND_MAX_TRIALS];
        const struct ds_record *irec = r->incumbent_cfg ? dataset_find(&p->ds, r->incumbent_cfg) : NULL;
        bool paired = irec && !strcmp(irec->status, "ok") && irec->n_trials > 0;
        int n = rec->n_trials < BACKEND_MAX_TRIALS ? rec->n_trials : BACKEND_MAX_TRIALS;
        if (paired) /* rules 3: the incumbent's recorded trials drawn alongside, pair by pair */
            n = PAIRED_DEFAULT_PAIRS;
        rng_seed(&g, backend_req_seed(r));
        for (int i = 0; i < n; i++) {
            int k = (int)(rng_next(&g) % (uint64_t)rec->n_trials);
            trial[i] = rec->trial_ms[k];
            clock[i] = k < rec->n_trial_clocks ? rec->trial_clock_mhz[k] : rec->sm_clock_mhz;
            if (paired) { /* the pair's state: a quantile inside the candidate's trial's rank
                           * (uniform over the incumbent's ranks whatever the two counts) */
                const double u = (trial_rank(rec, k) + rng_uniform(&g)) / rec->n_trials;
                inc[i] = irec->trial_ms[draw_trial(irec, u, REPLAY_STATE_SHARED, &g)];
            }
        }
        /* the clock of the median trial: the one the reported time ran at */
        int mid = 0;
        for (int i = 0, below; i < n; i++) {
            below = 0;
            for (int q = 0; q < n; q++)
                below += trial[q] < trial[i] || (trial[q] == trial[i] && q < i);
            if (below == n / 2)
                mid = i;
        }
        double clk = isfinite(clock[mid]) ? clock[mid] : croq_target()->boost_mhz;
        backend_ok_result(r, trial, n, clk, rec->max_err_over_tol, "replay", j, out);
        if (paired)
            json_object_set_new(j, "paired", backend_paired_result(r, trial, inc, n, out));
    }
    json_object_set_new(j, "source", json_pack("{s:s, s:s, s:s}", "gpu", rec ? rec->gpu : "", "date",
                                               rec ? rec->date : "", "backend", rec ? rec->backend : ""));
    int rc = backend_write_raw(r, j, "replay", out);
    json_decref(j);
    return rc;
}

/* The final ladder: every round draws one recorded trial of each entry (with replacement,
 * seeded as measure's draws are, the round's state shared as a pair's), with its recorded
 * clock. An entry the dataset did not measure ok fails the ladder as its record says. */
static int replay_ladder(struct backend *b, const struct ladder_req *q, struct ladder_result *out)
{
    struct replay *p = b->priv;
    struct rng g;
    const struct ds_record *rec[LADDER_MAX];
    int rounds = q->rounds > 0 ? q->rounds : LADDER_DEFAULT_ROUNDS;
    memset(out, 0, sizeof *out);
    out->failed = -1;
    out->n = q->n;
    out->steady = true;
    snprintf(out->l2, sizeof out->l2, "%s", q->cold_l2 ? "cold" : "warm");
    snprintf(out->command, sizeof out->command, "replay: ladder of %d configurations, %d rounds, dataset %.200s, tag %s",
             q->n, rounds, p->path, q->tag);
    rng_seed(&g, backend_ladder_seed(q));
    for (int i = 0; i < q->n; i++) {
        rec[i] = dataset_find(&p->ds, q->e[i].cfg);
        out->e[i].status = CAND_OK;
        if ((!rec[i] || strcmp(rec[i]->status, "ok") || rec[i]->n_trials < 1) && out->status == CAND_OK) {
            out->e[i].status = out->status = CAND_NOT_IN_DATASET;
            out->failed = i;
            snprintf(out->reason, sizeof out->reason, "iteration %d: not measured ok in the dataset", q->e[i].iter);
        }
    }
    for (int r = 0; out->status == CAND_OK && r < rounds && r < LADDER_MAX_ROUNDS; r++) {
        /* the round's state; each entry takes it with probability sqrt(shared), so any two
         * entries of a round share it as a DECIDE pair does */
        const double u = rng_uniform(&g);
        for (int k = 0; k < q->n; k++) {
            int i = (r + k) % q->n;
            struct ladder_entry_result *e = &out->e[i];
            int t = draw_trial(rec[i], u, sqrt(REPLAY_STATE_SHARED), &g);
            double clk = t < rec[i]->n_trial_clocks ? rec[i]->trial_clock_mhz[t] : rec[i]->sm_clock_mhz;
            e->trial_ms[e->trials] = rec[i]->trial_ms[t];
            e->trial_clock_mhz[e->trials++] = isfinite(clk) ? (int)round(clk) : -1;
        }
    }
    if (out->status == CAND_OK)
        backend_ladder_summarise(q, out);
    json_t *j = json_pack("{s:i, s:s, s:s, s:i, s:s, s:s}", "schema", 1, "command", "ladder", "tag", q->tag,
                          "rounds", rounds, "l2", out->l2, "dataset", p->path);
    backend_ladder_json_finish(q, out, j);
    int rc = backend_write_ladder_raw(q, j, "replay", out);
    json_decref(j);
    return rc;
}

static int replay_profile(struct backend *b, const struct cand_req *r, struct profile_out *out)
{
    (void)b;
    return sim_profile_write(r, "replay", out);
}

static void replay_release(struct backend *b)
{
    struct replay *p = b->priv;
    dataset_release(&p->ds);
    free(p->cfgs);
    free(p);
    free(b);
}

struct backend *replay_open(const struct backend_opts *o, char *err, size_t errlen)
{
    if (!o->dataset || !*o->dataset) {
        snprintf(err, errlen, "the replay backend needs a dataset (--dataset FILE, made by 'croqtuner explore')");
        return NULL;
    }
    /* every artifact names the dataset in JSON text (health, the checkpoint), which holds
     * UTF-8 only: a path that is not would be dropped from them */
    json_t *utf8 = json_string(o->dataset);
    if (!utf8) {
        snprintf(err, errlen, "the dataset path is not UTF-8 text, which the tuning directory's JSON files cannot "
                 "name: give the dataset another name");
        return NULL;
    }
    json_decref(utf8);
    struct replay *p = xmalloc(sizeof *p);
    memset(p, 0, sizeof *p);
    snprintf(p->path, sizeof p->path, "%s", o->dataset);
    if (dataset_load(o->dataset, false, &p->ds, err, errlen)) {
        free(p);
        return NULL;
    }
    if (!dataset_best(&p->ds)) {
        snprintf(err, errlen, "dataset '%.200s' has no configuration measured ok: nothing to replay", o->dataset);
        dataset_release(&p->ds);
        free(p);
        return NULL;
    }
    /* checked here, before the engine registers a shape: a dataset of another shape can
     * serve none of its configurations (build and measure check it again) */
    if (o->shape && (o->dtype != p->ds.dtype || memcmp(o->shape, &p->ds.shape, sizeof *o->shape))) {
        snprintf(err, errlen, "replay: dataset '%.200s' holds %s %ldx%ldx%ld, not %s %ldx%ldx%ld: give --dataset a "
                 "dataset explored on this shape ('croqtuner explore --dtype %s --shape %ldx%ldx%ld --out FILE'), or "
                 "tune the dataset's shape", o->dataset, croq_dtype_name(p->ds.dtype), p->ds.shape.m, p->ds.shape.n,
                 p->ds.shape.k, croq_dtype_name(o->dtype), o->shape->m, o->shape->n, o->shape->k,
                 croq_dtype_name(o->dtype), o->shape->m, o->shape->n, o->shape->k);
        dataset_release(&p->ds);
        free(p);
        return NULL;
    }
    char why[768];
    if (dataset_check_baseline(&p->ds, why, sizeof why)) {
        snprintf(err, errlen, "dataset '%.200s' cannot be replayed: %s", o->dataset, why);
        dataset_release(&p->ds);
        free(p);
        return NULL;
    }
    size_t n_cfgs = measurable_init(p);
    struct backend *b = xmalloc(sizeof *b);
    *b = (struct backend){.name = "replay", .health = replay_health, .build = replay_build, .measure = replay_measure,
                          .profile = replay_profile, .ladder = replay_ladder, .release = replay_release,
                          .measurable = p->cfgs, .n_measurable = n_cfgs, .dataset_hash = p->ds.hash, .priv = p};
    return b;
}
