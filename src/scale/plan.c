/* src/scale/plan.c — the sweep plan of docs/engine.md ("Sweeps") cut into waves for
 * parallel workers. A sequential sweep starts each shape from every shape tuned before
 * it; workers cannot, because which shapes are done when a shape starts would depend on
 * timing. So per dtype the plan's steps become waves (1 typical, 2 other far, 3 near,
 * 4 needs_scratch) and a shape starts from the shapes of earlier waves only (next.c
 * INITs a whole wave before tuning any of it). The two dtypes never see each other's
 * shapes (seed.c filters by dtype), so their waves run side by side.
 */
#include "scale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static bool wave_has(const struct plan_wave *w, const char *key)
{
    for (size_t i = 0; i < w->n; i++)
        if (!strcmp(w->s[i].key, key))
            return true;
    return false;
}

/* Append a shape unless invalid for the dtype or already in one of the dtype's waves. */
static void wave_add(struct scale_plan *p, struct plan_wave *w, const struct croq_shape *s, enum tune_mode m,
                     bool warn)
{
    struct plan_shape ps = {.k = {w->dtype, *s, m}};
    char why[CROQ_WHY_MAX];
    key_format(&ps.k, ps.key);
    if (!shape_validate(w->dtype, s, why, sizeof why)) {
        if (warn)
            log_warn("sweep: skipping %s: %s", ps.key, why);
        return;
    }
    for (int st = 0; p && st < 3; st++)
        if (wave_has(&p->waves[w->dtype][st], ps.key))
            return;
    if (wave_has(w, ps.key))
        return;
    w->s = xrealloc(w->s, (w->n + 1) * sizeof *w->s);
    w->s[w->n++] = ps;
}

static void plan_dtype(struct scale_plan *p, int dtype, int mode, int last_wave, bool warn)
{
    const struct scenario_set *set = &p->set;
    enum tune_mode m1 = mode < 0 ? MODE_FROM_SCRATCH : (enum tune_mode)mode;
    enum tune_mode m2 = mode < 0 ? MODE_FROM_CURRENT_BEST : (enum tune_mode)mode;
    for (size_t i = 0; i < set->n_typical[dtype]; i++)
        wave_add(p, &p->waves[dtype][0], &set->typical[dtype][i], m1, warn);
    for (size_t i = 0; i < set->n_scenario; i++) {
        const struct croq_shape *s = &set->scenario[i];
        int st = scenarios_is_near(set, s) ? 2 : 1;
        if (!scenarios_is_typical(set, dtype, s) && st < last_wave)
            wave_add(p, &p->waves[dtype][st], s, m2, warn);
    }
}

int plan_build(const char *path, int dtype, int mode, int last_wave, bool warn, struct scale_plan *p, char *err,
               size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (scenarios_load(path, &p->set, err, errlen))
        return -1;
    last_wave = last_wave > 0 ? last_wave : STATE_SWEEP_WAVES;
    p->scratch_rerun = mode < 0 && last_wave >= 4;
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++) {
        for (int st = 0; st < 3; st++)
            p->waves[dt][st] = (struct plan_wave){.dtype = dt, .stage = st + 1};
        p->dtypes[dt] = dtype < 0 || dtype == dt;
        if (p->dtypes[dt])
            plan_dtype(p, dt, mode, last_wave, warn);
    }
    return 0;
}

void plan_wave_release(struct plan_wave *w)
{
    free(w->s);
    w->s = NULL;
    w->n = 0;
}

void plan_release(struct scale_plan *p)
{
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++)
        for (int st = 0; st < 3; st++)
            plan_wave_release(&p->waves[dt][st]);
    scenarios_release(&p->set);
}

void plan_scratch_wave(const struct scale_plan *p, int dtype, json_t *state, struct plan_wave *out)
{
    char key[KEY_MAX];
    *out = (struct plan_wave){.dtype = dtype, .stage = 4};
    /* the same shapes, in the same order, as step 4 of the sequential sweep */
    for (size_t i = 0; i < p->set.n_scenario; i++) {
        struct shape_key k = {dtype, p->set.scenario[i], MODE_FROM_CURRENT_BEST};
        key_format(&k, key);
        struct state_shape e;
        if (state_shape_get(state, key, &e) && shape_needs_scratch(&e))
            wave_add(NULL, out, &p->set.scenario[i], MODE_FROM_SCRATCH, false);
    }
}

bool plan_shape_finished(json_t *state, const char *key)
{
    struct state_shape e;
    return (state_shape_get(state, key, &e) && state_shape_done(&e)) || state_failed_has(state, key);
}

static size_t wave_unfinished(const struct plan_wave *w, json_t *state)
{
    size_t n = 0;
    for (size_t i = 0; i < w->n; i++)
        n += !plan_shape_finished(state, w->s[i].key);
    return n;
}

const struct plan_wave *plan_current_wave(const struct scale_plan *p, int dtype, json_t *state,
                                          struct plan_wave *tmp)
{
    *tmp = (struct plan_wave){.dtype = dtype, .stage = 4};
    if (!p->dtypes[dtype])
        return NULL;
    for (int st = 0; st < 3; st++)
        if (wave_unfinished(&p->waves[dtype][st], state))
            return &p->waves[dtype][st];
    if (!p->scratch_rerun)
        return NULL;
    plan_scratch_wave(p, dtype, state, tmp);
    if (wave_unfinished(tmp, state))
        return tmp;
    plan_wave_release(tmp);
    return NULL;
}

void plan_pending(const struct scale_plan *p, json_t *state, size_t *pending, size_t *widest)
{
    *pending = *widest = 0;
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++) {
        size_t wide = 0, u;
        for (int st = 0; p->dtypes[dt] && st < 3; st++) {
            u = wave_unfinished(&p->waves[dt][st], state);
            *pending += u;
            wide = u > wide ? u : wide;
        }
        struct plan_wave tmp;
        const struct plan_wave *w = plan_current_wave(p, dt, state, &tmp);
        if (w == &tmp) { /* stage 4 is known once 1-3 are finished */
            u = wave_unfinished(&tmp, state);
            *pending += u;
            wide = u > wide ? u : wide;
        }
        plan_wave_release(&tmp);
        *widest += wide; /* the dtypes' waves run side by side */
    }
}
