/* src/scale/worker.c — one worker of a parallel sweep: claim the next piece of work
 * (next.c, under the state lock), do it through the engine, release the claim, until
 * every wave is finished. A worker that finds nothing to claim while other workers are
 * busy waits and looks again (with growing naps): the next wave opens when they finish,
 * and if one of them dies its claim becomes stale and is taken over here.
 */
#include "scale.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/lockinfo.h"
#include "util/log.h"

#define NAP_MIN_S 0.02
#define NAP_MAX_S 1.0

struct next_arg {
    const char *dir;
    const struct scale_plan *p;
    const struct worker_id *w;
    struct next_result r;
};

static int next_edit(json_t *root, void *arg, char *err, size_t errlen)
{
    struct next_arg *a = arg;
    if (claim_next(a->dir, root, a->p, a->w, &a->r, err, errlen))
        return -1;
    return a->r.kind == NEXT_WORK || a->r.dropped_own ? 0 : 1; /* 1: nothing to write */
}

struct release_arg {
    const char *key;
    const struct worker_id *w;
    bool failed;
    const char *why;
    bool lost; /* the claim had been taken over */
};

static int release_edit(json_t *root, void *arg, char *err, size_t errlen)
{
    struct release_arg *a = arg;
    (void)err;
    (void)errlen;
    a->lost = claim_release(root, a->key, a->w, a->failed, a->why) == 1;
    return a->lost ? 1 : 0;
}

static void nap(double *s)
{
    struct timespec ts = {(time_t)*s, (long)((*s - (double)(time_t)*s) * 1e9)};
    nanosleep(&ts, NULL);
    *s = *s * 2 > NAP_MAX_S ? NAP_MAX_S : *s * 2;
}

static const char *gpu_text(const struct worker_id *w)
{
    return *w->gpu ? w->gpu : "-";
}

/* The engine does the work: INIT only, or the whole run of the shape. */
static int worker_do(const struct engine_opts *o, const struct scale_plan *plan, const struct claim *c)
{
    struct shape_params p = {.backend = o->backend ? o->backend : "gpu", .seed = o->seed, .budget = o->iters,
                             .agent = false, .reopen = false};
    char err[256];
    if (key_parse(c->key, &p.k, err, sizeof err)) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    p.new_budget = scenarios_budget(&plan->set, p.k.mode == MODE_FROM_CURRENT_BEST);
    return c->action == CLAIM_INIT ? engine_init_shape(o, &p) : engine_run_shape(o, &p);
}

static void announce(const struct engine_opts *o, const struct worker_id *w, const struct next_result *r)
{
    if (r->takeover) {
        claims_log(o->dir, "takeover", &r->claim, r->why);
        if (!o->quiet)
            printf("worker %ld (GPU %s): taking over %s from pid %ld on '%s': %s\n", w->self.pid, gpu_text(w),
                   r->claim.key, r->was.who.pid, r->was.who.host, r->why);
    } else {
        claims_log(o->dir, "claim", &r->claim, "");
    }
    if (!o->quiet)
        printf("worker %ld (GPU %s): %s %s\n", w->self.pid, gpu_text(w),
               r->claim.action == CLAIM_INIT ? "starting" : "tuning", r->claim.key);
}

/* Why the engine refused or failed the shape: another process holding the shape's lock
 * is said as such (with its pid when /proc/locks names it), anything else is the
 * engine's failure, whose message is in the worker's output. */
static void failure_why(const char *dir, const char *key, char *out, size_t outlen)
{
    char path[4096];
    snprintf(out, outlen, "the engine failed on it (the message is in the worker's output)");
    if (!claim_lock_held(dir, key))
        return;
    long pid = -1;
    int fd = (size_t)snprintf(path, sizeof path, "%s/checkpoints/%s.lock", dir, key) < sizeof path
                 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        pid = flock_holder_pid(fd);
        close(fd);
    }
    if (pid > 0)
        snprintf(out, outlen, "locked by pid %ld: another croqtuner process is tuning it", pid);
    else
        snprintf(out, outlen, "locked by another croqtuner process, which is tuning it");
}

/* Release the claim after the work; -1 if the state could not be written. */
static int release(const struct engine_opts *o, const struct worker_id *w, const struct claim *c, int rc)
{
    char err[600], why[200] = "";
    if (rc == ENGINE_FAILED)
        failure_why(o->dir, c->key, why, sizeof why);
    struct release_arg a = {c->key, w, rc == ENGINE_FAILED, why, false};
    if (state_update(o->dir, release_edit, &a, err, sizeof err) < 0) {
        log_error("%s", err);
        return -1;
    }
    if (a.lost)
        log_warn("the claim on '%s' had been taken over by another worker", c->key);
    else
        claims_log(o->dir, a.failed ? "failed" : "release", c,
                   rc == ENGINE_GPU_BUSY ? "GPU busy" : rc == ENGINE_GPU_GONE ? "GPU unusable" : "");
    return 0;
}

int worker_run(const struct engine_opts *o, const struct scale_plan *p, const struct worker_id *w)
{
    int failed = 0;
    double s = NAP_MIN_S;
    char err[600];
    for (;;) {
        struct next_arg a = {o->dir, p, w, {0}};
        if (state_update(o->dir, next_edit, &a, err, sizeof err) < 0) {
            log_error("%s", err);
            return ENGINE_FAILED;
        }
        if (a.r.kind == NEXT_DONE)
            break;
        if (a.r.kind == NEXT_WAIT) {
            nap(&s);
            continue;
        }
        s = NAP_MIN_S;
        announce(o, w, &a.r);
        int rc = worker_do(o, p, &a.r.claim);
        if (release(o, w, &a.r.claim, rc))
            return ENGINE_FAILED;
        if (rc == ENGINE_GPU_BUSY || rc == ENGINE_GPU_GONE)
            return rc; /* this GPU cannot go on; the shape is free for the others */
        failed += rc == ENGINE_FAILED;
    }
    return failed ? ENGINE_FAILED : ENGINE_DONE;
}
