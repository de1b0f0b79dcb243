/* runner/subject.c — check, then time, then check again; the same for every subject. */
#include "subject.h"

#include <stdarg.h>
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

static int verify_first(const struct bench_env *env, const struct subject_kernel *k, struct subject *s)
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
    return 0;
}

void subject_pair_opts(const struct bench_env *env, struct pair_opts *po)
{
    pair_opts_default(po);
    po->pairs = env->topts.trials;
    po->max_iters = env->topts.iters;
    po->warmup_min_launches = env->topts.warmup;
    if (env->topts.warmup_ms > 0)
        po->warmup_max_ms = env->topts.warmup_ms;
    else if (env->topts.warmup_ms < 0)
        po->warmup_min_ms = po->warmup_max_ms = 0;
}

static int timed_kernel(const struct bench_env *env, const struct subject_kernel *k, struct subject *s,
                        struct pair_kernel *pk)
{
    *pk = (struct pair_kernel){k->fn, k->ctx};
    if (!env->cold_l2)
        return 0;
    if (!k->cold_fn || !k->rot || !k->rot->n) {
        runner_fail(RS_INTERNAL_ERROR, "%s cannot be timed with a cold L2", s->name);
        return -1;
    }
    *pk = (struct pair_kernel){k->cold_fn, k->cold_ctx};
    k->rot->next = 0; /* copy 0 first, and its output is the one checked */
    TRY(verify_poison(env->g, k->cold_c, env->o->m, env->o->n));
    s->cold = true;
    s->rot_copies = k->rot->n;
    s->l2_bytes = k->rot->l2_bytes;
    return 0;
}

void subject_set_timing(const struct bench_env *env, struct subject *s, const struct timing_result *t,
                        const struct warmup_rec *w, int iters)
{
    s->t = *t;
    s->w = *w;
    s->t_used = (struct timing_opts){(int)w->launches, iters, t->trials, env->topts.warmup_ms};
    s->timed = true;
}

static int verify_after(const struct bench_env *env, const struct subject_kernel *k, struct subject *s)
{
    if (!env->r)
        return 0;
    TRY(verify_output(env->g, env->cold_l2 ? k->cold_c : k->d_c, env->o, env->r, &s->v_after));
    s->verified_after_timing = true;
    if (!s->v_after.passed)
        return fail_incorrect("after the timed launches", &s->v_after);
    return 0;
}

static int measure_steps(const struct bench_env *env, const struct subject_kernel *k, struct subject *s)
{
    const struct operands *o = env->o;
    TRY(verify_first(env, k, s));
    if (!env->time_it)
        return 0;
    struct pair_opts po;
    struct pair_kernel pk;
    subject_pair_opts(env, &po);
    TRY(timed_kernel(env, k, s, &pk));
    struct pair_result *pr = xmalloc(sizeof *pr);
    int rc = pair_run(env->g, &po, 2.0 * o->m * o->n * o->k, &pk, NULL, pr);
    if (rc == 0)
        subject_set_timing(env, s, &pr->cand, &pr->w, pr->cand_iters);
    free(pr);
    TRY(rc);
    return verify_after(env, k, s);
}

void subject_take_failure(struct subject *s)
{
    s->status = runner_failed() ? runner_fail_status() : RS_INTERNAL_ERROR;
    snprintf(s->error, sizeof s->error, "%s", runner_failed() ? runner_fail_message() : "unknown failure");
    runner_fail_clear();
}

/* 0, or -1 with the failure moved into s. */
static int settle(int rc, struct subject *s)
{
    if (rc == 0)
        return 0;
    subject_take_failure(s);
    return -1;
}

int subject_measure(const struct bench_env *env, const struct subject_kernel *k, struct subject *s)
{
    s->status = RS_OK;
    s->error[0] = '\0';
    return settle(measure_steps(env, k, s), s);
}

int subject_verify(const struct bench_env *env, const struct subject_kernel *k, struct subject *s)
{
    return settle(verify_first(env, k, s), s);
}

int subject_timed_kernel(const struct bench_env *env, const struct subject_kernel *k, struct subject *s,
                         struct pair_kernel *pk)
{
    return settle(timed_kernel(env, k, s, pk), s);
}

int subject_verify_after(const struct bench_env *env, const struct subject_kernel *k, struct subject *s)
{
    return settle(verify_after(env, k, s), s);
}

void subject_not_timed(struct subject *s, enum runner_status st, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(s->error, sizeof s->error, "not timed: ");
    va_start(ap, fmt);
    vsnprintf(s->error + n, sizeof s->error - (size_t)n, fmt, ap);
    va_end(ap);
    s->status = st;
}

int subjects_time_rounds(const struct bench_env *env, const struct subject_kernel *k, struct subject *s,
                         const int *idx, const struct pair_kernel *pk, int n, int rounds, enum round_order order,
                         struct ladder_timing *lt)
{
    struct pair_opts po;
    const struct operands *o = env->o;
    subject_pair_opts(env, &po);
    if (rounds_time(env->g, &po, 2.0 * o->m * o->n * o->k, pk, n, rounds, order, lt) == 0) {
        for (int j = 0; j < n; j++)
            subject_set_timing(env, &s[idx[j]], &lt->t[j], &lt->w, lt->iters[j]);
        for (int j = 0; j < n; j++)
            subject_verify_after(env, &k[idx[j]], &s[idx[j]]);
        return 0;
    }
    enum runner_status st = runner_fail_status();
    const char *msg = runner_fail_message();
    for (int j = 0; j < n; j++) {
        struct subject *x = &s[idx[j]];
        if (j == lt->failed) {
            x->status = st;
            snprintf(x->error, sizeof x->error, "%s", msg);
        } else if (lt->failed >= 0) {
            subject_not_timed(x, st, "the trial of %s failed (%s)", s[idx[lt->failed]].name, msg);
        } else {
            subject_not_timed(x, st, "the shared warm-up failed (%s)", msg);
        }
    }
    runner_fail_clear();
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
