/* src/scale/sweep.c — 'croqtuner sweep' without workers, the sweep's record in
 * state.json, and 'croqtuner resume' (shapes, then the recorded sweep).
 *
 * One plan (plan.c) has the sweep's order (docs/engine.md, "Sweeps"): per dtype,
 *   1. the typical far shapes, from scratch (they seed everything else);
 *   2. the other far scenario shapes, from the current best of their nearest tuned shape;
 *   3. the near scenario shapes, likewise;
 *   4. shapes flagged needs_scratch by their from_current_best run, from scratch.
 * --mode scratch / best runs steps 1-3 in one mode and skips step 4. Serially (here)
 * each step runs for both dtypes before the next step, and each shape is tuned to the
 * end before the next starts, so it starts from every shape of its dtype before it;
 * workers (worker.c, pool.c) run the same plan in waves. The sweep is recorded in
 * state.json, so 'resume' continues it the way it ran; it stops early only
 * when the GPU is unusable or stays busy (exit non-zero, with the reason).
 */
#include "scale.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/regfile.h"

static bool gpu_stop(int rc) { return rc == ENGINE_GPU_BUSY || rc == ENGINE_GPU_GONE; }

/* ---- the record: state.json "sweep" ------------------------------------------------ */

struct sweep_rec {
    int dtype, mode;
    const struct engine_opts *o;
    const char *status;
    bool waves; /* a parallel sweep: resume must continue it in waves too */
};

static int put_sweep(json_t *root, void *arg, char *err, size_t errlen)
{
    struct sweep_rec *s = arg;
    struct state_sweep sw = {.iters = s->o->iters, .waves = s->waves, .last_wave = s->o->last_wave};
    (void)err;
    (void)errlen;
    snprintf(sw.seed, sizeof sw.seed, "%llu", s->o->seed);
    snprintf(sw.dtype, sizeof sw.dtype, "%s", s->dtype < 0 ? "all" : croq_dtype_name(s->dtype));
    snprintf(sw.plan, sizeof sw.plan, "%s", s->mode < 0 ? "default" : s->mode == MODE_FROM_SCRATCH ? "scratch" : "best");
    snprintf(sw.backend, sizeof sw.backend, "%s", s->o->backend ? s->o->backend : "gpu");
    snprintf(sw.shapes, sizeof sw.shapes, "%s", STATE_PLAN_FILE); /* sweep_plan_take kept it */
    snprintf(sw.status, sizeof sw.status, "%s", s->status);
    state_sweep_put(root, &sw);
    return 0;
}

struct take_arg {
    const char *dir, *src, *backend;
    bool refused; /* bad input (another backend or plan), not a failure to read or write */
};

static int take_edit(json_t *root, void *arg, char *err, size_t errlen)
{
    struct take_arg *a = arg;
    struct state_sweep sw;
    size_t n;
    const char **keys = state_shape_keys(root, &n);
    for (size_t i = 0; i < n; i++) {
        struct state_shape e;
        if (state_shape_get(root, keys[i], &e) && strcmp(e.backend, a->backend)) {
            snprintf(err, errlen, "'%.300s' holds shapes tuned with backend '%s' (%s, ...), not '%s': results of "
                     "different backends are never mixed in one tuning directory; give --tuning ANOTHER_DIR for "
                     "backend '%s' (no shape was started)", a->dir, e.backend, keys[i], a->backend, a->backend);
            free(keys);
            a->refused = true;
            return -1;
        }
    }
    free(keys);
    bool have = state_sweep_get(root, &sw);
    if (have && sw.backend[0] && strcmp(sw.backend, a->backend)) {
        snprintf(err, errlen, "'%.300s' records a sweep with backend '%s', not '%s': results of different backends "
                 "are never mixed in one tuning directory; give --tuning ANOTHER_DIR for backend '%s'", a->dir,
                 sw.backend, a->backend, a->backend);
        a->refused = true;
        return -1;
    }
    int rc = state_plan_keep(a->dir, a->src, have && sw.shapes[0] == '/' ? sw.shapes : NULL, err, errlen);
    a->refused = rc == 1;
    return rc ? -1 : 1; /* 1: state.json itself is not changed here */
}

int sweep_plan_take(const struct engine_opts *o, const char *src)
{
    char err[1200];
    struct take_arg a = {o->dir, src, o->backend ? o->backend : "gpu", false};
    int rc = state_update(o->dir, take_edit, &a, err, sizeof err);
    if (rc == 1)
        return 0;
    log_error("sweep: %s", err);
    return a.refused ? ENGINE_USAGE : ENGINE_FAILED;
}

int sweep_record(const struct engine_opts *o, int dtype, int mode, const char *status, bool waves)
{
    char err[600];
    struct sweep_rec rec = {dtype, mode, o, status, waves};
    if (state_update(o->dir, put_sweep, &rec, err, sizeof err)) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    return 0;
}

int sweep_end(const struct engine_opts *o, int dtype, int mode, enum sweep_run how, int stop, size_t pending,
              size_t failed)
{
    bool waves = how != SWEEP_SERIAL, busy = stop == ENGINE_GPU_BUSY;
    if (busy || stop == ENGINE_GPU_GONE) {
        sweep_record(o, dtype, mode, busy ? "stopped: GPU busy" : "stopped: GPU unusable", waves);
        if (waves)
            log_error("sweep stopped (%s); %zu shape(s) left; continue with the same command or 'croqtuner resume "
                      "--tuning %s'", busy ? "a GPU stayed busy" : "a GPU is unusable", pending, o->dir);
        else
            log_error("sweep stopped (%s); continue with 'croqtuner resume --tuning %s'",
                      busy ? "the GPU stayed busy" : "the GPU is unusable", o->dir);
        return stop;
    }
    if (sweep_record(o, dtype, mode, "done", waves))
        return ENGINE_FAILED;
    if (failed) {
        if (how == SWEEP_MERGE)
            log_error("merge: the sweep finished, but %zu shape(s) failed (above)", failed);
        else
            log_error("sweep finished, but %zu shape(s) failed with the errors above", failed);
        return ENGINE_FAILED;
    }
    if (how == SWEEP_MERGE)
        printf("merge: sweep done, state.json consistent (no claims left)\n");
    else if (!o->quiet)
        printf("sweep done\n");
    return ENGINE_DONE;
}

/* ---- serially ------------------------------------------------------------------------ */

static bool shape_done(const char *dir, const char *key)
{
    char err[600];
    struct state_shape e;
    json_t *st = state_load(dir, err, sizeof err);
    bool done = st && state_shape_get(st, key, &e) && state_shape_done(&e);
    json_decref(st);
    return done;
}

/* Tune every shape of w not done, in order. 0 to go on; ENGINE_GPU_* to stop the sweep. */
static int serial_wave(const struct engine_opts *o, const struct scale_plan *p, const struct plan_wave *w,
                       int *failed)
{
    for (size_t i = 0; i < w->n; i++) {
        const struct plan_shape *s = &w->s[i];
        struct shape_params sp = {.k = s->k, .backend = o->backend ? o->backend : "gpu", .seed = o->seed,
                                  .budget = o->iters,
                                  .new_budget = scenarios_budget(&p->set, s->k.mode == MODE_FROM_CURRENT_BEST),
                                  .agent = false, .reopen = false};
        if (shape_done(o->dir, s->key))
            continue;
        int rc = engine_run_shape(o, &sp);
        if (gpu_stop(rc))
            return rc;
        if (rc == ENGINE_FAILED)
            (*failed)++; /* that shape's problem was printed; the others can still be tuned */
    }
    return 0;
}

/* Step 4 of a dtype: its needs_scratch shapes, known once its steps 1-3 are done. */
static int serial_scratch(const struct engine_opts *o, const struct scale_plan *p, int dtype, int *failed)
{
    char err[600];
    json_t *state = state_load(o->dir, err, sizeof err);
    if (!state) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    struct plan_wave w4;
    plan_scratch_wave(p, dtype, state, &w4);
    json_decref(state);
    int rc = serial_wave(o, p, &w4, failed);
    plan_wave_release(&w4);
    return rc;
}

/* Step by step, each step for every dtype before the next step: a dtype's shapes start
 * from its own dtype's shapes only (seed.c), so this order gives each shape the same
 * start as dtype after dtype would, while both dtypes' typical shapes (the main job's
 * first output) are done before any other shape. */
static int serial_steps(const struct engine_opts *o, const struct scale_plan *p, int *failed)
{
    int rc = 0;
    for (int st = 0; !rc && st < 3; st++)
        for (int dt = 0; !rc && dt < CROQ_DTYPE_COUNT; dt++)
            if (p->dtypes[dt])
                rc = serial_wave(o, p, &p->waves[dt][st], failed);
    for (int dt = 0; !rc && p->scratch_rerun && dt < CROQ_DTYPE_COUNT; dt++)
        if (p->dtypes[dt])
            rc = serial_scratch(o, p, dt, failed);
    return rc;
}

int sweep_serial(const struct engine_opts *o, int dtype, int mode)
{
    struct scale_plan p;
    char err[600];
    int failed = 0;
    if (plan_build(o->shapes, dtype, mode, o->last_wave, true, &p, err, sizeof err)) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    int rc = sweep_plan_take(o, o->shapes);
    if (rc) {
        plan_release(&p);
        return rc;
    }
    rc = sweep_record(o, dtype, mode, "running", false);
    if (!rc)
        rc = serial_steps(o, &p, &failed);
    plan_release(&p);
    if (rc && !gpu_stop(rc))
        return rc;
    return sweep_end(o, dtype, mode, SWEEP_SERIAL, rc, 0, (size_t)failed);
}

/* ---- resume ---------------------------------------------------------------------------- */

/* Continue the sweep recorded in state.json, serially or in waves as it ran. */
static int continue_sweep(const struct engine_opts *o, const struct state_sweep *sw)
{
    char path[ENGINE_PATH_MAX];
    if (!sw->complete) {
        log_error("state.json: the recorded sweep is incomplete; start it again with 'croqtuner sweep'");
        return ENGINE_FAILED;
    }
    if (state_plan_path(o->dir, sw, path)) {
        log_error("state.json: the sweep's shapes.json path is too long");
        return ENGINE_FAILED;
    }
    /* its plan: the snapshot in the directory (--shapes is checked against it). A record
     * older than snapshots names a file outside it, which --shapes, else CROQ_SHAPES, stands
     * in for when it is gone: the snapshot is taken from it (sweep_plan_take refuses another
     * plan than the recorded file while that is there). CROQ_SHAPES, a default for new
     * sweeps, never overrides a directory's snapshot. */
    const char *env = getenv("CROQ_SHAPES"), *src = o->shapes ? o->shapes : path;
    if (!o->shapes && sw->shapes[0] == '/' && !regfile_is(path) && env && *env)
        src = env;
    errno = 0;
    if (!regfile_is(src)) {
        log_error("resume: the sweep's plan '%s' cannot be read (%s)%s", src, regfile_strerror(errno ? errno : EINVAL),
                  sw->shapes[0] == '/' ? "; give --shapes FILE (or CROQ_SHAPES) with the shapes.json it was started "
                                         "with: a copy is then kept in the tuning directory"
                                       : "");
        return ENGINE_FAILED;
    }
    struct engine_opts wo = *o; /* the sweep's own backend, seed, budget and shapes */
    wo.backend = sw->backend;
    wo.seed = strtoull(sw->seed, NULL, 10);
    wo.iters = sw->iters;
    wo.last_wave = sw->last_wave;
    wo.shapes = src;
    int dtype = state_sweep_dtype(sw), mode = state_sweep_mode(sw);
    /* a parallel sweep goes on in waves (one worker, here), so its shapes still start
     * from the earlier waves only, as they would have with its workers */
    if (sw->waves)
        return scale_sweep_resume(&wo, dtype, mode);
    return sweep_serial(&wo, dtype, mode);
}

int sweep_resume(const struct engine_opts *o)
{
    char err[600];
    int cleaned = state_clean_temps(o->dir);
    if (cleaned && !o->quiet)
        printf("removed %d temporary file(s) of state.json writes cut by a crash\n", cleaned);
    json_t *state = state_load(o->dir, err, sizeof err);
    struct state_sweep sweep;
    int rc = ENGINE_DONE, worst = ENGINE_DONE, ran = 0;
    if (!state) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    state_sweep_get(state, &sweep);
    if (o->shapes && sweep.complete && state_sweep_unfinished(&sweep)) {
        /* another plan than the sweep's is refused before any shape goes on */
        struct engine_opts po = *o;
        po.backend = sweep.backend;
        if ((rc = sweep_plan_take(&po, o->shapes))) {
            json_decref(state);
            return rc;
        }
    }
    /* A parallel sweep is continued first, in its waves: its active shapes are part of a
     * wave, and finishing the ones already INITed before the rest of their wave is INITed
     * would let a shape start from one of its own wave (other_bests, seed_from), unlike
     * the uninterrupted sweep. What it leaves unfinished (shapes outside its plan) is
     * resumed after it, from a fresh state.json. */
    /* (a sweep that was running, or stopped by the GPU, goes on where it was) */
    bool waves_first = state_sweep_unfinished(&sweep) && sweep.waves;
    if (waves_first) {
        rc = continue_sweep(o, &sweep);
        ran++;
        if (rc == ENGINE_FAILED)
            worst = rc;
        json_decref(state);
        if (gpu_stop(rc))
            return rc;
        if (!(state = state_load(o->dir, err, sizeof err))) {
            log_error("%s", err);
            return ENGINE_FAILED;
        }
    }
    rc = engine_resume_shapes(o, state, &ran, &worst, rc);
    state_sweep_get(state, &sweep);
    if (!waves_first && !gpu_stop(rc) && state_sweep_unfinished(&sweep)) {
        rc = continue_sweep(o, &sweep);
        ran++;
    }
    if (!ran && !json_object_size(json_object_get(state, "shapes")) && !json_object_get(state, "sweep")) {
        /* a tune or sweep killed before its first state.json write leaves a directory
         * (locks, a temp) that records nothing: there is nothing done, nor to resume */
        log_error("resume: nothing recorded in '%s' yet (the tune or sweep that made it stopped before it "
                  "recorded a shape): run the tune command again", o->dir);
        json_decref(state);
        return ENGINE_FAILED;
    }
    if (!ran && !o->quiet)
        printf("nothing to resume in '%s': every shape is done%s\n", o->dir,
               sweep.complete && !state_sweep_unfinished(&sweep) &&
                       state_sweep_last_wave(&sweep) < state_sweep_plan_waves(&sweep) &&
                       scale_sweep_pending(o->dir, &sweep, state, 0) > 0
                   ? " (its sweep ran the plan's first waves only, --waves, and the later ones hold shapes not "
                     "done: the same sweep command without --waves goes on with them)"
                   : "");
    json_decref(state);
    if (gpu_stop(rc) || rc == ENGINE_FAILED)
        return rc;
    return worst;
}
