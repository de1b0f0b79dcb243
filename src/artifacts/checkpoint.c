/* src/artifacts/checkpoint.c — checkpoints/<key>.json: the engine's own record of where a
 * shape stands, including the evidence behind every guard (health check, profile,
 * measurement files and their hashes). Written atomically; read back strictly — a
 * checkpoint that does not parse or does not describe its key is refused and left as
 * it is.
 */
#include "artifacts/checkpoint.h"
#include "artifacts/paths.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomicio.h"
#include "util/jsonget.h"
#include "util/log.h"
#include "util/regfile.h"

void checkpoint_init(struct checkpoint *c)
{
    memset(c, 0, sizeof *c);
    c->phase = PH_INIT;
    c->iteration = -1;
    c->baseline_tflops = NAN;
    c->profile.category = BN_UNKNOWN;
    c->decide_rules = DECIDE_RULES; /* a new shape; a loaded one says its own */
    c->ladder.winner = -1;
    snprintf(c->strategy, sizeof c->strategy, "%s", CHECKPOINT_STRATEGY_DEFAULT);
}

void checkpoint_release(struct checkpoint *c)
{
    free(c->other_bests);
    c->other_bests = NULL;
    c->n_other_bests = 0;
    free(c->prior);
    c->prior = NULL;
    c->n_prior = 0;
}

/* ---- writing ---- */

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *perf_json(json_t *o, const struct perf_numbers *p)
{
    json_object_set_new(o, "tflops", num(p->tflops));
    json_object_set_new(o, "median_ms", num(p->median_ms));
    json_object_set_new(o, "spread_pct", num(p->spread_pct));
    json_object_set_new(o, "sm_clock_mhz", num(p->sm_clock_mhz));
    if (isfinite(p->ratio)) { /* paired (rules 3) only: older checkpoints have none */
        json_object_set_new(o, "ratio", num(p->ratio));
        json_object_set_new(o, "ratio_lo", num(p->ratio_lo));
        json_object_set_new(o, "ratio_hi", num(p->ratio_hi));
    }
    return o;
}

static json_t *measure_json(const struct measure_rec *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "status", json_string(cand_status_name(m->status)));
    json_object_set_new(o, "reason", json_string(m->reason));
    perf_json(o, &m->p);
    json_object_set_new(o, "hw_eff_pct", num(m->hw_eff_pct));
    json_object_set_new(o, "max_err_over_tol", num(m->max_err_over_tol));
    json_object_set_new(o, "raw", json_string(m->raw_rel));
    json_object_set_new(o, "raw_fnv1a64", json_string(m->raw_hash));
    json_object_set_new(o, "command", json_string(m->command));
    json_object_set_new(o, "health", json_string(m->health));
    return o;
}

static json_t *best_json(const struct best_rec *b)
{
    json_t *o = json_object();
    json_object_set_new(o, "iter", json_integer(b->iter));
    json_object_set_new(o, "config", json_string(b->config));
    json_object_set_new(o, "kernel", json_string(b->kernel));
    json_object_set_new(o, "source_hash", json_string(b->source_hash));
    return perf_json(o, &b->p);
}

/* Every number of struct profile_metrics, by name: the proposer reads them back. */
#define METRIC(f) {#f, offsetof(struct profile_metrics, f)}
static const struct {
    const char *name;
    size_t off;
} metric_fields[] = {
    METRIC(sm_throughput_pct), METRIC(tensor_pipe_pct), METRIC(dram_throughput_pct),
    METRIC(l2_throughput_pct), METRIC(smem_throughput_pct), METRIC(achieved_occupancy_pct),
    METRIC(theoretical_occupancy_pct), METRIC(stall_long_scoreboard_pct), METRIC(stall_barrier_pct),
    METRIC(stall_no_instruction_pct), METRIC(duration_us), METRIC(memory_throughput_pct),
    METRIC(l1tex_throughput_pct), METRIC(stall_wait_pct), METRIC(stall_math_pipe_throttle_pct),
    METRIC(stall_mio_throttle_pct), METRIC(stall_short_scoreboard_pct), METRIC(stall_sleeping_pct),
    METRIC(occ_limit_registers), METRIC(occ_limit_shared_mem), METRIC(occ_limit_warps),
    METRIC(occ_limit_blocks), METRIC(registers_per_thread), METRIC(top_stall_pct),
    METRIC(waves_per_sm),
};
#define METRIC_AT(m, i) ((double *)((char *)(m) + metric_fields[i].off))

static json_t *metrics_json(const struct profile_metrics *m)
{
    json_t *o = json_object();
    for (size_t i = 0; i < sizeof metric_fields / sizeof *metric_fields; i++)
        json_object_set_new(o, metric_fields[i].name, num(*METRIC_AT(m, i)));
    json_object_set_new(o, "top_stall", json_string(m->top_stall));
    return o;
}

static json_t *profile_json(const struct profile_evidence *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "done", json_boolean(p->done));
    json_object_set_new(o, "config", json_string(p->config));
    json_object_set_new(o, "ok", json_boolean(p->ok));
    json_object_set_new(o, "reason", json_string(p->reason));
    json_object_set_new(o, "category", json_string(p->category == BN_UNKNOWN ? "unknown" : bottleneck_name(p->category)));
    json_object_set_new(o, "justification", json_string(p->justification));
    json_object_set_new(o, "metrics", metrics_json(&p->m));
    json_object_set_new(o, "raw", json_string(p->raw_rel));
    json_object_set_new(o, "raw_fnv1a64", json_string(p->raw_hash));
    return o;
}

static json_t *pending_json(const struct pending *p)
{
    if (!p->active)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "iter", json_integer(p->iter));
    json_object_set_new(o, "agent", json_boolean(p->agent));
    json_object_set_new(o, "idea", json_string(p->idea));
    json_object_set_new(o, "justification", json_string(p->justification));
    json_object_set_new(o, "category", json_string(p->category));
    json_object_set_new(o, "bottleneck", json_string(p->bottleneck));
    json_object_set_new(o, "config", json_string(p->config));
    json_object_set_new(o, "source", json_string(p->src_rel));
    json_object_set_new(o, "source_hash", json_string(p->src_hash));
    json_object_set_new(o, "measured", json_boolean(p->measured));
    if (p->measured) {
        json_object_set_new(o, "candidate", measure_json(&p->cand));
        json_object_set_new(o, "decision", json_string(decision_name(p->decision)));
        json_object_set_new(o, "note", json_string(p->note));
    }
    if (p->remeasured)
        json_object_set_new(o, "candidate_first", measure_json(&p->cand_first));
    if (p->best_remeasured)
        json_object_set_new(o, "best_remeasured", measure_json(&p->best_re));
    if (p->confirm_checked)
        json_object_set_new(o, "candidate_confirm", measure_json(&p->confirm));
    if (p->fresh_checked)
        json_object_set_new(o, "candidate_fresh", measure_json(&p->fresh));
    if (p->in_flight) /* only while a measurement is out: other checkpoints stay as they were */
        json_object_set_new(o, "in_flight", json_integer(p->in_flight));
    return o;
}

static json_t *ladder_json(const struct ladder_rec *l)
{
    json_t *o = json_object(), *es = json_array();
    json_object_set_new(o, "ok", json_boolean(l->ok));
    json_object_set_new(o, "rounds", json_integer(l->rounds));
    json_object_set_new(o, "steady", json_boolean(l->steady));
    json_object_set_new(o, "winner", json_integer(l->winner));
    json_object_set_new(o, "raw", json_string(l->raw_rel));
    json_object_set_new(o, "raw_fnv1a64", json_string(l->raw_hash));
    json_object_set_new(o, "note", json_string(l->note));
    for (int i = 0; i < l->n; i++) {
        const struct ladder_rec_entry *e = &l->e[i];
        json_t *x = json_object();
        json_object_set_new(x, "iter", json_integer(e->iter));
        json_object_set_new(x, "config", json_string(e->config));
        json_object_set_new(x, "kernel", json_string(e->kernel));
        json_object_set_new(x, "source_hash", json_string(e->source_hash));
        json_object_set_new(x, "median_ms", num(e->median_ms));
        json_object_set_new(x, "tflops", num(e->tflops));
        json_object_set_new(x, "spread_pct", num(e->spread_pct));
        json_object_set_new(x, "sm_clock_mhz", num(e->sm_clock_mhz));
        json_object_set_new(x, "rel", num(e->rel));
        json_array_append_new(es, x);
    }
    json_object_set_new(o, "entries", es);
    return o;
}

void checkpoint_identity_put(json_t *o, const struct checkpoint *c)
{
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", c->seed);
    json_object_set_new(o, "dtype", json_string(croq_dtype_name(c->sk.dtype)));
    json_object_set_new(o, "m", json_integer(c->sk.shape.m));
    json_object_set_new(o, "n", json_integer(c->sk.shape.n));
    json_object_set_new(o, "k", json_integer(c->sk.shape.k));
    json_object_set_new(o, "mode", json_string(mode_name(c->sk.mode)));
    json_object_set_new(o, "backend", json_string(c->backend));
    json_object_set_new(o, "seed", json_string(seed));
}

json_t *checkpoint_to_json(const struct checkpoint *c)
{
    json_t *o = json_object(), *ob = json_array();
    json_object_set_new(o, "schema", json_integer(ENGINE_SCHEMA));
    json_object_set_new(o, "key", json_string(c->key));
    checkpoint_identity_put(o, c);
    json_object_set_new(o, "budget", json_integer(c->budget));
    json_object_set_new(o, "agent", json_boolean(c->agent));
    json_object_set_new(o, "phase", json_string(phase_name(c->phase)));
    json_object_set_new(o, "iteration", json_integer(c->iteration));
    json_object_set_new(o, "attempts", json_integer((json_int_t)c->n_attempts));
    json_object_set_new(o, "compile_failures", json_integer(c->compile_failures));
    json_object_set_new(o, "seed_config", json_string(c->seed_config));
    json_object_set_new(o, "seed_from", json_string(c->seed_from));
    for (size_t i = 0; i < c->n_other_bests; i++)
        json_array_append_new(ob, json_string(c->other_bests[i]));
    json_object_set_new(o, "other_bests", ob);
    json_t *pr = json_array();
    for (size_t i = 0; i < c->n_prior; i++)
        json_array_append_new(pr, json_pack("{s:s, s:i}", "key", c->prior[i].key, "rows", c->prior[i].rows));
    json_object_set_new(o, "prior", pr);
    json_object_set_new(o, "best", c->have_best ? best_json(&c->best) : json_null());
    json_object_set_new(o, "baseline_tflops", num(c->baseline_tflops));
    json_object_set_new(o, "health_checked", json_boolean(c->health_checked));
    json_object_set_new(o, "health", json_string(c->health));
    json_object_set_new(o, "profile", profile_json(&c->profile));
    json_object_set_new(o, "pending", pending_json(&c->pending));
    json_object_set_new(o, "stop_reason", json_string(c->stop_reason));
    json_object_set_new(o, "decide_rules", json_integer(c->decide_rules));
    if (c->gpu[0]) /* only a backend that names its GPU (gpu), so sim checkpoints stay as they were */
        json_object_set_new(o, "gpu", json_string(c->gpu));
    if (strcmp(c->strategy, CHECKPOINT_STRATEGY_DEFAULT)) /* the default's checkpoints stay as they were */
        json_object_set_new(o, "strategy", json_string(c->strategy));
    if (c->dataset_hash[0]) /* replay only: the checkpoints of other backends stay as they were */
        json_object_set_new(o, "dataset", json_pack("{s:s, s:s}", "path", c->dataset, "hash", c->dataset_hash));
    if (c->cold_l2) /* warm is the default: checkpoints of warm shapes stay as they were */
        json_object_set_new(o, "l2", json_string("cold"));
    if (c->ladder.done)
        json_object_set_new(o, "ladder", ladder_json(&c->ladder));
    return o;
}

/* ---- reading: util/jsonget.h records the first problem ("member 'pending.iter' is
 * missing"), so a loader reads as a list of fields and checks r->failed once. ---- */

static void read_perf(struct jget *r, json_t *o, const char *w, struct perf_numbers *p)
{
    jget_finite_or_null(r, o, w, "tflops", &p->tflops);
    jget_finite_or_null(r, o, w, "median_ms", &p->median_ms);
    jget_finite_or_null(r, o, w, "spread_pct", &p->spread_pct);
    jget_finite_or_null(r, o, w, "sm_clock_mhz", &p->sm_clock_mhz);
    p->ratio = p->ratio_lo = p->ratio_hi = NAN;
    if (json_object_get(o, "ratio")) { /* rules 3 only */
        jget_finite_or_null(r, o, w, "ratio", &p->ratio);
        jget_finite_or_null(r, o, w, "ratio_lo", &p->ratio_lo);
        jget_finite_or_null(r, o, w, "ratio_hi", &p->ratio_hi);
    }
}

static void read_measure(struct jget *r, json_t *o, const char *w, struct measure_rec *m)
{
    char st[32] = "";
    if (!o)
        return;
    jget_str(r, o, w, "status", true, st, sizeof st);
    if (!r->failed && cand_status_parse(st) < 0)
        jget_fail(r, w, "status", "is not a candidate status");
    m->status = (enum cand_status)cand_status_parse(st);
    jget_str(r, o, w, "reason", true, m->reason, sizeof m->reason);
    read_perf(r, o, w, &m->p);
    jget_finite_or_null(r, o, w, "hw_eff_pct", &m->hw_eff_pct);
    jget_finite_or_null(r, o, w, "max_err_over_tol", &m->max_err_over_tol);
    jget_str(r, o, w, "raw", true, m->raw_rel, sizeof m->raw_rel);
    jget_str(r, o, w, "raw_fnv1a64", true, m->raw_hash, sizeof m->raw_hash);
    jget_str(r, o, w, "command", true, m->command, sizeof m->command);
    jget_str(r, o, w, "health", true, m->health, sizeof m->health);
}

static void read_profile(struct jget *r, json_t *o, struct profile_evidence *p)
{
    const char *w = "profile";
    char cat[32] = "";
    if (!o)
        return;
    jget_bool(r, o, w, "done", true, &p->done);
    jget_str(r, o, w, "config", true, p->config, sizeof p->config);
    jget_bool(r, o, w, "ok", true, &p->ok);
    jget_str(r, o, w, "reason", true, p->reason, sizeof p->reason);
    jget_str(r, o, w, "category", true, cat, sizeof cat);
    p->category = strcmp(cat, "unknown") ? bottleneck_parse(cat) : BN_UNKNOWN;
    if (!r->failed && strcmp(cat, "unknown") && p->category == BN_UNKNOWN)
        jget_fail(r, w, "category", "is not a bottleneck category");
    jget_str(r, o, w, "justification", true, p->justification, sizeof p->justification);
    json_t *m = jget_obj(r, o, w, "metrics", true);
    profile_metrics_init(&p->m);
    if (m) {
        /* A metric absent is one the croqtuner that wrote the checkpoint did not parse yet
         * (waves_per_sm came later): not reported, NaN. Present, it must be a number. */
        for (size_t i = 0; i < sizeof metric_fields / sizeof *metric_fields; i++)
            if (json_object_get(m, metric_fields[i].name))
                jget_finite_or_null(r, m, "profile.metrics", metric_fields[i].name, METRIC_AT(&p->m, i));
        jget_str(r, m, "profile.metrics", "top_stall", true, p->m.top_stall, sizeof p->m.top_stall);
    }
    jget_str(r, o, w, "raw", true, p->raw_rel, sizeof p->raw_rel);
    jget_str(r, o, w, "raw_fnv1a64", true, p->raw_hash, sizeof p->raw_hash);
}

/* An object member that may be absent (not null): NULL when absent. */
static json_t *obj_if_present(struct jget *r, json_t *o, const char *w, const char *key)
{
    return json_object_get(o, key) ? jget_obj(r, o, w, key, true) : NULL;
}

static void read_pending(struct jget *r, json_t *o, struct pending *p)
{
    const char *w = "pending";
    long long it = 0;
    char dec[32] = "";
    memset(p, 0, sizeof *p);
    if (!o)
        return;
    p->active = true;
    jget_int_in(r, o, w, "iter", true, 0, CHECKPOINT_ITER_MAX, &it);
    p->iter = (int)it;
    jget_bool(r, o, w, "agent", true, &p->agent);
    jget_str(r, o, w, "idea", true, p->idea, sizeof p->idea);
    jget_str(r, o, w, "justification", true, p->justification, sizeof p->justification);
    jget_str(r, o, w, "category", true, p->category, sizeof p->category);
    jget_str(r, o, w, "bottleneck", true, p->bottleneck, sizeof p->bottleneck);
    jget_str(r, o, w, "config", true, p->config, sizeof p->config);
    jget_str(r, o, w, "source", true, p->src_rel, sizeof p->src_rel);
    jget_str(r, o, w, "source_hash", true, p->src_hash, sizeof p->src_hash);
    jget_bool(r, o, w, "measured", true, &p->measured);
    if (p->measured) {
        read_measure(r, jget_obj(r, o, w, "candidate", true), "pending.candidate", &p->cand);
        jget_str(r, o, w, "decision", true, dec, sizeof dec);
        if (!r->failed && decision_parse(dec) < 0)
            jget_fail(r, w, "decision", "is not a decision");
        p->decision = (enum decision)decision_parse(dec);
        jget_str(r, o, w, "note", true, p->note, sizeof p->note);
    }
    /* present only when the sanity rule fired */
    json_t *f = obj_if_present(r, o, w, "candidate_first");
    json_t *b = obj_if_present(r, o, w, "best_remeasured");
    p->remeasured = f != NULL;
    p->best_remeasured = b != NULL;
    read_measure(r, f, "pending.candidate_first", &p->cand_first);
    read_measure(r, b, "pending.best_remeasured", &p->best_re);
    /* present only when the screen's KEEP was paired again (rules 4) */
    json_t *cf = obj_if_present(r, o, w, "candidate_confirm");
    p->confirm_checked = cf != NULL;
    read_measure(r, cf, "pending.candidate_confirm", &p->confirm);
    /* present only when a KEEP was verified on a new operand set (rules 3) */
    json_t *fr = obj_if_present(r, o, w, "candidate_fresh");
    p->fresh_checked = fr != NULL;
    read_measure(r, fr, "pending.candidate_fresh", &p->fresh);
    if (json_object_get(o, "in_flight")) {
        long long n = 0;
        jget_int_in(r, o, w, "in_flight", true, 0, 1000, &n);
        p->in_flight = (int)n;
    }
}

static void read_best(struct jget *r, json_t *o, struct checkpoint *c)
{
    long long it = 0;
    c->have_best = o != NULL;
    if (!o)
        return;
    jget_int_in(r, o, "best", "iter", true, 0, CHECKPOINT_ITER_MAX, &it);
    c->best.iter = (int)it;
    jget_str(r, o, "best", "config", true, c->best.config, sizeof c->best.config);
    jget_str(r, o, "best", "kernel", true, c->best.kernel, sizeof c->best.kernel);
    jget_str(r, o, "best", "source_hash", true, c->best.source_hash, sizeof c->best.source_hash);
    read_perf(r, o, "best", &c->best.p);
    if (!r->failed && !(c->best.p.tflops > 0)) /* a best was measured: NaN (null) or <= 0 is an edit */
        jget_fail(r, "best", "tflops", "is not a positive number");
}

static void read_ladder(struct jget *r, json_t *o, int iteration, struct ladder_rec *l)
{
    const char *w = "ladder";
    long long x = 0;
    memset(l, 0, sizeof *l);
    l->winner = -1;
    if (!o)
        return;
    l->done = true;
    jget_bool(r, o, w, "ok", true, &l->ok);
    jget_int_in(r, o, w, "rounds", true, 0, LADDER_MAX_ROUNDS, &x);
    l->rounds = (int)x;
    jget_bool(r, o, w, "steady", true, &l->steady);
    jget_str(r, o, w, "raw", true, l->raw_rel, sizeof l->raw_rel);
    jget_str(r, o, w, "raw_fnv1a64", true, l->raw_hash, sizeof l->raw_hash);
    jget_str(r, o, w, "note", true, l->note, sizeof l->note);
    json_t *es = jget_array(r, o, w, "entries", true), *v;
    size_t i;
    if (r->failed)
        return;
    if (json_array_size(es) > LADDER_MAX)
        { jget_fail(r, w, "entries", "holds more than LADDER_MAX entries"); return; }
    json_array_foreach(es, i, v) {
        struct ladder_rec_entry *e = &l->e[i];
        const char *we = "ladder.entries[]";
        if (!json_is_object(v))
            { jget_fail(r, w, "entries", "holds something that is not an object"); return; }
        jget_int_in(r, v, we, "iter", true, 0, iteration < 0 ? 0 : iteration, &x);
        e->iter = (int)x;
        jget_str(r, v, we, "config", true, e->config, sizeof e->config);
        jget_str(r, v, we, "kernel", true, e->kernel, sizeof e->kernel);
        jget_str(r, v, we, "source_hash", true, e->source_hash, sizeof e->source_hash);
        jget_finite_or_null(r, v, we, "median_ms", &e->median_ms);
        jget_finite_or_null(r, v, we, "tflops", &e->tflops);
        jget_finite_or_null(r, v, we, "spread_pct", &e->spread_pct);
        jget_finite_or_null(r, v, we, "sm_clock_mhz", &e->sm_clock_mhz);
        jget_finite_or_null(r, v, we, "rel", &e->rel);
        if (!r->failed && l->ok && !(e->tflops > 0 && e->median_ms > 0))
            jget_fail(r, we, "tflops", "is not a positive number in a ladder that timed its entries");
        if (r->failed)
            return;
        l->n = (int)i + 1;
    }
    jget_int_in(r, o, w, "winner", true, -1, l->n - 1, &x);
    l->winner = (int)x;
    if (!r->failed && l->ok != (l->winner >= 0))
        jget_fail(r, w, "winner", "disagrees with 'ok'");
}

static void read_other_bests(struct jget *r, json_t *o, struct checkpoint *c)
{
    json_t *a = jget_array(r, o, "", "other_bests", true), *v;
    size_t i;
    if (!a)
        return;
    c->other_bests = xmalloc((json_array_size(a) + 1) * sizeof *c->other_bests);
    json_array_foreach(a, i, v) {
        if (!json_is_string(v) || json_string_length(v) >= CROQ_SIG_MAX)
            { jget_fail(r, "", "other_bests", "holds something that is not a signature"); return; }
        memcpy(c->other_bests[i], json_string_value(v), json_string_length(v) + 1);
        c->n_other_bests = i + 1;
    }
}

/* Optional (absent in checkpoints written before the cost model read other shapes: then
 * none, as those runs had). */
static void read_prior(struct jget *r, json_t *o, struct checkpoint *c)
{
    json_t *a = jget_array(r, o, "", "prior", false), *v;
    size_t i;
    if (!a)
        return;
    c->prior = xmalloc((json_array_size(a) + 1) * sizeof *c->prior);
    json_array_foreach(a, i, v) {
        long long rows = 0;
        struct shape_key sk;
        char err[128];
        if (!json_is_object(v))
            { jget_fail(r, "", "prior", "holds something that is not an object"); return; }
        jget_str(r, v, "prior[]", "key", true, c->prior[i].key, sizeof c->prior[i].key);
        jget_int_in(r, v, "prior[]", "rows", true, 0, 10000000, &rows);
        if (!r->failed && key_parse(c->prior[i].key, &sk, err, sizeof err))
            jget_fail(r, "prior[]", "key", "is not a shape key");
        if (r->failed)
            return;
        c->prior[i].rows = (int)rows;
        c->n_prior = i + 1;
    }
}

/* The identity fields must describe one valid key, the one asked for. */
static void read_identity(struct jget *r, json_t *j, struct checkpoint *c)
{
    char dt[8] = "", mode[24] = "", seed[24] = "", k2[KEY_MAX];
    long long m = 0, n = 0, k = 0;
    jget_str(r, j, "", "key", true, c->key, sizeof c->key);
    jget_str(r, j, "", "dtype", true, dt, sizeof dt);
    jget_int_in(r, j, "", "m", true, 1, 1 << 20, &m);
    jget_int_in(r, j, "", "n", true, 1, 1 << 20, &n);
    jget_int_in(r, j, "", "k", true, 1, 1 << 20, &k);
    jget_str(r, j, "", "mode", true, mode, sizeof mode);
    jget_str(r, j, "", "backend", true, c->backend, sizeof c->backend);
    jget_str(r, j, "", "seed", true, seed, sizeof seed);
    if (r->failed)
        return;
    c->sk.dtype = croq_dtype_parse(dt);
    c->sk.mode = (enum tune_mode)mode_parse(mode);
    c->sk.shape = (struct croq_shape){m, n, k};
    if (c->sk.dtype < 0 || mode_parse(mode) < 0)
        { jget_fail(r, "", "dtype", "or 'mode' is not known"); return; }
    key_format(&c->sk, k2);
    if (strcmp(k2, c->key))
        { jget_fail(r, "", "key", "does not match its dtype, shape and mode"); return; }
    if (!backend_name_known(c->backend))
        { jget_fail(r, "", "backend", "is not sim, gpu or replay"); return; }
    if (!checkpoint_seed_parse(seed, &c->seed))
        { jget_fail(r, "", "seed", "is not a number"); return; }
}

bool checkpoint_seed_parse(const char *text, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] < '0' || text[0] > '9') /* strtoull takes "-1" and " 1" */
        return false;
    *out = v;
    return true;
}

int checkpoint_from_json(json_t *j, struct checkpoint *c, char *err, size_t errlen)
{
    struct jget g, *r = &g;
    long long schema = 0, budget = 0, iter = 0, att = 0, cf = 0;
    char phase[24] = "";
    checkpoint_init(c);
    if (!json_is_object(j)) {
        snprintf(err, errlen, "not a JSON object");
        return -1;
    }
    jget_init(r, "member ", err, errlen);
    jget_int_in(r, j, "", "schema", true, 0, 1000, &schema);
    if (!r->failed && schema != ENGINE_SCHEMA) {
        snprintf(err, errlen, "schema %lld, this croqtuner reads schema %d", schema, ENGINE_SCHEMA);
        return -1;
    }
    read_identity(r, j, c);
    jget_int_in(r, j, "", "budget", true, 1, CHECKPOINT_ITER_MAX, &budget);
    jget_bool(r, j, "", "agent", true, &c->agent);
    jget_str(r, j, "", "phase", true, phase, sizeof phase);
    if (!r->failed && phase_parse(phase) < 0)
        jget_fail(r, "", "phase", "is not a phase");
    jget_int_in(r, j, "", "iteration", true, -1, CHECKPOINT_ITER_MAX, &iter);
    jget_int_in(r, j, "", "attempts", true, 0, 10000000, &att);
    jget_int_in(r, j, "", "compile_failures", true, 0, 10000000, &cf);
    jget_str(r, j, "", "seed_config", true, c->seed_config, sizeof c->seed_config);
    jget_str(r, j, "", "seed_from", true, c->seed_from, sizeof c->seed_from);
    read_other_bests(r, j, c);
    read_prior(r, j, c);
    read_best(r, jget_obj_or_null(r, j, "", "best"), c);
    jget_finite_or_null(r, j, "", "baseline_tflops", &c->baseline_tflops);
    jget_bool(r, j, "", "health_checked", true, &c->health_checked);
    jget_str(r, j, "", "health", true, c->health, sizeof c->health);
    read_profile(r, jget_obj(r, j, "", "profile", true), &c->profile);
    read_pending(r, jget_obj_or_null(r, j, "", "pending"), &c->pending);
    jget_str(r, j, "", "stop_reason", true, c->stop_reason, sizeof c->stop_reason);
    long long rules = 1; /* absent: written before the rules were versioned */
    if (json_object_get(j, "decide_rules"))
        jget_int_in(r, j, "", "decide_rules", true, 1, DECIDE_RULES, &rules);
    if (json_object_get(j, "gpu")) /* absent: written before it was recorded, or sim */
        jget_str(r, j, "", "gpu", true, c->gpu, sizeof c->gpu);
    if (json_object_get(j, "l2")) { /* absent: warm (the default, and every shape before --l2) */
        char l2[8] = "";
        jget_str(r, j, "", "l2", true, l2, sizeof l2);
        if (!r->failed && strcmp(l2, "cold") && strcmp(l2, "warm"))
            jget_fail(r, "", "l2", "is not \"warm\" or \"cold\"");
        c->cold_l2 = !strcmp(l2, "cold");
    }
    if (json_object_get(j, "strategy")) { /* absent: the default (every shape before strategies) */
        jget_str(r, j, "", "strategy", true, c->strategy, sizeof c->strategy);
        if (!r->failed && !strategy_name_ok(c->strategy))
            jget_fail(r, "", "strategy", "is not a strategy name (" STRATEGY_NAME_RULE ")");
    }
    json_t *ds = obj_if_present(r, j, "", "dataset"); /* absent: not replay, or before it was recorded */
    if (ds) {
        jget_str(r, ds, "dataset", "path", true, c->dataset, sizeof c->dataset);
        jget_str(r, ds, "dataset", "hash", true, c->dataset_hash, sizeof c->dataset_hash);
        if (!r->failed && (strlen(c->dataset_hash) != BACKEND_HASH_MAX - 1 ||
                           strspn(c->dataset_hash, "0123456789abcdef") != BACKEND_HASH_MAX - 1))
            jget_fail(r, "dataset", "hash", "is not 16 lowercase hex digits");
        if (!r->failed && strcmp(c->backend, "replay"))
            jget_fail(r, "", "dataset", "is only a replay shape's");
    }
    read_ladder(r, obj_if_present(r, j, "", "ladder"), (int)iter, &c->ladder);
    if (r->failed) {
        checkpoint_release(c);
        return -1;
    }
    c->budget = (int)budget;
    c->phase = (enum engine_phase)phase_parse(phase);
    c->iteration = (int)iter;
    c->n_attempts = (size_t)att;
    c->compile_failures = (int)cf;
    c->decide_rules = (int)rules;
    return 0;
}

int checkpoint_save(const char *dir, const struct checkpoint *c, char *err, size_t errlen)
{
    char path[ENGINE_PATH_MAX];
    if (path_fmt(path, "%s/checkpoints/%s.json", dir, c->key)) {
        snprintf(err, errlen, "path of the checkpoint of '%s' is too long", c->key);
        return -1;
    }
    json_t *j = checkpoint_to_json(c);
    /* never write what checkpoint_load would refuse (a best whose TFLOPS are not positive,
     * a number out of range): the shape stops here with the reason, its last checkpoint
     * intact, instead of leaving one that no resume can read */
    struct checkpoint back;
    char why[512];
    if (checkpoint_from_json(j, &back, why, sizeof why)) {
        json_decref(j);
        snprintf(err, errlen, "the checkpoint of '%s' is not written (its reader would refuse it): %s", c->key, why);
        return -1;
    }
    checkpoint_release(&back);
    char *s = json_dumps(j, JSON_INDENT(1));
    json_decref(j);
    int rc = s ? atomic_write_str(path, s) : -1;
    if (rc)
        snprintf(err, errlen, "cannot write '%s': %s", path, s ? strerror(errno) : "out of memory");
    free(s);
    return rc;
}

int checkpoint_load(const char *dir, const char *key, struct checkpoint *c, char *err, size_t errlen)
{
    char path[ENGINE_PATH_MAX], why[512];
    checkpoint_init(c);
    if (path_fmt(path, "%s/checkpoints/%s.json", dir, key)) {
        snprintf(err, errlen, "path of the checkpoint of '%s' is too long", key);
        return -1;
    }
    json_t *j = regfile_load_json(path, JSON_REJECT_DUPLICATES, why, sizeof why);
    if (!j && errno == ENOENT)
        return 1;
    if (!j) {
        snprintf(err, errlen, "%s; the file is left as it is", why);
        return -1;
    }
    int rc = checkpoint_from_json(j, c, why, sizeof why);
    json_decref(j);
    if (!rc && strcmp(c->key, key)) {
        snprintf(why, sizeof why, "it describes '%s'", c->key);
        checkpoint_release(c);
        rc = -1;
    }
    if (rc)
        snprintf(err, errlen, "cannot read '%s': %s; the file is left as it is", path, why);
    return rc;
}

int checkpoint_decide_rules(const char *dir, const char *key, long long *rules, char *err, size_t errlen)
{
    char path[ENGINE_PATH_MAX];
    if (path_fmt(path, "%s/checkpoints/%s.json", dir, key) || (access(path, F_OK) && errno == ENOENT))
        return 1;
    json_t *c = regfile_load_json(path, 0, err, errlen), *v = json_object_get(c, "decide_rules");
    if (!c)
        return -1;
    *rules = v ? (json_is_integer(v) ? json_integer_value(v) : -1) : 1;
    json_decref(c);
    return 0;
}

static int cmp_key(const void *a, const void *b) { return strcmp(a, b); }

size_t checkpoint_orphans(const char *dir, json_t *state, char (**keys)[KEY_MAX])
{
    json_t *shapes = json_object_get(state, "shapes");
    char path[ENGINE_PATH_MAX], err[128];
    size_t n = 0;
    *keys = NULL;
    DIR *d = path_fmt(path, "%s/checkpoints", dir) ? NULL : opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        struct shape_key sk;
        char key[KEY_MAX];
        if (len <= 5 || len - 5 >= KEY_MAX || strcmp(e->d_name + len - 5, ".json"))
            continue;
        snprintf(key, sizeof key, "%.*s", (int)(len - 5), e->d_name);
        if (key_parse(key, &sk, err, sizeof err) || json_object_get(shapes, key))
            continue;
        *keys = xrealloc(*keys, (n + 1) * sizeof **keys);
        memcpy((*keys)[n++], key, KEY_MAX);
    }
    if (d)
        closedir(d);
    if (n)
        qsort(*keys, n, sizeof **keys, cmp_key);
    return n;
}
