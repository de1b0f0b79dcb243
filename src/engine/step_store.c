/* src/engine/step_store.c — STORE: commit one iteration.
 *
 * Write order (docs/engine.md, "Crash safety"):
 *   1. results.tsv row       <- the commit point: once it is there, the iteration happened
 *   2. idea-log.jsonl line
 *   3. checkpoint (iteration, best, next phase; pending cleared)
 *   4. state.json, RESUME.md, progress file
 *   5. the whole source no longer needed is dropped, its recipe kept (srcstore_compact)
 *   6. git commit (--git)
 * A crash after 1 or 2 leaves records beyond the checkpoint; resume adopts them by
 * running this same function with row_present / idea_present set, so the artifacts end
 * up byte-identical (timestamps aside) to an uninterrupted run.
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts/srcstore.h"
#include "util/atomicio.h"
#include "util/log.h"
#include "util/utctime.h"

static void make_row(struct run *r, struct result_row *row, double best_after)
{
    struct pending *p = &r->ck.pending;
    const struct measure_rec *m = &p->cand;
    memset(row, 0, sizeof *row);
    row->iter = p->iter;
    snprintf(row->kernel, sizeof row->kernel, "%s", p->src_rel);
    snprintf(row->source_hash, sizeof row->source_hash, "%s", p->src_hash);
    snprintf(row->config, sizeof row->config, "%s", p->config);
    row->measured = m->status == CAND_OK;
    row->tflops = m->p.tflops;
    row->median_ms = m->p.median_ms;
    row->spread_pct = m->p.spread_pct;
    row->hw_eff_pct = m->hw_eff_pct;
    row->sm_clock_mhz = m->p.sm_clock_mhz;
    row->decision = p->decision;
    row->best_tflops = best_after;
    snprintf(row->bottleneck, sizeof row->bottleneck, "%s", p->bottleneck);
    snprintf(row->category, sizeof row->category, "%s", p->category);
    snprintf(row->idea, sizeof row->idea, "%s", p->idea);
    row->max_err_over_tol = m->max_err_over_tol;
    utc_now(row->timestamp);
    snprintf(row->command, sizeof row->command, "%s", m->command);
    snprintf(row->note, sizeof row->note, "%s", p->note);
}

static void make_idea(struct run *r, const struct result_row *row, struct idea_record *rec)
{
    struct pending *p = &r->ck.pending;
    memset(rec, 0, sizeof *rec);
    rec->iter = p->iter;
    snprintf(rec->idea, sizeof rec->idea, "%s", p->idea);
    snprintf(rec->category, sizeof rec->category, "%s", p->category);
    snprintf(rec->bottleneck, sizeof rec->bottleneck, "%s", p->bottleneck);
    snprintf(rec->justification, sizeof rec->justification, "%s", p->justification);
    snprintf(rec->config, sizeof rec->config, "%s", p->config);
    snprintf(rec->source_hash, sizeof rec->source_hash, "%s", p->src_hash);
    snprintf(rec->origin, sizeof rec->origin, "%s", p->agent ? "agent" : "engine");
    rec->decision = p->decision;
    rec->tflops = row->measured ? row->tflops : NAN;
    rec->best_tflops = row->best_tflops;
    snprintf(rec->timestamp, sizeof rec->timestamp, "%s", row->timestamp);
    snprintf(rec->backend, sizeof rec->backend, "%s", r->ck.backend);
}

/* Append one record; cp names the crash points around it (tests). */
static int append(struct run *r, const char *leaf, char *line, const char *cp)
{
    char path[ENGINE_PATH_MAX], torn[64];
    int rc = -1;
    snprintf(torn, sizeof torn, "%s.torn", cp);
    if (!run_path(r, path, "logs", leaf)) {
        crashpoint_torn(torn, path, line);
        rc = append_record(path, line, strlen(line));
    }
    free(line);
    if (rc)
        return run_fail(r, "cannot append to '%s': %s", path, strerror(errno));
    crashpoint(cp);
    return 0;
}

/* The best after this decision (in the checkpoint). */
static int apply_decision(struct run *r)
{
    struct checkpoint *c = &r->ck;
    struct pending *p = &c->pending;
    char err[256];
    if (decision_kept(p->decision)) {
        double before = c->have_best ? c->best.p.tflops : NAN;
        c->have_best = true;
        c->best.iter = p->iter;
        snprintf(c->best.config, sizeof c->best.config, "%s", p->config);
        snprintf(c->best.kernel, sizeof c->best.kernel, "%s", p->src_rel);
        snprintf(c->best.source_hash, sizeof c->best.source_hash, "%s", p->src_hash);
        c->best.p = p->cand.p;
        /* rules 4: the shape's one scale, the old best times the confirmed speedup (so the
         * best never falls); before, the candidate's own TFLOPS */
        if (p->decision == DEC_KEEP)
            c->best.p.tflops = decide_best_after_keep(c->decide_rules, before, &p->cand.p,
                                                      p->confirm_checked ? &p->confirm.p : NULL);
        /* the speedup was the candidate's over the old best: not a number of the new one */
        c->best.p.ratio = c->best.p.ratio_lo = c->best.p.ratio_hi = NAN;
        if (knobs_parse_signature(&r->best_cfg, c->best.config, err, sizeof err))
            return run_fail(r, "shape '%s': best config: %s", c->key, err);
    } else if (p->best_remeasured && p->best_re.status == CAND_OK && decide_rebase_on_discard(c->decide_rules)) {
        c->best.p = p->best_re.p; /* rules 1: the re-measured best is the reference from now on */
    }
    if (p->iter == 0)
        c->baseline_tflops = p->cand.status == CAND_OK && p->decision == DEC_BASELINE ? p->cand.p.tflops : NAN;
    return 0;
}

static enum engine_phase next_phase(struct run *r)
{
    struct checkpoint *c = &r->ck;
    if (!c->have_best) {
        snprintf(c->stop_reason, sizeof c->stop_reason, "baseline failed (%s): %.180s",
                 decision_name(c->pending.decision), c->pending.note);
        return PH_SHAPE_COMPLETE;
    }
    if (c->iteration >= c->budget) {
        snprintf(c->stop_reason, sizeof c->stop_reason, "budget of %d iteration%s spent", c->budget,
                 c->budget == 1 ? "" : "s");
        return run_finish_phase(r);
    }
    return PH_PROFILE;
}

/* The decision as the progress line shows it: its name, with why where the name alone
 * misleads. A replayed config the dataset never measured is recorded as
 * DISCARD_RUNTIME_CRASH (decide_failure: no numbers, never a best) but did not crash; a
 * DISCARD of a candidate that measured faster than the best lost to the noise rule. */
static const char *progress_label(const struct pending *p, const struct result_row *row, char *buf, size_t len)
{
    const char *name = decision_name(row->decision);
    if (p->cand.status == CAND_NOT_IN_DATASET && !decision_kept(row->decision)) {
        snprintf(buf, len, "DISCARD (" CAND_NOT_IN_DATASET_REASON ")");
        return buf;
    }
    if (row->decision == DEC_DISCARD && p->confirm_checked) {
        snprintf(buf, len, "DISCARD (not confirmed)");
        return buf;
    }
    /* the speedup as the note prints it (4 decimals), so the label and the row agree */
    bool faster = isfinite(p->cand.p.ratio) ? decide_round(p->cand.p.ratio, 4) > 1.0
                                            : row->measured && isfinite(row->best_tflops) && row->tflops > row->best_tflops;
    if (row->decision == DEC_DISCARD && faster) {
        snprintf(buf, len, "%s (within noise)", name);
        return buf;
    }
    return name;
}

/* The progress line (label: progress_label of the row) and the optional git commit. */
static void report(struct run *r, const struct result_row *row, const char *label)
{
    struct checkpoint *c = &r->ck;
    char git[IDEA_TEXT_MAX + 200], tf[32] = "-", bt[32], bt3[64];
    struct strbuf sb = STRBUF_INIT;
    tsv_escape(&sb, row->idea); /* one line: newlines in idea text must not split a line */
    if (row->measured)
        results_tflops_show(tf, sizeof tf, row->tflops);
    double best = isfinite(row->best_tflops) ? row->best_tflops : 0.0;
    if (!r->o->quiet)
        printf("%s iter %03d/%d %-28s %8s TFLOPS  best %s  %s\n", c->key, row->iter, c->budget,
               label, tf, results_tflops_show(bt, sizeof bt, best), strbuf_str(&sb));
    if (!r->o->git) {
        strbuf_release(&sb);
        return;
    }
    snprintf(git, sizeof git, "%s iter%03d: %.300s — TFLOPS: %s -> %s (%s)", c->key, row->iter, strbuf_str(&sb),
             tf, results_num_text(bt3, sizeof bt3, best, RN_TFLOPS),
             decision_kept(row->decision) ? (row->decision == DEC_KEEP ? "KEEP" : "BASELINE") : "DISCARD");
    strbuf_release(&sb);
    git_commit_shape(r, git);
}

/* The whole source that stopped being needed with this decision: the candidate when it was
 * not kept, else the best it replaced. Only a file its recipe reproduces is removed
 * (srcstore_compact); any other stays whole, which is as valid, so nothing here stops
 * the run. */
static void store_compact(const char *dir, const char *rel)
{
    char err[700];
    if (rel[0] && srcstore_compact(dir, rel, err, sizeof err) < 0)
        log_warn("%s stays whole: %s", rel, err);
}

int store_commit(struct run *r, bool row_present, bool idea_present)
{
    struct checkpoint *c = &r->ck;
    struct result_row row;
    struct idea_record rec;
    char err[600];
    if (evidence_check(r))
        return ENGINE_FAILED;
    if (decision_kept(c->pending.decision) && c->pending.cand.status != CAND_OK)
        return run_fail(r, "shape '%s': a failed candidate cannot be kept (engine bug)", c->key);
    char done_with[BACKEND_REL_MAX] = "";
    if (!decision_kept(c->pending.decision))
        snprintf(done_with, sizeof done_with, "%s", c->pending.src_rel);
    else if (c->have_best && strcmp(c->best.kernel, c->pending.src_rel))
        snprintf(done_with, sizeof done_with, "%s", c->best.kernel);
    if (apply_decision(r))
        return ENGINE_FAILED;
    make_row(r, &row, c->have_best ? c->best.p.tflops : NAN);
    make_idea(r, &row, &rec);
    if ((!row_present && append(r, "/results.tsv", row_format(&row), "store.row")) ||
        (!idea_present && append(r, "/idea-log.jsonl", idea_format(&rec), "store.idea")))
        return ENGINE_FAILED;
    c->iteration = c->pending.iter;
    c->compile_failures = 0;
    enum engine_phase next = next_phase(r);
    char label_buf[48];
    const char *label = progress_label(&c->pending, &row, label_buf, sizeof label_buf);
    memset(&c->pending, 0, sizeof c->pending);
    if (run_goto(r, next) || run_save(r))
        return ENGINE_FAILED;
    crashpoint("store.checkpoint");
    if (state_put(r->dir, c, "active", err, sizeof err))
        return run_fail(r, "%s", err);
    crashpoint("store.state");
    store_compact(r->dir, done_with);
    r->stored_here++;
    snprintf(r->last_decision, sizeof r->last_decision, "%s", decision_name(row.decision));
    progress_write(r);
    report(r, &row, label);
    return 0;
}

int step_store(struct run *r) { return store_commit(r, false, false); }
