/* src/engine/step_ideate.c — IDEATE: the shape's search strategy (src/search/search.h;
 * the heuristic proposer by default) picks the next configuration, never a signature
 * tried before.
 * Guards: a best exists and was profiled (evidence in the checkpoint). The strategy is
 * given the shape's knob space (its pinned generator's knobs and values,
 * generator_pin.c) and what the backend can measure (backend.measurable: a replay's
 * dataset). The engine re-checks what the strategy promises (new signature, valid for
 * the shape, inside that space, measurable) rather than trust it. In agent mode (the
 * agent strategy, an external one) the engine stops here and waits for 'propose'.
 */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool seen(const struct run_history *h, const char *sig)
{
    for (size_t i = 0; i < h->n; i++)
        if (!strcmp(h->e[i].signature, sig))
            return true;
    return false;
}

/* Who proposed, in messages and the stop reason: "proposer" (the default strategy, as
 * before strategies existed), else "strategy 'NAME'". */
#define WHO_MAX (SEARCH_NAME_MAX + 16)
static const char *who(const struct checkpoint *c, char buf[WHO_MAX])
{
    if (!strcmp(c->strategy, SEARCH_DEFAULT))
        return "proposer";
    snprintf(buf, WHO_MAX, "strategy '%s'", c->strategy);
    return buf;
}

static int stop(struct run *r, const char *why)
{
    snprintf(r->ck.stop_reason, sizeof r->ck.stop_reason, "%s", why);
    if (run_goto(r, run_finish_phase(r)))
        return ENGINE_FAILED;
    return run_save(r);
}

int ideate_guard(struct run *r)
{
    struct checkpoint *c = &r->ck;
    if (!c->have_best)
        return run_fail(r, "shape '%s': no best to start from (guard of IDEATE)", c->key);
    if (!c->profile.done || strcmp(c->profile.config, c->best.config))
        return run_fail(r, "shape '%s': the current best was not profiled (guard of IDEATE)", c->key);
    return 0;
}

static void fill_pending(struct run *r, const struct idea *idea)
{
    struct checkpoint *c = &r->ck;
    struct pending *p = &c->pending;
    memset(p, 0, sizeof *p);
    p->active = true;
    p->iter = c->iteration + 1;
    snprintf(p->idea, sizeof p->idea, "%s", idea->text);
    snprintf(p->justification, sizeof p->justification, "%s", idea->justification);
    snprintf(p->category, sizeof p->category, "%s", idea_category_name(idea->category));
    snprintf(p->bottleneck, sizeof p->bottleneck, "%s",
             c->profile.category == BN_UNKNOWN ? "unknown" : bottleneck_name(c->profile.category));
    knobs_signature(&idea->cfg, p->config);
    snprintf(p->src_rel, sizeof p->src_rel, "srcs/%s/iter%03d.cu", c->key, p->iter);
    idea_text_sanitize(p->idea);
    idea_text_sanitize(p->justification);
}

int ideate_next(struct run *r, const struct idea_history_entry *hist, size_t n, int iteration, int discards,
                struct idea *idea)
{
    struct checkpoint *c = &r->ck;
    struct proposer_ctx ctx = {
        .shape = c->sk.shape, .best = r->best_cfg, .best_tflops = c->best.p.tflops,
        .bottleneck = c->profile.category, .metrics = c->profile.ok ? &c->profile.m : NULL,
        .history = hist, .n_history = n, .iteration = iteration, .budget = c->budget,
        .consecutive_discards = discards, .other_bests = NULL, .n_other_bests = c->n_other_bests,
        .seed = c->seed, .space = run_space(r),
        .measurable = r->be->measurable, .n_measurable = r->be->n_measurable,
    };
    struct croq_config *others = NULL;
    char err[256];
    if (prior_load(r))
        return -1;
    ctx.others = r->prior;
    ctx.n_others = r->n_prior;
    if (c->n_other_bests) {
        others = calloc(c->n_other_bests, sizeof *others);
        for (size_t i = 0; i < c->n_other_bests; i++)
            if (knobs_parse_signature(&others[i], c->other_bests[i], err, sizeof err))
                knobs_default(&others[i], c->sk.dtype); /* unreadable: harmless stand-in */
        ctx.other_bests = others;
    }
    memset(idea, 0, sizeof *idea);
    /* run_open checked that the recorded strategy exists and is the engine's own */
    int rc = search_open(c->strategy)->next(&ctx, idea);
    free(others);
    return rc;
}

static int propose(struct run *r, const struct run_history *h, struct idea *idea)
{
    struct checkpoint *c = &r->ck;
    char why[CROQ_WHY_MAX], w[WHO_MAX];
    int rc = ideate_next(r, h->e, h->n, c->iteration + 1, h->consecutive_discards, idea);
    if (rc != 0)
        return rc;
    char sig[CROQ_SIG_MAX];
    knobs_signature(&idea->cfg, sig);
    if (seen(h, sig)) {
        run_fail(r, "shape '%s': the %s repeated configuration '%s' (refused)", c->key, who(c, w), sig);
        return -1;
    }
    if (!knobs_validate(&idea->cfg, &c->sk.shape, why, sizeof why)) {
        run_fail(r, "shape '%s': the %s gave an invalid configuration: %s (refused)", c->key, who(c, w), why);
        return -1;
    }
    if (!knob_space_allows(run_space(r), &idea->cfg, why, sizeof why)) {
        run_fail(r, "shape '%s': the %s gave a configuration its pinned generator does not implement: %s (refused)",
                 c->key, who(c, w), why);
        return -1;
    }
    if (!knobs_config_in(r->be->measurable, r->be->n_measurable, &idea->cfg)) {
        run_fail(r, "shape '%s': the %s gave '%s', which the %s backend cannot measure (refused)", c->key, who(c, w),
                 sig, r->be->name);
        return -1;
    }
    return 0;
}

int step_ideate(struct run *r)
{
    struct checkpoint *c = &r->ck;
    struct run_history h;
    struct idea idea;
    char why[160];
    if (ideate_guard(r))
        return ENGINE_FAILED;
    if (c->compile_failures >= COMPILE_FAILURES_MAX) {
        snprintf(why, sizeof why, "%d candidates in a row failed to compile at iteration %d", c->compile_failures,
                 c->iteration + 1);
        return stop(r, why);
    }
    /* the agent flag hands IDEATE to the agent strategy: an external one (no next), whose
     * ideas come through 'croqtuner propose' */
    if (!search_open(c->agent ? "agent" : c->strategy)->next) {
        /* say so in state.json: 'status' shows the shape waiting for an agent */
        char err[600];
        if (run_save(r)) /* the checkpoint says IDEATE: propose checks it */
            return ENGINE_FAILED;
        if (state_put(r->dir, c, "active", err, sizeof err))
            return run_fail(r, "%s", err);
        progress_write(r);
        return ENGINE_WAITING;
    }
    if (history_load(r, &h))
        return ENGINE_FAILED;
    int rc = propose(r, &h, &idea);
    history_release(&h);
    if (rc == 1) {
        char stop_why[128], w[WHO_MAX];
        snprintf(stop_why, sizeof stop_why, "the %s found no untried valid configuration%s", who(c, w),
                 r->be->measurable ? " the backend can measure" : "");
        return stop(r, stop_why);
    }
    if (rc < 0)
        return ENGINE_FAILED;
    fill_pending(r, &idea);
    if (run_goto(r, PH_IMPLEMENT) || run_save(r))
        return ENGINE_FAILED;
    crashpoint("ideate.saved");
    return 0;
}
