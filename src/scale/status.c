/* src/scale/status.c — the workers of a parallel sweep for `croqtuner status`: every
 * claim in state.json, judged by the same rule the workers use (claim.c): a live one is
 * a worker (pid, host, GPU, shape, iteration), a stale one is shown with why, until the
 * next worker that looks takes it over.
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

json_t *scale_status_json(const char *dir, char *err, size_t errlen)
{
    struct proc_ident self;
    json_t *st = state_load(dir, err, errlen);
    if (!st || proc_ident_self(&self, err, errlen)) {
        json_decref(st);
        return NULL;
    }
    json_t *claims = state_claims_get(st);
    json_t *out = json_object(), *workers = json_array(), *stale = json_array();
    size_t n;
    const char **keys = json_sorted_keys(claims, &n);
    for (size_t i = 0; i < n; i++) {
        struct claim c;
        struct claim_facts f;
        char why[200], cerr[300];
        if (claim_from_json(keys[i], json_object_get(claims, keys[i]), &c, cerr, sizeof cerr)) {
            log_warn("%s", cerr);
            continue;
        }
        claim_facts_gather(dir, &c, &self, st, &f);
        const char *stale_why = claim_stale_reason(&c, &f, why, sizeof why);
        json_array_append_new(stale_why ? stale : workers, claim_status(dir, &c, st, stale_why));
    }
    free(keys);
    json_decref(st);
    json_object_set_new(out, "workers", workers);
    json_object_set_new(out, "stale_claims", stale);
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
    json_decref(s);
    return 0;
}
