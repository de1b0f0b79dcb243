/* src/engine/health.c — the health check before every measurement.
 *
 * Another process on the GPU makes timings meaningless, and the earlier system
 * "handled" that by killing it. Here a busy GPU is only waited for: exponential
 * backoff, the wait shown in the progress file ('croqtuner status'), and after
 * busy_limit_s a clear stop. There is no code path that signals a process the tuner
 * did not start or resets the GPU.
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/log.h"

#define BACKOFF_MAX_S 300.0

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (s > 0 && nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

static void summarize(const struct backend_health *h, char *out, size_t len)
{
    char clk[32] = "", tmp[32] = "";
    if (isfinite(h->sm_clock_mhz))
        snprintf(clk, sizeof clk, ", SM clock %.0f MHz", h->sm_clock_mhz);
    if (isfinite(h->temp_c))
        snprintf(tmp, sizeof tmp, ", %.0f C", h->temp_c);
    snprintf(out, len, "%.120s%s%s%s%.60s", h->why, clk, tmp, h->throttle[0] ? ", throttle: " : "", h->throttle);
}

int health_wait(struct run *r, int iter)
{
    double waited = 0, delay = r->o->backoff_s > 0 ? r->o->backoff_s : 5.0;
    struct cand_req q;
    run_req(r, &q, "health", false, NULL);
    q.iter = iter;
    for (;;) {
        struct backend_health h;
        if (r->be->health(r->be, &q, &h))
            return run_fail(r, "health check failed: %s", h.why);
        if (h.state == HEALTH_OK) {
            summarize(&h, r->ck.health, sizeof r->ck.health);
            r->waiting[0] = '\0';
            return 0;
        }
        if (h.state == HEALTH_UNUSABLE) {
            log_error("the GPU is unusable: %s; shape '%s' stopped in %s and continues with 'croqtuner resume "
                      "--tuning %s' once the GPU is back", h.why, r->ck.key, phase_name(r->ck.phase), r->dir);
            return ENGINE_GPU_GONE;
        }
        if (waited >= r->o->busy_limit_s) {
            log_error("the GPU has been busy for %.0f s (%s); croqtuner never stops other users' processes, so it "
                      "stops here: continue later with 'croqtuner resume --tuning %s'", waited, h.why, r->dir);
            snprintf(r->waiting, sizeof r->waiting, "stopped: GPU busy for %.0f s: %.150s", waited, h.why);
            progress_write(r);
            return ENGINE_GPU_BUSY;
        }
        double d = fmin(delay, r->o->busy_limit_s - waited);
        snprintf(r->waiting, sizeof r->waiting, "GPU busy: %.150s; waited %.3g s, next check in %.3g s", h.why,
                 waited, d);
        log_warn("%s", r->waiting);
        progress_write(r);
        sleep_s(d);
        waited += d;
        delay = fmin(delay * 2, BACKOFF_MAX_S);
    }
}
