/* src/engine/step_baseline.c — BASELINE: iteration 0 is the starting configuration,
 * built, verified and timed like any candidate (after a health check, with the sanity
 * rule), and stored with decision BASELINE. A baseline that does not compile, verify
 * or run leaves nothing to tune from: the shape completes with that reason.
 */
#include "run.h"

#include <stdio.h>
#include <string.h>

static void baseline_pending(struct run *r)
{
    struct checkpoint *c = &r->ck;
    struct pending *p = &c->pending;
    memset(p, 0, sizeof *p);
    p->active = true;
    p->iter = 0;
    if (c->seed_from[0])
        snprintf(p->idea, sizeof p->idea, "baseline: best configuration of %s", c->seed_from);
    else
        snprintf(p->idea, sizeof p->idea, "baseline: %s", c->sk.mode == MODE_FROM_SCRATCH
                                                               ? "the single-warpgroup baseline kernel"
                                                               : "the family's default configuration");
    snprintf(p->config, sizeof p->config, "%s", c->seed_config);
    snprintf(p->src_rel, sizeof p->src_rel, "srcs/%s/iter000.cu", c->key);
}

int step_baseline(struct run *r)
{
    struct pending *p = &r->ck.pending;
    if (!p->active) {
        baseline_pending(r);
        /* saved before anything is built, so resume can match what it finds in the logs */
        if (run_save(r))
            return ENGINE_FAILED;
        crashpoint("baseline.pending");
    }
    if (!p->measured) {
        struct cand_result b;
        int rc;
        if ((rc = implement_build(r, &b)))
            return rc;
        if (b.status != CAND_OK)
            return implement_commit_failure(r, &b, false);
        if ((rc = measure_pending(r, true)))
            return rc;
    }
    return store_commit(r, false, false);
}
