/* src/engine/step_ladder.c — LADDER: a finished shape's top configurations (ladder_pick:
 * the best, the last kept ones and the highest recorded) timed again together, in one
 * worker, in rotating rounds after one warm-up to a steady clock (backend.h, "the final
 * ladder"). The registered best (kernels/, state.json, status, report, export) is the
 * winner, with the ladder's TFLOPS and clock: one measurement of every contender under the
 * same clock history, where the rows were measured minutes apart at whatever clock the
 * power cap allowed then.
 *
 * Crash safety: the backend writes the raw file, then this step records the outcome in
 * the checkpoint (ladder.done) and moves to SHAPE_COMPLETE. Killed before that save, the
 * ladder runs again on resume; its requests are the same (the model backends draw the same
 * noise), so the record is what an uninterrupted run writes. An entry that fails (it built
 * and verified before: the GPU or the tuning directory changed) is dropped, said in the
 * note, and the ladder runs once more without it; a second failure leaves the shape's
 * chain best registered, with why.
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts/srcstore.h"
#include "target/target.h"
#include "util/log.h"

/* results.tsv and which of its rows an agent proposed (idea log). 0 or ENGINE_FAILED. */
static int load_rows(struct run *r, struct result_log *res, bool **agent)
{
    char path[ENGINE_PATH_MAX], err[600];
    struct idea_log ideas;
    *agent = NULL;
    if (run_path(r, path, "logs", "/results.tsv") || result_log_read(path, res, err, sizeof err) < 0)
        return run_fail(r, "shape '%s': cannot read its results for the ladder: %s", r->ck.key, err);
    if (run_path(r, path, "logs", "/idea-log.jsonl") || idea_log_read(path, &ideas, err, sizeof err) < 0) {
        result_log_release(res);
        return run_fail(r, "shape '%s': cannot read its idea log for the ladder: %s", r->ck.key, err);
    }
    *agent = ladder_agent_rows(res, &ideas);
    idea_log_release(&ideas);
    return 0;
}

static void note_add(struct ladder_rec *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(struct ladder_rec *l, const char *fmt, ...)
{
    va_list ap;
    size_t n = strlen(l->note);
    snprintf(l->note + n, sizeof l->note - n, "%s", n ? "; " : "");
    n = strlen(l->note);
    va_start(ap, fmt);
    vsnprintf(l->note + n, sizeof l->note - n, fmt, ap);
    va_end(ap);
}

/* The entries of the pick, their sources made whole for the build (a recipe regenerates
 * the recorded bytes with the recorded generator: today's kernels/ never leak in). */
static int fill_entries(struct run *r, const struct result_log *res, const int *pick, int n, struct ladder_rec *l,
                        struct croq_config *cfgs)
{
    char err[700];
    l->n = 0;
    for (int i = 0; i < n; i++) {
        const struct result_row *row = &res->rows[pick[i]];
        struct ladder_rec_entry *e = &l->e[l->n];
        memset(e, 0, sizeof *e);
        e->iter = row->iter;
        snprintf(e->config, sizeof e->config, "%s", row->config);
        snprintf(e->kernel, sizeof e->kernel, "%s", row->kernel);
        snprintf(e->source_hash, sizeof e->source_hash, "%s", row->source_hash);
        e->median_ms = e->tflops = e->spread_pct = e->sm_clock_mhz = e->rel = NAN;
        if (knobs_parse_signature(&cfgs[l->n], row->config, err, sizeof err))
            return run_fail(r, "shape '%s' iteration %d: config: %s", r->ck.key, row->iter, err);
        if (srcstore_materialize(r->dir, row->kernel, err, sizeof err))
            return run_fail(r, "shape '%s': the source of iteration %d for the ladder: %s", r->ck.key, row->iter, err);
        l->n++;
    }
    return 0;
}

static void take_result(struct ladder_rec *l, const struct ladder_result *o)
{
    double rel[LADDER_MAX], *med = rel;
    for (int i = 0; i < l->n; i++) {
        struct ladder_rec_entry *e = &l->e[i];
        struct perf_numbers p = {o->e[i].tflops, o->e[i].median_ms, o->e[i].spread_pct, o->e[i].sm_clock_mhz,
                                 NAN, NAN, NAN};
        perf_quantize(&p); /* as every recorded number: resume and the audit read back these */
        e->tflops = p.tflops, e->median_ms = p.median_ms, e->spread_pct = p.spread_pct, e->sm_clock_mhz = p.sm_clock_mhz;
        e->rel = decide_round(o->e[i].rel, 6);
        med[i] = e->rel;
    }
    l->winner = ladder_winner(med, l->n);
    l->ok = l->winner >= 0;
    l->steady = o->steady;
    snprintf(l->raw_rel, sizeof l->raw_rel, "%s", o->raw_rel);
    snprintf(l->raw_hash, sizeof l->raw_hash, "%s", o->raw_hash);
}

/* A ladder's numbers get the checks a measurement's get: an entry whose TFLOPS is not a
 * positive number, or is above the physical peak at its clock, fails the ladder as that
 * entry (the measurement or the kernel is broken), so it is left out and the ladder runs
 * again without it. */
static void implausible_entry(struct run *r, struct ladder_result *o)
{
    for (int i = 0; i < o->n; i++) {
        struct perf_numbers p = {o->e[i].tflops, o->e[i].median_ms, o->e[i].spread_pct, o->e[i].sm_clock_mhz,
                                 NAN, NAN, NAN};
        if (isfinite(p.tflops) && p.tflops > 0 && !decide_above_peak(r->ck.sk.dtype, &p))
            continue;
        o->status = CAND_CRASH;
        o->failed = i;
        snprintf(o->reason, sizeof o->reason, "%.3f TFLOPS at %.0f MHz is above the physical peak (%.3f) or not a "
                 "positive number: the measurement or the kernel is broken", p.tflops, p.sm_clock_mhz,
                 backend_peak_tflops(r->ck.sk.dtype, isfinite(p.sm_clock_mhz) ? p.sm_clock_mhz : croq_target()->boost_mhz));
        return;
    }
}

/* Drop entry i (it failed), keeping the order. */
static void drop(struct ladder_rec *l, struct croq_config *cfgs, int i)
{
    memmove(&l->e[i], &l->e[i + 1], (size_t)(l->n - i - 1) * sizeof l->e[0]);
    memmove(&cfgs[i], &cfgs[i + 1], (size_t)(l->n - i - 1) * sizeof cfgs[0]);
    l->n--;
}

/* Run the ladder of l's entries once. 0 with *o filled, or an engine_rc. */
static int run_once(struct run *r, const char *tag, struct ladder_rec *l, const struct croq_config *cfgs,
                    struct ladder_result *o)
{
    struct ladder_req q = {.dir = r->dir, .key = r->ck.key, .shape = r->ck.sk.shape, .seed = r->ck.seed,
                           .tag = tag, .n = l->n, .rounds = LADDER_DEFAULT_ROUNDS, .cold_l2 = r->ck.cold_l2};
    for (int i = 0; i < l->n; i++)
        q.e[i] = (struct ladder_entry_req){l->e[i].iter, &cfgs[i], l->e[i].kernel};
    int rc = health_wait(r, r->ck.iteration);
    if (rc)
        return rc;
    memset(o, 0, sizeof *o);
    if (r->be->ladder(r->be, &q, o))
        return run_fail(r, "shape '%s': the final ladder: %s", r->ck.key, o->reason);
    if (o->status == CAND_UNUSABLE) {
        run_fail(r, "the GPU is unusable: %s; shape '%s' continues with 'croqtuner resume --tuning %s' once it is "
                 "back", o->reason, r->ck.key, r->dir);
        return ENGINE_GPU_GONE;
    }
    if (o->gpu[0] && r->ck.gpu[0] && strcmp(o->gpu, r->ck.gpu))
        return run_fail(r, "shape '%s' is measured on '%s', but the ladder ran on '%s': nothing was recorded; "
                        "continue it on a '%s'", r->ck.key, r->ck.gpu, o->gpu, r->ck.gpu);
    return 0;
}

static int ladder_measure(struct run *r, struct ladder_rec *l)
{
    struct result_log res;
    bool *agent;
    int pick[LADDER_MAX], rc;
    struct croq_config cfgs[LADDER_MAX];
    struct ladder_result o;
    if (load_rows(r, &res, &agent))
        return ENGINE_FAILED;
    int n = ladder_pick(&res, agent, r->ck.best.iter, r->ck.sk.dtype, pick);
    rc = n < 2 ? 0 : fill_entries(r, &res, pick, n, l, cfgs);
    free(agent);
    result_log_release(&res);
    if (rc)
        return rc;
    if (n < 2) { /* one configuration: nothing to compare, its own rows stand */
        note_add(l, "only %d configuration to time: nothing to compare", n);
        return 0;
    }
    l->rounds = LADDER_DEFAULT_ROUNDS;
    for (int attempt = 1; attempt <= 2; attempt++) {
        if ((rc = run_once(r, attempt == 1 ? "final" : "final-2", l, cfgs, &o)))
            return rc;
        if (o.status == CAND_OK)
            implausible_entry(r, &o);
        if (o.status == CAND_OK) {
            take_result(l, &o);
            return 0;
        }
        int f = o.failed >= 0 && o.failed < l->n ? o.failed : -1;
        if (f < 0 || attempt == 2 || l->n == 1) {
            note_add(l, "the ladder failed (attempt %d): %s", attempt, o.reason);
            snprintf(l->raw_rel, sizeof l->raw_rel, "%s", o.raw_rel);
            snprintf(l->raw_hash, sizeof l->raw_hash, "%s", o.raw_hash);
            l->ok = false;
            l->winner = -1;
            return 0;
        }
        note_add(l, "iteration %d left out: %s", l->e[f].iter, o.reason);
        drop(l, cfgs, f);
    }
    return 0;
}

int step_ladder(struct run *r)
{
    struct checkpoint *c = &r->ck;
    if (!c->ladder.done) {
        struct ladder_rec *l = &c->ladder;
        memset(l, 0, sizeof *l);
        l->winner = -1;
        int rc = 0;
        if (!c->have_best)
            note_add(l, "no best to register");
        else if (!r->be->ladder)
            note_add(l, "backend '%s' has no ladder", r->be->name);
        else
            rc = ladder_measure(r, l);
        if (rc)
            return rc;
        crashpoint("ladder.measured"); /* raw file written, nothing recorded: resume runs it again */
        l->done = true;
        if (run_save(r))
            return ENGINE_FAILED;
        crashpoint("ladder.saved");
        char clk[32] = "clock unknown";
        if (l->ok && isfinite(l->e[l->winner].sm_clock_mhz))
            snprintf(clk, sizeof clk, "%.0f MHz", l->e[l->winner].sm_clock_mhz);
        if (!r->o->quiet && l->ok)
            printf("%s: final ladder of %d configurations, %d rounds: iteration %d wins at %.1f TFLOPS (%s)\n",
                   c->key, l->n, l->rounds, l->e[l->winner].iter, l->e[l->winner].tflops, clk);
        else if (!r->o->quiet)
            printf("%s: no final ladder (%s): the best stays iteration %d\n", c->key, l->note, c->best.iter);
    }
    if (run_goto(r, PH_SHAPE_COMPLETE))
        return ENGINE_FAILED;
    return run_save(r);
}

enum engine_phase run_finish_phase(const struct run *r)
{
    return r->ck.decide_rules >= DECIDE_RULES_LADDER && r->ck.have_best ? PH_LADDER : PH_SHAPE_COMPLETE;
}
