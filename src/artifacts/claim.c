/* src/artifacts/claim.c — a claim record (claim.h) to and from its JSON in state.json. */
#include "artifacts/claim.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util/jsonget.h"

const char *claim_action_name(enum claim_action a)
{
    return a == CLAIM_INIT ? "init" : "tune";
}

json_t *claim_to_json(const struct claim *c)
{
    json_t *j = json_object();
    json_object_set_new(j, "action", json_string(claim_action_name(c->action)));
    json_object_set_new(j, "pid", json_integer(c->who.pid));
    json_object_set_new(j, "host", json_string(c->who.host));
    json_object_set_new(j, "boot_id", json_string(c->who.boot_id));
    json_object_set_new(j, "pidns", json_string(c->who.pidns));
    json_object_set_new(j, "start_ticks", json_integer((json_int_t)c->who.start_ticks));
    json_object_set_new(j, "gpu", json_string(c->gpu));
    json_object_set_new(j, "job", json_string(c->job));
    json_object_set_new(j, "claimed_at", json_string(c->claimed_at));
    json_object_set_new(j, "claimed_s", json_integer(c->claimed_s));
    return j;
}

int claim_from_json(const char *key, json_t *j, struct claim *c, char *err, size_t errlen)
{
    struct shape_key sk;
    char why[256], action[8];
    long long pid, ticks, at;
    memset(c, 0, sizeof *c);
    if (key_parse(key, &sk, why, sizeof why)) {
        snprintf(err, errlen, "claim: %s", why);
        return -1;
    }
    snprintf(c->key, sizeof c->key, "%s", key);
    if (!json_is_object(j)) {
        snprintf(err, errlen, "claim on '%s' is not an object", key);
        return -1;
    }
    char ctx[KEY_MAX + 16];
    struct jget g;
    snprintf(ctx, sizeof ctx, "claim on '%s': ", key);
    jget_init(&g, ctx, err, errlen);
    jget_str(&g, j, "", "action", true, action, sizeof action);
    jget_str(&g, j, "", "host", true, c->who.host, sizeof c->who.host);
    jget_str(&g, j, "", "boot_id", true, c->who.boot_id, sizeof c->who.boot_id);
    jget_str(&g, j, "", "pidns", true, c->who.pidns, sizeof c->who.pidns);
    jget_str(&g, j, "", "gpu", true, c->gpu, sizeof c->gpu);
    jget_str(&g, j, "", "job", true, c->job, sizeof c->job);
    jget_str(&g, j, "", "claimed_at", true, c->claimed_at, sizeof c->claimed_at);
    jget_int_in(&g, j, "", "pid", true, 1, LLONG_MAX, &pid);
    jget_int_in(&g, j, "", "start_ticks", true, 0, LLONG_MAX, &ticks);
    jget_int_in(&g, j, "", "claimed_s", true, 0, LLONG_MAX, &at);
    if (g.failed)
        return -1;
    if (strcmp(action, "init") && strcmp(action, "tune")) {
        snprintf(err, errlen, "claim on '%s': 'action' must be \"init\" or \"tune\"", key);
        return -1;
    }
    c->action = strcmp(action, "init") ? CLAIM_TUNE : CLAIM_INIT;
    c->who.pid = (long)pid;
    c->who.start_ticks = (unsigned long long)ticks;
    c->claimed_s = at;
    return 0;
}

