/* src/scale/merge.c — `croqtuner slurm --merge`, the job that runs after a sweep's
 * array (afterany). Claiming keeps state.json consistent by construction (next.c), so
 * there is nothing to combine; what a finished array can leave behind is what killed
 * tasks leave: stale claims, and shapes whose state.json entry lags their checkpoint by
 * one write. The merge drops the first, brings the second level (the engine's own
 * reconcile, as resume would), then records the sweep done or says what is left.
 */
#include "scale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

struct drop_arg {
    const char *dir;
    struct proc_ident self;
    struct strbuf dropped;
    size_t n, live;
};

static int drop_edit(json_t *root, void *arg, char *err, size_t errlen)
{
    struct drop_arg *a = arg;
    (void)err;
    (void)errlen;
    a->n = claim_drop_stale(a->dir, root, &a->self, &a->dropped);
    a->live = json_object_size(state_claims_get(root));
    return a->n ? 0 : 1;
}

/* The sweep's options as recorded in state.json (the merge is given only --tuning). */
static int recorded_sweep(const struct engine_opts *o, struct engine_opts *wo, int *dtype, int *mode)
{
    char err[600];
    json_t *st = state_load(o->dir, err, sizeof err);
    struct state_sweep sw;
    int rc = -1;
    if (!st)
        log_error("%s", err);
    else if (!state_sweep_get(st, &sw) || !sw.waves || !sw.complete)
        log_error("'%s' has no parallel sweep recorded in its state.json: nothing to merge", o->dir);
    else {
        char path[ENGINE_PATH_MAX];
        *wo = *o;
        wo->backend = xstrdup(sw.backend);
        wo->shapes = xstrdup(state_plan_path(o->dir, &sw, path) ? "" : path); /* the snapshot, or an old record's */
        wo->seed = strtoull(sw.seed, NULL, 10);
        wo->iters = sw.iters;
        wo->last_wave = sw.last_wave;
        *dtype = state_sweep_dtype(&sw);
        *mode = state_sweep_mode(&sw);
        rc = 0;
    }
    json_decref(st);
    return rc;
}

/* Reconcile every unfinished shape of the plan that has been started. */
static void level_unfinished(const struct engine_opts *o, const struct scale_plan *p)
{
    char err[600];
    json_t *st = state_load(o->dir, err, sizeof err);
    for (int dt = 0; st && dt < CROQ_DTYPE_COUNT; dt++)
        for (int w = 0; w < 3; w++)
            for (size_t i = 0; i < p->waves[dt][w].n; i++) {
                const struct plan_shape *s = &p->waves[dt][w].s[i];
                struct state_shape e;
                if (!state_shape_get(st, s->key, &e) || plan_shape_finished(st, s->key) ||
                    claim_lock_held(o->dir, s->key))
                    continue;
                struct shape_params sp = {.k = s->k, .backend = e.backend, .seed = strtoull(e.seed, NULL, 10),
                                          .budget = e.budget};
                if (engine_level_shape(o, &sp))
                    log_warn("shape '%s' could not be reconciled (above); resume will say the same", s->key);
            }
    json_decref(st);
}

static int merge_report(const struct engine_opts *o, int dtype, int mode, const struct scale_plan *p, size_t live)
{
    size_t pending, nf;
    if (scale_outcome(o->dir, p, &pending, &nf))
        return ENGINE_FAILED;
    if (pending || live) {
        log_error("merge: %zu shape(s) of the sweep not finished%s; submit the rest with 'croqtuner slurm' and the "
                  "same options (finished shapes are skipped, claims of dead tasks taken over)", pending,
                  live ? " and a worker still holds a claim" : "");
        return ENGINE_FAILED;
    }
    return sweep_end(o, dtype, mode, SWEEP_MERGE, ENGINE_DONE, 0, nf);
}

int slurm_merge(const struct engine_opts *o)
{
    struct engine_opts wo;
    struct scale_plan p;
    struct drop_arg a = {.dir = o->dir, .dropped = STRBUF_INIT};
    char err[600];
    int dtype, mode;
    if (recorded_sweep(o, &wo, &dtype, &mode))
        return ENGINE_FAILED;
    int rc = ENGINE_FAILED;
    if (plan_build(wo.shapes, dtype, mode, wo.last_wave, false, &p, err, sizeof err)) {
        log_error("%s", err);
    } else if ((rc = sweep_plan_take(&wo, wo.shapes))) { /* an old record's file: kept in the directory now */
        plan_release(&p);
    } else if (proc_ident_self(&a.self, err, sizeof err) || state_update(o->dir, drop_edit, &a, err, sizeof err) < 0) {
        log_error("%s", err);
        rc = ENGINE_FAILED;
        plan_release(&p);
    } else {
        if (a.n)
            printf("merge: dropped %zu stale claim(s):\n%s", a.n, strbuf_str(&a.dropped));
        level_unfinished(&wo, &p);
        rc = merge_report(&wo, dtype, mode, &p, a.live);
        plan_release(&p);
    }
    strbuf_release(&a.dropped);
    free((char *)wo.backend);
    free((char *)wo.shapes);
    return rc;
}
