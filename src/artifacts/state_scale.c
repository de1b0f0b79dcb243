/* src/artifacts/state_scale.c — state.json's "scale" member (state.h): the claims object
 * of a sweep in waves and the shapes its workers gave up. Changed only under the flock
 * of state_update, like the rest of the file. */
#include "artifacts/claim.h"
#include "artifacts/state.h"

#include <stdio.h>
#include <string.h>

#include "util/jsonget.h"
#include "util/log.h"

int state_scale_check(json_t *state, char *err, size_t errlen)
{
    json_t *sc = json_object_get(state, "scale");
    if (!sc)
        return 0;
    json_t *claims = json_object_get(sc, "claims"), *failed = json_object_get(sc, "failed");
    if (!json_is_object(sc) || (claims && !json_is_object(claims)) || (failed && !json_is_object(failed))) {
        snprintf(err, errlen, "state.json: 'scale', 'scale.claims' and 'scale.failed' must be objects; the "
                 "file is left as it is");
        return -1;
    }
    return 0;
}

/* scale.<which>, created (with scale) when absent or not an object. */
static json_t *member(json_t *state, const char *which)
{
    json_t *sc = json_object_get(state, "scale");
    if (!json_is_object(sc)) {
        sc = json_object();
        json_object_set_new(state, "scale", sc);
    }
    json_t *m = json_object_get(sc, which);
    if (!json_is_object(m)) {
        m = json_object();
        json_object_set_new(sc, which, m);
    }
    return m;
}

static json_t *member_get(json_t *state, const char *which)
{
    json_t *m = json_object_get(json_object_get(state, "scale"), which);
    return json_is_object(m) ? m : NULL;
}

json_t *state_claims(json_t *state) { return member(state, "claims"); }

json_t *state_claims_get(json_t *state) { return member_get(state, "claims"); }

int state_claim_get(json_t *state, const char *key, struct claim *c, char *err, size_t errlen)
{
    json_t *j = json_object_get(member_get(state, "claims"), key);
    if (!j)
        return 1;
    return claim_from_json(key, j, c, err, errlen);
}

void state_claim_put(json_t *state, const struct claim *c)
{
    json_object_set_new(member(state, "claims"), c->key, claim_to_json(c));
}

void state_claim_drop(json_t *state, const char *key) { json_object_del(member(state, "claims"), key); }

const char **state_claim_keys(json_t *state, size_t *n) { return json_sorted_keys(member_get(state, "claims"), n); }

void state_failed_put(json_t *state, const struct state_failed *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "why", json_string(f->why));
    json_object_set_new(o, "at", json_string(f->at));
    json_object_set_new(o, "host", json_string(f->host));
    json_object_set_new(o, "pid", json_integer(f->pid));
    json_object_set_new(member(state, "failed"), f->key, o);
}

bool state_failed_has(json_t *state, const char *key) { return json_object_get(member_get(state, "failed"), key); }

size_t state_failed_count(json_t *state) { return json_object_size(member_get(state, "failed")); }

size_t state_failed_list(json_t *state, struct state_failed **out)
{
    json_t *failed = member_get(state, "failed"), *v;
    const char *key;
    size_t n = 0;
    *out = xmalloc((json_object_size(failed) + 1) * sizeof **out);
    json_object_foreach(failed, key, v) {
        struct state_failed *f = &(*out)[n++];
        char why[160];
        long long pid = 0;
        struct jget g; /* a display record: what cannot be read stays empty */
        memset(f, 0, sizeof *f);
        jget_init(&g, "", why, sizeof why);
        snprintf(f->key, sizeof f->key, "%s", key);
        jget_text(&g, v, "", "why", false, f->why, sizeof f->why);
        jget_text(&g, v, "", "at", false, f->at, sizeof f->at);
        jget_text(&g, v, "", "host", false, f->host, sizeof f->host);
        jget_int(&g, v, "", "pid", false, &pid);
        f->pid = (long)pid;
    }
    return n;
}

void state_failed_clear(json_t *state) { json_object_clear(member(state, "failed")); }
