/* runner/cmd_serve.c — `croq-runner serve`: a long-lived worker for one (dtype, shape)
 * that keeps the CUDA context, the operand sets with their references, and the
 * incumbent's loaded module across candidates (docs/runner-protocol.md, "serve").
 *
 * Requests and replies are one JSON object per line on stdin / stdout. A kernel fault
 * poisons the context, so after a launch_error reply the worker exits (status 3) and the
 * tuner starts a new one for the next request; a hang is the tuner's to end (it kills our
 * process group when its deadline passes). EOF on stdin ends the worker, and so does the
 * death of the tuner (PR_SET_PDEATHSIG): nothing outlives the process that started it.
 */
#include "output.h"
#include "pairtime.h"
#include "serve.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define SERVE_PROTOCOL 1
#define SERVE_LINE_MAX (1 << 16)

/* Where a request's time went (the reply's "phase_s"): the engine's time split. */
enum phase { PH_OPERANDS, PH_LOAD, PH_VERIFY, PH_TIME, PH_COUNT };
static const char *const phase_names[PH_COUNT] = {"operands", "load", "verify", "time"};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct server {
    struct runner_opts o;
    struct gpu g;
    struct pool pool;
    struct rotation rot;
    struct slot inc;          /* the incumbent (set_incumbent) */
    CUdeviceptr d_scratch;    /* C of verifications on a set other than the base */
    long requests;
    double phase[PH_COUNT];   /* of the current request */
    double mark;              /* when the current phase began */
};

/* Charge the time since the last mark to phase p. */
static void charge(struct server *s, enum phase p)
{
    double t = now_s();
    s->phase[p] += t - s->mark;
    s->mark = t;
}

/* ---- kernels ---- */

static void slot_unload(struct slot *k)
{
    for (int i = 0; i < k->nrot; i++) {
        launch_release(&k->rl[i]);
        gpu_free(&k->rc[i]);
    }
    if (k->prepared)
        launch_release(&k->l);
    gpu_free(&k->d_c);
    if (k->loaded)
        kl_module_unload(&k->m);
    memset(k, 0, sizeof *k);
}

static int slot_load(struct server *s, struct slot *k, const char *path)
{
    memset(k, 0, sizeof *k);
    if (strlen(path) >= sizeof k->path) {
        runner_fail(RS_BAD_ARGS, "cubin path longer than %zu bytes", sizeof k->path - 1);
        return -1;
    }
    snprintf(k->path, sizeof k->path, "%s", path);
    TRY(module_load(path, s->o.dtype, &k->m));
    k->loaded = true;
    return module_check_shape(&k->m, &s->o.shape);
}

static size_t c_bytes(const struct server *s) { return (size_t)s->o.shape.m * s->o.shape.n * 2; }

static int slot_prepare(struct server *s, struct slot *k, const struct opset *base)
{
    if (k->prepared)
        return 0;
    TRY(gpu_alloc(&k->d_c, c_bytes(s), "C"));
    k->prepared = true; /* launch_prepare clears l first: releasing it is safe either way */
    return launch_prepare(&s->g, &k->m, &base->ops, k->d_c, &k->l);
}

/* Launches of k over every copy of the rotation (made on first use). */
static int slot_rotate(struct server *s, struct slot *k, const struct opset *base)
{
    if (!s->rot.n)
        TRY(rotation_make(&s->g, &base->ops, &s->rot));
    while (k->nrot < s->rot.n) {
        int i = k->nrot;
        TRY(gpu_alloc(&k->rc[i], c_bytes(s), "rotated C"));
        memset(&k->rl[i], 0, sizeof k->rl[i]);
        k->nrot++;
        TRY(launch_prepare(&s->g, &k->m, &s->rot.copy[i], k->rc[i], &k->rl[i]));
    }
    return 0;
}

static int slot_launch(void *ctx)
{
    struct slot *k = ctx;
    if (!k->cold)
        return launch_once(&k->l);
    int i = k->next;
    k->next = (k->next + 1) % k->nrot;
    return launch_once(&k->rl[i]);
}

/* Poison, one launch, synchronise, compare every element with set's reference. On the
 * base set k's own launch writes k->d_c; on another set a launch built for that set
 * writes the scratch C. */
static int verify_on(struct server *s, struct slot *k, const struct opset *set, bool base, struct verify_result *v)
{
    const struct operands *o = &set->ops;
    if (base) {
        TRY(verify_poison(&s->g, k->d_c, o->m, o->n));
        TRY(launch_once(&k->l));
        CU_CHECK(RS_LAUNCH_ERROR, cuCtxSynchronize());
        return verify_output(&s->g, k->d_c, o, &set->ref, v);
    }
    struct launch tl;
    if (!s->d_scratch)
        TRY(gpu_alloc(&s->d_scratch, c_bytes(s), "verification C"));
    int rc = launch_prepare(&s->g, &k->m, o, s->d_scratch, &tl);
    if (rc == 0)
        rc = verify_poison(&s->g, s->d_scratch, o->m, o->n);
    if (rc == 0)
        rc = launch_once(&tl);
    CUresult e = rc == 0 ? cuCtxSynchronize() : CUDA_SUCCESS; /* a fault shows here */
    if (e != CUDA_SUCCESS) {
        runner_fail_cu(RS_LAUNCH_ERROR, e, "cuCtxSynchronize()", __FILE__, __LINE__);
        rc = -1;
    }
    if (rc == 0)
        rc = verify_output(&s->g, s->d_scratch, o, &set->ref, v);
    launch_release(&tl);
    return rc;
}

static int fail_incorrect(const char *phase, const struct verify_result *v)
{
    const struct mismatch *f = &v->first[0];
    runner_fail(RS_INCORRECT,
                "verification failed %s: %lld of %lld elements wrong (%lld nan/unwritten); first at (%ld, %ld): "
                "got %g, want %g, tol %g", phase, v->mismatches, v->checked, v->nan_or_unwritten, f->row, f->col,
                f->got, f->want, f->tol);
    return -1;
}

static json_t *verify_block(const struct verify_result *v, const struct opset *set, const char *phase)
{
    json_t *j = verify_json(v, set->ref.method);
    json_object_set_new(j, "phase", json_string(phase));
    json_object_set_new(j, "seed", json_integer((json_int_t)set->seed));
    return j;
}

/* ---- requests ---- */

static bool req_bool(json_t *req, const char *key, bool def)
{
    json_t *v = json_object_get(req, key);
    return json_is_boolean(v) ? json_is_true(v) : def;
}

static int req_seed(json_t *req, const char *key, uint64_t def, uint64_t *out)
{
    json_t *v = json_object_get(req, key);
    *out = def;
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        runner_fail(RS_BAD_ARGS, "request: '%s' is not a non-negative integer", key);
        return -1;
    }
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* Timing options of a request within the runner's limits. */
static int req_pair_opts(json_t *req, struct pair_opts *p)
{
    pair_opts_default(p);
    json_t *v;
    if ((v = json_object_get(req, "pairs"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > TIMING_MAX_TRIALS) {
            runner_fail(RS_BAD_ARGS, "request: 'pairs' is not an integer in [1, %d]", TIMING_MAX_TRIALS);
            return -1;
        }
        p->pairs = (int)json_integer_value(v);
    }
    if ((v = json_object_get(req, "max_iters"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 100000) {
            runner_fail(RS_BAD_ARGS, "request: 'max_iters' is not an integer in [1, 100000]");
            return -1;
        }
        p->max_iters = (int)json_integer_value(v);
    }
    if ((v = json_object_get(req, "warmup_min_launches"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 100000) {
            runner_fail(RS_BAD_ARGS, "request: 'warmup_min_launches' is not an integer in [0, 100000]");
            return -1;
        }
        p->warmup_min_launches = (long)json_integer_value(v);
    }
    static const struct { const char *key; size_t off; } ms[] = {
        {"min_trial_ms", offsetof(struct pair_opts, min_trial_ms)},
        {"warmup_min_ms", offsetof(struct pair_opts, warmup_min_ms)},
        {"warmup_max_ms", offsetof(struct pair_opts, warmup_max_ms)},
        {"stop_below", offsetof(struct pair_opts, stop_below)},
    };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        if (!(v = json_object_get(req, ms[i].key)))
            continue;
        if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 60000) {
            runner_fail(RS_BAD_ARGS, "request: '%s' is not a number in [0, 60000]", ms[i].key);
            return -1;
        }
        *(double *)((char *)p + ms[i].off) = json_number_value(v);
    }
    return 0;
}

static int req_cubin(json_t *req, const char **out)
{
    *out = json_string_value(json_object_get(req, "cubin"));
    if (!*out || !**out) {
        runner_fail(RS_BAD_ARGS, "request: 'cubin' (a path) is required");
        return -1;
    }
    return 0;
}

static int req_l2(json_t *req, bool *cold)
{
    json_t *v = json_object_get(req, "l2");
    const char *l2 = v ? json_string_value(v) : "warm";
    if (!l2 || (strcmp(l2, "warm") && strcmp(l2, "cold"))) {
        runner_fail(RS_BAD_ARGS, "request: 'l2' is not \"warm\" or \"cold\"");
        return -1;
    }
    *cold = !strcmp(l2, "cold");
    return 0;
}

/* set_incumbent: load, build for the base set, verify there; kept for paired timing. */
static int op_set_incumbent(struct server *s, json_t *req, json_t *out)
{
    const char *cubin;
    struct verify_result v;
    slot_unload(&s->inc);
    TRY(req_cubin(req, &cubin));
    json_object_set_new(out, "cubin", json_string(cubin));
    TRY(slot_load(s, &s->inc, cubin));
    output_module_id(out, "module_id", &s->inc.m);
    struct opset *base = pool_get(&s->g, &s->pool, s->pool.base_seed);
    if (!base)
        return -1;
    TRY(slot_prepare(s, &s->inc, base));
    json_object_set_new(out, "abi", launch_abi_json(&s->inc.m, &s->inc.l));
    TRY(verify_on(s, &s->inc, base, true, &v));
    json_object_set_new(out, "verify", verify_block(&v, base, "first_launch"));
    if (!v.passed)
        return fail_incorrect("on the first launch", &v);
    return 0;
}

struct measure_req {
    const char *cubin;
    uint64_t verify_seed;
    bool time, paired, cold;
    struct pair_opts p;
};

static int parse_measure(struct server *s, json_t *req, struct measure_req *q)
{
    TRY(req_cubin(req, &q->cubin));
    TRY(req_seed(req, "verify_seed", s->pool.base_seed, &q->verify_seed));
    q->time = req_bool(req, "time", true);
    q->paired = req_bool(req, "paired", false);
    TRY(req_l2(req, &q->cold));
    TRY(req_pair_opts(req, &q->p));
    if (q->paired && !s->inc.prepared) {
        runner_fail(RS_BAD_ARGS, "request: paired timing needs an incumbent (set_incumbent first)");
        return -1;
    }
    return 0;
}

/* Time k (and the incumbent when paired), then verify k's output again. */
static int time_candidate(struct server *s, const struct measure_req *q, struct slot *k, const struct opset *base,
                          json_t *out)
{
    struct pair_result pr;
    struct verify_result v;
    if (q->cold) {
        TRY(slot_rotate(s, k, base));
        if (q->paired)
            TRY(slot_rotate(s, &s->inc, base));
        json_object_set_new(out, "rotation", json_pack("{s:i, s:I}", "copies", s->rot.n, "l2_bytes",
                                                       (json_int_t)s->rot.l2_bytes));
    }
    k->cold = s->inc.cold = q->cold;
    k->next = s->inc.next = 0;
    CUdeviceptr checked = q->cold ? k->rc[0] : k->d_c; /* rotation copy 0 is written first */
    TRY(verify_poison(&s->g, checked, base->ops.m, base->ops.n));
    charge(s, PH_LOAD);
    struct pair_kernel cand = {slot_launch, k}, inc = {slot_launch, &s->inc};
    int rc = pair_run(&s->g, &q->p, 2.0 * base->ops.m * base->ops.n * base->ops.k, &cand, q->paired ? &inc : NULL,
                      &pr);
    s->inc.cold = false;
    charge(s, PH_TIME);
    TRY(rc);
    struct timing_opts to = {(int)pr.w.launches, pr.cand_iters, pr.cand.trials, (int)q->p.warmup_max_ms};
    json_object_set_new(out, "timing", timing_json(&to, &pr.cand));
    json_object_set_new(out, "gpu_state", timing_gpu_state_json(&pr.cand));
    json_object_set_new(out, "peak", peak_json(base->ops.dtype, &pr.cand));
    json_object_set_new(out, "warmup", pair_warmup_json(&pr.w));
    if (q->paired)
        json_object_set_new(out, "paired", pair_json(&pr));
    int vrc = verify_output(&s->g, checked, &base->ops, &base->ref, &v);
    charge(s, PH_VERIFY);
    if (vrc)
        return -1;
    json_object_set_new(out, "verify", verify_block(&v, base, "after_timing"));
    if (!v.passed)
        return fail_incorrect("after the timed launches", &v);
    return 0;
}

/* measure: load the candidate, verify it on the requested set, then (unless time is
 * false) time it on the base set, alone or paired with the incumbent, warm or cold L2,
 * and verify again. The candidate is unloaded afterwards. */
static int op_measure(struct server *s, json_t *req, json_t *out, struct slot *k)
{
    struct measure_req q;
    struct verify_result v;
    TRY(parse_measure(s, req, &q));
    json_object_set_new(out, "cubin", json_string(q.cubin));
    json_object_set_new(out, "l2", json_string(q.cold ? "cold" : "warm"));
    json_object_set_new(out, "paired_with", q.paired ? json_string(s->inc.path) : json_null());
    TRY(slot_load(s, k, q.cubin));
    output_module_id(out, "module_id", &k->m); /* what the tuner checks the reply against */
    if (q.paired)
        output_module_id(out, "incumbent_module_id", &s->inc.m);
    charge(s, PH_LOAD);
    struct opset *vs = pool_get(&s->g, &s->pool, q.verify_seed);
    if (!vs)
        return -1;
    bool on_base = q.verify_seed == s->pool.base_seed;
    struct opset *base = on_base ? vs : pool_get(&s->g, &s->pool, s->pool.base_seed);
    charge(s, PH_OPERANDS);
    if (!base)
        return -1;
    TRY(slot_prepare(s, k, base));
    json_object_set_new(out, "abi", launch_abi_json(&k->m, &k->l));
    charge(s, PH_LOAD);
    int vrc = verify_on(s, k, vs, on_base, &v);
    charge(s, PH_VERIFY);
    TRY(vrc);
    json_object_set_new(out, q.time ? "verify_first" : "verify", verify_block(&v, vs, "first_launch"));
    if (!v.passed) {
        if (q.time) /* the decisive block is this one: time never ran */
            json_object_set(out, "verify", json_object_get(out, "verify_first"));
        return fail_incorrect("on the first launch", &v);
    }
    return q.time ? time_candidate(s, &q, k, base, out) : 0;
}

/* ladder: the request's kernels (1..PAIR_MAX_KERNELS cubins, no incumbent) loaded,
 * prepared and verified on the base set, timed together (pairtime.h ladder_time), warm or
 * cold L2, and each verified again. "failed": the index of the kernel a verification
 * failed on. The kernels are unloaded afterwards (the incumbent is left as it is). */
static int op_ladder(struct server *s, json_t *req, json_t *out, struct slot *ks, int *nk)
{
    struct pair_opts p;
    bool cold;
    json_t *cubins = json_object_get(req, "cubins"), *v;
    json_t *rounds_v = json_object_get(req, "rounds");
    int rounds = 12;
    TRY(req_pair_opts(req, &p));
    TRY(req_l2(req, &cold));
    if (!json_is_array(cubins) || json_array_size(cubins) < 1 || json_array_size(cubins) > PAIR_MAX_KERNELS) {
        runner_fail(RS_BAD_ARGS, "request: 'cubins' is not an array of 1..%d paths", PAIR_MAX_KERNELS);
        return -1;
    }
    if (rounds_v && (!json_is_integer(rounds_v) || json_integer_value(rounds_v) < 1 ||
                     json_integer_value(rounds_v) > TIMING_MAX_TRIALS)) {
        runner_fail(RS_BAD_ARGS, "request: 'rounds' is not an integer in [1, %d]", TIMING_MAX_TRIALS);
        return -1;
    }
    if (rounds_v)
        rounds = (int)json_integer_value(rounds_v);
    json_object_set_new(out, "l2", json_string(cold ? "cold" : "warm"));
    struct opset *base = pool_get(&s->g, &s->pool, s->pool.base_seed);
    charge(s, PH_OPERANDS);
    if (!base)
        return -1;
    json_t *kernels = json_array();
    json_object_set_new(out, "ladder", json_pack("{s:s, s:i, s:o}", "order", "rotating, round r starts with kernel r "
                                                 "mod n", "rounds", rounds, "kernels", kernels));
    size_t i;
    struct verify_result vr;
    json_array_foreach(cubins, i, v) {
        const char *path = json_string_value(v);
        json_t *o = json_object();
        json_array_append_new(kernels, o);
        json_object_set_new(out, "failed", json_integer((json_int_t)i)); /* until it has passed */
        if (!path || !*path) {
            runner_fail(RS_BAD_ARGS, "request: cubins[%zu] is not a path", i);
            return -1;
        }
        json_object_set_new(o, "cubin", json_string(path));
        TRY(slot_load(s, &ks[i], path));
        (*nk)++;
        output_module_id(o, "module_id", &ks[i].m);
        TRY(slot_prepare(s, &ks[i], base));
        json_object_set_new(o, "abi", launch_abi_json(&ks[i].m, &ks[i].l));
        if (cold)
            TRY(slot_rotate(s, &ks[i], base));
        charge(s, PH_LOAD);
        TRY(verify_on(s, &ks[i], base, true, &vr));
        charge(s, PH_VERIFY);
        json_object_set_new(o, "verify_first", verify_block(&vr, base, "first_launch"));
        if (!vr.passed)
            return fail_incorrect("on the first launch", &vr);
    }
    json_object_del(out, "failed");
    int n = *nk;
    struct pair_kernel pk[PAIR_MAX_KERNELS];
    for (int k = 0; k < n; k++) {
        ks[k].cold = cold;
        ks[k].next = 0;
        pk[k] = (struct pair_kernel){slot_launch, &ks[k]};
        TRY(verify_poison(&s->g, cold ? ks[k].rc[0] : ks[k].d_c, base->ops.m, base->ops.n));
    }
    struct ladder_timing *lt = calloc(1, sizeof *lt);
    if (!lt) {
        runner_fail(RS_INTERNAL_ERROR, "out of memory (ladder timing)");
        return -1;
    }
    int rc = ladder_time(&s->g, &p, 2.0 * base->ops.m * base->ops.n * base->ops.k, pk, n, rounds, lt);
    charge(s, PH_TIME);
    if (!rc) {
        json_object_set_new(json_object_get(out, "ladder"), "warmup", pair_warmup_json(&lt->w));
        for (int k = 0; k < n; k++) {
            json_t *t = ladder_timing_json(lt, k);
            json_object_update(json_array_get(kernels, (size_t)k), t);
            json_decref(t);
        }
    } else if (lt->failed >= 0) {
        json_object_set_new(out, "failed", json_integer(lt->failed)); /* its trial faulted */
    }
    free(lt);
    TRY(rc);
    for (int k = 0; k < n; k++) { /* the output of each kernel's timed launches, checked again */
        TRY(verify_output(&s->g, cold ? ks[k].rc[0] : ks[k].d_c, &base->ops, &base->ref, &vr));
        json_object_set_new(json_array_get(kernels, (size_t)k), "verify", verify_block(&vr, base, "after_timing"));
        if (!vr.passed) {
            json_object_set_new(out, "failed", json_integer(k));
            return fail_incorrect("after the timed launches", &vr);
        }
    }
    charge(s, PH_VERIFY);
    return 0;
}

static int op_health(struct server *s, json_t *out)
{
    struct gpu_snapshot snap;
    nvml_snapshot(s->g.nvml_index, &snap);
    json_object_set_new(out, "snapshot", nvml_snapshot_json(&snap));
    json_object_set_new(out, "pid", json_integer(getpid()));
    json_object_set_new(out, "operand_sets_made", json_integer(s->pool.made));
    json_object_set_new(out, "incumbent", s->inc.prepared ? json_string(s->inc.path) : json_null());
    json_object_set_new(out, "requests", json_integer(s->requests));
    return 0;
}

/* One request line -> one reply line. Returns the reply's status. */
static enum runner_status handle(struct server *s, const char *line, bool *quit)
{
    json_error_t je;
    json_t *out = output_new("serve");
    json_t *req = json_loads(line, 0, &je);
    const char *op = json_string_value(json_object_get(req, "op"));
    struct slot cand;
    struct slot *lad = NULL;
    int nlad = 0;
    memset(&cand, 0, sizeof cand);
    runner_fail_clear();
    s->requests++;
    memset(s->phase, 0, sizeof s->phase);
    s->mark = now_s();
    if (json_object_get(req, "id"))
        json_object_set(out, "id", json_object_get(req, "id"));
    json_object_set_new(out, "op", op ? json_string(op) : json_null());
    int rc;
    if (!json_is_object(req)) {
        runner_fail(RS_BAD_ARGS, "request is not a JSON object: %s", req ? "not an object" : je.text);
        rc = -1;
    } else if (!op) {
        runner_fail(RS_BAD_ARGS, "request: 'op' is required (measure, set_incumbent, ladder, health, quit)");
        rc = -1;
    } else if (!strcmp(op, "measure")) {
        gpu_json_identity(&s->g, out);
        output_problem(out, s->o.dtype, &s->o.shape, s->pool.base_seed);
        rc = op_measure(s, req, out, &cand);
    } else if (!strcmp(op, "ladder")) {
        gpu_json_identity(&s->g, out);
        output_problem(out, s->o.dtype, &s->o.shape, s->pool.base_seed);
        lad = calloc(PAIR_MAX_KERNELS, sizeof *lad);
        if (lad) {
            rc = op_ladder(s, req, out, lad, &nlad);
        } else {
            runner_fail(RS_INTERNAL_ERROR, "out of memory (ladder)");
            rc = -1;
        }
    } else if (!strcmp(op, "set_incumbent")) {
        rc = op_set_incumbent(s, req, out);
        if (rc)
            slot_unload(&s->inc);
    } else if (!strcmp(op, "health")) {
        rc = op_health(s, out);
    } else if (!strcmp(op, "quit")) {
        *quit = true;
        rc = 0;
    } else {
        runner_fail(RS_BAD_ARGS, "request: unknown op '%s' (measure, set_incumbent, ladder, health, quit)", op);
        rc = -1;
    }
    slot_unload(&cand);
    for (int i = 0; lad && i < PAIR_MAX_KERNELS; i++)
        slot_unload(&lad[i]);
    free(lad);
    if (op && (!strcmp(op, "measure") || !strcmp(op, "ladder"))) {
        charge(s, PH_LOAD);
        json_t *ph = json_object();
        for (int i = 0; i < PH_COUNT; i++)
            json_object_set_new(ph, phase_names[i], json_real(s->phase[i]));
        json_object_set_new(out, "phase_s", ph);
    }
    enum runner_status st = rc ? (runner_failed() ? runner_fail_status() : RS_INTERNAL_ERROR) : RS_OK;
    if (st == RS_LAUNCH_ERROR) {
        json_object_set_new(out, "worker_exits", json_true()); /* the context is poisoned */
        *quit = true;
    }
    output_emit(out, st, runner_fail_message());
    json_decref(req);
    return st;
}

static int serve_start(struct server *s, int argc, char **argv)
{
    TRY(args_parse(argc, argv, &s->o));
    TRY(gpu_open(s->o.device, &s->g));
    TRY(gpu_require_sm90(&s->g));
    s->pool.dtype = s->o.dtype;
    s->pool.shape = s->o.shape;
    s->pool.ref_mode = s->o.reference;
    s->pool.base_seed = s->o.seed;
    return 0;
}

int runner_cmd_serve(int argc, char **argv)
{
    struct server s;
    memset(&s, 0, sizeof s);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the tuner is gone: nobody reads our answers */
    json_t *ready = output_new("serve");
    json_object_set_new(ready, "event", json_string("ready"));
    json_object_set_new(ready, "protocol", json_integer(SERVE_PROTOCOL));
    json_object_set_new(ready, "pid", json_integer(getpid()));
    if (serve_start(&s, argc, argv)) {
        gpu_json_identity(&s.g, ready);
        int code = output_emit(ready, runner_fail_status(), runner_fail_message());
        gpu_close(&s.g);
        return code;
    }
    gpu_json_identity(&s.g, ready);
    output_problem(ready, s.o.dtype, &s.o.shape, s.o.seed);
    output_emit(ready, RS_OK, "");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    bool quit = false;
    int code = 0;
    while (!quit && (len = getline(&line, &cap, stdin)) >= 0) {
        if (len > SERVE_LINE_MAX) {
            json_t *out = output_new("serve");
            output_emit(out, RS_BAD_ARGS, "request line longer than 65536 bytes");
            continue;
        }
        if (len <= 1)
            continue;
        if (handle(&s, line, &quit) == RS_LAUNCH_ERROR)
            code = runner_status_exit(RS_LAUNCH_ERROR);
    }
    free(line);
    if (code == 0) { /* a poisoned context would fail these anyway */
        slot_unload(&s.inc);
        rotation_release(&s.rot);
        pool_release(&s.pool);
        gpu_free(&s.d_scratch);
    }
    gpu_close(&s.g);
    return code;
}
