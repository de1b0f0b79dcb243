/* src/scale/next.c — choosing and claiming work, releasing it. Every function here
 * edits a state.json root that the caller holds under the exclusive flock on
 * <dir>/.lock (state_update), so two workers can never claim the same shape, and the
 * claims live in the same file, changed by the same atomic rename, as the shapes they
 * are about: state.json is consistent after every step, with no merge needed.
 */
#include "scale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/utctime.h"

/* The "scale" member as the workers wrote it; anything else is damage, and a worker
 * must not guess who holds what. */
static int scale_check(json_t *state, char *err, size_t errlen)
{
    struct claim c;
    size_t n;
    int rc = state_scale_check(state, err, errlen);
    const char **keys = rc ? NULL : state_claim_keys(state, &n);
    for (size_t i = 0; keys && i < n && !rc; i++)
        rc = state_claim_get(state, keys[i], &c, err, errlen) < 0 ? -1 : 0;
    free(keys);
    return rc;
}

static bool same_worker(const struct claim *c, const struct worker_id *w)
{
    return proc_same_host(&c->who, &w->self) && c->who.pid == w->self.pid &&
           c->who.start_ticks == w->self.start_ticks;
}

/* A claim this process left behind (a release that could not be written): it is not
 * working on it now, so it is dropped before looking for work. true if one was. */
static bool drop_own(json_t *state, const struct worker_id *w)
{
    bool dropped = false;
    size_t n;
    const char **keys = state_claim_keys(state, &n);
    char err[300];
    for (size_t i = 0; i < n; i++) {
        struct claim c;
        if (!state_claim_get(state, keys[i], &c, err, sizeof err) && same_worker(&c, w)) {
            state_claim_drop(state, keys[i]); /* keys[i] is not used after this */
            dropped = true;
        }
    }
    free(keys);
    return dropped;
}

/* INITed: its checkpoint exists past INIT (state.json shows the phase it was put with). */
static bool shape_inited(json_t *state, const char *key)
{
    struct state_shape e;
    return state_shape_get(state, key, &e) && (state_shape_done(&e) || strcmp(e.phase, "INIT"));
}

static bool wave_open(json_t *state, const struct plan_wave *wv)
{
    for (size_t i = 0; i < wv->n; i++)
        if (!plan_shape_finished(state, wv->s[i].key) && !shape_inited(state, wv->s[i].key))
            return false;
    return true;
}

/* Can key be claimed? Yes when unclaimed and unlocked, or when its claim is stale
 * (then out->was and out->why say whose and why). */
static bool claimable(const char *dir, json_t *state, const char *key, const struct worker_id *w,
                      struct next_result *out)
{
    struct claim_facts f;
    char err[300];
    int rc = state_claim_get(state, key, &out->was, err, sizeof err);
    if (rc == 1)
        return !claim_lock_held(dir, key); /* locked without a claim: a 'tune' or 'resume' outside the sweep */
    if (rc)
        return false; /* scale_check has refused this already */
    claim_facts_gather(dir, &out->was, &w->self, state, &f);
    out->takeover = claim_stale_reason(&out->was, &f, out->why, sizeof out->why) != NULL;
    return out->takeover;
}

static void claim_make(json_t *state, const char *key, enum claim_action a, const struct worker_id *w,
                       struct next_result *out)
{
    struct claim *c = &out->claim;
    memset(c, 0, sizeof *c);
    snprintf(c->key, sizeof c->key, "%s", key);
    c->action = a;
    c->who = w->self;
    snprintf(c->gpu, sizeof c->gpu, "%s", w->gpu);
    snprintf(c->job, sizeof c->job, "%s", w->job);
    utc_now(c->claimed_at);
    c->claimed_s = (long long)time(NULL);
    state_claim_put(state, c);
    out->kind = NEXT_WORK;
}

/* Claim the first claimable shape of the wave: 1 when one was claimed. Until every
 * shape of the wave is INITed only INIT work is handed out, so no shape of the wave is
 * done while another one starts (each starts from the earlier waves only). */
static int claim_in_wave(const char *dir, json_t *state, const struct plan_wave *wv,
                         const struct worker_id *w, struct next_result *out)
{
    bool open = wave_open(state, wv);
    for (size_t i = 0; i < wv->n; i++) {
        const char *key = wv->s[i].key;
        if (plan_shape_finished(state, key) || (!open && shape_inited(state, key)))
            continue;
        out->takeover = false;
        if (!claimable(dir, state, key, w, out))
            continue;
        claim_make(state, key, open ? CLAIM_TUNE : CLAIM_INIT, w, out);
        return 1;
    }
    out->takeover = false;
    return 0;
}

/* Claims left on finished shapes by processes that are gone (killed after the shape
 * was done, or a 'resume' finished it meanwhile): nobody will take them over, so they
 * are dropped here. true if one was. */
static bool drop_stale_finished(const char *dir, json_t *state, const struct worker_id *w)
{
    size_t n;
    const char **keys = state_claim_keys(state, &n);
    char err[300], why[200];
    bool dropped = false;
    for (size_t i = 0; i < n; i++) {
        struct claim c;
        struct claim_facts f;
        if (!plan_shape_finished(state, keys[i]) || state_claim_get(state, keys[i], &c, err, sizeof err))
            continue;
        claim_facts_gather(dir, &c, &w->self, state, &f);
        if (claim_stale_reason(&c, &f, why, sizeof why)) {
            state_claim_drop(state, keys[i]);
            dropped = true;
        }
    }
    free(keys);
    return dropped;
}

int claim_next(const char *dir, json_t *state, const struct scale_plan *p, const struct worker_id *w,
               struct next_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->kind = NEXT_WAIT;
    if (scale_check(state, err, errlen))
        return -1;
    state_claims(state); /* created when absent: a worker's edit always leaves one */
    bool unfinished = false;
    out->dropped_own = drop_own(state, w);
    out->dropped_own |= drop_stale_finished(dir, state, w);
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++) {
        struct plan_wave tmp;
        const struct plan_wave *wv = plan_current_wave(p, dt, state, &tmp);
        unfinished |= wv != NULL;
        int found = wv ? claim_in_wave(dir, state, wv, w, out) : 0;
        plan_wave_release(&tmp);
        if (found)
            return 0;
    }
    out->kind = unfinished ? NEXT_WAIT : NEXT_DONE;
    return 0;
}

int claim_release(json_t *state, const char *key, const struct worker_id *w, bool failed, const char *why)
{
    struct claim c;
    char err[300];
    state_claims(state); /* created when absent, as before any release */
    if (state_claim_get(state, key, &c, err, sizeof err) || !same_worker(&c, w))
        return 1; /* taken over meanwhile: the claim is someone else's now */
    state_claim_drop(state, key);
    if (failed) {
        struct state_failed f = {.pid = w->self.pid};
        snprintf(f.key, sizeof f.key, "%s", key);
        snprintf(f.why, sizeof f.why, "%s", why ? why : "");
        snprintf(f.host, sizeof f.host, "%s", w->self.host);
        utc_now(f.at);
        state_failed_put(state, &f);
    }
    return 0;
}

size_t claim_drop_stale(const char *dir, json_t *state, const struct proc_ident *self, struct strbuf *dropped)
{
    size_t n, k = 0;
    state_claims(state); /* created when absent */
    const char **keys = state_claim_keys(state, &n);
    char err[300], why[200];
    for (size_t i = 0; i < n; i++) {
        struct claim c;
        struct claim_facts f;
        if (state_claim_get(state, keys[i], &c, err, sizeof err))
            continue;
        claim_facts_gather(dir, &c, self, state, &f);
        if (!claim_stale_reason(&c, &f, why, sizeof why))
            continue;
        strbuf_addf(dropped, "%s (%s): %s\n", c.key, claim_action_name(c.action), why);
        state_claim_drop(state, keys[i]); /* keys[i] is not used after this */
        k++;
    }
    free(keys);
    return k;
}
