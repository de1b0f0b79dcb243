/* runner/subject.c — check, then time, then check again; the same for every subject. */
#include "subject.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static int fail_incorrect(const char *phase, const struct verify_result *v)
{
    const struct mismatch *f = &v->first[0];
    runner_fail(RS_INCORRECT,
                "verification failed %s: %lld of %lld elements wrong (%lld nan/unwritten); first at "
                "(%ld, %ld): got %g, want %g, tol %g", phase, v->mismatches, v->checked,
                v->nan_or_unwritten, f->row, f->col, f->got, f->want, f->tol);
    return -1;
}

static int measure_steps(const struct bench_env *env, const struct subject_kernel *k, struct subject *s)
{
    const struct operands *o = env->o;
    TRY(verify_poison(env->g, k->d_c, o->m, o->n));
    TRY(k->fn(k->ctx));
    /* A kernel fault surfaces at the next synchronising call; make it this one. */
    CU_CHECK(RS_LAUNCH_ERROR, cuCtxSynchronize());
    if (env->r) { /* NULL: run --no-verify (a profile of a kernel verified before) */
        TRY(verify_output(env->g, k->d_c, o, env->r, &s->v));
        s->verified = true;
        if (!s->v.passed)
            return fail_incorrect("on the first launch", &s->v);
    }
    if (!env->time_it)
        return 0;
    /* --trials trials of at least 20 ms, at most --iters launches each, after a warm-up of
     * at least --warmup launches that lasts until clock and power settle */
    struct pair_opts po;
    pair_opts_default(&po);
    po.pairs = env->topts.trials;
    po.max_iters = env->topts.iters;
    po.warmup_min_launches = env->topts.warmup;
    if (env->topts.warmup_ms > 0)
        po.warmup_max_ms = env->topts.warmup_ms;
    else if (env->topts.warmup_ms < 0)
        po.warmup_min_ms = po.warmup_max_ms = 0;
    struct pair_kernel pk = {k->fn, k->ctx};
    CUdeviceptr timed_c = k->d_c;
    if (env->cold_l2) {
        if (!k->cold_fn || !k->rot || !k->rot->n) {
            runner_fail(RS_INTERNAL_ERROR, "%s cannot be timed with a cold L2", s->name);
            return -1;
        }
        pk = (struct pair_kernel){k->cold_fn, k->cold_ctx};
        timed_c = k->cold_c;
        k->rot->next = 0; /* copy 0 first, and its output is the one checked */
        TRY(verify_poison(env->g, timed_c, o->m, o->n));
        s->cold = true;
        s->rot_copies = k->rot->n;
        s->l2_bytes = k->rot->l2_bytes;
    }
    struct pair_result *pr = xmalloc(sizeof *pr);
    int rc = pair_run(env->g, &po, 2.0 * o->m * o->n * o->k, &pk, NULL, pr);
    s->t = pr->cand;
    s->w = pr->w;
    s->t_used = (struct timing_opts){(int)pr->w.launches, pr->cand_iters, pr->cand.trials, env->topts.warmup_ms};
    free(pr);
    TRY(rc);
    s->timed = true;
    if (!env->r)
        return 0;
    TRY(verify_output(env->g, timed_c, o, env->r, &s->v_after));
    s->verified_after_timing = true;
    if (!s->v_after.passed)
        return fail_incorrect("after the timed launches", &s->v_after);
    return 0;
}

void subject_take_failure(struct subject *s)
{
    s->status = runner_failed() ? runner_fail_status() : RS_INTERNAL_ERROR;
    snprintf(s->error, sizeof s->error, "%s", runner_failed() ? runner_fail_message() : "unknown failure");
    runner_fail_clear();
}

int subject_measure(const struct bench_env *env, const struct subject_kernel *k, struct subject *s)
{
    s->status = RS_OK;
    s->error[0] = '\0';
    if (measure_steps(env, k, s) == 0)
        return 0;
    subject_take_failure(s);
    return -1;
}

void subject_release(struct subject *s)
{
    json_decref(s->extra);
    s->extra = NULL;
}

/* The decisive verification: the check after timing when it ran (it runs only when
 * the first passed), else the first. */
static json_t *verify_part(const struct subject *s, const char *method)
{
    bool after = s->verified_after_timing;
    json_t *v = verify_json(after ? &s->v_after : &s->v, method);
    json_object_set_new(v, "phase", json_string(after ? "after_timing" : "first_launch"));
    return v;
}

json_t *subject_json(const struct subject *s, const struct bench_env *env)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(s->name));
    json_object_set_new(o, "available", json_boolean(s->available));
    if (s->note[0])
        json_object_set_new(o, "note", json_string(s->note));
    json_object_set_new(o, "status", json_string(s->available ? runner_status_name(s->status) : "unavailable"));
    if (s->error[0])
        json_object_set_new(o, "error", json_string(s->error));
    if (s->verified)
        json_object_set_new(o, "verify", verify_part(s, env->r->method));
    if (s->timed) {
        json_object_set_new(o, "timing", timing_json(&s->t_used, &s->t));
        json_object_set_new(o, "warmup", pair_warmup_json(&s->w));
        json_object_set_new(o, "gpu_state", timing_gpu_state_json(&s->t));
        json_object_set_new(o, "peak", peak_json(env->o->dtype, &s->t));
        json_object_set_new(o, "l2", json_string(s->cold ? "cold" : "warm"));
        if (s->cold)
            json_object_set_new(o, "rotation", json_pack("{s:i, s:I}", "copies", s->rot_copies, "l2_bytes",
                                                         (json_int_t)s->l2_bytes));
    }
    if (s->extra)
        json_object_update(o, s->extra);
    return o;
}
