/* src/engine/step_profile.c — PROFILE: one profiled launch of the current best,
 * classified into a bottleneck category. The result is evidence in the checkpoint
 * (config profiled, category, metrics, raw file and hash); IDEATE refuses to run
 * without a profile of the best it starts from. The best is profiled once per new
 * best: after a DISCARD the best (and so its profile) is unchanged.
 */
#include "run.h"

#include <stdio.h>
#include <string.h>

static bool profile_current(struct run *r)
{
    struct profile_evidence *e = &r->ck.profile;
    char path[ENGINE_PATH_MAX], h[BACKEND_HASH_MAX];
    if (!e->done || strcmp(e->config, r->ck.best.config))
        return false;
    if (!e->raw_rel[0])
        return true;
    return !path_fmt(path, "%s/%s", r->dir, e->raw_rel) && !backend_hash_file(path, h) && !strcmp(h, e->raw_hash);
}

int step_profile(struct run *r)
{
    struct checkpoint *c = &r->ck;
    struct cand_req q;
    struct profile_out out;
    if (!c->have_best)
        return run_fail(r, "shape '%s': nothing to profile (guard of PROFILE: no best)", c->key);
    if (profile_current(r))
        return run_goto(r, PH_IDEATE);
    if (run_best_source(r))
        return ENGINE_FAILED;
    run_req(r, &q, "profile", true, &r->best_cfg);
    q.iter = c->best.iter;
    memset(&out, 0, sizeof out);
    double t0 = engine_mono_s();
    int brc = r->be->profile(r->be, &q, &out);
    r->spent_s[SPENT_PROFILE] += engine_mono_s() - t0;
    if (brc)
        return run_fail(r, "shape '%s': profile: %s", c->key, out.r.reason);
    struct profile_evidence *e = &c->profile;
    memset(e, 0, sizeof *e);
    e->done = true;
    snprintf(e->config, sizeof e->config, "%s", c->best.config);
    e->ok = out.r.ok;
    snprintf(e->reason, sizeof e->reason, "%s", out.r.reason);
    idea_text_sanitize(e->reason);
    e->category = out.r.ok ? out.r.category : BN_UNKNOWN;
    snprintf(e->justification, sizeof e->justification, "%s", out.r.justification);
    idea_text_sanitize(e->justification);
    e->m = out.r.m;
    snprintf(e->raw_rel, sizeof e->raw_rel, "%s", out.raw_rel);
    snprintf(e->raw_hash, sizeof e->raw_hash, "%s", out.raw_hash);
    if (run_goto(r, PH_IDEATE) || run_save(r))
        return ENGINE_FAILED;
    crashpoint("profile.saved");
    return 0;
}
