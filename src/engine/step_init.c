/* src/engine/step_init.c — INIT: directories, the starting configuration (from the
 * mode, or the nearest tuned shape's best), the other shapes' bests for the proposer,
 * empty logs with their schema lines; then BASELINE. Everything INIT decides is kept in
 * the checkpoint, so a resumed run never re-derives it from a state that has moved on.
 */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicio.h"

static int make_dirs(struct run *r)
{
    const char *subs[] = {"logs", "srcs", "perf"};
    char path[ENGINE_PATH_MAX];
    for (int i = 0; i < 3; i++) {
        if (run_path(r, path, subs[i], ""))
            return run_fail(r, "tuning directory path too long");
        if (mkdir_p(path))
            return run_fail(r, "cannot create '%s': %s", path, strerror(errno));
    }
    return 0;
}

static int make_logs(struct run *r)
{
    char path[ENGINE_PATH_MAX], err[600];
    if (run_path(r, path, "logs", "/results.tsv") ||
        result_log_create(path, "results", r->ck.backend, r->ck.decide_rules, err, sizeof err))
        return run_fail(r, "%s", err);
    if (run_path(r, path, "logs", "/attempts.tsv") ||
        result_log_create(path, "attempts", r->ck.backend, r->ck.decide_rules, err, sizeof err))
        return run_fail(r, "%s", err);
    return 0;
}

/* The start configuration inside the shape's knob space (its pinned generator's,
 * generator_pin.c): a neighbour's best, or the given start, may set a knob or value that
 * generator lacks (the neighbour written by a newer one); it is moved to the nearest
 * point the generator implements and fitted again. 0, or ENGINE_FAILED with the message
 * when no such point fits the shape. */
static int keep_to_space(struct run *r)
{
    struct checkpoint *c = &r->ck;
    const struct knob_space *space = run_space(r);
    struct croq_config cfg;
    char err[CROQ_WHY_MAX], why[CROQ_WHY_MAX], was[CROQ_SIG_MAX];
    if (knobs_parse_signature(&cfg, c->seed_config, err, sizeof err))
        return run_fail(r, "shape '%s': start configuration: %s", c->key, err);
    if (knob_space_allows(space, &cfg, why, sizeof why))
        return 0;
    snprintf(was, sizeof was, "%s", c->seed_config);
    knob_space_clamp(space, &cfg);
    if (knobs_fit(&cfg, &c->sk.shape) || !knob_space_allows(space, &cfg, err, sizeof err))
        return run_fail(r, "shape '%s': the start configuration '%s' is outside its generator's knobs (%s) and no "
                        "configuration near it inside them fits the shape", c->key, was, why);
    knobs_signature(&cfg, c->seed_config);
    if (!r->o->quiet)
        printf("%s: the start configuration is moved into %s's knobs (%s): %s\n", c->key, space->owner, why,
               c->seed_config);
    return 0;
}

int step_init(struct run *r)
{
    char err[600];
    struct checkpoint *c = &r->ck;
    json_t *state = state_load(r->dir, err, sizeof err);
    if (!state)
        return run_fail(r, "%s", err);
    int rc = seed_choose(state, &c->sk, c->seed_config, c->seed_from);
    if (!rc && r->o->start_config && c->sk.mode == MODE_FROM_CURRENT_BEST) {
        /* an explicit starting point (replay-bench: another dataset's best), fitted like
         * a neighbour's best */
        struct croq_config cfg;
        if (knobs_parse_signature(&cfg, r->o->start_config, err, sizeof err) || cfg.dtype != c->sk.dtype ||
            knobs_fit(&cfg, &c->sk.shape)) {
            json_decref(state);
            return run_fail(r, "shape '%s': the start configuration '%.200s' does not fit", c->key,
                            r->o->start_config);
        }
        knobs_signature(&cfg, c->seed_config);
        snprintf(c->seed_from, sizeof c->seed_from, "%s", r->o->start_from ? r->o->start_from : "the given start");
    }
    if (!rc && keep_to_space(r)) {
        json_decref(state);
        return ENGINE_FAILED;
    }
    free(c->other_bests);
    c->n_other_bests = seed_other_bests(state, &c->sk, c->key, &c->other_bests);
    free(c->prior);
    c->n_prior = seed_prior_sources(state, r->dir, &c->sk, c->key, c->backend, &c->prior);
    json_decref(state);
    if (rc)
        return run_fail(r, "shape '%s': no configuration of the kernel family fits this shape", c->key);
    if (make_dirs(r) || make_logs(r))
        return ENGINE_FAILED;
    crashpoint("init.logs");
    if (run_goto(r, PH_BASELINE) || run_save(r))
        return ENGINE_FAILED;
    if (!r->o->quiet)
        printf("%s: %s, budget %d, backend %s, starting from %s\n", c->key, mode_name(c->sk.mode), c->budget,
               c->backend, c->seed_from[0] ? c->seed_from : c->sk.mode == MODE_FROM_SCRATCH ? "the baseline kernel"
                                                                                          : "the default configuration");
    return 0;
}
