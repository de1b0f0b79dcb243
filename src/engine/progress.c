/* src/engine/progress.c — progress/<key>.json: what a running tuner is doing right now
 * (phase, iteration/budget, best, last decision, ETA, a busy-GPU wait), replaced
 * atomically so 'croqtuner status' always reads a whole file. It is a display aid:
 * nothing reads it back to decide anything.
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/atomicio.h"
#include "util/log.h"
#include "util/utctime.h"

double engine_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

const char *const spent_names[SPENT_COUNT] = {"compile", "verify", "time", "profile", "other"};

/* The split of spent_s per iteration stored by this process (null before the first). */
static json_t *per_iteration(const struct run *r, double elapsed, double accounted)
{
    if (r->stored_here <= 0)
        return json_null();
    json_t *o = json_object();
    for (int i = 0; i < SPENT_COUNT; i++) {
        double v = r->spent_s[i] + (i == SPENT_OTHER && elapsed > accounted ? elapsed - accounted : 0);
        json_object_set_new(o, spent_names[i], json_real(v / r->stored_here));
    }
    json_object_set_new(o, "total", json_real(elapsed / r->stored_here));
    return o;
}

void progress_write(struct run *r)
{
    struct checkpoint *c = &r->ck;
    char dir[ENGINE_PATH_MAX], path[ENGINE_PATH_MAX], now[32];
    if (path_fmt(dir, "%s/progress", r->dir) || run_path(r, path, "progress", ".json") || mkdir_p(dir))
        return;
    double elapsed = engine_mono_s() - r->started_s;
    int left = c->budget - (c->iteration > 0 ? c->iteration : 0);
    double eta = r->stored_here > 0 && c->phase != PH_NEXT_SHAPE ? elapsed / r->stored_here * left : NAN;
    utc_now(now);
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_integer(ENGINE_SCHEMA));
    json_object_set_new(j, "key", json_string(c->key));
    json_object_set_new(j, "backend", json_string(c->backend));
    json_object_set_new(j, "pid", json_integer(getpid()));
    json_object_set_new(j, "phase", json_string(phase_name(c->phase)));
    json_object_set_new(j, "iteration", json_integer(c->iteration));
    json_object_set_new(j, "budget", json_integer(c->budget));
    json_object_set_new(j, "best_tflops", c->have_best ? json_real(c->best.p.tflops) : json_null());
    json_object_set_new(j, "last_decision", json_string(r->last_decision));
    json_object_set_new(j, "eta_s", isfinite(eta) ? json_real(round(eta)) : json_null());
    /* pace of this process (issue 5): iterations stored per minute, and where the time
     * went; a display aid like the rest of the file */
    json_object_set_new(j, "iterations_per_min",
                        r->stored_here > 0 && elapsed > 0 ? json_real(r->stored_here * 60.0 / elapsed) : json_null());
    /* the engine's own work (proposer, logs, checkpoints, health checks) is elapsed minus
     * the backend operations; the measurement's unaccounted part (worker start, operand
     * sets, module loads) is already in "other", so the five add up to elapsed */
    json_t *sp = json_object();
    double accounted = 0;
    for (int i = 0; i < SPENT_COUNT; i++)
        accounted += r->spent_s[i];
    for (int i = 0; i < SPENT_COUNT; i++)
        json_object_set_new(sp, spent_names[i],
                            json_real(r->spent_s[i] + (i == SPENT_OTHER && elapsed > accounted ? elapsed - accounted : 0)));
    json_object_set_new(sp, "elapsed", json_real(elapsed));
    json_object_set_new(j, "spent_s", sp);
    json_object_set_new(j, "spent_per_iteration_s", per_iteration(r, elapsed, accounted));
    json_object_set_new(j, "waiting", json_string(r->waiting));
    json_object_set_new(j, "agent", json_boolean(c->agent));
    json_object_set_new(j, "updated_at", json_string(now));
    char *s = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    json_decref(j);
    if (!s || atomic_write_volatile(path, s, strlen(s))) /* a display aid: not worth an fsync */
        log_warn("cannot write progress file '%s': %s", path, strerror(errno));
    free(s);
}
