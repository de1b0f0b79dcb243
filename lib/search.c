/* lib/search.c — a plan's choice among its ranked candidates after plan_create:
 * croqsparse_plan_search (the top-ranked kernels timed on the caller's operands into a
 * scratch output, the fastest kept, the choice cached in the caller's plan cache file,
 * plancache.c), croqsparse_plan_candidates (the ranking, listed) and croqsparse_plan_select
 * (one candidate installed). */
#include "internal.h"
#include "util/paired.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A candidate copied out of the pack under the handle's lock (the pack may be replaced
 * while the search times). */
struct cand {
    struct pack_entry e;         /* cubin points at image */
    unsigned char *image;        /* aligned copy of the cubin (cuModuleLoadData wants one) */
};

/* What one timed candidate holds on the device. */
struct loaded {
    struct kl_module mod;
    struct kl_launch launch;
    CUdeviceptr workspace;
    bool ok;
};

static void unload(struct loaded *l)
{
    if (l->workspace)
        KL_DRV(cuMemFree)(l->workspace);
    kl_module_unload(&l->mod);
    memset(l, 0, sizeof *l);
}

/* Load and prepare candidate c for p's shape (and its workspace). 0; 1 when the candidate
 * cannot run (why); -1 on a driver failure (recorded for fn). */
static int load_one(struct croqsparse_plan *p, const struct cand *c, struct loaded *l, char *why, size_t whylen,
                    const char *fn, croqsparse_status_t *st)
{
    struct kl_error ke;
    CUdeviceptr ph = p->h->placeholder;
    const struct kl_operands po = {(int)p->dtype, p->m, p->n, p->k, ph, ph, ph, ph, p->alpha, 0, 0};
    memset(l, 0, sizeof *l);
    if (kl_module_load_image(c->image, c->e.key, (int)p->dtype, &l->mod, &ke) || kl_module_check_k(&l->mod, p->k, &ke) ||
        kl_prepare(&l->mod, p->h->sm_count, &po, &l->launch, &ke)) {
        snprintf(why, whylen, "%s", ke.msg);
        unload(l);
        return 1;
    }
    if (l->launch.workspace_bytes) {
        CUresult rc = KL_DRV(cuMemAlloc)(&l->workspace, l->launch.workspace_bytes);
        if (rc == CUDA_SUCCESS)
            rc = KL_DRV(cuMemsetD8)(l->workspace, 0, l->launch.workspace_bytes);
        if (rc != CUDA_SUCCESS) {
            *st = cs_fail_cu(fn, rc, "cuMemAlloc/cuMemsetD8(split-K / stream-K workspace)");
            unload(l);
            return -1;
        }
    }
    l->ok = true;
    return 0;
}

/* reps launches of args, between two events: milliseconds per launch into *ms. */
static croqsparse_status_t run_reps(const struct loaded *l, const struct croq_gemm_args *args, int reps, CUstream s,
                                    CUevent e0, CUevent e1, double *ms, const char *fn)
{
    struct kl_error ke;
    float t = 0;
    CS_CU(fn, cuEventRecord, (e0, s));
    for (int i = 0; i < reps; i++)
        if (kl_launch(&l->launch, args, s, &ke))
            return cs_fail(CROQSPARSE_STATUS_CUDA_ERROR, fn, "%s", ke.msg);
    CS_CU(fn, cuEventRecord, (e1, s));
    CS_CU(fn, cuEventSynchronize, (e1));
    CS_CU(fn, cuEventElapsedTime, (&t, e0, e1));
    *ms = (double)t / reps;
    return CROQSPARSE_STATUS_SUCCESS;
}

/* Launches in a trial of trial_ms for a kernel of per_ms a launch: 1..max. */
static int trial_reps(double per_ms, double trial_ms, int max)
{
    double r = per_ms > 0 ? trial_ms / per_ms : max;
    return r < 1 ? 1 : r > max ? max : (int)r;
}

/* a before b: faster, or as fast and ranked higher */
static bool before(const double *us, int a, int b) { return us[a] < us[b] || (us[a] == us[b] && a < b); }

int cs_search_finalists(const double *us, int n, int *out)
{
    double fastest = 0;
    for (int i = 0; i < n; i++)
        if (us[i] > 0 && (fastest == 0 || us[i] < fastest))
            fastest = us[i];
    int nf = 0;
    for (; nf < CROQSPARSE_SEARCH_FINALISTS; nf++) { /* the next one after out[nf - 1] */
        int pick = -1;
        for (int i = 0; i < n; i++)
            if (us[i] > 0 && us[i] <= fastest * (1 + CROQSPARSE_SEARCH_FINAL_WITHIN) &&
                (nf == 0 || before(us, out[nf - 1], i)) && (pick < 0 || before(us, i, pick)))
                pick = i;
        if (pick < 0)
            break;
        out[nf] = pick;
    }
    return nf;
}

/* Rounds of one trial of each of the m candidates live[0..m) (reps[] launches), in the
 * Williams order; t[j][r] the per-launch ms of live[j]'s trial in round r. */
static croqsparse_status_t rounds(const struct loaded *l, const struct croq_gemm_args *args, const int *live, int m,
                                  const int *reps, int nrounds, double t[][CROQSPARSE_SEARCH_ROUNDS], CUstream s,
                                  CUevent e0, CUevent e1, const char *fn)
{
    int order[CROQSPARSE_SEARCH_MAX];
    croqsparse_status_t st;
    for (int r = 0; r < nrounds; r++) {
        paired_round_order(m, r, order);
        for (int j = 0; j < m; j++) {
            int i = live[order[j]];
            if ((st = run_reps(&l[i], &args[i], reps[i], s, e0, e1, &t[order[j]][r], fn)))
                return st;
        }
    }
    return CROQSPARSE_STATUS_SUCCESS;
}

/* The loaded candidates l[0..n) (those with ok) timed on o, interleaved, into us[i]
 * (median microseconds per product), and the fastest into *best (-1: none timed). Why a
 * warm-up, interleaved rounds and a final: under the power cap the SM clock stays near
 * its boost (~1980 MHz) for the first ~100 ms of sustained load, then falls to ~1350-1650
 * MHz (the warm-up samples, `"warmup"`, in results/h100/library/library-2.jsonl.gz), and
 * an application that runs the kernel runs it there. Without the warm-up, the first
 * rounds met the boost clock and the median mixed both states: on the H100 (2026-12-07,
 * results/h100/library/library-2) the search's candidates 2-4 looked 4-8 % faster than
 * the same kernels in the oracle's steady rounds, its first one 2-7 % slower, and 8 of 40
 * searches kept a kernel 2-8 % slower than the best. And a kernel's own power draw sets
 * its clock only over tens of milliseconds of its launches (include/croqsparse.h,
 * CROQSPARSE_SEARCH_FINALISTS), so the near-ties are decided in longer trials.
 *   1. each candidate launched once (it loads and sizes a warm-up trial: as many launches
 *      as fit CROQSPARSE_SEARCH_TRIAL_MS, 1..200);
 *   2. warm-up: every candidate in turn runs such a trial until the GPU has run them for
 *      CROQSPARSE_SEARCH_WARMUP_MS (one pass at least); each candidate's last warm trial
 *      sizes its timed trials;
 *   3. CROQSPARSE_SEARCH_ROUNDS rounds of one trial of every candidate, in the Williams
 *      order of src/util/paired.h (each candidate takes each position, and follows each
 *      other one, equally often over a period of n rounds, 2n for an odd n: exactly so
 *      in 8 rounds for 1, 2, 4 or 8 candidates, nearly so for the others), so no
 *      candidate always starts at the clock another one's heat left;
 *   4. the final (cs_search_finalists; two finalists at least): CROQSPARSE_SEARCH_FINAL_ROUNDS
 *      rounds of one trial of CROQSPARSE_SEARCH_FINAL_TRIAL_MS (1..1000 launches, sized by
 *      the candidate's median) of every finalist, in the same order; a finalist's us is its
 *      final's median, and the fastest finalist is *best. */
static croqsparse_status_t time_all(const struct loaded *l, int n, const struct kl_operands *o, CUstream s,
                                    CUevent e0, CUevent e1, double *us, int *best, const char *fn)
{
    _Static_assert(CROQSPARSE_SEARCH_FINAL_ROUNDS <= CROQSPARSE_SEARCH_ROUNDS, "t holds either stage's rounds");
    struct croq_gemm_args args[CROQSPARSE_SEARCH_MAX];
    double t[CROQSPARSE_SEARCH_MAX][CROQSPARSE_SEARCH_ROUNDS];
    int reps[CROQSPARSE_SEARCH_MAX], live[CROQSPARSE_SEARCH_MAX], nl = 0;
    croqsparse_status_t st;
    *best = -1;
    for (int i = 0; i < n; i++) {
        struct kl_error ke;
        double one;
        if (!l[i].ok)
            continue;
        if (kl_bind(&l[i].launch, o, l[i].workspace, &args[i], &ke))
            return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "%s", ke.msg);
        if ((st = run_reps(&l[i], &args[i], 1, s, e0, e1, &one, fn)))
            return st;
        reps[i] = trial_reps(one, CROQSPARSE_SEARCH_TRIAL_MS, 200);
        live[nl++] = i;
    }
    /* a pass that adds no time (no candidate, or timings of 0) ends the warm-up */
    for (double warm_ms = 0, pass_ms = 1; warm_ms < CROQSPARSE_SEARCH_WARMUP_MS && pass_ms > 0;) {
        pass_ms = 0;
        for (int j = 0; j < nl; j++) {
            int i = live[j];
            double per;
            if ((st = run_reps(&l[i], &args[i], reps[i], s, e0, e1, &per, fn)))
                return st;
            pass_ms += per * reps[i];
            reps[i] = trial_reps(per, CROQSPARSE_SEARCH_TRIAL_MS, 200);
        }
        warm_ms += pass_ms;
    }
    if ((st = rounds(l, args, live, nl, reps, CROQSPARSE_SEARCH_ROUNDS, t, s, e0, e1, fn)))
        return st;
    for (int j = 0; j < nl; j++)
        us[live[j]] = paired_median(t[j], CROQSPARSE_SEARCH_ROUNDS) * 1e3;
    int fin[CROQSPARSE_SEARCH_FINALISTS];
    int nf = cs_search_finalists(us, n, fin);
    *best = nf ? fin[0] : nl ? live[0] : -1; /* every time 0 (no timing): the plan's ranking */
    if (nf < 2)
        return CROQSPARSE_STATUS_SUCCESS;
    for (int j = 0; j < nf; j++)
        reps[fin[j]] = trial_reps(us[fin[j]] / 1e3, CROQSPARSE_SEARCH_FINAL_TRIAL_MS, 1000);
    if ((st = rounds(l, args, fin, nf, reps, CROQSPARSE_SEARCH_FINAL_ROUNDS, t, s, e0, e1, fn)))
        return st;
    for (int j = 0; j < nf; j++) {
        us[fin[j]] = paired_median(t[j], CROQSPARSE_SEARCH_FINAL_ROUNDS) * 1e3;
        if (us[fin[j]] < us[*best])
            *best = fin[j];
    }
    return CROQSPARSE_STATUS_SUCCESS;
}

/* The plan takes l (which is emptied): its old module and workspace go (its matmuls are
 * done, the header says so). */
static void install(struct croqsparse_plan *p, struct loaded *l, const struct pack *ident, const struct pack_entry *e,
                    const char *match)
{
    if (p->workspace)
        KL_DRV(cuMemFree)(p->workspace);
    kl_module_unload(&p->mod);
    p->mod = l->mod;
    p->launch = l->launch;
    p->workspace = l->workspace;
    memset(l, 0, sizeof *l);
    pthread_mutex_lock(&p->h->lock); /* the notes, as plan_create gives them */
    cs_describe(p, ident, e, match);
    pthread_mutex_unlock(&p->h->lock);
}

/* The ranked candidates of p (its current kernel first) copied out of the pack, at most
 * CROQSPARSE_SEARCH_MAX; with a cache choice, only the entry it names (when the pack has
 * it for this shape). The pack's identity (no entries) into ident; with a cache, the
 * problem's cache key (CS_CACHE_KEY_MAX bytes) into key, made from the pack ranked here, so
 * a choice is stored under the key it was searched for even if the pack is replaced. */
static croqsparse_status_t collect(struct croqsparse_plan *p, const char *cache_path, struct cand *c, int *n,
                                   bool *from_cache, struct cs_cache_choice *hit, struct pack *ident, char *key,
                                   char *note, size_t notelen, const char *fn)
{
    croqsparse_handle_t h = p->h;
    struct croq_shape s = {p->m, p->n, p->k};
    char why[CROQ_WHY_MAX];
    croqsparse_status_t st = CROQSPARSE_STATUS_SUCCESS;
    *n = 0;
    *from_cache = false;
    pthread_mutex_lock(&h->lock);
    /* the identity of the pack ranked (its strings and sum): the cache line and the plan's
     * description name it even if the handle's pack is replaced while the search times */
    *ident = h->pack;
    ident->e = NULL;
    ident->n = 0;
    ident->model = NULL;
    ident->model_bytes = 0;
    long *rank = malloc((h->pack.n + 1) * sizeof *rank);
    long total = rank ? cs_rank(h, p->dtype, &s, rank, h->pack.n + 1, NULL, why, sizeof why) : -1;
    if (!rank || total <= 0) {
        st = cs_fail(rank ? CROQSPARSE_STATUS_NO_KERNEL : CROQSPARSE_STATUS_OUT_OF_MEMORY, fn, "%s",
                     rank ? why : "out of host memory");
        goto out;
    }
    if (cache_path) {
        cs_plancache_key(key, CS_CACHE_KEY_MAX, h->gpu, h->driver_version, h->pack.sum, h->trust, p->dtype, p->m,
                         p->n, p->k, p->epilogue);
        enum cs_cache_result r = cs_plancache_lookup(cache_path, key, hit, note, notelen);
        for (long i = 0; r == CS_CACHE_HIT && i < total; i++) {
            const struct pack_entry *e = &h->pack.e[rank[i]];
            /* by configuration: the ranking lists one entry of each (pack_rank), and the
             * one a choice names may be a copy it left out */
            if (!strcmp(e->config, hit->config)) {
                rank[0] = rank[i];
                total = 1;
                *from_cache = true;
            }
        }
        if (r == CS_CACHE_HIT && !*from_cache)
            snprintf(note, notelen, "plan cache '%.100s': its choice for %.150s (%.40s %.80s) is no kernel of this "
                     "pack valid for the shape: searched again", cache_path, key, hit->key, hit->config);
    }
    /* the plan's current kernel first: the search keeps it unless another is faster */
    for (long i = 0; !*from_cache && i < total; i++)
        if (!strcmp(h->pack.e[rank[i]].config, p->info.config) &&
            !strcmp(h->pack.e[rank[i]].fallback ? "fallback" : h->pack.e[rank[i]].key, p->info.key)) {
            long first = rank[i];
            memmove(rank + 1, rank, (size_t)i * sizeof *rank);
            rank[0] = first;
            break;
        }
    for (long i = 0; i < total && *n < CROQSPARSE_SEARCH_MAX; i++) {
        const struct pack_entry *e = &h->pack.e[rank[i]];
        struct cand *x = &c[(*n)++];
        x->e = *e;
        x->image = malloc(e->cubin_bytes);
        if (!x->image) {
            st = cs_fail(CROQSPARSE_STATUS_OUT_OF_MEMORY, fn, "out of host memory");
            goto out;
        }
        memcpy(x->image, e->cubin, e->cubin_bytes);
        x->e.cubin = x->image;
    }
out:
    free(rank);
    pthread_mutex_unlock(&h->lock);
    return st;
}

static croqsparse_status_t search(struct croqsparse_plan *p, const struct kl_operands *user, CUstream stream,
                                  const char *cache_path, croqsparse_search_info *info, const char *fn)
{
    struct cand c[CROQSPARSE_SEARCH_MAX];
    struct loaded l[CROQSPARSE_SEARCH_MAX] = {0};
    double us[CROQSPARSE_SEARCH_MAX] = {0};
    struct cs_cache_choice hit;
    struct pack pk;
    char key[CS_CACHE_KEY_MAX];
    CUevent e0 = NULL, e1 = NULL;
    CUdeviceptr scratch = 0;
    CUstreamCaptureStatus cap = CU_STREAM_CAPTURE_STATUS_NONE;
    bool from_cache;
    int n = 0, best_i = -1;
    char why[1024];
    croqsparse_status_t st;
    CS_CU(fn, cuStreamIsCapturing, (stream, &cap));
    if (cap != CU_STREAM_CAPTURE_STATUS_NONE)
        return cs_fail(CROQSPARSE_STATUS_NOT_SUPPORTED, fn, "the stream is being captured into a CUDA graph: the search "
                       "allocates, synchronizes and times; search before capturing (the plan then captures the kernel "
                       "it chose)");
    if ((st = collect(p, cache_path, c, &n, &from_cache, &hit, &pk, key, info->note, sizeof info->note, fn)))
        goto done;
    if (info->note[0])
        fprintf(stderr, "croqsparse: warning: %s\n", info->note);
    struct kl_operands o = *user;
    if (!from_cache) {
        CUresult rc = KL_DRV(cuMemAlloc)(&scratch, (size_t)p->m * (size_t)p->n * 2);
        if (rc != CUDA_SUCCESS) {
            st = cs_fail_cu(fn, rc, "cuMemAlloc(scratch C)");
            goto done;
        }
        o.c = scratch; /* never the caller's C */
        if ((rc = KL_DRV(cuEventCreate)(&e0, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
            (rc = KL_DRV(cuEventCreate)(&e1, CU_EVENT_DEFAULT)) != CUDA_SUCCESS) {
            st = cs_fail_cu(fn, rc, "cuEventCreate");
            goto done;
        }
        CUresult sr = KL_DRV(cuStreamSynchronize)(stream); /* the caller's work before ours */
        if (sr != CUDA_SUCCESS) {
            st = cs_fail_cu(fn, sr, "cuStreamSynchronize");
            goto done;
        }
    }
    /* every candidate loaded first, so the timing below can interleave them */
    for (int i = 0; i < n; i++) {
        snprintf(info->candidate[i].key, sizeof info->candidate[i].key, "%s",
                 c[i].e.fallback ? "fallback" : c[i].e.key);
        snprintf(info->candidate[i].config, sizeof info->candidate[i].config, "%s", c[i].e.config);
        int r = load_one(p, &c[i], &l[i], why, sizeof why, fn, &st);
        if (r < 0)
            goto done;
        if (r > 0)
            snprintf(info->note, sizeof info->note, "'%s' skipped: %.400s", info->candidate[i].key, why);
        else if (from_cache)
            us[i] = hit.us;
        else
            info->timed++;
    }
    if (!from_cache && (st = time_all(l, n, &o, stream, e0, e1, us, &best_i, fn)))
        goto done;
    for (int i = 0; i < n; i++)
        if (l[i].ok) {
            info->candidate[i].us = us[i];
            if (from_cache && best_i < 0) /* the cache's choice: the one candidate loaded */
                best_i = i;
        }
    if (best_i < 0) {
        st = cs_fail(CROQSPARSE_STATUS_NO_KERNEL, fn, "no candidate could be loaded: %s", info->note);
        goto done;
    }
    double best_us = us[best_i];
    install(p, &l[best_i], &pk, &c[best_i].e, "search");
    info->from_cache = from_cache;
    info->best_us = best_us;
    if (cache_path && !from_cache) {
        struct cs_cache_choice ch;
        char err[600];
        const char *keys[1] = {key};
        snprintf(ch.key, sizeof ch.key, "%s", c[best_i].e.key);
        snprintf(ch.config, sizeof ch.config, "%s", c[best_i].e.config);
        ch.us = best_us;
        if (cs_plancache_store(cache_path, keys, &ch, 1, err, sizeof err)) {
            snprintf(info->note, sizeof info->note, "%.470s (the plan keeps the choice)", err);
            fprintf(stderr, "croqsparse: warning: %s\n", info->note);
        }
    }
done:
    for (int i = 0; i < n; i++) {
        unload(&l[i]);
        free(c[i].image);
    }
    if (e0)
        KL_DRV(cuEventDestroy)(e0);
    if (e1)
        KL_DRV(cuEventDestroy)(e1);
    if (scratch) {
        KL_DRV(cuStreamSynchronize)(stream);
        KL_DRV(cuMemFree)(scratch);
    }
    return st;
}

croqsparse_status_t croqsparse_plan_search(croqsparse_plan_t p, const void *a_values, const void *meta, const void *b,
                                           const float *scale_a, const float *scale_b, CUstream stream,
                                           const char *cache_path, croqsparse_search_info *info)
{
    static const char fn[] = "croqsparse_plan_search";
    croqsparse_search_info local;
    croqsparse_status_t s;
    bool pushed;
    cs_clear();
    if (!p || !a_values || !meta || !b)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "plan, a_values, meta or b is NULL");
    if ((s = cs_check_operands(fn, p, a_values, meta, b, scale_a, scale_b)))
        return s;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    /* a plan exists only with a loaded driver; the check keeps the order for any caller */
    if (!kl_driver())
        return cs_fail(CROQSPARSE_STATUS_NO_DEVICE, fn, "%s", kl_driver_error());
    if ((s = cs_enter(p->h, fn, &pushed)))
        return s;
    const struct kl_operands o = {(int)p->dtype, p->m, p->n, p->k, (CUdeviceptr)a_values, (CUdeviceptr)meta,
                                  (CUdeviceptr)b, 0, p->alpha, (CUdeviceptr)scale_a, (CUdeviceptr)scale_b};
    s = search(p, &o, stream, cache_path, info, fn);
    cs_leave(pushed);
    return s;
}

/* The ranking of p's shape (cs_rank) into a malloc'd array; its length, or -1 with the
 * failure recorded for fn in *st. Under h->lock. */
static long ranking(struct croqsparse_plan *p, long **rank, croqsparse_status_t *st, const char *fn)
{
    struct croq_shape s = {p->m, p->n, p->k};
    char why[CROQ_WHY_MAX];
    *rank = malloc((p->h->pack.n + 1) * sizeof **rank);
    if (!*rank) {
        *st = cs_fail(CROQSPARSE_STATUS_OUT_OF_MEMORY, fn, "out of host memory");
        return -1;
    }
    long total = cs_rank(p->h, p->dtype, &s, *rank, p->h->pack.n + 1, NULL, why, sizeof why);
    if (total <= 0) {
        free(*rank);
        *rank = NULL;
        *st = cs_fail(CROQSPARSE_STATUS_NO_KERNEL, fn, "%s", why);
        return -1;
    }
    return total;
}

croqsparse_status_t croqsparse_plan_candidates(croqsparse_plan_t p, croqsparse_candidate_info *out, int cap,
                                               int *count)
{
    static const char fn[] = "croqsparse_plan_candidates";
    long *rank;
    croqsparse_status_t st = CROQSPARSE_STATUS_SUCCESS;
    cs_clear();
    if (!p || !count || (!out && cap > 0))
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "plan or count is NULL, or out is NULL with cap > 0");
    if (cap < 0)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "cap %d is negative", cap);
    croqsparse_handle_t h = p->h;
    struct croq_shape s = {p->m, p->n, p->k};
    pthread_mutex_lock(&h->lock);
    long total = ranking(p, &rank, &st, fn);
    for (long i = 0; i < total && i < cap; i++) {
        const struct pack_entry *e = &h->pack.e[rank[i]];
        croqsparse_candidate_info *c = &out[i];
        struct croq_config cfg;
        char why[CROQ_WHY_MAX];
        memset(c, 0, sizeof *c);
        snprintf(c->key, sizeof c->key, "%s", e->fallback ? "fallback" : e->key);
        snprintf(c->config, sizeof c->config, "%s", e->config);
        c->tuned_tflops = e->tflops;
        c->tuned_m = e->m, c->tuned_n = e->n, c->tuned_k = e->k;
        if (h->model && !knobs_parse_signature(&cfg, e->config, why, sizeof why))
            c->predicted_tflops = cs_model_predict(h->model, &cfg, &s);
    }
    pthread_mutex_unlock(&h->lock);
    free(rank);
    if (total < 0)
        return st;
    *count = (int)total;
    return CROQSPARSE_STATUS_SUCCESS;
}

croqsparse_status_t croqsparse_plan_select(croqsparse_plan_t p, int index)
{
    static const char fn[] = "croqsparse_plan_select";
    struct cand c = {0};
    struct pack ident;
    struct loaded l;
    char why[1024];
    long *rank = NULL;
    croqsparse_status_t st = CROQSPARSE_STATUS_SUCCESS;
    bool pushed;
    cs_clear();
    if (!p)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "plan is NULL");
    if (index < 0)
        return cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "index %d is negative", index);
    croqsparse_handle_t h = p->h;
    pthread_mutex_lock(&h->lock);
    long total = ranking(p, &rank, &st, fn);
    if (total >= 0 && index >= total) {
        st = cs_fail(CROQSPARSE_STATUS_INVALID_VALUE, fn, "index %d: the plan has %ld candidates", index, total);
    } else if (total >= 0) {
        c.e = h->pack.e[rank[index]];
        ident = h->pack; /* its identity strings, as collect() */
        ident.e = NULL, ident.n = 0, ident.model = NULL, ident.model_bytes = 0;
        if (!(c.image = malloc(c.e.cubin_bytes)))
            st = cs_fail(CROQSPARSE_STATUS_OUT_OF_MEMORY, fn, "out of host memory");
        else
            memcpy(c.image, c.e.cubin, c.e.cubin_bytes), c.e.cubin = c.image;
    }
    pthread_mutex_unlock(&h->lock);
    free(rank);
    if (st)
        return st;
    if (!kl_driver()) {
        free(c.image);
        return cs_fail(CROQSPARSE_STATUS_NO_DEVICE, fn, "%s", kl_driver_error());
    }
    if ((st = cs_enter(h, fn, &pushed))) {
        free(c.image);
        return st;
    }
    int r = load_one(p, &c, &l, why, sizeof why, fn, &st);
    if (r > 0)
        st = cs_fail(CROQSPARSE_STATUS_INVALID_PACK, fn, "candidate %d ('%s'): %s", index, c.e.key, why);
    else if (r == 0)
        install(p, &l, &ident, &c.e, "selected");
    cs_leave(pushed);
    free(c.image);
    return st;
}

