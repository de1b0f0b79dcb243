/* src/engine/sweep.c — 'croqtuner sweep': every shape of shapes.json for a dtype, in
 * the order that makes later shapes start from good neighbours (docs/engine.md,
 * "Sweeps"):
 *   1. the typical far shapes, from scratch (they seed everything else);
 *   2. the other far scenario shapes, from the current best of their nearest tuned shape;
 *   3. the near scenario shapes, likewise;
 *   4. shapes flagged needs_scratch by their from_current_best run, from scratch.
 * --mode scratch / best runs steps 1-3 in one mode and skips step 4. The sweep is
 * recorded in state.json, so 'resume' continues it; it stops early only when the GPU
 * is unusable or stays busy (exit non-zero, with the reason).
 */
#include "engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes/shapes.h"
#include "scale/scale.h"
#include "util/log.h"

/* A from_current_best run that ended where it started (no KEEP) from a far seed, or
 * from no seed at all, has probably not found this shape's region of the knob space. */
#define NEEDS_SCRATCH_DISTANCE 1.3862943611198906 /* ln 4: a 4x step in one dimension */

struct sweep_ctx {
    const struct engine_opts *o;
    const char *backend;
    unsigned long long seed;
    int iters;
    const struct scenario_set *set; /* its budgets are new shapes' budgets without --iters */
    int failed;
};

static bool shape_done(const char *dir, const char *key)
{
    char err[600];
    json_t *st = state_load(dir, err, sizeof err);
    json_t *e = st ? json_object_get(json_object_get(st, "shapes"), key) : NULL;
    bool done = e && !strcmp(json_string_value(json_object_get(e, "status")), "done");
    json_decref(st);
    return done;
}

bool sweep_needs_scratch(json_t *entry)
{
    struct shape_key self, from;
    char err[256];
    json_t *best = json_object_get(entry, "best");
    const char *sf = json_string_value(json_object_get(entry, "seed_from"));
    if (!json_is_object(best) || strcmp(json_string_value(json_object_get(entry, "status")), "done") ||
        mode_parse(json_string_value(json_object_get(entry, "mode"))) != MODE_FROM_CURRENT_BEST ||
        json_integer_value(json_object_get(best, "iter")) != 0)
        return false;
    if (!sf || !*sf)
        return true;
    self.shape = (struct croq_shape){(long)json_integer_value(json_object_get(entry, "m")),
                                     (long)json_integer_value(json_object_get(entry, "n")),
                                     (long)json_integer_value(json_object_get(entry, "k"))};
    return key_parse(sf, &from, err, sizeof err) == 0 &&
           shape_log_distance(&self.shape, &from.shape) > NEEDS_SCRATCH_DISTANCE;
}

/* Tune one shape unless it is done. 0 to go on; ENGINE_GPU_* to stop the sweep. */
static int sweep_one(struct sweep_ctx *x, int dtype, const struct croq_shape *s, enum tune_mode mode)
{
    struct shape_params p = {.k = {dtype, *s, mode}, .backend = x->backend, .seed = x->seed,
                             .budget = x->iters, .new_budget = mode_budget(x->set, mode), .agent = false,
                             .reopen = false};
    char key[KEY_MAX], why[CROQ_WHY_MAX];
    key_format(&p.k, key);
    if (!shape_validate(dtype, s, why, sizeof why)) {
        log_warn("sweep: skipping %s: %s", key, why);
        return 0;
    }
    if (shape_done(x->o->dir, key))
        return 0;
    int rc = engine_run_shape(x->o, &p);
    if (rc == ENGINE_GPU_BUSY || rc == ENGINE_GPU_GONE)
        return rc;
    if (rc == ENGINE_FAILED)
        x->failed++; /* that shape's problem was printed; the others can still be tuned */
    return 0;
}

static int sweep_dtype(struct sweep_ctx *x, const struct scenario_set *set, int dtype, int mode)
{
    int rc;
    enum tune_mode m1 = mode < 0 ? MODE_FROM_SCRATCH : (enum tune_mode)mode;
    enum tune_mode m2 = mode < 0 ? MODE_FROM_CURRENT_BEST : (enum tune_mode)mode;
    for (size_t i = 0; i < set->n_typical[dtype]; i++)
        if ((rc = sweep_one(x, dtype, &set->typical[dtype][i], m1)))
            return rc;
    for (int pass = 0; pass < 2; pass++) /* far first, then near */
        for (size_t i = 0; i < set->n_scenario; i++) {
            const struct croq_shape *s = &set->scenario[i];
            if (scenarios_is_typical(set, dtype, s) || scenarios_is_near(set, s) != (pass == 1))
                continue;
            if ((rc = sweep_one(x, dtype, s, m2)))
                return rc;
        }
    if (mode >= 0)
        return 0;
    char err[600], key[KEY_MAX];
    json_t *st = state_load(x->o->dir, err, sizeof err);
    if (!st) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    for (size_t i = 0; i < set->n_scenario; i++) {
        struct shape_key k = {dtype, set->scenario[i], MODE_FROM_CURRENT_BEST};
        key_format(&k, key);
        json_t *e = json_object_get(json_object_get(st, "shapes"), key);
        if (e && sweep_needs_scratch(e) && (rc = sweep_one(x, dtype, &set->scenario[i], MODE_FROM_SCRATCH))) {
            json_decref(st);
            return rc;
        }
    }
    json_decref(st);
    return 0;
}

struct sweep_rec {
    int dtype, mode;
    const struct sweep_ctx *x;
    const char *status;
    const char *shapes;
    bool waves; /* a parallel sweep (src/scale): resume must continue it in waves too */
};

static int put_sweep(json_t *root, void *arg, char *err, size_t errlen)
{
    struct sweep_rec *s = arg;
    char seed[24];
    json_t *o = json_object();
    snprintf(seed, sizeof seed, "%llu", s->x->seed);
    json_object_set_new(o, "dtype", json_string(s->dtype < 0 ? "all" : croq_dtype_name(s->dtype)));
    json_object_set_new(o, "plan", json_string(s->mode < 0 ? "default" : s->mode == MODE_FROM_SCRATCH ? "scratch" : "best"));
    json_object_set_new(o, "backend", json_string(s->x->backend));
    json_object_set_new(o, "seed", json_string(seed));
    json_object_set_new(o, "iters", json_integer(s->x->iters));
    json_object_set_new(o, "shapes", json_string(s->shapes));
    json_object_set_new(o, "status", json_string(s->status));
    if (s->waves)
        json_object_set_new(o, "waves", json_true());
    json_object_set_new(root, "sweep", o);
    return 0;
}

static int record(struct sweep_rec *s, const char *status)
{
    char err[600];
    s->status = status;
    if (state_update(s->x->o->dir, put_sweep, s, err, sizeof err)) {
        log_error("%s", err);
        return -1;
    }
    return 0;
}

static int sweep_run(struct sweep_ctx *x, int dtype, int mode, const char *shapes_path)
{
    struct scenario_set set;
    char err[600];
    struct sweep_rec rec = {dtype, mode, x, "running", shapes_path, false};
    if (scenarios_load(shapes_path, &set, err, sizeof err)) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    x->set = &set;
    int rc = record(&rec, "running") ? ENGINE_FAILED : 0;
    for (int dt = 0; !rc && dt < 2; dt++)
        if (dtype < 0 || dtype == dt)
            rc = sweep_dtype(x, &set, dt, mode);
    scenarios_release(&set);
    if (rc == ENGINE_GPU_BUSY || rc == ENGINE_GPU_GONE) {
        record(&rec, rc == ENGINE_GPU_BUSY ? "stopped: GPU busy" : "stopped: GPU unusable");
        log_error("sweep stopped (%s); continue with 'croqtuner resume --tuning %s'",
                  rc == ENGINE_GPU_BUSY ? "the GPU stayed busy" : "the GPU is unusable", x->o->dir);
        return rc;
    }
    if (rc)
        return rc;
    if (record(&rec, "done"))
        return ENGINE_FAILED;
    if (x->failed) {
        log_error("sweep finished, but %d shape(s) failed with the errors above", x->failed);
        return ENGINE_FAILED;
    }
    if (!x->o->quiet)
        printf("sweep done\n");
    return ENGINE_DONE;
}

int engine_sweep(const struct engine_opts *o, int dtype, int mode)
{
    struct sweep_ctx x = {.o = o, .backend = o->backend ? o->backend : "gpu", .seed = o->seed, .iters = o->iters};
    return sweep_run(&x, dtype, mode, o->shapes);
}

int engine_sweep_resume(const struct engine_opts *o, json_t *sw)
{
    const char *dt = json_string_value(json_object_get(sw, "dtype"));
    const char *plan = json_string_value(json_object_get(sw, "plan"));
    const char *shapes = json_string_value(json_object_get(sw, "shapes"));
    const char *be = json_string_value(json_object_get(sw, "backend"));
    const char *seed = json_string_value(json_object_get(sw, "seed"));
    if (!dt || !plan || !shapes || !be || !seed) {
        log_error("state.json: the recorded sweep is incomplete; start it again with 'croqtuner sweep'");
        return ENGINE_FAILED;
    }
    struct sweep_ctx x = {.o = o, .backend = be, .seed = strtoull(seed, NULL, 10),
                          .iters = (int)json_integer_value(json_object_get(sw, "iters"))};
    int dtype = strcmp(dt, "all") ? croq_dtype_parse(dt) : -1;
    int mode = !strcmp(plan, "default") ? -1 : mode_parse(plan);
    if (json_is_true(json_object_get(sw, "waves"))) {
        /* a parallel sweep goes on in waves (one worker, here), so its shapes still start
         * from the earlier waves only, as they would have with its workers */
        struct engine_opts wo = *o;
        wo.backend = be;
        wo.seed = x.seed;
        wo.iters = x.iters;
        wo.shapes = shapes;
        return scale_sweep_resume(&wo, dtype, mode);
    }
    return sweep_run(&x, dtype, mode, shapes);
}

/* ---- hooks for parallel sweeps (src/scale, docs/scale.md) ---------------------------- */

int engine_sweep_record(const struct engine_opts *o, int dtype, int mode, const char *status, bool waves)
{
    struct sweep_ctx x = {.o = o, .backend = o->backend ? o->backend : "gpu", .seed = o->seed, .iters = o->iters};
    struct sweep_rec rec = {dtype, mode, &x, status, o->shapes, waves};
    return record(&rec, status) ? ENGINE_FAILED : 0;
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
