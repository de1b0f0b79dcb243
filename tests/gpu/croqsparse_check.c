/* tests/gpu/croqsparse_check.c — libcroqsparse on the GPU, linked the way an application
 * links it, next to cuSPARSELt in the same process on the same data (run by
 * tests/gpu/library.sh; built as build/bin/croqsparse-check).
 *
 * Per shape and dtype: seeded operands (runner/data.c: A pruned and compressed on the
 * host), the library's GPU compress of the same pruned A compared byte for byte with the
 * host's, a plan, and the product verified on every element against the reference
 * (runner/reference.c), twice: unscaled (alpha 1, no vectors: the problem the tuner
 * measured and cuSPARSELt computes) and scaled by the epilogue (f16 alpha 0.5; e4m3 alpha
 * 0.75 with seeded scale vectors in [0.25, 2]). Each is timed (runner/timing.c: 5 trials
 * of up to 500 back-to-back launches, as the tuner times; trial_iters) beside cuSPARSELt default and
 * after search on the unscaled problem; the host time per croqsparse_matmul call (median
 * of 100 enqueues). Per case three picks of the library: the plan's own (the pack's exact
 * entry, else its cost model's best predicted kernel, else the nearest tuned shape's:
 * `match`), the pick of croqsparse_plan_search on the unscaled problem (`search`, its
 * kernel and time; CROQSPARSE_CHECK_CACHE names a plan cache file for it), and the
 * epilogue's. The table's ratio is unscaled ours / best cuSPARSELt, srch_ratio the
 * search's. "tuned" is the TFLOPS the pack's index quotes for the kernel at the shape it
 * was tuned for: alone for an exact match, "<tflops>@<MxNxK>" when the kernel was tuned
 * for another shape (that number is not this shape's), "-" for a fallback (of the source
 * the tuning measured: plan_describe's source says when that is not the pack's). `graph`:
 * the unscaled product captured into a CUDA graph (global capture mode) and replayed
 * equals the direct launch's C bit for bit, and plan_search refuses the capturing stream.
 * With CROQSPARSE_CHECK_ORACLE=1 the oracle too: every candidate of the plan
 * (croqsparse_plan_candidates / _select) verified, timed together in interleaved rounds
 * (oracle()) and verified again, the fastest in `oracle` / `o_kernel`, m/o and s/o the plan's and the
 * search's pick over it, both numbers from the oracle's rounds (the targets: m/o
 * >= 0.90, s/o >= 0.98).
 * First, GPU prune + compress of a 16384x16384 f16 weight timed
 * and compared with the host's. One JSON line per case on stdout, a table row per case and
 * progress lines ("  .. ") on stderr; a crash prints a backtrace.
 * Exit 1 if anything failed verification or a compress differed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <execinfo.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "croqsparse.h"
#include "format/sparse24.h"
#include "ours.h"
#include "util/decimal.h"
#include "util/log.h"

struct lib_case {
    croqsparse_plan_t plan;
    CUdeviceptr values, meta, c;
    const struct operands *o;
    CUstream stream;
};

static int lib_launch(void *ctx)
{
    struct lib_case *l = ctx;
    croqsparse_status_t s = croqsparse_matmul(l->plan, (void *)l->values, (void *)l->meta, (void *)l->o->d_b,
                                              (void *)l->c, (const float *)l->o->d_scale_a,
                                              (const float *)l->o->d_scale_b, l->stream);
    if (s) {
        runner_fail(RS_LAUNCH_ERROR, "%s", croqsparse_last_error());
        return -1;
    }
    return 0;
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median host time of one croqsparse_matmul call (enqueue only), microseconds. */
static double host_us(struct lib_case *l)
{
    double t[100];
    for (int i = 0; i < 100; i++) {
        double t0 = now_us();
        lib_launch(l);
        t[i] = now_us() - t0;
    }
    cuStreamSynchronize(l->stream);
    qsort(t, 100, sizeof t[0], cmp_double);
    return t[50];
}

/* The library's GPU compress of the pruned A against the host's bytes. 1 equal, 0 not. */
static int compress_equal(croqsparse_handle_t h, struct lib_case *l)
{
    const struct operands *o = l->o;
    size_t vb = croqsparse_values_bytes(o->dtype, o->m, o->k), mb = croqsparse_meta_bytes(o->m, o->k);
    if (croqsparse_compress(h, o->dtype, o->m, o->k, (void *)o->d_a_dense, (void *)l->values, (void *)l->meta,
                            l->stream) || cuStreamSynchronize(l->stream))
        return 0;
    void *v = xmalloc(vb), *m = xmalloc(mb);
    int eq = cuMemcpyDtoH(v, l->values, vb) == CUDA_SUCCESS && cuMemcpyDtoH(m, l->meta, mb) == CUDA_SUCCESS &&
             !memcmp(v, o->a_values, vb) && !memcmp(m, o->meta_wgmma, mb);
    free(v);
    free(m);
    return eq;
}

/* A progress line on stderr, flushed (a run cut short or crashing still says how far it
 * got), with the seconds since the process started (where a case's time goes). */
static void step(const char *what, int dtype, const struct croq_shape *s)
{
    static struct timespec t0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (!t0.tv_sec && !t0.tv_nsec)
        t0 = t;
    fprintf(stderr, "  .. %7.1f s %s %ldx%ldx%ld: %s\n", (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9,
            croq_dtype_name(dtype), s->m, s->n, s->k, what);
    fflush(stderr);
}

static void on_fatal(int sig)
{
    void *frames[64];
    int n = backtrace(frames, 64);
    fprintf(stderr, "croqsparse-check: signal %d, backtrace:\n", sig);
    backtrace_symbols_fd(frames, n, 2);
    _exit(128 + sig);
}

static double tflops_of(const struct subject *s) { return s->timed && s->status == RS_OK ? s->t.tflops : 0; }

/* Launches per trial: as many as the tuner times (500) where they last under ~100 ms
 * (the tuner's trials of the small shapes are a few ms), at least 20 on the largest (the
 * whole run must stay within one 10-minute device call): from an estimate at 1000 (f16)
 * / 2000 (e4m3) TFLOPS, about the fastest either reaches. */
static int trial_iters(int dtype, const struct croq_shape *s)
{
    double est_ms = 2.0 * s->m * s->n * s->k / (dtype == CROQ_DTYPE_E4M3 ? 2e15 : 1e15) * 1e3;
    double n = 100.0 / (est_ms > 0 ? est_ms : 1);
    return n > 500 ? 500 : n < 20 ? 20 : (int)n;
}

/* The plan's product captured into a CUDA graph and replayed equals the direct launch's
 * C, bit for bit; plan_search refuses the stream while it captures. 1 ok. */
static int graph_check(struct lib_case *l)
{
    const struct operands *o = l->o;
    size_t bytes = (size_t)o->m * o->n * 2;
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    int ok = 0;
    void *direct = xmalloc(bytes), *replay = xmalloc(bytes);
    if (cuMemsetD8(l->c, 0, bytes) || lib_launch(l) || cuStreamSynchronize(l->stream) ||
        cuMemcpyDtoH(direct, l->c, bytes) || cuMemsetD8(l->c, 0, bytes))
        goto out;
    if (cuStreamBeginCapture(l->stream, CU_STREAM_CAPTURE_MODE_GLOBAL))
        goto out;
    int launched = lib_launch(l) == 0;
    croqsparse_status_t refused = croqsparse_plan_search(l->plan, (void *)l->values, (void *)l->meta,
                                                         (void *)o->d_b, (const float *)o->d_scale_a,
                                                         (const float *)o->d_scale_b, l->stream, NULL, NULL);
    if (cuStreamEndCapture(l->stream, &graph) || !launched || refused != CROQSPARSE_STATUS_NOT_SUPPORTED) {
        fprintf(stderr, "graph: capture %s, search while capturing: %s\n", launched ? "ok" : "failed",
                croqsparse_status_string(refused));
        goto out;
    }
    if (cuGraphInstantiate(&exec, graph, 0) || cuGraphLaunch(exec, l->stream) || cuStreamSynchronize(l->stream) ||
        cuMemcpyDtoH(replay, l->c, bytes))
        goto out;
    ok = !memcmp(direct, replay, bytes);
out:
    if (exec)
        cuGraphExecDestroy(exec);
    if (graph)
        cuGraphDestroy(graph);
    free(direct);
    free(replay);
    return ok;
}

/* A plan for the case's problem (searched first when searched is given: its result
 * there), verified and timed on env (its reference). 1 ok. */
static int time_plan(croqsparse_handle_t h, const struct bench_env *env, struct lib_case *l,
                     croqsparse_epilogue_t epi, float alpha, struct subject *s, croqsparse_plan_info *info,
                     double *hus, croqsparse_search_info *searched, int *graph_ok)
{
    const struct operands *o = l->o;
    croqsparse_status_t st = croqsparse_plan_create(h, &l->plan, o->dtype, o->m, o->n, o->k, epi, alpha);
    int ok = 0;
    if (st) {
        fprintf(stderr, "plan: %s\n", croqsparse_last_error());
        return 0;
    }
    if (searched && croqsparse_plan_search(l->plan, (void *)l->values, (void *)l->meta, (void *)o->d_b,
                                           (const float *)o->d_scale_a, (const float *)o->d_scale_b, l->stream,
                                           getenv("CROQSPARSE_CHECK_CACHE"), searched)) {
        fprintf(stderr, "search: %s\n", croqsparse_last_error());
        croqsparse_plan_destroy(l->plan);
        l->plan = NULL;
        return 0;
    }
    croqsparse_plan_describe(l->plan, info);
    if (graph_ok)
        *graph_ok = graph_check(l);
    s->available = true;
    const struct subject_kernel k = {.fn = lib_launch, .ctx = l, .d_c = l->c};
    ok = subject_measure(env, &k, s) == 0;
    if (hus)
        *hus = host_us(l);
    croqsparse_plan_destroy(l->plan);
    l->plan = NULL;
    return ok;
}

/* CROQSPARSE_CHECK_ORACLE_ROUNDS, 7 unless set (main reads it: 5..TIMING_MAX_TRIALS, so
 * tests/gpu/tools/oracle-self.py can split them 4 against at least 1). */
static int oracle_rounds = 7;

/* The oracle (CROQSPARSE_CHECK_ORACLE=1): every candidate of the unscaled plan
 * (croqsparse_plan_candidates), each in a plan of its own selected to it
 * (croqsparse_plan_select) writing a C of its own, verified on every element; then all of
 * them timed together as `compare` times its subjects (runner/subject.h
 * subjects_time_rounds: one warm-up over all, then oracle_rounds rounds of one trial of
 * each in the Williams order,
 * so no candidate always follows the same one and a clock that moves during the case moves
 * every candidate alike), and each one's C verified again. A candidate's number is the
 * median of its rounds: with the old 3 rounds, each after a warm-up of its own, the
 * fastest of 16 was biased up by the 1-3 % spread of one trial, and the warm-ups cost
 * about 2 s a candidate on the largest shapes. Returns the fastest's TFLOPS (0 when none
 * ran) with its key in kernel; the per-candidate list into *list (each with its rounds'
 * trial times and SM clocks, pairtime.h ladder_timing_json); *failed counts the
 * candidates that were wrong or faulted (a kernel the search could pick). */
static double oracle(croqsparse_handle_t h, const struct bench_env *env, struct lib_case *l, char *kernel,
                     size_t klen, json_t **list, int *failed)
{
    enum { MAX = PAIR_MAX_KERNELS };
    const struct operands *o = l->o;
    croqsparse_candidate_info c[MAX];
    struct lib_case lc[MAX];
    struct subject s[MAX];
    struct subject_kernel sk[MAX];
    struct pair_kernel pk[MAX];
    json_t *rounds[MAX] = {0}; /* each one's trials and the clock NVML saw in each */
    int n = 0, nt = 0, idx[MAX];
    double best = 0;
    *list = json_array();
    *failed = 0;
    snprintf(kernel, klen, "-");
    croqsparse_plan_t base = NULL;
    if (croqsparse_plan_create(h, &base, o->dtype, o->m, o->n, o->k, CROQSPARSE_EPILOGUE_ALPHA, 1.0f) ||
        croqsparse_plan_candidates(base, c, MAX, &n)) {
        fprintf(stderr, "oracle: %s\n", croqsparse_last_error());
        croqsparse_plan_destroy(base);
        return 0;
    }
    croqsparse_plan_destroy(base);
    if (n > MAX) /* rounds_time's limit; the pack holds 16 kernels a dtype today */
        fprintf(stderr, "oracle: %d candidates, the first %d timed\n", n, MAX);
    n = n < MAX ? n : MAX;
    for (int i = 0; i < n; i++) {
        lc[i] = *l;
        lc[i].plan = NULL;
        lc[i].c = 0;
        s[i] = (struct subject){.name = "croqsparse_oracle", .available = true, .status = RS_OK};
        sk[i] = (struct subject_kernel){.fn = lib_launch, .ctx = &lc[i]};
        if (croqsparse_plan_create(h, &lc[i].plan, o->dtype, o->m, o->n, o->k, CROQSPARSE_EPILOGUE_ALPHA, 1.0f) ||
            croqsparse_plan_select(lc[i].plan, i)) {
            s[i].status = RS_INTERNAL_ERROR;
            snprintf(s[i].error, sizeof s[i].error, "%s", croqsparse_last_error());
            continue;
        }
        if (gpu_alloc(&lc[i].c, (size_t)o->m * o->n * 2, "oracle C")) {
            subject_take_failure(&s[i]);
            continue;
        }
        sk[i].d_c = lc[i].c;
        if (subject_verify(env, &sk[i], &s[i]) == 0 && subject_timed_kernel(env, &sk[i], &s[i], &pk[nt]) == 0)
            idx[nt++] = i;
    }
    struct ladder_timing *lt = xmalloc(sizeof *lt);
    if (nt && subjects_time_rounds(env, sk, s, idx, pk, nt, oracle_rounds, ROUND_BALANCED, lt) == 0)
        for (int j = 0; j < nt; j++)
            rounds[idx[j]] = ladder_timing_json(lt, j);
    free(lt);
    for (int i = 0; i < n; i++) {
        double tf = tflops_of(&s[i]);
        if (s[i].status != RS_OK) { /* wrong, faulted or not set up: a kernel the search could pick */
            fprintf(stderr, "oracle: %s: %s\n", c[i].key, s[i].error);
            ++*failed;
        }
        json_array_append_new(*list, json_pack("{s:s, s:s, s:f, s:f, s:f, s:o}", "kernel", c[i].key, "config",
                                               c[i].config, "tflops", tf, "spread_pct",
                                               s[i].timed ? s[i].t.spread_pct : 0.0, "predicted_tflops",
                                               c[i].predicted_tflops, "rounds", rounds[i] ? rounds[i] : json_null()));
        if (tf > best) {
            best = tf;
            snprintf(kernel, klen, "%.95s", c[i].key);
        }
        subject_release(&s[i]);
        croqsparse_plan_destroy(lc[i].plan);
        gpu_free(&lc[i].c);
    }
    return best;
}

/* The oracle's TFLOPS of the candidate (key, config) in its list (0 when absent): the
 * plan's and the search's picks are judged by the oracle's own interleaved rounds, so a
 * clock that moved between those picks' own timings and the oracle's does not enter m/o
 * and s/o. */
static double oracle_tflops_of(const json_t *list, const char *key, const char *config)
{
    size_t i;
    json_t *c;
    json_array_foreach(list, i, c) {
        if (!strcmp(json_string_value(json_object_get(c, "kernel")), key) &&
            !strcmp(json_string_value(json_object_get(c, "config")), config))
            return json_real_value(json_object_get(c, "tflops"));
    }
    return 0;
}

static int run_case(croqsparse_handle_t h, const struct gpu *g, int dtype, const struct croq_shape *shape)
{
    struct operands o;
    struct reference r;
    struct subject plain = {.name = "croqsparse_unscaled"}, ours = {.name = "croqsparse"}, def = {0},
                   search = {0}, srch = {.name = "croqsparse_search"};
    struct lib_case l = {.o = &o, .stream = g->stream};
    croqsparse_plan_info info = {0}, info_plain = {0}, info_srch = {0};
    croqsparse_search_info si = {0};
    int ok = 0, ok_plain = 0, ok_srch = 0, eq = 0, graph_ok = 0;
    double hus = 0;
    step("operands and reference", dtype, shape);
    if (operands_make(dtype, shape, 1, &o) || operands_upload(g, &o) || operands_upload_dense(g, &o) ||
        reference_compute(g, &o, REF_AUTO, &r)) {
        fprintf(stderr, "%s %ldx%ldx%ld: set-up failed: %s\n", croq_dtype_name(dtype), shape->m, shape->n, shape->k,
                runner_fail_message());
        runner_fail_clear();
        return 0;
    }
    struct bench_env env = {g, &o, &r, {10, trial_iters(dtype, shape), 5, 0}, true, false};
    gpu_alloc(&l.values, croqsparse_values_bytes(dtype, o.m, o.k), "values");
    gpu_alloc(&l.meta, croqsparse_meta_bytes(o.m, o.k), "meta");
    gpu_alloc(&l.c, (size_t)o.m * o.n * 2, "C");
    step("GPU compress", dtype, shape);
    eq = compress_equal(h, &l);
    /* The unscaled problem first (alpha 1, no vectors): what the tuner measured and what
     * cuSPARSELt computes, so these three numbers compare; the epilogue's cost is the
     * difference to the scaled run below. */
    step("cuSPARSELt", dtype, shape);
    struct subject_kernel kdef, ksearch;
    struct slt *slt = vendor_cusparselt_open(&env, -1, -1, &def, &search, &kdef, &ksearch); /* searched */
    if (kdef.fn)
        subject_measure(&env, &kdef, &def);
    if (ksearch.fn)
        subject_measure(&env, &ksearch, &search);
    vendor_cusparselt_close(slt);
    step("matmul unscaled: verify, time", dtype, shape);
    ok_plain = time_plan(h, &env, &l, CROQSPARSE_EPILOGUE_ALPHA, 1.0f, &plain, &info_plain, NULL, NULL, &graph_ok);
    step("plan search (unscaled): verify, time", dtype, shape);
    ok_srch = time_plan(h, &env, &l, CROQSPARSE_EPILOGUE_ALPHA, 1.0f, &srch, &info_srch, NULL, &si, NULL);
    char oracle_kernel[96] = "-";
    json_t *oracle_list = NULL;
    double oracle_tf = 0;
    int oracle_failed = 0;
    const char *want_oracle = getenv("CROQSPARSE_CHECK_ORACLE");
    if (want_oracle && !strcmp(want_oracle, "1")) {
        step("oracle: every candidate, interleaved", dtype, shape);
        oracle_tf = oracle(h, &env, &l, oracle_kernel, sizeof oracle_kernel, &oracle_list, &oracle_failed);
    }
    if (dtype == CROQ_DTYPE_E4M3)
        operands_scale(&o, 1);
    else
        o.alpha = 0.5f;
    reference_scale(&o, &r);
    step("matmul with the epilogue: verify, time", dtype, shape);
    ok = time_plan(h, &env, &l,
                   dtype == CROQ_DTYPE_E4M3 ? CROQSPARSE_EPILOGUE_ALPHA_SCALES : CROQSPARSE_EPILOGUE_ALPHA, o.alpha,
                   &ours, &info, &hus, NULL, NULL);
    ok = ok && ok_plain && ok_srch && graph_ok && !oracle_failed && !strcmp(info.key, info_plain.key);
    step("record", dtype, shape);
    json_t *cands = json_array();
    for (int i = 0; i < CROQSPARSE_SEARCH_MAX && si.candidate[i].key[0]; i++)
        json_array_append_new(cands, json_pack("{s:s, s:s, s:f}", "kernel", si.candidate[i].key, "config",
                                               si.candidate[i].config, "us", si.candidate[i].us));
    json_t *j = json_pack("{s:s, s:I, s:I, s:I, s:b, s:b, s:b, s:s, s:s, s:s, s:s, s:f, s:[I,I,I], s:f, s:f, s:o, "
                          "s:o, s:o, s:o, s:o, s:{s:s, s:s, s:b, s:i, s:f, s:s, s:o}}",
                          "dtype", croq_dtype_name(dtype), "m", (json_int_t)o.m, "n", (json_int_t)o.n, "k",
                          (json_int_t)o.k, "verified", ok, "compress_equal", eq, "graph_replay_equal", graph_ok,
                          "kernel", info.key, "match", info.match, "config", info.config, "source", info.source,
                          "tuned_tflops", info.tuned_tflops, "tuned_shape", (json_int_t)info.tuned_m,
                          (json_int_t)info.tuned_n, (json_int_t)info.tuned_k, "alpha", (double)o.alpha,
                          "host_us_per_call", hus, "croqsparse", subject_json(&ours, &env), "croqsparse_unscaled",
                          subject_json(&plain, &env), "croqsparse_search", subject_json(&srch, &env),
                          "cusparselt_default", subject_json(&def, &env), "cusparselt_search",
                          subject_json(&search, &env), "search", "kernel", info_srch.key, "config", info_srch.config,
                          "from_cache", si.from_cache, "timed", si.timed, "best_us", si.best_us, "note", si.note,
                          "candidates", cands);
    double m_o = 0, s_o = 0;
    if (oracle_list && oracle_tf > 0) {
        m_o = oracle_tflops_of(oracle_list, info_plain.key, info_plain.config) / oracle_tf;
        s_o = oracle_tflops_of(oracle_list, info_srch.key, info_srch.config) / oracle_tf;
    }
    json_object_set_new(j, "oracle", oracle_list ? json_pack("{s:s, s:f, s:f, s:f, s:i, s:i, s:o}", "kernel",
                                                             oracle_kernel, "tflops", oracle_tf, "model_over_oracle",
                                                             m_o, "search_over_oracle", s_o, "rounds", oracle_rounds,
                                                             "failed", oracle_failed, "candidates", oracle_list)
                                                 : json_null());
    char *line = json_dumps(j, JSON_COMPACT);
    printf("%s\n", line);
    fflush(stdout);
    free(line);
    json_decref(j);
    double best_v = fmax(tflops_of(&def), tflops_of(&search));
    char shape_s[64];
    snprintf(shape_s, sizeof shape_s, "%ldx%ldx%ld", o.m, o.n, o.k);
    char tuned[48];
    if (!strcmp(info.match, "exact"))
        snprintf(tuned, sizeof tuned, "%.1f", info.tuned_tflops);
    else if (!strcmp(info.key, "fallback"))
        snprintf(tuned, sizeof tuned, "-");
    else /* another shape's number: say whose */
        snprintf(tuned, sizeof tuned, "%.1f@%ldx%ldx%ld", info.tuned_tflops, info.tuned_m, info.tuned_n, info.tuned_k);
    fprintf(stderr, "%-5s %-18s %-8s %-24.24s %-26s %-6s %-5s %-5s %9.1f %-24.24s %9.1f %9.1f %9.1f %9.1f %6.2f %6.2f "
            "%9.1f %-24.24s %5.2f %5.2f %7.1f %8.3f\n",
            croq_dtype_name(dtype), shape_s, info.match, info.key, tuned, ok ? "ok" : "FAIL", eq ? "same" : "DIFF",
            graph_ok ? "same" : "DIFF", tflops_of(&plain), info_srch.key, tflops_of(&srch), tflops_of(&ours),
            tflops_of(&def), tflops_of(&search), best_v > 0 ? tflops_of(&plain) / best_v : 0,
            best_v > 0 ? tflops_of(&srch) / best_v : 0, oracle_tf, oracle_kernel,
            m_o, s_o, hus,
            ours.verified ? ours.v.max_err_over_tol : -1);
    subject_release(&plain);
    subject_release(&srch);
    subject_release(&ours);
    subject_release(&def);
    subject_release(&search);
    gpu_free(&l.values);
    gpu_free(&l.meta);
    gpu_free(&l.c);
    reference_release(&r);
    operands_release(&o);
    return ok && eq;
}

/* GPU prune + compress of a 16384 x 16384 f16 weight: timed, compared with the host. */
static int big_compress(croqsparse_handle_t h, const struct gpu *g)
{
    const long m = 16384, k = 16384;
    struct croq_shape s = {m, 8, k};
    struct operands o;
    CUdeviceptr dense, pruned, values, meta;
    CUevent e0, e1, e2;
    float ms[5] = {0}, cms[5] = {0};
    if (operands_make(CROQ_DTYPE_F16, &s, 7, &o)) /* host: pruned A, values, wgmma metadata */
        return 0;
    size_t db = (size_t)m * k * 2, vb = croqsparse_values_bytes(CROQSPARSE_F16, m, k), mb = croqsparse_meta_bytes(m, k);
    gpu_alloc(&dense, db, "dense");
    gpu_alloc(&pruned, db, "pruned");
    gpu_alloc(&values, vb, "values");
    gpu_alloc(&meta, mb, "meta");
    cuMemcpyHtoD(dense, o.a_dense, db); /* already pruned: prune must leave it as it is */
    cuEventCreate(&e0, 0);
    cuEventCreate(&e1, 0);
    cuEventCreate(&e2, 0);
    for (int i = 0; i < 5; i++) {
        cuEventRecord(e0, g->stream);
        if (croqsparse_prune(h, CROQSPARSE_F16, m, k, (void *)dense, (void *)pruned, g->stream))
            fprintf(stderr, "prune: %s\n", croqsparse_last_error());
        cuEventRecord(e1, g->stream);
        if (croqsparse_compress(h, CROQSPARSE_F16, m, k, (void *)pruned, (void *)values, (void *)meta, g->stream))
            fprintf(stderr, "compress: %s\n", croqsparse_last_error());
        cuEventRecord(e2, g->stream);
        cuEventSynchronize(e2);
        cuEventElapsedTime(&ms[i], e0, e1);
        cuEventElapsedTime(&cms[i], e1, e2);
    }
    void *v = xmalloc(vb), *mt = xmalloc(mb);
    cuMemcpyDtoH(v, values, vb);
    cuMemcpyDtoH(mt, meta, mb);
    int eq = !memcmp(v, o.a_values, vb) && !memcmp(mt, o.meta_wgmma, mb);
    double sp[5], sc[5];
    for (int i = 0; i < 5; i++)
        sp[i] = ms[i], sc[i] = cms[i];
    qsort(sp, 5, sizeof sp[0], cmp_double);
    qsort(sc, 5, sizeof sc[0], cmp_double);
    printf("{\"case\":\"compress_16384x16384_f16\",\"prune_ms\":%.3f,\"compress_ms\":%.3f,\"equal_to_host\":%s}\n",
           sp[2], sc[2], eq ? "true" : "false");
    fprintf(stderr, "GPU 16384x16384 f16 (median of 5): prune %.3f ms, compress %.3f ms (values + metadata), %s "
            "the host's bytes\n", sp[2], sc[2], eq ? "equal to" : "DIFFERENT FROM");
    free(v);
    free(mt);
    gpu_free(&dense);
    gpu_free(&pruned);
    gpu_free(&values);
    gpu_free(&meta);
    operands_release(&o);
    return eq;
}

int main(int argc, char **argv)
{
    struct gpu g;
    croqsparse_handle_t h;
    int failed = 0, n = 0;
    log_set_prefix("croqsparse-check");
    signal(SIGSEGV, on_fatal);
    signal(SIGBUS, on_fatal);
    signal(SIGABRT, on_fatal);
    if (argc < 2) {
        fprintf(stderr, "usage: croqsparse-check [DTYPE:]MxNxK ... (both dtypes each, or DTYPE's alone)\n");
        return 2;
    }
    const char *rounds = getenv("CROQSPARSE_CHECK_ORACLE_ROUNDS");
    if (rounds) {
        long v;
        if (dec_long(rounds, &v) || v < 5 || v > TIMING_MAX_TRIALS) {
            fprintf(stderr, "CROQSPARSE_CHECK_ORACLE_ROUNDS '%s' is not a whole number in [5, %d]\n", rounds,
                    TIMING_MAX_TRIALS);
            return 2;
        }
        oracle_rounds = (int)v;
    }
    if (gpu_open(0, &g)) {
        fprintf(stderr, "no GPU: %s\n", runner_fail_message());
        return 77;
    }
    if (croqsparse_create(&h, 0)) {
        fprintf(stderr, "croqsparse_create: %s\n", croqsparse_last_error());
        return 1;
    }
    fprintf(stderr, "%-5s %-18s %-8s %-24s %-26s %-6s %-5s %-5s %9s %-24s %9s %9s %9s %9s %6s %6s %9s %-24s %5s %5s "
            "%7s %8s\n",
            "dtype", "shape", "match", "kernel", "tuned", "verify", "compr", "graph", "ours", "search", "ours_srch",
            "ours_epi", "slt_def", "slt_srch", "ratio", "s_rat", "oracle", "o_kernel", "m/o", "s/o", "host_us",
            "err/tol");
    int big_ok = big_compress(h, &g); /* first: cheap, and it is one of the run's numbers */
    for (int i = 1; i < argc; i++) /* per shape both dtypes, so a cut-off run covers both */
        for (int d = CROQ_DTYPE_F16; d <= CROQ_DTYPE_E4M3; d++) {
            struct croq_shape s;
            const char *arg = argv[i], *colon = strchr(arg, ':');
            if (colon) { /* "f16:MxNxK": that dtype alone */
                char dt[8];
                snprintf(dt, sizeof dt, "%.*s", (int)(colon - arg), arg);
                if (croq_dtype_parse(dt) < 0) {
                    fprintf(stderr, "bad dtype in '%s'\n", arg);
                    return 2;
                }
                if (croq_dtype_parse(dt) != d)
                    continue;
                arg = colon + 1;
            }
            if (shape_parse(arg, &s)) {
                fprintf(stderr, "bad shape '%s'\n", argv[i]);
                return 2;
            }
            n++;
            failed += !run_case(h, &g, d, &s);
        }
    fprintf(stderr, "%d of %d cases verified with an exact compress; big compress %s\n", n - failed, n,
            big_ok ? "ok" : "FAILED");
    failed += !big_ok;
    croqsparse_destroy(h);
    gpu_close(&g);
    return failed ? 1 : 0;
}
