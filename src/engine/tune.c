/* src/engine/tune.c — the entry points for one shape: run it, INIT it, level it with
 * its checkpoint ('tune', sweeps and workers), and continue every unfinished shape of a
 * tuning directory ('resume'; the sweep that was running there is continued by
 * src/scale, above the engine). */
#include "run.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shapes/shapes.h"
#include "util/log.h"

void engine_opts_default(struct engine_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dir = "tuning";
    o->backend = NULL;
    o->seed = 1;
    o->busy_limit_s = 30 * 60;
    o->backoff_s = 5;
}

int engine_run_shape(const struct engine_opts *o, const struct shape_params *p)
{
    struct run r;
    int rc = run_open(&r, o, p);
    if (!rc && r.ck.phase == PH_NEXT_SHAPE && !o->quiet)
        printf("%s: already done at iteration %d of %d (%s); a larger --iters continues it\n", r.ck.key,
               r.ck.iteration, r.ck.budget, r.ck.stop_reason);
    if (!rc)
        rc = run_loop(&r);
    if (rc == ENGINE_WAITING && !o->quiet)
        printf("%s: waiting at IDEATE for an agent: croqtuner propose --tuning %s --key %s --idea TEXT "
               "--category C --src FILE [--set knob=value ...] (docs/agent.md)\n",
               r.ck.key, o->dir, r.ck.key);
    run_close(&r);
    return rc;
}

/* k has a checkpoint or a state.json entry in dir (a crash before its checkpoint existed
 * leaves the entry, which holds its budget). */
static bool shape_known(const char *dir, const struct shape_key *k)
{
    char key[KEY_MAX], path[PATH_MAX], err[600];
    key_format(k, key);
    if (!path_fmt(path, "%s/checkpoints/%s.json", dir, key) && !access(path, F_OK))
        return true;
    json_t *state = state_load_unchecked(dir, err, sizeof err);
    struct state_shape e;
    bool known = state && state_shape_get(state, key, &e);
    json_decref(state);
    return known;
}

int engine_tune(const struct engine_opts *o, const struct shape_key *k)
{
    char why[CROQ_WHY_MAX];
    if (!shape_validate(k->dtype, &k->shape, why, sizeof why)) {
        log_error("%s", why);
        return ENGINE_FAILED;
    }
    struct shape_params p = {.k = *k, .backend = o->backend /* NULL: new shapes get gpu */, .seed = o->seed,
                             .budget = o->iters, .agent = o->agent, .strategy = o->strategy, .reopen = true};
    char path[PATH_MAX], err[PATH_MAX + 600];
    struct scenario_set set;
    /* a new shape without --iters gets its mode's budget of shapes.json; a started one
     * keeps its own, so shapes.json is not needed then (creating the shape says why) */
    if (o->iters <= 0) {
        if (o->shapes)
            snprintf(path, sizeof path, "%s", o->shapes);
        if ((o->shapes || !shapes_find_file(path, sizeof path, err, sizeof err)) &&
            !scenarios_load(path, &set, err, sizeof err)) {
            p.new_budget = scenarios_budget(&set, k->mode == MODE_FROM_CURRENT_BEST);
            scenarios_release(&set);
        } else if (!shape_known(o->dir, k)) {
            /* a new shape without a budget: bad usage, said before anything is created */
            char key[KEY_MAX];
            key_format(k, key);
            log_error("%s: no iteration budget for a new shape (give --iters N): %s", key, err);
            return ENGINE_USAGE;
        } else {
            p.no_budget = err;
        }
    }
    return engine_run_shape(o, &p);
}

/* Shape parameters from a state.json entry (validated by state_load). */
static int entry_params(const struct state_shape *e, struct shape_params *p)
{
    memset(p, 0, sizeof *p);
    if (!e->key_ok)
        return -1;
    p->k = e->sk;
    p->backend = e->backend; /* e outlives the run */
    p->seed = strtoull(e->seed, NULL, 10);
    p->agent = e->agent;
    /* what it was started with (a crash before its checkpoint existed loses nothing): the
     * budget, the strategy and the L2 mode */
    p->budget = e->budget;
    p->strategy = e->strategy[0] ? e->strategy : NULL;
    p->l2 = e->cold_l2 ? "cold" : "warm";
    p->reopen = true;
    return 0;
}

static bool unfinished(const struct state_shape *e)
{
    if (!strcmp(e->status, "active"))
        return true;
    /* done below its budget: reopened (a shape whose baseline failed has no best) */
    return e->iteration < e->budget && e->have_best;
}

static bool gpu_stop(int rc)
{
    return rc == ENGINE_GPU_BUSY || rc == ENGINE_GPU_GONE;
}

/* Shapes with a checkpoint but no state.json entry (state.json deleted, or an older copy
 * put back): the checkpoint is the engine's record of the shape, so each is opened from
 * it (run_open writes its state.json entry again) and continued like any other. */
static int resume_orphans(const struct engine_opts *o, json_t *state, int *ran)
{
    char (*keys)[KEY_MAX], err[600];
    size_t n = checkpoint_orphans(o->dir, state, &keys);
    int rc = ENGINE_DONE, worst = ENGINE_DONE;
    for (size_t i = 0; i < n && !gpu_stop(rc); i++) {
        struct checkpoint ck;
        checkpoint_init(&ck);
        if (checkpoint_load(o->dir, keys[i], &ck, err, sizeof err)) {
            log_error("checkpoints/%s.json has no state.json entry and cannot be read: %s", keys[i], err);
            worst = ENGINE_FAILED;
            checkpoint_release(&ck);
            continue;
        }
        log_warn("%s: no state.json entry; restored from checkpoints/%s.json", keys[i], keys[i]);
        struct shape_params p = {.k = ck.sk, .backend = ck.backend, .seed = ck.seed, .budget = ck.budget,
                                 .agent = ck.agent, .reopen = true};
        rc = engine_run_shape(o, &p);
        checkpoint_release(&ck);
        (*ran)++;
        if (rc == ENGINE_FAILED)
            worst = rc;
    }
    free(keys);
    return gpu_stop(rc) ? rc : worst;
}

int engine_resume_shapes(const struct engine_opts *o, json_t *state, int *ran, int *worst, int rc)
{
    size_t n;
    /* a refused entry stops its shape only: named, and the run exits 1 after the others */
    const char **keys = state_refused_keys(state, &n);
    for (size_t i = 0; i < n; i++) {
        char why[600];
        state_shape_refused(state, keys[i], why, sizeof why);
        log_error("%s/state.json: %s: this shape's entry is refused and the shape is not resumed; correct the entry, "
                  "or delete it and 'croqtuner resume' restores it from checkpoints/%s.json", o->dir, why, keys[i]);
        (*ran)++;
        *worst = ENGINE_FAILED;
    }
    free(keys);
    keys = state_shape_keys(state, &n); /* state stays alive: the keys too */
    for (size_t i = 0; i < n; i++) {
        struct shape_params p;
        struct state_shape e;
        state_shape_get(state, keys[i], &e);
        if (!unfinished(&e) || entry_params(&e, &p))
            continue;
        rc = engine_run_shape(o, &p);
        (*ran)++;
        if (gpu_stop(rc))
            break;
        if (rc == ENGINE_FAILED)
            *worst = rc;
    }
    free(keys);
    if (!gpu_stop(rc)) {
        int orc = resume_orphans(o, state, ran);
        rc = orc == ENGINE_FAILED ? rc : orc;
        *worst = orc == ENGINE_FAILED ? orc : *worst;
    }
    return rc;
}

int engine_init_shape(const struct engine_opts *o, const struct shape_params *p)
{
    struct run r;
    char err[600];
    int rc = run_open(&r, o, p);
    if (!rc && r.ck.phase == PH_INIT)
        rc = step_init(&r);
    /* state.json shows the phase INIT ended in: that is how workers see the wave INITed */
    if (!rc && state_put(r.dir, &r.ck, r.ck.phase == PH_NEXT_SHAPE ? "done" : "active", err, sizeof err))
        rc = run_fail(&r, "%s", err);
    run_close(&r);
    return rc;
}

int engine_level_shape(const struct engine_opts *o, const struct shape_params *p)
{
    struct run r;
    int rc = run_open(&r, o, p); /* reconciles the logs and puts the shape's entry level */
    run_close(&r);
    return rc;
}
