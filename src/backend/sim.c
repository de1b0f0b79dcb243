/* src/backend/sim.c — the simulated GPU backend (backend.h): sim_model() plus seeded
 * noise, a simulated clock and profile, and the injectable faults of CROQ_SIM_FAULTS.
 *
 * Deterministic by construction: every random draw comes from a generator seeded with
 * (seed, key, iteration, tag, configuration), never from a process-wide state, so a
 * run that is killed and resumed measures exactly what an uninterrupted run measured.
 * Every file it writes says "backend": "sim".
 */
#include "backend.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "target/target.h"
#include "util/atomicio.h"
#include "util/log.h"
#include "util/paired.h"
#include "util/regfile.h"

#define SIM_TRIALS 5

struct sim {
    struct sim_faults faults;
    int delay_ms;
    int busy_iter, busy_seen; /* busy@N: checks answered "busy" so far for iteration N */
};

static const char *const fault_names[SIM_FAULT_KINDS] = {
    [SIM_FAULT_CRASH] = "crash",       [SIM_FAULT_TIMEOUT] = "timeout", [SIM_FAULT_INCORRECT] = "incorrect",
    [SIM_FAULT_COMPILE] = "compile",   [SIM_FAULT_BUSY] = "busy",       [SIM_FAULT_UNUSABLE] = "unusable",
    [SIM_FAULT_ABOVEPEAK] = "abovepeak", [SIM_FAULT_SPIKE] = "spike", [SIM_FAULT_MEMO] = "memo",
    [SIM_FAULT_LADDER] = "ladder",
};

static int parse_one(const char *tok, struct sim_fault *f, char *err, size_t errlen)
{
    char name[32];
    int iter, count = 0, used = 0, more = 0;
    if (sscanf(tok, "%31[a-z]@%d%n", name, &iter, &used) != 2 || iter < 0)
        goto bad;
    const char *rest = tok + used;
    if (*rest == '*') {
        if (sscanf(rest + 1, "%d%n", &count, &more) != 1 || count < 1)
            goto bad;
        rest += 1 + more;
    }
    if (*rest != '\0')
        goto bad;
    for (int k = 0; k < SIM_FAULT_KINDS; k++)
        if (!strcmp(name, fault_names[k])) {
            f->kind = (enum sim_fault_kind)k;
            f->iter = iter;
            f->count = count ? count : (k == SIM_FAULT_BUSY ? 2 : 1);
            return 0;
        }
bad:
    snprintf(err, errlen, "sim fault '%s': expected KIND@ITER[*COUNT], KIND one of crash, timeout, "
                          "incorrect, compile, busy, unusable, abovepeak, spike, memo, ladder", tok);
    return -1;
}

int sim_faults_parse(const char *spec, struct sim_faults *out, char *err, size_t errlen)
{
    char buf[1024];
    memset(out, 0, sizeof *out);
    if (!spec || !*spec)
        return 0;
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "sim fault list too long");
        return -1;
    }
    strcpy(buf, spec);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (out->n == SIM_FAULTS_MAX) {
            snprintf(err, errlen, "more than %d sim faults", SIM_FAULTS_MAX);
            return -1;
        }
        if (parse_one(t, &out->f[out->n], err, errlen))
            return -1;
        out->n++;
    }
    return 0;
}

int sim_fault_at(const struct sim_faults *f, enum sim_fault_kind kind, int iter)
{
    for (int i = 0; i < f->n; i++)
        if (f->f[i].kind == kind && f->f[i].iter == iter)
            return f->f[i].count;
    return 0;
}

/* ---- deterministic noise: splitmix64 seeded from the request ---- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double gauss(uint64_t *s)
{
    double u1 = ((double)(splitmix(s) >> 11) + 0.5) / 9007199254740992.0;
    double u2 = (double)(splitmix(s) >> 11) / 9007199254740992.0;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (ms > 0 && nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

/* ---- operations ---- */

static int sim_health(struct backend *b, const struct cand_req *r, struct backend_health *out)
{
    struct sim *s = b->priv;
    memset(out, 0, sizeof *out);
    out->sm_clock_mhz = croq_target()->boost_mhz;
    out->temp_c = 38;
    if (sim_fault_at(&s->faults, SIM_FAULT_UNUSABLE, r->iter)) {
        out->state = HEALTH_UNUSABLE;
        snprintf(out->why, sizeof out->why, "simulated: no GPU (NVML: driver not loaded)");
        return 0;
    }
    int busy = sim_fault_at(&s->faults, SIM_FAULT_BUSY, r->iter);
    if (s->busy_iter != r->iter) {
        s->busy_iter = r->iter;
        s->busy_seen = 0;
    }
    if (busy && s->busy_seen < busy) {
        s->busy_seen++;
        out->state = HEALTH_BUSY;
        snprintf(out->why, sizeof out->why, "simulated: pid 4242 uses 20480 MiB of GPU memory, utilization 97%%");
        return 0;
    }
    out->state = HEALTH_OK;
    snprintf(out->why, sizeof out->why, "ok (simulated: no other process, 38 C, no throttling)");
    return 0;
}

static int sim_build(struct backend *b, const struct cand_req *r, struct cand_result *out)
{
    struct sim *s = b->priv;
    char why[CROQ_WHY_MAX], path[4096];
    memset(out, 0, sizeof *out);
    snprintf(path, sizeof path, "%s/%s", r->dir, r->src_rel);
    if (!regfile_is(path)) {
        out->status = CAND_COMPILE_ERROR;
        snprintf(out->reason, sizeof out->reason, "simulated nvcc: cannot open '%s'", r->src_rel);
        return 0;
    }
    if (r->is_candidate && r->attempt < sim_fault_at(&s->faults, SIM_FAULT_COMPILE, r->iter)) {
        out->status = CAND_COMPILE_ERROR;
        snprintf(out->reason, sizeof out->reason, "simulated nvcc: error: identifier \"croq_fault\" is undefined "
                                                  "(injected compile@%d)", r->iter);
        return 0;
    }
    if (!knobs_validate(r->cfg, &r->shape, why, sizeof why)) {
        out->status = CAND_COMPILE_ERROR;
        snprintf(out->reason, sizeof out->reason, "simulated nvcc: static_assert failed: %.200s", why);
        return 0;
    }
    out->status = CAND_OK;
    return 0;
}

static void sim_failure(const struct cand_req *r, enum cand_status st, const char *why, struct cand_result *out)
{
    out->status = st;
    snprintf(out->reason, sizeof out->reason, "%s (injected by CROQ_SIM_FAULTS at iteration %d)", why, r->iter);
}

/* Which injected fault, if any, ends this measurement. */
static bool injected(struct sim *s, const struct cand_req *r, struct cand_result *out)
{
    if (!r->is_candidate)
        return false;
    if (sim_fault_at(&s->faults, SIM_FAULT_CRASH, r->iter))
        sim_failure(r, CAND_CRASH, "croq-runner: signal 6 (Aborted): an illegal instruction was encountered", out);
    else if (sim_fault_at(&s->faults, SIM_FAULT_TIMEOUT, r->iter))
        sim_failure(r, CAND_TIMEOUT, "croq-runner: timed out after 60.0 s", out);
    else if (sim_fault_at(&s->faults, SIM_FAULT_INCORRECT, r->iter))
        sim_failure(r, CAND_INCORRECT, "verification failed: 40960 mismatches, max_err_over_tol 812.5", out);
    else if (sim_fault_at(&s->faults, SIM_FAULT_MEMO, r->iter) && r->verify_seed && r->verify_seed != r->seed)
        sim_failure(r, CAND_INCORRECT, "verification failed on a new operand set: 8388608 mismatches, max_err_over_tol "
                    "4096", out);
    else
        return false;
    return true;
}

/* Simulated per-launch ms of cfg on the shape at a jittered clock (*clock). */
static double model_ms(const struct croq_config *cfg, const struct croq_shape *sh, uint64_t *seed, double *clock)
{
    struct sim_point p;
    sim_model(cfg, sh, &p);
    *clock = round(p.clock_mhz + 6.0 * gauss(seed));
    double flops = 2.0 * (double)sh->m * (double)sh->n * (double)sh->k;
    return flops / (p.tflops * 1e12) * 1e3 * p.clock_mhz / *clock;
}

/* Paired trials (DECIDE rules 3): a drift common to both trials of a pair (the clock under
 * the power cap: 2%) and each trial's own noise; the candidate's trials are its timing. */
static json_t *sim_paired(const struct cand_req *r, uint64_t *seed, double cand_ms, double scale, double sigma,
                          double trial[BACKEND_MAX_TRIALS], struct cand_result *out)
{
    double iclock, inc[BACKEND_MAX_TRIALS];
    double inc_ms = model_ms(r->incumbent_cfg, &r->shape, seed, &iclock);
    for (int i = 0; i < PAIRED_DEFAULT_PAIRS; i++) {
        double drift = 1.0 + 0.02 * gauss(seed);
        trial[i] = cand_ms * scale * drift * (1.0 + sigma * gauss(seed));
        inc[i] = inc_ms * drift * (1.0 + sigma * gauss(seed));
    }
    return backend_paired_result(r, trial, inc, PAIRED_DEFAULT_PAIRS, out);
}

static int sim_measure(struct backend *b, const struct cand_req *r, struct cand_result *out)
{
    struct sim *s = b->priv;
    double trial[BACKEND_MAX_TRIALS];
    uint64_t seed = backend_req_seed(r);
    char sig[CROQ_SIG_MAX];
    memset(out, 0, sizeof *out);
    out->ratio = out->ratio_lo = out->ratio_hi = NAN;
    sleep_ms(s->delay_ms);
    knobs_signature(r->cfg, sig);
    snprintf(out->command, sizeof out->command, "sim model: config %.200s, seed %llu, iteration %d, tag %s",
             sig, r->seed, r->iter, r->tag);
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_integer(1));
    json_object_set_new(j, "command", json_string("run"));
    json_object_set_new(j, "iter", json_integer(r->iter));
    json_object_set_new(j, "tag", json_string(r->tag));
    json_object_set_new(j, "config", json_string(sig));
    if (r->verify_seed)
        json_object_set_new(j, "verify_seed", json_integer((json_int_t)r->verify_seed));
    if (injected(s, r, out)) {
        json_object_set_new(j, "status", json_string(cand_status_name(out->status)));
        json_object_set_new(j, "error", json_string(out->reason));
        int rc = backend_write_raw(r, j, "sim", out);
        json_decref(j);
        return rc;
    }
    if (r->no_time) { /* a verification only: no numbers */
        backend_verified_result(0.05 + 0.4 * ((double)(splitmix(&seed) >> 11) / 9007199254740992.0), "sim", j, out);
        int rc = backend_write_raw(r, j, "sim", out);
        json_decref(j);
        return rc;
    }
    double clock;
    double base_ms = model_ms(r->cfg, &r->shape, &seed, &clock);
    double flops = 2.0 * (double)r->shape.m * (double)r->shape.n * (double)r->shape.k;
    /* short kernels jitter more: launch and clock noise is a larger share */
    double sigma = 0.004 + 0.002 / fmax(base_ms, 0.01);
    double scale = 1.0;
    if (sim_fault_at(&s->faults, SIM_FAULT_ABOVEPEAK, r->iter) && r->is_candidate) /* 1.25x the peak */
        scale = flops / (1.25 * backend_peak_tflops(r->cfg->dtype, clock) * 1e12) * 1e3 / base_ms;
    else if (sim_fault_at(&s->faults, SIM_FAULT_SPIKE, r->iter) && r->is_candidate && !strcmp(r->tag, "cand"))
        /* paired, a spike would move both kernels of a pair and show nothing: the spike of
         * a paired measurement is a candidate reading above the physical peak once, the
         * one reading rules 3 measures again */
        scale = r->incumbent_cfg ? flops / (1.25 * backend_peak_tflops(r->cfg->dtype, clock) * 1e12) * 1e3 / base_ms
                                 : 1.0 / 1.8;
    json_t *pj = NULL;
    int n = SIM_TRIALS;
    if (r->incumbent_cfg) {
        pj = sim_paired(r, &seed, base_ms, scale, sigma, trial, out);
        n = PAIRED_DEFAULT_PAIRS;
    } else {
        for (int i = 0; i < SIM_TRIALS; i++)
            trial[i] = base_ms * scale * (1.0 + sigma * gauss(&seed));
    }
    double max_err = 0.05 + 0.4 * ((double)(splitmix(&seed) >> 11) / 9007199254740992.0);
    backend_ok_result(r, trial, n, clock, max_err, "sim", j, out);
    json_object_set_new(j, "l2", json_string(r->cold_l2 ? "cold" : "warm"));
    if (pj)
        json_object_set_new(j, "paired", pj);
    int rc = backend_write_raw(r, j, "sim", out);
    json_decref(j);
    return rc;
}

/* The final ladder: each entry's model time, a drift shared by every trial of a round
 * (the clock under the power cap: 2%) and each trial's own noise, in rotating order. A
 * ladder trial runs at least 20 ms of back-to-back launches, so its own noise is that of a
 * long trial (0.4%), not the launch-level jitter the model gives a short kernel's
 * measurement: on the H200 the ladder of f16 768^3 put 7 configurations within 0.8% of each
 * other, consistently with their rows (results/h200/sweep-typical). */
static int sim_ladder(struct backend *b, const struct ladder_req *q, struct ladder_result *out)
{
    struct sim *s = b->priv;
    uint64_t seed = backend_ladder_seed(q);
    double base[LADDER_MAX], clock[LADDER_MAX];
    int rounds = q->rounds > 0 ? q->rounds : LADDER_DEFAULT_ROUNDS;
    memset(out, 0, sizeof *out);
    out->failed = -1;
    out->n = q->n;
    snprintf(out->l2, sizeof out->l2, "%s", q->cold_l2 ? "cold" : "warm");
    snprintf(out->command, sizeof out->command, "sim model: ladder of %d configurations, %d rounds, seed %llu, tag %s",
             q->n, rounds, q->seed, q->tag);
    sleep_ms(s->delay_ms);
    json_t *j = json_pack("{s:i, s:s, s:s, s:i, s:s}", "schema", 1, "command", "ladder", "tag", q->tag, "rounds",
                          rounds, "l2", out->l2);
    for (int i = 0; i < q->n; i++) {
        struct ladder_entry_result *e = &out->e[i];
        e->status = CAND_OK;
        if (sim_fault_at(&s->faults, SIM_FAULT_LADDER, q->e[i].iter) && !strcmp(q->tag, "final") &&
            out->status == CAND_OK) {
            e->status = out->status = CAND_CRASH;
            out->failed = i;
            snprintf(e->reason, sizeof e->reason, "croq-runner: launch_error: CUDA_ERROR_ILLEGAL_ADDRESS (injected by "
                     "CROQ_SIM_FAULTS ladder@%d)", q->e[i].iter);
            snprintf(out->reason, sizeof out->reason, "iteration %d: %s", q->e[i].iter, e->reason);
        }
        base[i] = model_ms(q->e[i].cfg, &q->shape, &seed, &clock[i]);
    }
    for (int r = 0; out->status == CAND_OK && r < rounds && r < LADDER_MAX_ROUNDS; r++) {
        double drift = 1.0 + 0.02 * gauss(&seed);
        for (int k = 0; k < q->n; k++) {
            int i = (r + k) % q->n; /* round r starts with entry r mod n */
            struct ladder_entry_result *e = &out->e[i];
            e->trial_ms[e->trials] = base[i] * drift * (1.0 + 0.004 * gauss(&seed));
            e->trial_clock_mhz[e->trials++] = (int)round(clock[i] / drift);
        }
    }
    out->steady = true;
    if (out->status == CAND_OK)
        backend_ladder_summarise(q, out);
    backend_ladder_json_finish(q, out, j);
    int rc = backend_write_ladder_raw(q, j, "sim", out);
    json_decref(j);
    return rc;
}

static int sim_profile(struct backend *b, const struct cand_req *r, struct profile_out *out)
{
    (void)b;
    return sim_profile_write(r, "sim", out);
}

int sim_profile_write(const struct cand_req *r, const char *backend_name, struct profile_out *out)
{
    struct sim_point p;
    struct cand_result raw;
    memset(out, 0, sizeof *out);
    memset(&raw, 0, sizeof raw);
    sim_model(r->cfg, &r->shape, &p);
    out->r.ok = true;
    out->r.category = p.bottleneck;
    out->r.m = p.metrics;
    snprintf(out->r.justification, sizeof out->r.justification, "%s", p.justification);
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_integer(1));
    json_object_set_new(j, "command", json_string("profile"));
    json_object_set_new(j, "category", json_string(bottleneck_name(p.bottleneck)));
    json_object_set_new(j, "justification", json_string(out->r.justification));
    json_object_set_new(j, "duration_us", json_real(p.metrics.duration_us));
    int rc = backend_write_raw(r, j, backend_name, &raw);
    json_decref(j);
    memcpy(out->raw_rel, raw.raw_rel, sizeof out->raw_rel);
    memcpy(out->raw_hash, raw.raw_hash, sizeof out->raw_hash);
    if (rc)
        snprintf(out->r.reason, sizeof out->r.reason, "%s", raw.reason);
    return rc;
}

static void sim_release(struct backend *b)
{
    free(b->priv);
    free(b);
}

struct backend *sim_open(const struct backend_opts *o, char *err, size_t errlen)
{
    struct sim *s = xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->busy_iter = -1;
    const char *spec = o->sim_faults ? o->sim_faults : getenv("CROQ_SIM_FAULTS");
    if (sim_faults_parse(spec, &s->faults, err, errlen)) {
        free(s);
        return NULL;
    }
    s->delay_ms = o->sim_delay_ms > 0 ? o->sim_delay_ms : 0;
    struct backend *b = xmalloc(sizeof *b);
    *b = (struct backend){.name = "sim", .health = sim_health, .build = sim_build, .measure = sim_measure,
                          .profile = sim_profile, .ladder = sim_ladder, .release = sim_release, .priv = s};
    return b;
}
