/* src/engine/status.c — 'croqtuner status': every shape's state (status, mode,
 * iteration/budget, baseline, best) from state.json, and for each shape a process is
 * tuning right now a live line from its progress file (iteration, best, last decision,
 * ETA, a busy-GPU wait). "Live" means the shape's lock is held — a fact of the kernel,
 * not a pid that may have been reused.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/log.h"
#include "util/regfile.h"

static bool is_live(const char *dir, const char *key)
{
    char path[ENGINE_PATH_MAX];
    if (path_fmt(path, "%s/checkpoints/%s.lock", dir, key))
        return false;
    int fd = regfile_open(path, O_RDONLY, REGFILE_NOFOLLOW, 0);
    if (fd < 0)
        return false; /* absent, or not a lock the engine made: nobody holds it */
    bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* drops our shared lock if we got it */
    return held;
}

static json_t *live_progress(const char *dir, const char *key)
{
    char path[ENGINE_PATH_MAX], err[300];
    if (!is_live(dir, key) || path_fmt(path, "%s/progress/%s.json", dir, key))
        return NULL;
    json_t *p = regfile_load_json(path, 0, err, sizeof err);
    if (!json_is_object(p)) {
        json_decref(p);
        p = json_object(); /* locked but no progress yet: starting */
        json_object_set_new(p, "phase", json_string("starting"));
    }
    return p;
}

static const char *str(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : "";
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The live line says only what the progress file knows: a shape that has just started
 * has no progress file yet, and before its baseline is measured no best or ETA. */
static void print_live(FILE *out, const char *key, json_t *p)
{
    double eta = num(p, "eta_s"), best = num(p, "best_tflops");
    json_int_t budget = json_integer_value(json_object_get(p, "budget"));
    json_int_t it = json_integer_value(json_object_get(p, "iteration"));
    char what[160] = "", etas[48];
    if (isfinite(eta))
        snprintf(etas, sizeof etas, "ETA %dm%02ds", (int)eta / 60, (int)eta % 60);
    else
        snprintf(etas, sizeof etas, "%s", it >= budget ? "no iterations left" : it <= 0 ? "ETA after the first "
                 "iteration" : "ETA unknown");
    if (budget <= 0) { /* the lock is held, no progress written yet */
        fprintf(out, "  now: %s starting: no progress recorded yet\n", key);
        return;
    }
    char bs[32];
    if (isfinite(best) && best > 0)
        snprintf(what, sizeof what, "iteration %lld/%lld, best %s TFLOPS, last %s, %s", (long long)it,
                 (long long)budget, results_tflops_show(bs, sizeof bs, best),
                 *str(p, "last_decision") ? str(p, "last_decision") : "-", etas);
    else
        snprintf(what, sizeof what, "iteration %lld/%lld, measuring the baseline", (long long)it, (long long)budget);
    fprintf(out, "  now: %s %s %s%s%s\n", key, str(p, "phase"), what, *str(p, "waiting") ? "; " : "",
            str(p, "waiting"));
    json_t *sp = json_object_get(p, "spent_s");
    double ipm = num(p, "iterations_per_min");
    json_t *pi = json_object_get(p, "spent_per_iteration_s");
    if (isfinite(ipm) && sp)
        fprintf(out, "  pace: %.1f iterations/min; time: compile %.0f s, verify %.0f s, time %.0f s, profile %.0f s, "
                "other %.0f s of %.0f s\n", ipm, num(sp, "compile"), num(sp, "verify"), num(sp, "time"),
                num(sp, "profile"), num(sp, "other"), num(sp, "elapsed"));
    if (json_is_object(pi))
        fprintf(out, "  per iteration: %.2f s = compile %.2f + verify %.2f + time %.2f + profile %.2f + other %.2f\n",
                num(pi, "total"), num(pi, "compile"), num(pi, "verify"), num(pi, "time"), num(pi, "profile"),
                num(pi, "other"));
}

/* The row's "stopped because": state.json's stop_reason; for an active shape without one,
 * its GPU wait from the progress file (health.c), live ("GPU busy: ..., next check in")
 * or the busy stop that ended the last run ("stopped: GPU busy for ..."). */
static void row_why(const char *dir, const struct state_shape *e, json_t *live, char *out, size_t len)
{
    char path[ENGINE_PATH_MAX], err[300];
    snprintf(out, len, "%s", e->stop_reason);
    if (out[0] || strcmp(e->status, "active"))
        return;
    if (live) {
        if (*str(live, "waiting"))
            snprintf(out, len, "waiting: %s", str(live, "waiting"));
        return;
    }
    if (path_fmt(path, "%s/progress/%s.json", dir, e->key))
        return;
    json_t *p = regfile_load_json(path, 0, err, sizeof err); /* a display aid: unreadable is none */
    if (!strncmp(str(p, "waiting"), "stopped:", 8))
        snprintf(out, len, "%s; 'croqtuner resume' continues it", str(p, "waiting"));
    json_decref(p);
}

/* The widest note after the best's number: " (baseline) L@1980". */
#define STATUS_BEST_NOTE_W 18

static void print_row(FILE *out, const struct state_shape *e, const char *why)
{
    double base = e->baseline_tflops, b = e->have_best ? e->best.tflops : NAN;
    char bs[24] = "-", bt[48] = "", bv[24] = "-";
    bool waiting = e->agent && !strcmp(e->phase, "IDEATE");
    results_tflops_show(bs, sizeof bs, base);
    if (isfinite(b))
        results_tflops_show(bv, sizeof bv, b);
    /* the speed-up as the report's summary shows it (state_best_speedup: the baseline
     * kernel is 1, a ladder's winner is the ladder's own ratio) */
    double up = state_best_speedup(e->best.iter, b, base, e->have_best && e->best.from_ladder,
                                   e->have_ladder ? &e->ladder : NULL);
    /* bt: what follows the best's number, which keeps its own column (right-aligned
     * under "best") so the numbers line up whatever the note after them */
    if (isfinite(b) && e->best.iter == 0)
        snprintf(bt, sizeof bt, " (baseline)");
    else if (isfinite(b) && isfinite(up))
        snprintf(bt, sizeof bt, " (x%.2f)", up);
    /* the registered best measured by the final ladder: its clock, since the ladder's
     * numbers and the baseline's were taken at different ones */
    if (isfinite(b) && e->best.from_ladder && isfinite(e->best.sm_clock_mhz)) {
        size_t n = strlen(bt);
        snprintf(bt + n, sizeof bt - n, " L@%.0f", e->best.sm_clock_mhz);
    }
    /* iteration -1: the baseline is not measured yet */
    int it = e->iteration;
    fprintf(out, "%-28s %-17s %-3s %-6s %-14s %4d/%-4d %9s %9s%-*s%s%s\n", e->key, e->mode, e->backend, e->status,
            waiting && !strcmp(e->status, "active") ? "IDEATE(agent)" : e->phase, it < 0 ? 0 : it, e->budget, bs,
            bv, *why ? STATUS_BEST_NOTE_W : 0, bt, *why ? "  " : "", why);
}

/* Shapes in numeric order: dtype, then M, N, K, then from scratch before from the
 * current best ("128" before "1024", unlike text order). Keys key_parse refuses go last,
 * in text order. */
static int cmp_shape_key(const void *a, const void *b)
{
    const char *ka = *(const char *const *)a, *kb = *(const char *const *)b;
    struct shape_key x, y;
    char err[160];
    bool okx = !key_parse(ka, &x, err, sizeof err), oky = !key_parse(kb, &y, err, sizeof err);
    if (okx != oky)
        return okx ? -1 : 1;
    if (!okx)
        return strcmp(ka, kb);
    long dx[5] = {x.dtype, x.shape.m, x.shape.n, x.shape.k, x.mode};
    long dy[5] = {y.dtype, y.shape.m, y.shape.n, y.shape.k, y.mode};
    for (int i = 0; i < 5; i++)
        if (dx[i] != dy[i])
            return dx[i] < dy[i] ? -1 : 1;
    return 0;
}

/* One line after the table: how many shapes in each status, iterations run of the
 * budgets, and how many are being tuned now. */
struct totals {
    size_t shapes, live;
    long long iters, budget;
    char statuses[8][16];
    size_t counts[8];
    int n_status;
};

static void totals_add(struct totals *t, const struct state_shape *e, bool live)
{
    const char *st = e->status[0] ? e->status : "?";
    int it = e->iteration;
    int i = 0;
    while (i < t->n_status && strcmp(t->statuses[i], st))
        i++;
    if (i == t->n_status && i < 8)
        snprintf(t->statuses[t->n_status++], sizeof t->statuses[0], "%.15s", st);
    if (i < 8)
        t->counts[i]++;
    t->shapes++;
    t->live += live;
    t->iters += it > 0 ? it : 0;
    t->budget += e->budget;
}

static void totals_print(FILE *out, const struct totals *t)
{
    fprintf(out, "total: %zu shape%s", t->shapes, t->shapes == 1 ? "" : "s");
    for (int i = 0; i < t->n_status; i++)
        fprintf(out, "%s %zu %s", i ? "," : ":", t->counts[i], t->statuses[i]);
    fprintf(out, "; %lld of %lld budgeted iterations run; %zu being tuned now\n", t->iters, t->budget, t->live);
}

/* The directory's lock (<dir>/.lock, state.json's: state.h) is a regular file or absent:
 * anything else in its place (a FIFO, a symlink, a device) makes every later tune,
 * resume or sweep fail to open it, so status says so now, naming it, as it does for
 * state.json. 0, or -1 logged. */
static int dir_lock_ok(const char *dir)
{
    char path[ENGINE_PATH_MAX];
    if (path_fmt(path, "%s/.lock", dir))
        return 0;
    int fd = regfile_open(path, O_RDONLY, REGFILE_NOFOLLOW, 0);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    if (errno == ENOENT)
        return 0; /* nothing was ever written here */
    log_error("cannot open the directory's lock '%s': %s; every write of state.json in '%s' (tune, resume, "
              "sweep) fails until it is replaced by a regular file", path, regfile_strerror(errno), dir);
    return -1;
}

int engine_status(const char *dir, bool json, FILE *out)
{
    struct totals tot = {0};
    char err[600];
    if (dir_lock_ok(dir))
        return ENGINE_FAILED;
    json_t *st = state_load(dir, err, sizeof err);
    if (!st) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    bool laddered = false;
    json_t *arr = json_array();
    size_t n;
    const char **keys = state_shape_keys(st, &n);
    qsort(keys, n, sizeof *keys, cmp_shape_key);
    if (!json)
        fprintf(out, "%-28s %-17s %-3s %-6s %-14s %9s %9s %9s%-*s  %s\n", "shape", "mode", "be", "status", "phase",
                "iter", "baseline", "best", STATUS_BEST_NOTE_W, "", "stopped because");
    for (size_t i = 0; i < n; i++) {
        struct state_shape e;
        state_shape_get(st, keys[i], &e);
        json_t *live = live_progress(dir, keys[i]);
        if (json) { /* the entry as it is in the file, and what status knows of it */
            json_t *o = state_entry_copy(st, keys[i]);
            json_object_set_new(o, "key", json_string(keys[i]));
            json_object_set_new(o, "live", live ? live : json_null());
            json_object_set_new(o, "needs_scratch", json_boolean(shape_needs_scratch(&e)));
            json_array_append_new(arr, o);
            continue;
        }
        char why[512];
        row_why(dir, &e, live, why, sizeof why);
        print_row(out, &e, why);
        laddered |= e.have_best && e.best.from_ladder;
        totals_add(&tot, &e, live != NULL);
        if (live)
            print_live(out, keys[i], live);
        json_decref(live);
    }
    free(keys);
    /* a refused entry: the shape is unreadable, the others are shown as always */
    json_t *refused = json_array();
    size_t nr;
    keys = state_refused_keys(st, &nr);
    for (size_t i = 0; i < nr; i++) {
        char why[600];
        state_shape_refused(st, keys[i], why, sizeof why);
        log_error("%s/state.json: %s: this shape's entry is refused (status, resume and tune do not read it)", dir,
                  why);
        json_array_append_new(refused, json_pack("{s:s, s:s}", "key", keys[i], "why", why));
    }
    free(keys);
    int rc = nr ? ENGINE_FAILED : ENGINE_DONE;
    if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "schema", json_integer(ENGINE_SCHEMA));
        json_object_set_new(o, "shapes", arr);
        json_object_set_new(o, "refused", refused);
        json_object_set_new(o, "sweep", state_sweep_copy(st));
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        fprintf(out, "%s\n", s ? s : "{}");
        free(s);
        json_decref(o);
    } else {
        json_decref(arr);
        json_decref(refused);
        char (*orphans)[KEY_MAX];
        size_t no = checkpoint_orphans(dir, st, &orphans);
        if (!n && !no)
            fprintf(out, "(no shapes in '%s')\n", dir);
        if (n)
            totals_print(out, &tot);
        if (laddered)
            fprintf(out, "L@MHz: the best is the final ladder's winner, at the ladder's TFLOPS and median SM clock\n");
        for (size_t i = 0; i < no; i++)
            fprintf(out, "%-28s not in state.json, but checkpoints/%s.json exists: 'croqtuner resume' restores it\n",
                    orphans[i], orphans[i]);
        free(orphans);
    }
    json_decref(st);
    return rc;
}
