/* src/scale/status.c — the workers of a parallel sweep for `croqtuner status`: every
 * claim in state.json, judged by the same rule the workers use (claim.c): a live one is
 * a worker (pid, host, GPU, shape, iteration), a stale one is shown with why, until the
 * next worker that looks takes it over. And the recorded sweep against its plan (plan.c):
 * how many of its shapes never started, which the shape table cannot show (state.json
 * holds only shapes that started), e.g. after the sweep was killed.
 */
#include "scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/regfile.h"

/* Where the shape is: the live progress file while the shape is locked, else state.json. */
static void where(const char *dir, const char *key, json_t *state, json_t *o)
{
    char path[ENGINE_PATH_MAX], err[300];
    struct state_shape e;
    json_t *pr = NULL;
    bool listed = state_shape_get(state, key, &e);
    if (claim_lock_held(dir, key) && !path_fmt(path, "%s/progress/%s.json", dir, key))
        pr = regfile_load_json(path, 0, err, sizeof err); /* a display aid: unreadable is none */
    if (json_is_object(pr)) { /* progress/<key>.json (engine/progress.c) */
        const char *names[] = {"phase", "iteration", "budget"};
        for (int i = 0; i < 3; i++)
            json_object_set(o, names[i], json_object_get(pr, names[i]) ? json_object_get(pr, names[i]) : json_null());
    } else {
        json_object_set_new(o, "phase", listed ? json_string(e.phase) : json_null());
        json_object_set_new(o, "iteration", listed ? json_integer(e.iteration) : json_null());
        json_object_set_new(o, "budget", listed ? json_integer(e.budget) : json_null());
    }
    json_decref(pr);
}

static json_t *claim_status(const char *dir, const struct claim *c, json_t *state, const char *why)
{
    json_t *o = claim_to_json(c);
    json_object_set_new(o, "key", json_string(c->key));
    if (why)
        json_object_set_new(o, "why", json_string(why));
    else
        where(dir, c->key, state, o);
    return o;
}

/* {"dtype", "status", "shapes", "planned", "not_started", "unfinished"} of the recorded
 * sweep over stages 1-3 of its plan (stage 4, the from-scratch reruns, is known only
 * once they are finished), "error" instead of the counts when its plan cannot be built;
 * NULL without a sweep record. */
long scale_sweep_pending(const char *dir, const struct state_sweep *sw, json_t *state, int last_wave)
{
    char path[ENGINE_PATH_MAX], err[600];
    struct scale_plan p;
    size_t pending, widest;
    int dtype = state_sweep_dtype(sw), mode = state_sweep_mode(sw);
    if (state_plan_path(dir, sw, path) || plan_build(path, dtype, mode, last_wave, false, &p, err, sizeof err))
        return -1;
    plan_pending(&p, state, &pending, &widest);
    plan_release(&p);
    return (long)pending;
}

static json_t *sweep_progress(const char *dir, json_t *state)
{
    struct state_sweep sw;
    char path[ENGINE_PATH_MAX];
    if (!state_sweep_get(state, &sw) || !sw.dtype[0] || !sw.plan[0] || !sw.shapes[0])
        return NULL;
    /* "shapes" as recorded (relative: the directory's snapshot), "file" where it is read */
    int dtype = state_sweep_dtype(&sw), mode = state_sweep_mode(&sw);
    json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:i}", "dtype", sw.dtype, "status", sw.status[0] ? sw.status : "?",
                          "shapes", sw.shapes, "last_wave", state_sweep_last_wave(&sw), "waves_in_plan",
                          state_sweep_plan_waves(&sw));
    struct scale_plan p;
    char err[600];
    if (state_plan_path(dir, &sw, path)) {
        json_object_set_new(o, "error", json_string("its path is too long"));
        return o;
    }
    json_object_set_new(o, "file", json_string(path));
    if (plan_build(path, dtype, mode, sw.last_wave, false, &p, err, sizeof err)) {
        if (sw.shapes[0] == '/') /* recorded before the directory kept its own copy */
            snprintf(err + strlen(err), sizeof err - strlen(err), " (an absolute path, recorded before tuning "
                     "directories kept their plan: 'croqtuner resume --shapes FILE' or the sweep command given the "
                     "shapes.json it was started with keeps a copy in the directory, %s)", STATE_PLAN_FILE);
        json_object_set_new(o, "error", json_string(err));
        return o;
    }
    size_t planned = 0, not_started = 0, unfinished = 0;
    for (int d = 0; d < CROQ_DTYPE_COUNT; d++)
        for (int st = 0; p.dtypes[d] && st < 3; st++)
            for (size_t i = 0; i < p.waves[d][st].n; i++) {
                const char *key = p.waves[d][st].s[i].key;
                planned++;
                struct state_shape e;
                not_started += !state_shape_get(state, key, &e);
                unfinished += !plan_shape_finished(state, key);
            }
    plan_release(&p);
    if (state_sweep_last_wave(&sw) < state_sweep_plan_waves(&sw)) {
        /* what the waves after last_wave still hold: a later sweep's work, if any */
        long all = scale_sweep_pending(dir, &sw, state, 0); /* the cut plan has no wave 4: its own are counted */
        json_object_set_new(o, "pending_after_last_wave", json_integer(all >= 0 ? all - (long)unfinished : -1));
    }
    json_object_set_new(o, "planned", json_integer((json_int_t)planned));
    json_object_set_new(o, "not_started", json_integer((json_int_t)not_started));
    json_object_set_new(o, "unfinished", json_integer((json_int_t)unfinished));
    return o;
}

json_t *scale_status_json(const char *dir, char *err, size_t errlen)
{
    struct proc_ident self;
    json_t *st = state_load(dir, err, errlen);
    if (!st || proc_ident_self(&self, err, errlen)) {
        json_decref(st);
        return NULL;
    }
    json_t *out = json_object(), *workers = json_array(), *stale = json_array();
    size_t n;
    const char **keys = state_claim_keys(st, &n);
    for (size_t i = 0; i < n; i++) {
        struct claim c;
        struct claim_facts f;
        char why[200], cerr[300];
        if (state_claim_get(st, keys[i], &c, cerr, sizeof cerr)) {
            log_warn("%s", cerr);
            continue;
        }
        claim_facts_gather(dir, &c, &self, st, &f);
        const char *stale_why = claim_stale_reason(&c, &f, why, sizeof why);
        json_array_append_new(stale_why ? stale : workers, claim_status(dir, &c, st, stale_why));
    }
    free(keys);
    json_t *sw = sweep_progress(dir, st);
    json_decref(st);
    json_object_set_new(out, "workers", workers);
    json_object_set_new(out, "stale_claims", stale);
    json_object_set_new(out, "sweep_plan", sw ? sw : json_null());
    return out;
}

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s && *s ? s : "-";
}

static void print_worker(FILE *out, json_t *w)
{
    json_t *it = json_object_get(w, "iteration"), *b = json_object_get(w, "budget");
    fprintf(out, "  pid %lld on %s, GPU %s: %s %s", (long long)json_integer_value(json_object_get(w, "pid")),
            str(w, "host"), str(w, "gpu"), str(w, "action"), str(w, "key"));
    if (json_is_integer(it) && json_is_integer(b))
        fprintf(out, ", %s iteration %lld/%lld", str(w, "phase"), (long long)json_integer_value(it),
                (long long)json_integer_value(b));
    fprintf(out, ", since %s%s%s\n", str(w, "claimed_at"), *str(w, "job") != '-' ? ", job " : "",
            *str(w, "job") != '-' ? str(w, "job") : "");
}

int scale_status_print(const char *dir, FILE *out)
{
    char err[600];
    json_t *s = scale_status_json(dir, err, sizeof err), *v;
    size_t i;
    if (!s) {
        log_error("%s", err);
        return -1;
    }
    json_t *workers = json_object_get(s, "workers"), *stale = json_object_get(s, "stale_claims");
    if (json_array_size(workers))
        fprintf(out, "\nworkers:\n");
    json_array_foreach(workers, i, v) {
        print_worker(out, v);
    }
    if (json_array_size(stale))
        fprintf(out, "\nstale claims (the next worker that looks takes each over):\n");
    json_array_foreach(stale, i, v) {
        fprintf(out, "  %s (%s, GPU %s): %s\n", str(v, "key"), str(v, "action"), str(v, "gpu"), str(v, "why"));
    }
    json_t *sw = json_object_get(s, "sweep_plan");
    if (json_is_object(sw) && json_object_get(sw, "error"))
        fprintf(out, "\nsweep (%s, %s): its plan '%s' cannot be read: %s\n", str(sw, "dtype"), str(sw, "status"),
                str(sw, "file"), str(sw, "error"));
    else if (json_is_object(sw) && !strcmp(str(sw, "status"), "done") &&
             json_integer_value(json_object_get(sw, "pending_after_last_wave")) > 0)
        /* done as asked, with shapes of later waves left: say how to go on */
        fprintf(out, "\nsweep (%s, waves 1-%lld, recorded done): its %lld planned shapes are done; the waves after "
                "%lld hold %lld more not done (the same sweep command without --waves goes on with them)\n",
                str(sw, "dtype"), (long long)json_integer_value(json_object_get(sw, "last_wave")),
                (long long)json_integer_value(json_object_get(sw, "planned")),
                (long long)json_integer_value(json_object_get(sw, "last_wave")),
                (long long)json_integer_value(json_object_get(sw, "pending_after_last_wave")));
    else if (json_is_object(sw) && strcmp(str(sw, "status"), "done"))
        fprintf(out, "\nsweep (%s, waves 1-%lld, recorded %s): %lld planned shapes, %lld not started yet, %lld not "
                "finished%s\n", str(sw, "dtype"), (long long)json_integer_value(json_object_get(sw, "last_wave")),
                str(sw, "status"), (long long)json_integer_value(json_object_get(sw, "planned")),
                (long long)json_integer_value(json_object_get(sw, "not_started")),
                (long long)json_integer_value(json_object_get(sw, "unfinished")),
                json_integer_value(json_object_get(sw, "unfinished")) && !json_array_size(workers)
                    ? " ('croqtuner resume' continues it)"
                    : "");
    json_decref(s);
    return 0;
}
