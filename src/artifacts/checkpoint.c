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

#include "util/atomicio.h"
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
}

void checkpoint_release(struct checkpoint *c)
{
    free(c->other_bests);
    c->other_bests = NULL;
    c->n_other_bests = 0;
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
    if (p->fresh_checked)
        json_object_set_new(o, "candidate_fresh", measure_json(&p->fresh));
    if (p->in_flight) /* only while a measurement is out: other checkpoints stay as they were */
        json_object_set_new(o, "in_flight", json_integer(p->in_flight));
    return o;
}

json_t *checkpoint_to_json(const struct checkpoint *c)
{
    char seed[24];
    json_t *o = json_object(), *ob = json_array();
    snprintf(seed, sizeof seed, "%llu", c->seed);
    json_object_set_new(o, "schema", json_integer(ENGINE_SCHEMA));
    json_object_set_new(o, "key", json_string(c->key));
    json_object_set_new(o, "dtype", json_string(croq_dtype_name(c->sk.dtype)));
    json_object_set_new(o, "m", json_integer(c->sk.shape.m));
    json_object_set_new(o, "n", json_integer(c->sk.shape.n));
    json_object_set_new(o, "k", json_integer(c->sk.shape.k));
    json_object_set_new(o, "mode", json_string(mode_name(c->sk.mode)));
    json_object_set_new(o, "backend", json_string(c->backend));
    json_object_set_new(o, "seed", json_string(seed));
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
    return o;
}

/* ---- reading: every getter records the first problem and turns the rest into no-ops,
 * so a loader reads as a list of fields. ---- */

struct rd {
    char *err;
    size_t errlen;
    bool failed;
    const char *where; /* "pending.candidate" */
};

static void rd_fail(struct rd *r, const char *name, const char *what)
{
    if (r->failed)
        return;
    r->failed = true;
    snprintf(r->err, r->errlen, "member '%s%s%s' %s", r->where ? r->where : "", r->where ? "." : "", name, what);
}

static void get_str(struct rd *r, json_t *o, const char *name, char *out, size_t len)
{
    json_t *v = json_object_get(o, name);
    if (r->failed)
        return;
    if (!json_is_string(v))
        { rd_fail(r, name, "is missing or not a string"); return; }
    if (json_string_length(v) >= len)
        { rd_fail(r, name, "is too long"); return; }
    memcpy(out, json_string_value(v), json_string_length(v) + 1);
}

static void get_int(struct rd *r, json_t *o, const char *name, long long lo, long long hi, long long *out)
{
    json_t *v = json_object_get(o, name);
    if (r->failed)
        return;
    if (!json_is_integer(v))
        { rd_fail(r, name, "is missing or not an integer"); return; }
    if (json_integer_value(v) < lo || json_integer_value(v) > hi)
        { rd_fail(r, name, "is out of range"); return; }
    *out = json_integer_value(v);
}

static void get_bool(struct rd *r, json_t *o, const char *name, bool *out)
{
    json_t *v = json_object_get(o, name);
    if (r->failed)
        return;
    if (!json_is_boolean(v))
        { rd_fail(r, name, "is missing or not true/false"); return; }
    *out = json_is_true(v);
}

static void get_num(struct rd *r, json_t *o, const char *name, double *out)
{
    json_t *v = json_object_get(o, name);
    if (r->failed)
        return;
    if (json_is_null(v)) {
        *out = NAN;
        return;
    }
    if (!json_is_number(v))
        { rd_fail(r, name, "is missing or not a number"); return; }
    *out = json_number_value(v);
}

/* nullable: null allowed (NULL returned); optional: absence allowed too. */
static json_t *get_obj_opt(struct rd *r, json_t *o, const char *name, bool nullable, bool optional)
{
    json_t *v = json_object_get(o, name);
    if (r->failed)
        return NULL;
    if ((nullable && json_is_null(v)) || (optional && !v))
        return NULL;
    if (!json_is_object(v))
        rd_fail(r, name, "is missing or not an object");
    return json_is_object(v) ? v : NULL;
}

static json_t *get_obj(struct rd *r, json_t *o, const char *name, bool nullable)
{
    return get_obj_opt(r, o, name, nullable, false);
}

static void read_perf(struct rd *r, json_t *o, struct perf_numbers *p)
{
    get_num(r, o, "tflops", &p->tflops);
    get_num(r, o, "median_ms", &p->median_ms);
    get_num(r, o, "spread_pct", &p->spread_pct);
    get_num(r, o, "sm_clock_mhz", &p->sm_clock_mhz);
    p->ratio = p->ratio_lo = p->ratio_hi = NAN;
    if (json_object_get(o, "ratio")) {
        get_num(r, o, "ratio", &p->ratio);
        get_num(r, o, "ratio_lo", &p->ratio_lo);
        get_num(r, o, "ratio_hi", &p->ratio_hi);
    }
}

static void read_measure(struct rd *r, json_t *o, const char *where, struct measure_rec *m)
{
    char st[32] = "";
    const char *saved = r->where;
    if (!o)
        return;
    r->where = where;
    get_str(r, o, "status", st, sizeof st);
    if (!r->failed && cand_status_parse(st) < 0)
        rd_fail(r, "status", "is not a candidate status");
    m->status = (enum cand_status)cand_status_parse(st);
    get_str(r, o, "reason", m->reason, sizeof m->reason);
    read_perf(r, o, &m->p);
    get_num(r, o, "hw_eff_pct", &m->hw_eff_pct);
    get_num(r, o, "max_err_over_tol", &m->max_err_over_tol);
    get_str(r, o, "raw", m->raw_rel, sizeof m->raw_rel);
    get_str(r, o, "raw_fnv1a64", m->raw_hash, sizeof m->raw_hash);
    get_str(r, o, "command", m->command, sizeof m->command);
    get_str(r, o, "health", m->health, sizeof m->health);
    r->where = saved;
}

static void read_profile(struct rd *r, json_t *o, struct profile_evidence *p)
{
    char cat[32] = "";
    if (!o)
        return;
    r->where = "profile";
    get_bool(r, o, "done", &p->done);
    get_str(r, o, "config", p->config, sizeof p->config);
    get_bool(r, o, "ok", &p->ok);
    get_str(r, o, "reason", p->reason, sizeof p->reason);
    get_str(r, o, "category", cat, sizeof cat);
    p->category = strcmp(cat, "unknown") ? bottleneck_parse(cat) : BN_UNKNOWN;
    if (!r->failed && strcmp(cat, "unknown") && p->category == BN_UNKNOWN)
        rd_fail(r, "category", "is not a bottleneck category");
    get_str(r, o, "justification", p->justification, sizeof p->justification);
    json_t *m = get_obj(r, o, "metrics", false);
    profile_metrics_init(&p->m);
    if (m) {
        r->where = "profile.metrics";
        /* A metric absent is one the croqtuner that wrote the checkpoint did not parse yet
         * (waves_per_sm came later): not reported, NaN. Present, it must be a number. */
        for (size_t i = 0; i < sizeof metric_fields / sizeof *metric_fields; i++)
            if (json_object_get(m, metric_fields[i].name))
                get_num(r, m, metric_fields[i].name, METRIC_AT(&p->m, i));
        get_str(r, m, "top_stall", p->m.top_stall, sizeof p->m.top_stall);
        r->where = "profile";
    }
    get_str(r, o, "raw", p->raw_rel, sizeof p->raw_rel);
    get_str(r, o, "raw_fnv1a64", p->raw_hash, sizeof p->raw_hash);
    r->where = NULL;
}

static void read_pending(struct rd *r, json_t *o, struct pending *p)
{
    long long it = 0;
    char dec[32] = "";
    memset(p, 0, sizeof *p);
    if (!o)
        return;
    p->active = true;
    r->where = "pending";
    get_int(r, o, "iter", 0, 100000, &it);
    p->iter = (int)it;
    get_bool(r, o, "agent", &p->agent);
    get_str(r, o, "idea", p->idea, sizeof p->idea);
    get_str(r, o, "justification", p->justification, sizeof p->justification);
    get_str(r, o, "category", p->category, sizeof p->category);
    get_str(r, o, "bottleneck", p->bottleneck, sizeof p->bottleneck);
    get_str(r, o, "config", p->config, sizeof p->config);
    get_str(r, o, "source", p->src_rel, sizeof p->src_rel);
    get_str(r, o, "source_hash", p->src_hash, sizeof p->src_hash);
    get_bool(r, o, "measured", &p->measured);
    if (p->measured) {
        read_measure(r, get_obj(r, o, "candidate", false), "pending.candidate", &p->cand);
        get_str(r, o, "decision", dec, sizeof dec);
        if (!r->failed && decision_parse(dec) < 0)
            rd_fail(r, "decision", "is not a decision");
        p->decision = (enum decision)decision_parse(dec);
        get_str(r, o, "note", p->note, sizeof p->note);
    }
    /* present only when the sanity rule fired */
    json_t *f = get_obj_opt(r, o, "candidate_first", false, true);
    json_t *b = get_obj_opt(r, o, "best_remeasured", false, true);
    p->remeasured = f != NULL;
    p->best_remeasured = b != NULL;
    read_measure(r, f, "pending.candidate_first", &p->cand_first);
    read_measure(r, b, "pending.best_remeasured", &p->best_re);
    /* present only when a KEEP was verified on a new operand set (rules 3) */
    json_t *fr = get_obj_opt(r, o, "candidate_fresh", false, true);
    p->fresh_checked = fr != NULL;
    read_measure(r, fr, "pending.candidate_fresh", &p->fresh);
    if (json_object_get(o, "in_flight")) {
        long long n = 0;
        get_int(r, o, "in_flight", 0, 1000, &n);
        p->in_flight = (int)n;
    }
    r->where = NULL;
}

static void read_best(struct rd *r, json_t *o, struct checkpoint *c)
{
    long long it = 0;
    c->have_best = o != NULL;
    if (!o)
        return;
    r->where = "best";
    get_int(r, o, "iter", 0, 100000, &it);
    c->best.iter = (int)it;
    get_str(r, o, "config", c->best.config, sizeof c->best.config);
    get_str(r, o, "kernel", c->best.kernel, sizeof c->best.kernel);
    get_str(r, o, "source_hash", c->best.source_hash, sizeof c->best.source_hash);
    read_perf(r, o, &c->best.p);
    r->where = NULL;
}

static void read_other_bests(struct rd *r, json_t *o, struct checkpoint *c)
{
    json_t *a = json_object_get(o, "other_bests"), *v;
    size_t i;
    if (r->failed)
        return;
    if (!json_is_array(a))
        { rd_fail(r, "other_bests", "is missing or not an array"); return; }
    c->other_bests = xmalloc((json_array_size(a) + 1) * sizeof *c->other_bests);
    json_array_foreach(a, i, v) {
        if (!json_is_string(v) || json_string_length(v) >= CROQ_SIG_MAX)
            { rd_fail(r, "other_bests", "holds something that is not a signature"); return; }
        memcpy(c->other_bests[i], json_string_value(v), json_string_length(v) + 1);
        c->n_other_bests = i + 1;
    }
}

/* The identity fields must describe one valid key, the one asked for. */
static void read_identity(struct rd *r, json_t *j, struct checkpoint *c)
{
    char dt[8] = "", mode[24] = "", seed[24] = "", k2[KEY_MAX];
    long long m = 0, n = 0, k = 0;
    get_str(r, j, "key", c->key, sizeof c->key);
    get_str(r, j, "dtype", dt, sizeof dt);
    get_int(r, j, "m", 1, 1 << 20, &m);
    get_int(r, j, "n", 1, 1 << 20, &n);
    get_int(r, j, "k", 1, 1 << 20, &k);
    get_str(r, j, "mode", mode, sizeof mode);
    get_str(r, j, "backend", c->backend, sizeof c->backend);
    get_str(r, j, "seed", seed, sizeof seed);
    if (r->failed)
        return;
    c->sk.dtype = croq_dtype_parse(dt);
    c->sk.mode = (enum tune_mode)mode_parse(mode);
    c->sk.shape = (struct croq_shape){m, n, k};
    if (c->sk.dtype < 0 || mode_parse(mode) < 0)
        { rd_fail(r, "dtype", "or 'mode' is not known"); return; }
    key_format(&c->sk, k2);
    if (strcmp(k2, c->key))
        { rd_fail(r, "key", "does not match its dtype, shape and mode"); return; }
    if (!backend_name_known(c->backend))
        { rd_fail(r, "backend", "is not sim, gpu or replay"); return; }
    char *end;
    errno = 0;
    c->seed = strtoull(seed, &end, 10);
    if (errno || end == seed || *end)
        { rd_fail(r, "seed", "is not a number"); return; }
}

int checkpoint_from_json(json_t *j, struct checkpoint *c, char *err, size_t errlen)
{
    struct rd r = {.err = err, .errlen = errlen};
    long long schema = 0, budget = 0, iter = 0, att = 0, cf = 0;
    char phase[24] = "";
    checkpoint_init(c);
    if (!json_is_object(j)) {
        snprintf(err, errlen, "not a JSON object");
        return -1;
    }
    get_int(&r, j, "schema", 0, 1000, &schema);
    if (!r.failed && schema != ENGINE_SCHEMA) {
        snprintf(err, errlen, "schema %lld, this croqtuner reads schema %d", schema, ENGINE_SCHEMA);
        return -1;
    }
    read_identity(&r, j, c);
    get_int(&r, j, "budget", 1, 100000, &budget);
    get_bool(&r, j, "agent", &c->agent);
    get_str(&r, j, "phase", phase, sizeof phase);
    if (!r.failed && phase_parse(phase) < 0)
        rd_fail(&r, "phase", "is not a phase");
    get_int(&r, j, "iteration", -1, 100000, &iter);
    get_int(&r, j, "attempts", 0, 10000000, &att);
    get_int(&r, j, "compile_failures", 0, 10000000, &cf);
    get_str(&r, j, "seed_config", c->seed_config, sizeof c->seed_config);
    get_str(&r, j, "seed_from", c->seed_from, sizeof c->seed_from);
    read_other_bests(&r, j, c);
    read_best(&r, get_obj(&r, j, "best", true), c);
    get_num(&r, j, "baseline_tflops", &c->baseline_tflops);
    get_bool(&r, j, "health_checked", &c->health_checked);
    get_str(&r, j, "health", c->health, sizeof c->health);
    read_profile(&r, get_obj(&r, j, "profile", false), &c->profile);
    read_pending(&r, get_obj(&r, j, "pending", true), &c->pending);
    get_str(&r, j, "stop_reason", c->stop_reason, sizeof c->stop_reason);
    long long rules = 1; /* absent: written before the rules were versioned */
    if (json_object_get(j, "decide_rules"))
        get_int(&r, j, "decide_rules", 1, DECIDE_RULES, &rules);
    if (json_object_get(j, "gpu")) /* absent: written before it was recorded, or sim */
        get_str(&r, j, "gpu", c->gpu, sizeof c->gpu);
    if (r.failed) {
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

static int cmp_key(const void *a, const void *b) { return strcmp(a, b); }

size_t checkpoint_orphans(const char *dir, json_t *shapes, char (**keys)[KEY_MAX])
{
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
