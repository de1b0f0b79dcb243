/* src/engine/seed.c — where a from_current_best run starts: the best configuration of
 * the nearest tuned shape of the same dtype (nearest by the Euclidean distance of
 * ln M, ln N, ln K), made valid for this shape with the smallest change; and the list
 * of other shapes' bests the proposer may port from. Both are read once, at INIT, and
 * kept in the checkpoint, so a resumed run sees exactly what the first one saw even if
 * other shapes finished in between.
 */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

/* The config a mode starts from when no tuned neighbour exists. */
static int start_config(const struct shape_key *k, struct croq_config *cfg)
{
    if (k->mode == MODE_FROM_SCRATCH)
        knobs_baseline(cfg, k->dtype);
    else
        knobs_default(cfg, k->dtype);
    if (!knobs_fit(cfg, &k->shape))
        return 0;
    knobs_baseline(cfg, k->dtype); /* the default did not fit: the simplest kernel may */
    return knobs_fit(cfg, &k->shape);
}

/* A done shape with a best: one a new shape may start from. */
static bool seeds(const struct state_shape *e) { return e->key_ok && e->have_best && state_shape_done(e); }

int seed_choose(json_t *state, const struct shape_key *k, char cfg_sig[CROQ_SIG_MAX], char from[KEY_MAX])
{
    struct croq_config cfg;
    struct state_shape e, best;
    size_t n;
    const char **keys = state_shape_keys(state, &n);
    double best_d = INFINITY;
    bool found = false;
    from[0] = '\0';
    /* keys in text order, so a tie goes to the first key whatever the file's order */
    for (size_t i = 0; i < n && k->mode == MODE_FROM_CURRENT_BEST; i++) {
        state_shape_get(state, keys[i], &e);
        if (!seeds(&e) || e.sk.dtype != k->dtype)
            continue;
        double d = shape_log_distance(&e.sk.shape, &k->shape);
        if (d < best_d) {
            best_d = d;
            best = e;
            found = true;
        }
    }
    free(keys);
    if (found) {
        char err[256];
        const char *sig = best.best.config;
        if (*sig && !knobs_parse_signature(&cfg, sig, err, sizeof err) && cfg.dtype == k->dtype &&
            !knobs_fit(&cfg, &k->shape)) {
            snprintf(from, KEY_MAX, "%s", best.key);
            knobs_signature(&cfg, cfg_sig);
            return 0;
        }
    }
    if (start_config(k, &cfg))
        return -1;
    knobs_signature(&cfg, cfg_sig);
    return 0;
}

size_t seed_other_bests(json_t *state, const struct shape_key *k, const char *self, char (**out)[CROQ_SIG_MAX])
{
    size_t n = 0, nk;
    *out = xmalloc((state_shape_count(state) + 1) * sizeof **out);
    const char **keys = state_shape_keys(state, &nk); /* the order feeds the proposer */
    for (size_t i = 0; i < nk; i++) {
        struct state_shape e;
        state_shape_get(state, keys[i], &e);
        if (!strcmp(keys[i], self) || !seeds(&e) || e.sk.dtype != k->dtype)
            continue;
        if (e.best.config[0]) /* a signature too long for CROQ_SIG_MAX reads as "" */
            snprintf((*out)[n++], CROQ_SIG_MAX, "%s", e.best.config);
    }
    free(keys);
    return n;
}

size_t seed_prior_sources(json_t *state, const char *dir, const struct shape_key *k, const char *self,
                          const char *backend, struct prior_src **out)
{
    size_t n = 0, nk;
    *out = xmalloc((state_shape_count(state) + 1) * sizeof **out);
    const char **keys = state_shape_keys(state, &nk); /* the order feeds the model */
    for (size_t i = 0; i < nk; i++) {
        struct state_shape e;
        struct result_log log;
        char path[ENGINE_PATH_MAX], err[600];
        state_shape_get(state, keys[i], &e);
        if (!strcmp(keys[i], self) || !seeds(&e) || e.sk.dtype != k->dtype || strcmp(e.backend, backend) ||
            strlen(keys[i]) >= KEY_MAX || path_fmt(path, "%s/logs/%s/results.tsv", dir, keys[i]) ||
            result_log_read(path, &log, err, sizeof err) < 0)
            continue;
        if (log.n > 0) {
            snprintf((*out)[n].key, KEY_MAX, "%s", keys[i]);
            (*out)[n++].rows = (int)log.n;
        }
        result_log_release(&log);
    }
    free(keys);
    return n;
}

/* A from_current_best run that ended where it started (no KEEP) from a far seed, or
 * from no seed at all, has probably not found this shape's region of the knob space. */
#define NEEDS_SCRATCH_DISTANCE 1.3862943611198906 /* ln 4: a 4x step in one dimension */

bool shape_needs_scratch(const struct state_shape *e)
{
    struct shape_key from;
    char err[256];
    /* the tuning's own best (a final ladder may register another row: the loop kept none) */
    int kept = e->have_ladder && e->ladder.tuning_best_iter >= 0 ? e->ladder.tuning_best_iter : e->best.iter;
    if (!e->have_best || !state_shape_done(e) || mode_parse(e->mode) != MODE_FROM_CURRENT_BEST || kept != 0)
        return false;
    if (!e->seed_from[0])
        return true;
    /* m, n, k of a loaded entry are its key's (state_load) */
    return e->key_ok && key_parse(e->seed_from, &from, err, sizeof err) == 0 &&
           shape_log_distance(&e->sk.shape, &from.shape) > NEEDS_SCRATCH_DISTANCE;
}

