/* src/backend/gpu.c — the real backend: src/build (nvcc, static checks) for build,
 * src/measure/service.h (a `croq-runner serve` worker, our child, with a deadline per
 * request) for measure, src/profile (ncu around croq-runner) for profile,
 * src/health/nvml.h for health.
 *
 * Isolation: the candidate only ever runs inside the worker; whatever the kernel does
 * (trap, hang, stray stores) ends that worker, the outcome comes back as a status, and
 * the next measurement starts a new one. One worker per backend (a backend serves one
 * shape at a time; a new shape gets a new worker). Cubins go to <tuning>/build/<key>/
 * (named after the source), raw worker replies to perf/<key>/. Health reads NVML device
 * CROQ_GPU (default 0) and counts the worker's own pid as ours.
 */
#include "backend.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "build/nvcc.h"
#include "health/nvml.h"
#include "measure/measure.h"
#include "measure/service.h"
#include "util/atomicio.h"
#include "util/log.h"

#define GPU_BUSY_UTIL_PCT 10 /* utilization with no visible process: someone else (other pid namespace) */
/* nvmlDeviceGetUtilizationRates: "the sample period may be between 1 second and 1/6
 * second depending on the product" (NVML API reference, Device Queries). Utilization
 * read sooner than this after our own runner exited still counts our own kernels. */
#define NVML_UTIL_WINDOW_S 1.0

struct gpu {
    char runner[PATH_MAX];
    double measure_timeout_s, build_timeout_s, profile_timeout_s;
    struct measure_service *svc;   /* the worker of (svc_dtype, svc_shape, svc_seed) */
    int svc_dtype;
    struct croq_shape svc_shape;
    unsigned long long svc_seed;
};

/* The pid of the measurement worker of the backend in use (0: none): the health check's
 * "ours". Per process like own_gpu_end_s: one backend measures at a time. */
static int own_worker_pid;

/* CLOCK_MONOTONIC of the last health check that saw the GPU's utilization low (nobody's
 * kernels, ours included). Between such checks, at most FULL_CHECK_EVERY_S apart, a high
 * utilization NVML cannot attribute is taken as our worker's (gpu_health). */
#define FULL_CHECK_EVERY_S 30.0
static double last_full_check_s;

/* CLOCK_MONOTONIC when our last runner/ncu child ended; 0 none. Per process, not per
 * backend: a sweep worker opens a backend per shape, and the next shape's first health
 * check must still know the previous shape's kernels were ours (on the 2-GPU H200 run of
 * 2026-11-29 each shape change otherwise cost a 5 s "busy, no visible process" wait). */
static double own_gpu_end_s;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Wait until NVML's utilization window no longer covers our own last launch. Without
 * this, every health check right after a measurement saw our own kernels as "GPU busy
 * with no visible process" and backed off 5 s (a third of the wall time of the first
 * 150-iteration H200 run). */
static void let_own_work_age_out(void)
{
    double left = own_gpu_end_s > 0 ? own_gpu_end_s + NVML_UTIL_WINDOW_S - mono_s() : 0;
    if (left > 0) {
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        while (nanosleep(&ts, &ts) && errno == EINTR)
            ;
    }
}

/* The NVML index of this worker's GPU. NVML ignores CUDA_VISIBLE_DEVICES, so a sweep
 * worker (src/scale) names its physical GPU in CROQ_GPU; without it, GPU 0. */
static int nvml_index(void)
{
    const char *g = getenv("CROQ_GPU");
    char *end;
    long v = g && *g ? strtol(g, &end, 10) : 0;
    return g && *g && (*end || v < 0 || v > 63) ? 0 : (int)v;
}

static int gpu_health(struct backend *b, const struct cand_req *r, struct backend_health *out)
{
    struct gpu_snapshot s;
    memset(out, 0, sizeof *out);
    out->sm_clock_mhz = out->temp_c = NAN;
    if (nvml_snapshot(nvml_index(), &s)) {
        /* without NVML nobody else can be seen; measure, say the check was blind in the
         * record of every measurement, and once per process on the terminal */
        static bool warned;
        if (!warned)
            log_warn("NVML is not available (%.200s): other processes on the GPU cannot be seen and SM clock, "
                     "temperature and throttling are not recorded; measuring anyway (health 'not checked')",
                     s.status);
        warned = true;
        out->state = HEALTH_OK;
        snprintf(out->why, sizeof out->why, "not checked: %.200s", s.status);
        return 0;
    }
    out->sm_clock_mhz = s.sm_clock_mhz >= 0 ? s.sm_clock_mhz : NAN;
    out->temp_c = s.temp_c >= 0 ? s.temp_c : NAN;
    nvml_reasons_text(s.reasons, out->throttle, sizeof out->throttle);
    int others = 0, listed = s.n_procs < GPU_SNAPSHOT_MAX_PROCS ? s.n_procs : GPU_SNAPSHOT_MAX_PROCS;
    for (int i = 0; i < listed; i++)
        others += own_worker_pid <= 0 || s.procs[i].pid != (unsigned)own_worker_pid;
    others += s.n_procs - listed; /* beyond the list: not known to be ours */
    if (others > 0) {
        out->state = HEALTH_BUSY;
        int n = snprintf(out->why, sizeof out->why, "%d other process(es) on the GPU:", others);
        for (int i = 0; i < listed && n < (int)sizeof out->why; i++)
            if (own_worker_pid <= 0 || s.procs[i].pid != (unsigned)own_worker_pid)
                n += snprintf(out->why + n, sizeof out->why - (size_t)n, " pid %u (%lld MiB)", s.procs[i].pid,
                              s.procs[i].used_bytes >= 0 ? s.procs[i].used_bytes >> 20 : -1);
        return 0;
    }
    if (s.util_gpu_pct > GPU_BUSY_UTIL_PCT && own_gpu_end_s > 0 && own_worker_pid > 0 &&
        nvml_util_only_of(nvml_index(), (unsigned)own_worker_pid, NVML_UTIL_WINDOW_S) == 1) {
        /* NVML's per-process samples put all recent kernel time on our own worker */
        out->state = HEALTH_OK;
        snprintf(out->why, sizeof out->why, "ok (%s, no other process; %d%% utilization is our own worker's)",
                 s.name, s.util_gpu_pct);
        return 0;
    }
    if (s.util_gpu_pct > GPU_BUSY_UTIL_PCT && own_gpu_end_s > 0 && own_worker_pid > 0 &&
        mono_s() - last_full_check_s < FULL_CHECK_EVERY_S) {
        /* NVML cannot attribute the utilization, our worker is the only process it lists,
         * and the GPU was seen idle of others less than FULL_CHECK_EVERY_S ago: ours. (On
         * the H200, 2026-12-01, waiting out the window here cost 0.7 s per iteration of a
         * small shape.) Another container starting meanwhile is seen at the next full
         * check, and its kernels would have widened the paired interval: no KEEP. */
        out->state = HEALTH_OK;
        snprintf(out->why, sizeof out->why, "ok (%s, no other process listed; %d%% utilization taken as our "
                 "worker's, last full check %.0f s ago)", s.name, s.util_gpu_pct, mono_s() - last_full_check_s);
        return 0;
    }
    if (s.util_gpu_pct > GPU_BUSY_UTIL_PCT && own_gpu_end_s > 0) {
        let_own_work_age_out(); /* then read again, once: what is left is someone else's */
        own_gpu_end_s = 0;
        return gpu_health(b, r, out);
    }
    if (s.util_gpu_pct > GPU_BUSY_UTIL_PCT) {
        out->state = HEALTH_BUSY;
        snprintf(out->why, sizeof out->why, "GPU %d%% utilized with no visible process (another container?)",
                 s.util_gpu_pct);
        return 0;
    }
    out->state = HEALTH_OK;
    if (s.util_gpu_pct >= 0 && s.util_gpu_pct <= GPU_BUSY_UTIL_PCT)
        last_full_check_s = mono_s(); /* idle of anyone's kernels: a full check */
    snprintf(out->why, sizeof out->why, "ok (%s, no other process)", s.name);
    return 0;
}

static int src_path(const struct cand_req *r, char *out, size_t len)
{
    return (size_t)snprintf(out, len, "%s/%s", r->dir, r->src_rel) >= len ? -1 : 0;
}

static int cubin_dir(const struct cand_req *r, char *out, size_t len)
{
    return (size_t)snprintf(out, len, "%s/build/%s", r->dir, r->key) >= len ? -1 : 0;
}

/* What a build gave measure: the cubin and the identity it carries (= its cache key). */
struct built {
    char cubin[PATH_MAX];
    char module_id[BACKEND_HASH_MAX];
};

/* Build (or find in nvcc's cache; with_cache false: compile afresh, store nothing) the
 * cubin of r's source. -1 (out->reason) when the bytes built are not the source the engine
 * recorded (r->src_hash): the source changed under the tuner, whatever the compiler said. */
static int compile(struct gpu *g, const struct cand_req *r, bool with_cache, struct built *b, struct cand_result *out)
{
    char src[PATH_MAX], dir[PATH_MAX];
    struct build_result br;
    if (src_path(r, src, sizeof src) || cubin_dir(r, dir, sizeof dir) || mkdir_p(dir)) {
        snprintf(out->reason, sizeof out->reason, "cannot prepare '%.200s': %s", dir, strerror(errno));
        return -1;
    }
    struct build_opts bo = {.out_dir = dir, .timeout_s = g->build_timeout_s, .cache_dir = with_cache ? NULL : ""};
    int rc = build_compile(src, &bo, &br);
    out->status = CAND_OK;
    if (r->src_hash && r->src_hash[0] && br.source_hash[0] && strcmp(br.source_hash, r->src_hash)) {
        snprintf(out->reason, sizeof out->reason, "the source changed under the tuner: '%.120s' is %s, recorded as %s",
                 r->src_rel, br.source_hash, r->src_hash);
        build_result_release(&br);
        return -1;
    }
    if ((rc || !br.ok) && br.toolchain_failed) {
        /* nvcc itself is missing, was killed or timed out: not the candidate's fault, and
         * no candidate can build, so the run stops like for an unusable GPU */
        out->status = CAND_UNUSABLE;
        snprintf(out->reason, sizeof out->reason, "the CUDA compiler cannot run: %.220s", br.error);
    } else if (rc || !br.ok) {
        out->status = CAND_COMPILE_ERROR;
        snprintf(out->reason, sizeof out->reason, "%.250s", br.error);
    } else if (br.sass.meta_hazard) {
        /* wrong results that depend on timing: verification might miss them, so the
         * static check decides (src/build/sass_hazard.c) */
        out->status = CAND_COMPILE_ERROR;
        snprintf(out->reason, sizeof out->reason, "SASS hazard: %.220s", br.sass.hazard);
    } else if (br.sass.checked && !br.sass.has_sparse_gmma) {
        /* a kernel that does not issue sparse MMA is not the operation being tuned */
        out->status = CAND_COMPILE_ERROR;
        snprintf(out->reason, sizeof out->reason, "no sparse tensor-core MMA (*GMMA.SP) in the SASS");
    }
    snprintf(b->cubin, sizeof b->cubin, "%s", br.cubin_path);
    snprintf(b->module_id, sizeof b->module_id, "%s", br.module_id);
    build_result_release(&br);
    return 0;
}

static int gpu_build(struct backend *b, const struct cand_req *r, struct cand_result *out)
{
    struct built k;
    memset(out, 0, sizeof *out);
    int rc = compile(b->priv, r, true, &k, out);
    snprintf(out->module_id, sizeof out->module_id, "%s", k.module_id);
    return rc;
}

/* How long build_ahead waits for its build to hold the cache key's lock. */
#define BUILD_AHEAD_LOCK_WAIT_MS 10000

/* Build the source in a detached grandchild (nobody needs to reap it), and return once
 * it holds the lock of its cache key (src/build holds a flock per key), so a later
 * build of the same source waits for it. */
static void gpu_build_ahead(struct backend *b, const struct cand_req *r)
{
    struct gpu *g = b->priv;
    char src[PATH_MAX], dir[PATH_MAX];
    int fds[2];
    if (src_path(r, src, sizeof src))
        return;
    snprintf(dir, sizeof dir, "%s", src);
    char *slash = strrchr(dir, '/');
    if (!slash || pipe(fds))
        return;
    *slash = '\0';
    pid_t pid = fork();
    if (pid == 0) {
        if (fork() == 0) {
            for (int fd = 3; fd < 1024; fd++) /* not the shape's lock, logs, ... */
                if (fd != fds[1])
                    close(fd);
            struct build_opts bo = {.out_dir = dir, .notify_fd = fds[1], .timeout_s = g->build_timeout_s};
            struct build_result br;
            build_compile(src, &bo, &br);
            _exit(0);
        }
        _exit(0);
    }
    close(fds[1]);
    if (pid > 0) {
        waitpid(pid, NULL, 0);
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        poll(&p, 1, BUILD_AHEAD_LOCK_WAIT_MS);
    }
    close(fds[0]);
}

static enum cand_status map_status(enum measure_status s)
{
    switch (s) {
    case MEASURE_OK: return CAND_OK;
    case MEASURE_INCORRECT: return CAND_INCORRECT;
    case MEASURE_TIMEOUT: return CAND_TIMEOUT;
    case MEASURE_NO_GPU: return CAND_UNUSABLE;
    default: return CAND_CRASH; /* launch error, bad module, signal, bad output ... */
    }
}

/* perf/<key>/iterNNN-<tag><suffix>.json (rel, its hash in hash): the runner's JSON, or what
 * is known of its death. suffix "" is the measurement's evidence; "-foreign" a reply
 * refused as another module's or another request's, kept for the record only. */
static int keep_raw(const struct cand_req *r, const struct measure_result *m, const char *suffix,
                    char rel[BACKEND_REL_MAX], char hash[BACKEND_HASH_MAX])
{
    char dir[PATH_MAX], path[PATH_MAX];
    snprintf(rel, BACKEND_REL_MAX, "perf/%s/iter%03d-%s%s.json", r->key, r->iter, r->tag, suffix);
    if ((size_t)snprintf(dir, sizeof dir, "%s/perf/%s", r->dir, r->key) >= sizeof dir ||
        (size_t)snprintf(path, sizeof path, "%s/%s", r->dir, rel) >= sizeof path || mkdir_p(dir))
        return -1;
    char *text = measure_raw_record(m); /* parses, and says the outcome decided from it */
    int rc = (!text || atomic_write_str(path, text) || backend_hash_file(path, hash)) ? -1 : 0;
    free(text);
    return rc;
}

/* The backend's worker for r's problem, started afresh when the problem changed. */
static struct measure_service *service_for(struct gpu *g, const struct cand_req *r)
{
    if (g->svc && (g->svc_dtype != r->cfg->dtype || g->svc_seed != r->seed || g->svc_shape.m != r->shape.m ||
                   g->svc_shape.n != r->shape.n || g->svc_shape.k != r->shape.k)) {
        service_free(g->svc);
        g->svc = NULL;
    }
    if (!g->svc) {
        struct service_opts so = {.runner = g->runner[0] ? g->runner : NULL, .dtype = r->cfg->dtype,
                                  .shape = r->shape, .seed = r->seed, .device = 0};
        g->svc = service_new(&so);
        g->svc_dtype = r->cfg->dtype, g->svc_shape = r->shape, g->svc_seed = r->seed;
    }
    return g->svc;
}

/* The incumbent's cubin: its source is the best's, already built (the build cache). */
static int incumbent_cubin(struct gpu *g, const struct cand_req *r, bool with_cache, struct built *b,
                           struct cand_result *out)
{
    struct cand_req q = *r;
    q.cfg = r->incumbent_cfg;
    q.src_rel = r->incumbent_src_rel;
    q.src_hash = NULL; /* r's is the candidate's */
    if (compile(g, &q, with_cache, b, out))
        return -1;
    if (out->status != CAND_OK) {
        char why[sizeof out->reason];
        snprintf(why, sizeof why, "%s", out->reason);
        snprintf(out->reason, sizeof out->reason, "the incumbent does not build: %.200s", why);
        return -1; /* it built before: the tuning directory changed under us */
    }
    return 0;
}

static void take_numbers(const struct measure_result *m, bool paired, struct cand_result *out)
{
    out->tflops = m->timing.tflops;
    out->median_ms = m->timing.median_ms;
    out->spread_pct = m->timing.spread_pct;
    out->sm_clock_mhz = m->gpu_state.sm_clock_median_mhz;
    out->hw_eff_pct = m->peak.hw_eff_pct;
    out->max_err_over_tol = m->verify.max_err_over_tol;
    out->verify_s = isfinite(m->verify_s) ? m->verify_s : 0;
    out->time_s = isfinite(m->time_s) ? m->time_s : 0;
    out->ratio = out->ratio_lo = out->ratio_hi = NAN;
    if (paired && m->paired.stats_ok) {
        out->ratio = m->paired.st.median;
        out->ratio_lo = m->paired.st.lo;
        out->ratio_hi = m->paired.st.hi;
        out->pairs = m->paired.st.n;
    }
}

/* Did the worker measure another module than the one built? A reply names the module it
 * loaded (module_id) once the load passed: ok, incorrect and launch_error replies always
 * (an empty id is a mismatch: every module of ours carries one), any other status when it
 * names one; under paired timing an ok reply also names the incumbent it timed. No reply
 * at all (a crash, a timeout) has nothing to compare. True with why. */
static bool foreign_module(const struct measure_result *m, const struct built *cand, const struct built *inc,
                           char *why, size_t len)
{
    bool loaded = m->status == MEASURE_OK || m->status == MEASURE_INCORRECT || m->status == MEASURE_LAUNCH_ERROR;
    if ((loaded || m->module_id[0]) && strcmp(m->module_id, cand->module_id)) {
        snprintf(why, len, "module '%s' measured, the candidate's build is '%s'", m->module_id, cand->module_id);
        return true;
    }
    if (inc && m->status == MEASURE_OK && strcmp(m->incumbent_module_id, inc->module_id)) {
        snprintf(why, len, "incumbent module '%s' timed, its build is '%s'", m->incumbent_module_id,
                 inc->module_id);
        return true;
    }
    return false;
}

/* After a reply of another module: the cache entries of both modules removed (either may
 * hold another source's module), both rebuilt without the cache, and the worker told to load
 * the incumbent again. 0, -1 with out->reason (out->status says a toolchain failure). */
static int rebuild(struct gpu *g, const struct cand_req *r, struct built *cand, struct built *inc,
                   struct cand_result *out)
{
    struct build_opts bo = {0};
    build_cache_purge(&bo, cand->module_id);
    if (inc)
        build_cache_purge(&bo, inc->module_id);
    if (compile(g, r, false, cand, out))
        return -1;
    if (out->status == CAND_OK && inc && incumbent_cubin(g, r, false, inc, out))
        return -1;
    if (out->status != CAND_OK && out->status != CAND_UNUSABLE) {
        char why[sizeof out->reason];
        snprintf(why, sizeof why, "%s", out->reason);
        snprintf(out->reason, sizeof out->reason, "the candidate built before but not again: %.200s", why);
        return -1;
    }
    if (g->svc)
        service_forget_incumbent(g->svc);
    return 0;
}

/* One measurement of the built candidate in the backend's worker: 0 with *m, or -1 with
 * out->reason (the tuner's side: no runner, our arguments, a worker whose replies answer
 * other requests). */
static int measure_built(struct gpu *g, const struct cand_req *r, const struct built *cand, const struct built *inc,
                         struct measure_result *m, struct cand_result *out)
{
    struct service_req q = {.cubin = cand->cubin, .incumbent = inc ? inc->cubin : NULL,
                            .verify_seed = r->verify_seed ? r->verify_seed : r->seed, .no_time = r->no_time,
                            .cold_l2 = r->cold_l2, .timeout_s = g->measure_timeout_s,
                            /* a candidate slower at the interval's upper end is no KEEP
                             * under any rule: 6 pairs instead of 10 */
                            .stop_below = r->all_pairs ? 0 : 1.0};
    struct measure_service *svc = service_for(g, r);
    int mrc = service_measure(svc, &q, m);
    own_gpu_end_s = service_last_busy_s(svc);
    own_worker_pid = service_pid(svc);
    if (mrc) {
        snprintf(out->reason, sizeof out->reason, "cannot run croq-runner: %.200s", m->error);
    } else if (m->status == MEASURE_NO_RUNNER || m->status == MEASURE_BAD_ARGS) {
        snprintf(out->reason, sizeof out->reason, "croq-runner: %s: %.200s", measure_status_name(m->status),
                 m->error);
        mrc = -1; /* the tuner's setup, not the candidate */
    } else if (m->status == MEASURE_FOREIGN_REPLY) {
        /* the service could not get this request answered: the tuner's side is broken, and
         * nothing the worker said is the candidate's */
        char rel[BACKEND_REL_MAX], h[BACKEND_HASH_MAX];
        bool kept = !keep_raw(r, m, "-foreign", rel, h);
        snprintf(out->reason, sizeof out->reason, "measurement of iteration %d (%.16s): %.100s%s%.80s", r->iter,
                 r->tag, m->error, kept ? "; kept as " : "", kept ? rel : "");
        mrc = -1;
    }
    if (mrc)
        measure_result_release(m);
    return mrc;
}

static int gpu_measure(struct backend *b, const struct cand_req *r, struct cand_result *out)
{
    struct gpu *g = b->priv;
    struct built cand, inc;
    struct measure_result m;
    memset(out, 0, sizeof *out);
    if (compile(g, r, true, &cand, out))
        return -1;
    if (out->status != CAND_OK) /* the best's cubin is rebuilt from the cache; this never fails twice */
        return 0;
    bool paired = r->incumbent_cfg && r->incumbent_src_rel && !r->no_time;
    if (paired && incumbent_cubin(g, r, true, &inc, out))
        return -1;
    char why[256], rel[BACKEND_REL_MAX], h[BACKEND_HASH_MAX];
    for (int round = 1;; round++) {
        if (measure_built(g, r, &cand, paired ? &inc : NULL, &m, out))
            return -1;
        if (!foreign_module(&m, &cand, paired ? &inc : NULL, why, sizeof why))
            break;
        /* not the module built (a cubin swapped behind the tuner's back, a cache entry of
         * another source): nothing of it is the candidate's. Kept for the record, and the
         * candidate built afresh and measured once more. */
        bool kept = !keep_raw(r, &m, round == 1 ? "-foreign" : "-foreign2", rel, h);
        measure_result_release(&m);
        if (round == 2) {
            snprintf(out->reason, sizeof out->reason, "iteration %d (%.16s): %.80s, again after a rebuild without "
                     "the cache (reply kept as %.80s)", r->iter, r->tag, why, kept ? rel : "nothing");
            return -1;
        }
        log_warn("%s iteration %d (%s): %s: the reply is refused (kept as %s), the modules rebuilt without the "
                 "cache and measured again", r->key, r->iter, r->tag, why, kept ? rel : "nothing");
        snprintf(out->remark, sizeof out->remark, "%.80s: that reply refused (kept as %.80s), rebuilt without the "
                 "cache and measured again", why, kept ? rel : "nothing");
        char remark[sizeof out->remark];
        memcpy(remark, out->remark, sizeof remark);
        if (rebuild(g, r, &cand, paired ? &inc : NULL, out))
            return -1;
        memcpy(out->remark, remark, sizeof remark);
        if (out->status != CAND_OK) /* the toolchain is gone: the engine stops, resumable */
            return 0;
    }
    out->status = map_status(m.status);
    snprintf(out->reason, sizeof out->reason, "%s%s%.200s", measure_status_name(m.status), m.error[0] ? ": " : "",
             m.error);
    snprintf(out->module_id, sizeof out->module_id, "%s", m.module_id);
    take_numbers(&m, paired, out);
    const char *unusable = NULL; /* an ok reply whose numbers cannot be used */
    if (out->status == CAND_OK && (!m.verify.passed || (!r->no_time && !m.timing.present)))
        unusable = "runner said ok without a passed verification and timing"; /* never trust those numbers */
    else if (out->status == CAND_OK && paired && !m.paired.stats_ok)
        unusable = "runner said ok without a usable paired timing (fewer than 6 pairs, or a time not positive)";
    else if (out->status == CAND_OK && !r->no_time && m.l2[0] && strcmp(m.l2, r->cold_l2 ? "cold" : "warm"))
        unusable = r->cold_l2 ? "the worker timed with a warm L2, a cold one was asked for" /* the shape's numbers */
                              : "the worker timed with a cold L2, a warm one was asked for"; /* compare alike */
    if (unusable) {
        out->status = CAND_CRASH;
        snprintf(out->reason, sizeof out->reason, "%s", unusable);
        /* the raw file then records this outcome (bad_output, the reply kept as stdout), so
         * the audit derives the same DISCARD_RUNTIME_CRASH from it */
        m.status = MEASURE_BAD_OUTPUT;
        snprintf(m.error, sizeof m.error, "%s", unusable);
        out->tflops = out->median_ms = out->spread_pct = out->ratio = out->ratio_lo = out->ratio_hi = NAN;
    }
    /* The configuration is the launch contract the source claims (an agent's kernel may be
     * anything): a module that launches otherwise is not that candidate, whatever it
     * measured. Checked on an ok reply only (one of the module built, above): a failure's
     * reason is its own. */
    char abi_why[160];
    if (out->status == CAND_OK && !measure_abi_matches(&m.abi, r->cfg, abi_why, sizeof abi_why)) {
        out->status = CAND_CRASH;
        snprintf(out->reason, sizeof out->reason, "bad module: launch contract broken: %s", abi_why);
    }
    snprintf(out->command, sizeof out->command, "%.500s", m.command);
    if (m.gpu[0] && m.sm_count > 0)
        snprintf(out->gpu, sizeof out->gpu, "%.96s, %d SMs", m.gpu, m.sm_count);
    else if (m.gpu[0])
        snprintf(out->gpu, sizeof out->gpu, "%.96s", m.gpu);
    int rc = keep_raw(r, &m, "", out->raw_rel, out->raw_hash);
    if (rc)
        snprintf(out->reason, sizeof out->reason, "cannot keep the runner output: %s", strerror(errno));
    measure_result_release(&m);
    return rc;
}

static int gpu_profile(struct backend *b, const struct cand_req *r, struct profile_out *out)
{
    struct gpu *g = b->priv;
    char dir[PATH_MAX], json[PATH_MAX];
    struct built k;
    struct cand_result br;
    memset(out, 0, sizeof *out);
    memset(&br, 0, sizeof br);
    profile_metrics_init(&out->r.m);
    if (compile(g, r, true, &k, &br) || br.status != CAND_OK) {
        out->r.ok = false;
        snprintf(out->r.reason, sizeof out->r.reason, "cannot build the best for profiling: %.200s", br.reason);
        return 0;
    }
    snprintf(out->raw_rel, sizeof out->raw_rel, "perf/%s/iter%03d-profile/profile.json", r->key, r->iter);
    if ((size_t)snprintf(dir, sizeof dir, "%s/perf/%s/iter%03d-profile", r->dir, r->key, r->iter) >= sizeof dir ||
        (size_t)snprintf(json, sizeof json, "%s/%s", r->dir, out->raw_rel) >= sizeof json || mkdir_p(dir)) {
        snprintf(out->r.reason, sizeof out->r.reason, "cannot create the profile directory of '%.100s'", r->key);
        return -1;
    }
    char runner[PATH_MAX];
    measure_runner_path(g->runner[0] ? g->runner : NULL, runner, sizeof runner);
    profile_run(runner, k.cubin, &r->shape, r->cfg->dtype, dir, g->profile_timeout_s, &out->r);
    own_gpu_end_s = mono_s();
    if (profile_write_json(json, &out->r) || backend_hash_file(json, out->raw_hash)) {
        snprintf(out->r.reason, sizeof out->r.reason, "cannot write '%.200s': %s", json, strerror(errno));
        return -1;
    }
    return 0;
}

/* The final ladder (backend.h): every entry built through the cache, one ladder request
 * to the shape's worker, each reported module identity checked against its build (a
 * mismatch: the entries' cache entries purged, rebuilt without the cache, asked once
 * more; twice is the tuner's failure, -1), the trials taken and summarised as every
 * backend's are (backend_ladder_summarise), and the raw file written in the model
 * backends' record with the worker's reply kept beside it. */
static int ladder_ask(struct gpu *g, const struct ladder_req *q, bool with_cache, struct built *k,
                      struct ladder_result *out, struct measure_result *m, struct measure_ladder *ml)
{
    const char *cubins[LADDER_MAX];
    char err[300];
    for (int i = 0; i < q->n; i++) {
        struct cand_req r = {.dir = q->dir, .key = q->key, .iter = q->e[i].iter, .tag = "ladder", .cfg = q->e[i].cfg,
                             .shape = q->shape, .src_rel = q->e[i].src_rel, .seed = q->seed};
        struct cand_result cr;
        memset(&cr, 0, sizeof cr);
        if (compile(g, &r, with_cache, &k[i], &cr))
            return snprintf(out->reason, sizeof out->reason, "%.250s", cr.reason), -1;
        if (cr.status != CAND_OK) {
            out->status = cr.status == CAND_UNUSABLE ? CAND_UNUSABLE : CAND_CRASH;
            out->failed = i;
            snprintf(out->reason, sizeof out->reason, "iteration %d does not build: %.200s", q->e[i].iter, cr.reason);
            return 1;
        }
        cubins[i] = k[i].cubin;
    }
    struct cand_req sr = {.cfg = q->e[0].cfg, .shape = q->shape, .seed = q->seed};
    struct measure_service *svc = service_for(g, &sr);
    struct service_ladder_req lq = {.cubins = cubins, .n = q->n, .rounds = q->rounds, .cold_l2 = q->cold_l2};
    service_forget_incumbent(svc); /* set again for the next paired measurement */
    if (service_ladder(svc, &lq, m))
        return snprintf(out->reason, sizeof out->reason, "cannot run croq-runner: %.200s", m->error), -1;
    own_gpu_end_s = service_last_busy_s(svc);
    own_worker_pid = service_pid(svc);
    if (m->status == MEASURE_FOREIGN_REPLY || m->status == MEASURE_NO_RUNNER || m->status == MEASURE_BAD_ARGS)
        return snprintf(out->reason, sizeof out->reason, "the ladder: %s: %.200s", measure_status_name(m->status),
                        m->error), -1;
    const char *l2 = q->cold_l2 ? "cold" : "warm";
    if (m->raw_json && measure_ladder_parse(m->raw_json, ml, err, sizeof err) && m->status == MEASURE_OK) {
        m->status = MEASURE_BAD_OUTPUT;
        snprintf(m->error, sizeof m->error, "%s", err);
    } else if (m->status == MEASURE_OK && ml->n != q->n) { /* not a reply to this ladder */
        m->status = MEASURE_BAD_OUTPUT;
        snprintf(m->error, sizeof m->error, "the ladder's reply lists %d kernels, %d were asked for", ml->n, q->n);
    } else if (m->status == MEASURE_OK && strcmp(m->l2, l2)) { /* timed otherwise than asked */
        m->status = MEASURE_BAD_OUTPUT;
        snprintf(m->error, sizeof m->error, "the ladder's reply was timed with l2 '%s', asked for '%s'", m->l2, l2);
    }
    return 0;
}

static int gpu_ladder(struct backend *b, const struct ladder_req *q, struct ladder_result *out)
{
    struct gpu *g = b->priv;
    struct built k[LADDER_MAX];
    struct measure_result m;
    struct measure_ladder ml;
    memset(out, 0, sizeof *out);
    memset(&ml, 0, sizeof ml);
    out->failed = ml.failed = -1;
    out->n = q->n;
    snprintf(out->l2, sizeof out->l2, "%s", q->cold_l2 ? "cold" : "warm");
    int rc = 0;
    for (int attempt = 1; attempt <= 2; attempt++) {
        memset(&m, 0, sizeof m);
        rc = ladder_ask(g, q, attempt == 1, k, out, &m, &ml);
        if (rc) {
            measure_result_release(&m);
            return rc < 0 ? -1 : 0; /* 1: an entry does not build (out says which) */
        }
        int wrong = -1; /* ml.n == q->n in an ok reply (ladder_ask) */
        for (int i = 0; m.status == MEASURE_OK && i < q->n && wrong < 0; i++)
            if (strcmp(ml.k[i].module_id, k[i].module_id))
                wrong = i;
        if (wrong < 0)
            break;
        log_warn("%s: the ladder's entry %d (iteration %d) ran module '%s', built '%s': refused; the entries are "
                 "rebuilt without the cache and timed again", q->key, wrong, q->e[wrong].iter,
                 ml.k[wrong].module_id, k[wrong].module_id);
        for (int i = 0; i < q->n; i++) {
            struct build_opts bo = {.timeout_s = g->build_timeout_s};
            build_cache_purge(&bo, k[i].module_id);
        }
        if (attempt == 2) {
            snprintf(out->reason, sizeof out->reason, "the ladder's entry %d ran another module than its build twice",
                     wrong);
            measure_result_release(&m);
            return -1;
        }
        measure_result_release(&m);
    }
    out->status = map_status(m.status);
    snprintf(out->reason, sizeof out->reason, "%s%s%.200s", measure_status_name(m.status), m.error[0] ? ": " : "",
             m.error);
    if (out->status != CAND_OK)
        out->failed = ml.failed >= 0 && ml.failed < q->n ? ml.failed : -1;
    out->steady = ml.steady;
    for (int i = 0; i < q->n; i++) {
        struct ladder_entry_result *e = &out->e[i];
        e->status = out->status == CAND_OK ? CAND_OK : i == out->failed ? out->status : CAND_OK;
        snprintf(e->module_id, sizeof e->module_id, "%s", k[i].module_id);
        e->trials = i < ml.n ? ml.k[i].trials : 0;
        for (int t = 0; t < e->trials && t < LADDER_MAX_ROUNDS; t++)
            e->trial_ms[t] = ml.k[i].trial_ms[t], e->trial_clock_mhz[t] = ml.k[i].clock_mhz[t];
        if (e->trials > LADDER_MAX_ROUNDS)
            e->trials = LADDER_MAX_ROUNDS;
        if (out->status == CAND_OK && e->trials != (q->rounds > 0 ? q->rounds : LADDER_DEFAULT_ROUNDS)) {
            out->status = CAND_CRASH; /* an ok reply must time every entry every round */
            snprintf(out->reason, sizeof out->reason, "the ladder's reply times entry %d %d times, not once a round",
                     i, e->trials);
        }
    }
    if (out->status == CAND_OK)
        backend_ladder_summarise(q, out);
    snprintf(out->command, sizeof out->command, "%.500s", m.command);
    if (m.gpu[0] && m.sm_count > 0)
        snprintf(out->gpu, sizeof out->gpu, "%.96s, %d SMs", m.gpu, m.sm_count);
    else if (m.gpu[0])
        snprintf(out->gpu, sizeof out->gpu, "%.96s", m.gpu);
    json_t *j = json_pack("{s:i, s:s, s:s, s:i, s:s}", "schema", 1, "command", "ladder", "tag", q->tag, "rounds",
                          q->rounds > 0 ? q->rounds : LADDER_DEFAULT_ROUNDS, "l2", out->l2);
    json_t *reply = m.raw_json ? json_loads(m.raw_json, 0, NULL) : NULL;
    json_object_set_new(j, "reply", reply ? reply : m.raw_json ? json_string(m.raw_json) : json_null());
    backend_ladder_json_finish(q, out, j);
    rc = backend_write_ladder_raw(q, j, "gpu", out);
    json_decref(j);
    measure_result_release(&m);
    return rc;
}

static void gpu_release(struct backend *b)
{
    struct gpu *g = b->priv;
    service_free(g->svc);
    own_worker_pid = 0;
    free(b->priv);
    free(b);
}

struct backend *gpu_open(const struct backend_opts *o, char *err, size_t errlen)
{
    struct gpu *g = xmalloc(sizeof *g);
    memset(g, 0, sizeof *g);
    (void)err;
    (void)errlen;
    if (o->runner)
        snprintf(g->runner, sizeof g->runner, "%s", o->runner);
    g->measure_timeout_s = o->measure_timeout_s; /* <= 0: measure_default_timeout() */
    g->build_timeout_s = o->build_timeout_s;     /* <= 0: BUILD_DEFAULT_TIMEOUT_S */
    g->profile_timeout_s = o->profile_timeout_s > 0 ? o->profile_timeout_s : 300;
    struct backend *b = xmalloc(sizeof *b);
    *b = (struct backend){.name = "gpu", .health = gpu_health, .build = gpu_build, .measure = gpu_measure,
                          .profile = gpu_profile, .build_ahead = gpu_build_ahead, .ladder = gpu_ladder, .release = gpu_release,
                          .runs_candidates = true,
                          .priv = g};
    return b;
}
