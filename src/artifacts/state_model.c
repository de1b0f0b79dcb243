/* src/artifacts/state_model.c — the typed view of state.json's entries and sweep record
 * (state.h): the one place their member names are read. */
#include "artifacts/paths.h"
#include "artifacts/state.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/atomicio.h"
#include "util/jsonget.h"
#include "util/regfile.h"

void state_shape_init(struct state_shape *s)
{
    memset(s, 0, sizeof *s);
    s->iteration = s->budget = -1;
    s->baseline_tflops = NAN;
    s->best.iter = -1;
    s->best.tflops = NAN;
    s->best.sm_clock_mhz = NAN;
    s->ladder.winner_iter = s->ladder.tuning_best_iter = -1;
    s->ladder.tuning_best_tflops = NAN;
}

static double num_or_nan(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void ladder_from_json(struct jget *g, json_t *l, struct state_ladder *out)
{
    long long x;
    json_t *es = json_object_get(l, "entries"), *v, *tb = json_object_get(l, "tuning_best");
    size_t i;
    out->ok = json_is_true(json_object_get(l, "ok"));
    out->steady = json_is_true(json_object_get(l, "steady"));
    if (jget_int(g, l, "ladder", "rounds", false, &x))
        out->rounds = (int)x;
    if (jget_int(g, l, "ladder", "winner_iter", false, &x))
        out->winner_iter = (int)x;
    if (json_is_object(tb) && jget_int(g, tb, "ladder.tuning_best", "iter", false, &x))
        out->tuning_best_iter = (int)x;
    out->tuning_best_tflops = num_or_nan(tb, "tflops");
    jget_text(g, l, "ladder", "note", false, out->note, sizeof out->note);
    json_array_foreach(es, i, v) {
        if (i >= LADDER_MAX || !json_is_object(v))
            break;
        out->e[i].iter = jget_int(g, v, "ladder.entries[]", "iter", false, &x) ? (int)x : -1;
        out->e[i].tflops = num_or_nan(v, "tflops");
        out->e[i].median_ms = num_or_nan(v, "median_ms");
        out->e[i].spread_pct = num_or_nan(v, "spread_pct");
        out->e[i].sm_clock_mhz = num_or_nan(v, "sm_clock_mhz");
        out->e[i].rel = num_or_nan(v, "rel");
        out->n = (int)i + 1;
    }
}

/* A TFLOPS value as a number (STATE_OLD_FORMS) or an object's "tflops"; NaN otherwise. */
static double old_tflops(json_t *v)
{
    if (json_is_object(v))
        v = json_object_get(v, "tflops");
    return json_is_number(v) ? json_number_value(v) : NAN;
}

void state_shape_from_json(json_t *e, const char *key, unsigned flags, struct state_shape *out)
{
    char why[160];
    long long x;
    struct jget g; /* lenient: a problem only leaves the field at its init value */
    state_shape_init(out);
    jget_init(&g, "", why, sizeof why);
    snprintf(out->key, sizeof out->key, "%s", key);
    out->key_ok = strlen(key) < KEY_MAX && !key_parse(key, &out->sk, why, sizeof why);
    if (!json_is_object(e))
        return;
    jget_text(&g, e, "", "status", false, out->status, sizeof out->status);
    jget_text(&g, e, "", "mode", false, out->mode, sizeof out->mode);
    jget_text(&g, e, "", "phase", false, out->phase, sizeof out->phase);
    jget_text(&g, e, "", "backend", false, out->backend, sizeof out->backend);
    jget_text(&g, e, "", "seed", false, out->seed, sizeof out->seed);
    out->agent = json_is_true(json_object_get(e, "agent"));
    if (jget_int(&g, e, "", "iteration", false, &x))
        out->iteration = (int)x;
    if (jget_int(&g, e, "", "budget", false, &x))
        out->budget = (int)x;
    jget_text(&g, e, "", "stop_reason", false, out->stop_reason, sizeof out->stop_reason);
    jget_text(&g, e, "", "seed_from", false, out->seed_from, sizeof out->seed_from);
    jget_text(&g, e, "", "updated_at", false, out->updated_at, sizeof out->updated_at);
    json_t *base = json_object_get(e, "baseline"), *best = json_object_get(e, "best");
    if (json_is_object(base)) {
        jget_str(&g, base, "baseline", "config", false, out->baseline_config, sizeof out->baseline_config);
        if (json_is_number(json_object_get(base, "tflops")))
            out->baseline_tflops = json_number_value(json_object_get(base, "tflops"));
    }
    out->have_best = json_is_object(best);
    if (out->have_best) {
        if (jget_int(&g, best, "best", "iter", false, &x))
            out->best.iter = (int)x;
        if (json_is_number(json_object_get(best, "tflops")))
            out->best.tflops = json_number_value(json_object_get(best, "tflops"));
        jget_str(&g, best, "best", "config", false, out->best.config, sizeof out->best.config);
        jget_str(&g, best, "best", "kernel", false, out->best.kernel, sizeof out->best.kernel);
        json_t *m = json_object_get(best, "measured");
        out->best.from_ladder = json_is_string(m) && !strcmp(json_string_value(m), "ladder");
        out->best.sm_clock_mhz = num_or_nan(best, "sm_clock_mhz");
    }
    json_t *l2 = json_object_get(e, "l2"), *ladder = json_object_get(e, "ladder");
    out->cold_l2 = json_is_string(l2) && !strcmp(json_string_value(l2), "cold");
    jget_str(&g, e, "", "strategy", false, out->strategy, sizeof out->strategy);
    out->have_ladder = json_is_object(ladder);
    if (out->have_ladder)
        ladder_from_json(&g, ladder, &out->ladder);
    if (flags & STATE_OLD_FORMS) {
        if (isnan(out->baseline_tflops))
            out->baseline_tflops = old_tflops(isnan(old_tflops(base)) ? json_object_get(e, "baseline_tflops") : base);
        if (isnan(out->best.tflops))
            out->best.tflops = old_tflops(isnan(old_tflops(best)) ? json_object_get(e, "best_tflops") : best);
    }
}

static bool refused(json_t *state, const char *key)
{
    return json_object_get(json_object_get(state, STATE_REFUSED_MEMBER), key) != NULL;
}

bool state_shape_get(json_t *state, const char *key, struct state_shape *out)
{
    json_t *e = refused(state, key) ? NULL : json_object_get(json_object_get(state, "shapes"), key);
    state_shape_from_json(e, key, 0, out);
    return e != NULL;
}

bool state_shape_refused(json_t *state, const char *key, char *why, size_t len)
{
    json_t *r = json_object_get(json_object_get(state, STATE_REFUSED_MEMBER), key);
    const char *w = json_string_value(json_object_get(r, "why"));
    if (r && len)
        snprintf(why, len, "%s", w ? w : "refused");
    return r != NULL;
}

const char **state_refused_keys(json_t *state, size_t *n)
{
    return json_sorted_keys(json_object_get(state, STATE_REFUSED_MEMBER), n);
}

bool state_shape_done(const struct state_shape *s) { return !strcmp(s->status, "done"); }

size_t state_shape_count(json_t *state)
{
    return json_object_size(json_object_get(state, "shapes")) -
           json_object_size(json_object_get(state, STATE_REFUSED_MEMBER));
}

const char **state_shape_keys(json_t *state, size_t *n)
{
    size_t all, k = 0;
    const char **keys = json_sorted_keys(json_object_get(state, "shapes"), &all);
    for (size_t i = 0; i < all; i++)
        if (!refused(state, keys[i]))
            keys[k++] = keys[i];
    keys[k] = NULL;
    if (n)
        *n = k;
    return keys;
}

json_t *state_entry_copy(json_t *state, const char *key)
{
    json_t *e = json_object_get(json_object_get(state, "shapes"), key);
    return e ? json_deep_copy(e) : json_object();
}

json_t *state_sweep_copy(json_t *state)
{
    json_t *sw = json_object_get(state, "sweep");
    return sw ? json_incref(sw) : json_null();
}

bool state_sweep_get(json_t *state, struct state_sweep *out)
{
    json_t *sw = json_object_get(state, "sweep");
    char why[160];
    long long x;
    struct jget g;
    memset(out, 0, sizeof *out);
    if (!json_is_object(sw))
        return false;
    jget_init(&g, "", why, sizeof why);
    bool ok = jget_text(&g, sw, "sweep", "dtype", false, out->dtype, sizeof out->dtype);
    ok &= jget_text(&g, sw, "sweep", "plan", false, out->plan, sizeof out->plan);
    ok &= jget_text(&g, sw, "sweep", "shapes", false, out->shapes, sizeof out->shapes);
    ok &= jget_text(&g, sw, "sweep", "backend", false, out->backend, sizeof out->backend);
    ok &= jget_text(&g, sw, "sweep", "seed", false, out->seed, sizeof out->seed);
    out->complete = ok;
    jget_text(&g, sw, "sweep", "status", false, out->status, sizeof out->status);
    /* range-checked before the cast; out of range (only a lenient reader sees one:
     * state_validate refuses it) the sweep cannot be run again as it was */
    x = 0;
    if (json_object_get(sw, "iters") && !jget_int_in(&g, sw, "sweep", "iters", true, 0, CHECKPOINT_ITER_MAX, &x))
        out->complete = false;
    out->iters = (int)x;
    out->waves = json_is_true(json_object_get(sw, "waves"));
    x = 0;
    if (json_object_get(sw, "last_wave") && !jget_int_in(&g, sw, "sweep", "last_wave", true, 1, STATE_SWEEP_WAVES, &x)) {
        out->complete = false;
        out->last_wave_bad = true;
    }
    out->last_wave = (int)x;
    return true;
}

void state_sweep_put(json_t *state, const struct state_sweep *sw)
{
    json_t *o = json_object();
    json_object_set_new(o, "dtype", json_string(sw->dtype));
    json_object_set_new(o, "plan", json_string(sw->plan));
    json_object_set_new(o, "backend", json_string(sw->backend));
    json_object_set_new(o, "seed", json_string(sw->seed));
    json_object_set_new(o, "iters", json_integer(sw->iters));
    if (sw->shapes[0]) /* a sweep without one: resume calls it incomplete */
        json_object_set_new(o, "shapes", json_string(sw->shapes));
    json_object_set_new(o, "status", json_string(sw->status));
    if (sw->waves)
        json_object_set_new(o, "waves", json_true());
    if (sw->last_wave)
        json_object_set_new(o, "last_wave", json_integer(sw->last_wave));
    json_object_set_new(state, "sweep", o);
}

bool state_sweep_unfinished(const struct state_sweep *sw) { return sw->status[0] && strcmp(sw->status, "done"); }

int state_sweep_dtype(const struct state_sweep *sw)
{
    return strcmp(sw->dtype, "all") ? croq_dtype_parse(sw->dtype) : -1;
}

int state_sweep_mode(const struct state_sweep *sw) { return strcmp(sw->plan, "default") ? mode_parse(sw->plan) : -1; }

int state_sweep_plan_waves(const struct state_sweep *sw)
{
    return strcmp(sw->plan, "default") ? STATE_SWEEP_WAVES - 1 : STATE_SWEEP_WAVES;
}

int state_sweep_last_wave(const struct state_sweep *sw)
{
    int all = state_sweep_plan_waves(sw);
    return sw->last_wave && sw->last_wave < all ? sw->last_wave : all;
}

int state_plan_path(const char *dir, const struct state_sweep *sw, char out[ENGINE_PATH_MAX])
{
    return sw->shapes[0] == '/' ? path_fmt(out, "%s", sw->shapes) : path_fmt(out, "%s/%s", dir, sw->shapes);
}

int state_plan_keep(const char *dir, const char *src, const char *prev, char *err, size_t errlen)
{
    char snap[ENGINE_PATH_MAX], sub[ENGINE_PATH_MAX];
    size_t n, m;
    if (path_fmt(snap, "%s/" STATE_PLAN_FILE, dir) || path_fmt(sub, "%s/plan", dir)) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    char *want = regfile_read(src, REGFILE_MAX, &n);
    if (!want) {
        snprintf(err, errlen, "cannot read '%s': %s", src, regfile_strerror(errno));
        return -1;
    }
    const char *against = snap;
    char *have = regfile_read(snap, REGFILE_MAX, &m);
    if (!have && errno != ENOENT) {
        snprintf(err, errlen, "cannot read the sweep's plan '%s': %s", snap, regfile_strerror(errno));
        free(want);
        return -1;
    }
    if (!have && prev) { /* an older record's file, outside the directory: unreadable is gone */
        against = prev;
        have = regfile_read(prev, REGFILE_MAX, &m);
    }
    int rc = 0;
    if (have && (m != n || memcmp(have, want, n))) {
        snprintf(err, errlen, "'%s' is not the plan this tuning directory's sweep was started with, '%s' (their "
                 "bytes differ): one sweep follows one plan; go on with that file (--shapes %s), or give --tuning "
                 "ANOTHER_DIR for a sweep of '%s'", src, against, against, src);
        rc = 1;
    } else if (!have || against != snap) {
        if (mkdir_p(sub) || atomic_write(snap, want, n)) {
            snprintf(err, errlen, "cannot write '%s': %s", snap, strerror(errno));
            rc = -1;
        }
    }
    free(have);
    free(want);
    return rc;
}

double state_best_speedup(int best_iter, double best_tflops, double baseline_tflops, bool from_ladder,
                          const struct state_ladder *l)
{
    if (best_iter < 0 || !isfinite(best_tflops))
        return NAN;
    if (best_iter == 0)
        return 1.0;
    if (from_ladder && l) {
        double rb = NAN, rw = NAN;
        for (int i = 0; i < l->n; i++) {
            if (l->e[i].iter == 0)
                rb = l->e[i].rel;
            if (l->e[i].iter == best_iter)
                rw = l->e[i].rel;
        }
        if (isfinite(rb) && isfinite(rw) && rb > 0 && rw > 0)
            return rb / rw; /* rel is time relative to the round: smaller is faster */
    }
    return isfinite(baseline_tflops) && baseline_tflops > 0 ? best_tflops / baseline_tflops : NAN;
}
