/* src/artifacts/state.c — state.json: one entry per shape (status, mode, iteration,
 * budget, baseline, best), shared by every croqtuner process on a tuning directory.
 *
 * Two processes may tune different shapes at once, so every change is a
 * read-modify-write under an exclusive flock on <dir>/.lock: each process rewrites only
 * its own entry of the freshest file, and the rename makes the new file appear whole.
 * RESUME.md is regenerated under the same lock so it never describes a state that was
 * overwritten.
 *
 * Reading refuses a shape, not the file: an entry the strict reader refuses (a number out
 * of range, an unknown name, an identity that is not its key's) is recorded in the loaded
 * tree under STATE_REFUSED_MEMBER and left out of the typed view (state_model.c), so the
 * other shapes read, resume and report as before, and the entry is written back as it
 * was read. What is the file's (not JSON, a duplicated member, the schema, 'shapes', a key
 * that is not a shape key, the sweep record) still refuses the file. A writer checks every
 * entry it did not read as refused before the file is replaced, so it never writes what
 * this reader would refuse.
 */
#include "artifacts/paths.h"
#include "artifacts/state.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/atomicio.h"
#include "util/jsonget.h"
#include "util/log.h"
#include "util/regfile.h"
#include "util/utctime.h"

/* An entry's numbers and names, in the ranges and sets the checkpoint reader takes
 * (checkpoint.c), so status, resume and the audit never act on a value the engine could
 * not have written: "shape '<key>': '<member>' <what>". */
static int entry_values(const char *key, json_t *e, char *err, size_t errlen)
{
    char ctx[KEY_MAX + 16], backend[16] = "", phase[32] = "", seed[24] = "";
    long long x;
    double t;
    unsigned long long sd;
    struct jget g;
    snprintf(ctx, sizeof ctx, "shape '%s': ", key);
    jget_init(&g, ctx, err, errlen);
    jget_int_in(&g, e, "", "iteration", true, -1, CHECKPOINT_ITER_MAX, &x);
    jget_int_in(&g, e, "", "budget", true, 1, CHECKPOINT_ITER_MAX, &x);
    if (jget_str(&g, e, "", "backend", true, backend, sizeof backend) && !backend_name_known(backend))
        jget_fail(&g, "", "backend", "is not sim, gpu or replay");
    if (jget_str(&g, e, "", "phase", true, phase, sizeof phase) && phase_parse(phase) < 0)
        jget_fail(&g, "", "phase", "is not a phase");
    if (jget_str(&g, e, "", "seed", true, seed, sizeof seed) && !checkpoint_seed_parse(seed, &sd))
        jget_fail(&g, "", "seed", "is not a decimal seed");
    json_t *base = jget_obj(&g, e, "", "baseline", false), *best = jget_obj(&g, e, "", "best", false);
    if (base && json_object_get(base, "tflops") && jget_finite_or_null(&g, base, "baseline", "tflops", &t) &&
        !isnan(t) && !(t > 0))
        jget_fail(&g, "baseline", "tflops", "is not a positive number");
    if (best) {
        char measured[16] = "";
        jget_int_in(&g, best, "best", "iter", true, 0, CHECKPOINT_ITER_MAX, &x);
        if (jget_finite_or_null(&g, best, "best", "tflops", &t) && !(t > 0))
            jget_fail(&g, "best", "tflops", "is not a positive number");
        if (json_object_get(best, "measured") && jget_str(&g, best, "best", "measured", true, measured, sizeof measured) &&
            strcmp(measured, "ladder"))
            jget_fail(&g, "best", "measured", "is not \"ladder\"");
        if (json_object_get(best, "sm_clock_mhz"))
            jget_finite_or_null(&g, best, "best", "sm_clock_mhz", &t);
    }
    char l2[8] = "";
    if (json_object_get(e, "l2") && jget_str(&g, e, "", "l2", true, l2, sizeof l2) && strcmp(l2, "cold") &&
        strcmp(l2, "warm"))
        jget_fail(&g, "", "l2", "is not \"warm\" or \"cold\"");
    char strategy[24] = "";
    if (json_object_get(e, "strategy") && jget_str(&g, e, "", "strategy", true, strategy, sizeof strategy) &&
        !strategy_name_ok(strategy))
        jget_fail(&g, "", "strategy", "is not a strategy name (" STRATEGY_NAME_RULE ")");
    if (json_object_get(e, "ladder"))
        jget_obj(&g, e, "", "ladder", true);
    return g.failed ? -1 : 0;
}

/* The key is a shape key (checked by the caller). */
static int entry_check(const char *key, json_t *e, char *err, size_t errlen)
{
    struct shape_key sk;
    char why[256];
    json_t *st = json_object_get(e, "status");
    if (key_parse(key, &sk, why, sizeof why)) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (!json_is_object(e) || !json_is_string(st) ||
        (strcmp(json_string_value(st), "active") && strcmp(json_string_value(st), "done"))) {
        snprintf(err, errlen, "shape '%s': 'status' must be \"active\" or \"done\"", key);
        return -1;
    }
    json_t *m = json_object_get(e, "m"), *n = json_object_get(e, "n"), *k = json_object_get(e, "k");
    json_t *dt = json_object_get(e, "dtype"), *mo = json_object_get(e, "mode");
    if (!json_is_integer(m) || !json_is_integer(n) || !json_is_integer(k) || !json_is_string(dt) ||
        !json_is_string(mo) || json_integer_value(m) != sk.shape.m || json_integer_value(n) != sk.shape.n ||
        json_integer_value(k) != sk.shape.k || croq_dtype_parse(json_string_value(dt)) != sk.dtype ||
        mode_parse(json_string_value(mo)) != (int)sk.mode) {
        snprintf(err, errlen, "shape '%s': dtype, m, n, k or mode missing or not those of the key", key);
        return -1;
    }
    return entry_values(key, e, err, errlen);
}

/* The sweep record's members are of their types where present, and iters (0: the shapes'
 * own budgets) in range: a damaged one must not make resume run other budgets. */
static int sw_check(json_t *sw, char *err, size_t errlen)
{
    char text[4096];
    long long x;
    bool b;
    struct jget g;
    jget_init(&g, "", err, errlen);
    const char *strs[] = {"dtype", "plan", "backend", "seed", "shapes", "status"};
    for (size_t i = 0; json_is_object(sw) && i < sizeof strs / sizeof *strs; i++)
        jget_str(&g, sw, "sweep", strs[i], false, text, sizeof text);
    if (json_is_object(sw)) {
        /* the record is never written with a null. Read as absent (jget's rule), a null
         * waves would have resume run a parallel sweep serially, and a null iters or
         * last_wave has status count (all waves) a sweep that resume calls incomplete */
        const char *k;
        json_t *v;
        json_object_foreach(sw, k, v)
            if (json_is_null(v))
                jget_fail(&g, "sweep", k, "is null");
        jget_int_in(&g, sw, "sweep", "iters", false, 0, CHECKPOINT_ITER_MAX, &x);
        jget_bool(&g, sw, "sweep", "waves", false, &b);
        jget_int_in(&g, sw, "sweep", "last_wave", false, 1, STATE_SWEEP_WAVES, &x);
    }
    return g.failed ? -1 : 0;
}

/* The file's own problems; every key a shape key. */
static int file_check(json_t *root, char *err, size_t errlen)
{
    json_t *sc = json_object_get(root, "schema"), *shapes = json_object_get(root, "shapes"), *e;
    json_t *sw = json_object_get(root, "sweep");
    const char *key;
    struct shape_key sk;
    if (!json_is_object(root) || !json_is_integer(sc)) {
        snprintf(err, errlen, "not a croqtuner state (no schema)");
        return -1;
    }
    if (json_integer_value(sc) != ENGINE_SCHEMA) {
        snprintf(err, errlen, "schema %lld, this croqtuner reads schema %d", (long long)json_integer_value(sc),
                 ENGINE_SCHEMA);
        return -1;
    }
    if (!json_is_object(shapes)) {
        snprintf(err, errlen, "'shapes' missing or not an object");
        return -1;
    }
    if (sw && !json_is_null(sw) && !json_is_object(sw)) {
        snprintf(err, errlen, "'sweep' is not an object");
        return -1;
    }
    if (sw_check(sw, err, errlen))
        return -1;
    json_object_foreach(shapes, key, e) {
        if (key_parse(key, &sk, err, errlen))
            return -1;
    }
    return 0;
}

int state_validate(json_t *root, char *err, size_t errlen)
{
    json_t *shapes = json_object_get(root, "shapes"), *e, *refused = json_object();
    const char *key;
    char why[512];
    if (file_check(root, err, errlen)) {
        json_decref(refused);
        return -1;
    }
    json_object_del(root, STATE_REFUSED_MEMBER);
    json_object_foreach(shapes, key, e) {
        if (entry_check(key, e, why, sizeof why))
            json_object_set_new(refused, key, json_pack("{s:s, s:O}", "why", why, "entry", e));
    }
    if (json_object_size(refused))
        json_object_set(root, STATE_REFUSED_MEMBER, refused);
    json_decref(refused);
    return 0;
}

/* Before the file is replaced: what a reader would refuse is not written. An entry read as
 * refused and left as it was stays (it is that shape's record, refused again at the next
 * read); one the edit replaced or removed is no longer refused; every other entry must
 * pass. */
static int check_before_write(json_t *root, char *err, size_t errlen)
{
    json_t *shapes = json_object_get(root, "shapes"), *refused = json_object_get(root, STATE_REFUSED_MEMBER), *e;
    const char *key;
    void *tmp;
    char why[512];
    if (file_check(root, why, sizeof why)) {
        snprintf(err, errlen, "state.json not written: %s", why);
        return -1;
    }
    json_object_foreach_safe(refused, tmp, key, e) {
        if (json_object_get(shapes, key) != json_object_get(e, "entry"))
            json_object_del(refused, key);
    }
    json_object_foreach(shapes, key, e) {
        if (!json_object_get(refused, key) && entry_check(key, e, why, sizeof why)) {
            snprintf(err, errlen, "state.json not written (its reader would refuse it): %s", why);
            return -1;
        }
    }
    return 0;
}

static int cmp_key(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

const char **json_sorted_keys(json_t *obj, size_t *n)
{
    const char *key, **keys = xmalloc((json_object_size(obj) + 1) * sizeof *keys);
    json_t *v;
    size_t i = 0;
    json_object_foreach(obj, key, v) {
        keys[i++] = key;
    }
    keys[i] = NULL;
    qsort(keys, i, sizeof *keys, cmp_key);
    if (n)
        *n = i;
    return keys;
}

static json_t *state_empty(void)
{
    json_t *o = json_object();
    json_object_set_new(o, "schema", json_integer(ENGINE_SCHEMA));
    json_object_set_new(o, "shapes", json_object());
    return o;
}

json_t *state_load(const char *dir, char *err, size_t errlen)
{
    char path[ENGINE_PATH_MAX], why[300];
    if (path_fmt(path, "%s/state.json", dir)) {
        snprintf(err, errlen, "tuning directory path too long");
        return NULL;
    }
    json_t *j = regfile_load_json(path, JSON_REJECT_DUPLICATES, why, sizeof why);
    if (!j && errno == ENOENT)
        return state_empty();
    if (!j) {
        snprintf(err, errlen, "%s; the file is left as it is", why);
        return NULL;
    }
    if (state_validate(j, why, sizeof why)) {
        snprintf(err, errlen, "cannot read '%s': %s; the file is left as it is", path, why);
        json_decref(j);
        return NULL;
    }
    return j;
}

int state_entry_refused(const char *dir, const char *key, char *why, size_t len)
{
    json_t *st = state_load(dir, why, len);
    if (!st)
        return -1;
    int rc = state_shape_refused(st, key, why, len) ? 1 : 0;
    json_decref(st);
    return rc;
}

json_t *state_load_unchecked(const char *dir, char *err, size_t errlen)
{
    char path[ENGINE_PATH_MAX];
    if (path_fmt(path, "%s/state.json", dir)) {
        snprintf(err, errlen, "tuning directory path too long");
        return NULL;
    }
    json_t *j = regfile_load_json(path, 0, err, errlen);
    if (j && !json_is_object(json_object_get(j, "shapes"))) {
        snprintf(err, errlen, "state.json: no 'shapes' object");
        json_decref(j);
        return NULL;
    }
    return j;
}

static int write_json(const char *path, json_t *j, char *err, size_t errlen)
{
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
    int rc = s ? atomic_write_str(path, s) : -1;
    if (rc)
        snprintf(err, errlen, "cannot write '%s': %s", path, s ? strerror(errno) : "out of memory");
    free(s);
    return rc;
}

/* Under <dir>/.lock (held by the caller): state.json, RESUME.md and the .gitignore of
 * --git (engine/git.c writes it under .lock too). */
static int clean_temps_locked(const char *dir)
{
    return atomic_clean_temps_locked(dir, "state.json.", 0) + atomic_clean_temps_locked(dir, "RESUME.md.", 0) +
           atomic_clean_temps_locked(dir, ".gitignore.", 0);
}

int state_clean_temps(const char *dir)
{
    char lock[ENGINE_PATH_MAX];
    if (path_fmt(lock, "%s/.lock", dir))
        return 0;
    int fd = regfile_open(lock, O_RDWR, REGFILE_NOFOLLOW, 0);
    if (fd < 0)
        return 0;
    while (flock(fd, LOCK_EX) && errno == EINTR)
        ;
    int n = clean_temps_locked(dir);
    close(fd); /* releases the lock */
    return n;
}

int state_update(const char *dir, state_edit_fn fn, void *arg, char *err, size_t errlen)
{
    char lock[ENGINE_PATH_MAX], path[ENGINE_PATH_MAX], md[ENGINE_PATH_MAX];
    if (path_fmt(lock, "%s/.lock", dir) || path_fmt(path, "%s/state.json", dir) ||
        path_fmt(md, "%s/RESUME.md", dir)) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    int fd = mkdir_p(dir) ? -1 : regfile_open(lock, O_RDWR | O_CREAT, REGFILE_NOFOLLOW, 0);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open '%s': %s", lock, regfile_strerror(errno));
        return -1;
    }
    int rc = -1;
    while (flock(fd, LOCK_EX) && errno == EINTR)
        ;
    clean_temps_locked(dir);
    json_t *root = state_load(dir, err, errlen);
    /* fn may answer 1, "nothing to change": a scale worker polling for work (src/scale)
     * looks under this lock many times and must not rewrite the file each time */
    int edit = root ? fn(root, arg, err, errlen) : -1;
    if (edit == 1)
        rc = 1;
    if (!edit && !check_before_write(root, err, errlen)) {
        char *text = resume_md_render(root); /* it names the refused entries */
        json_object_del(root, STATE_REFUSED_MEMBER); /* the reader's record, not the file's */
        if (!write_json(path, root, err, errlen)) {
            rc = atomic_write_str(md, text);
            if (rc)
                snprintf(err, errlen, "cannot write '%s': %s", md, strerror(errno));
        }
        free(text);
    }
    json_decref(root);
    close(fd); /* releases the lock */
    return rc;
}

/* The ladder as the report and status show it: each entry's numbers, the winner, and the
 * tuning's own best beside it (the chain the ladder re-timed). */
static json_t *state_ladder_json(const struct checkpoint *c)
{
    const struct ladder_rec *l = &c->ladder;
    json_t *o = json_object(), *es = json_array();
    json_object_set_new(o, "ok", json_boolean(l->ok));
    json_object_set_new(o, "rounds", json_integer(l->rounds));
    json_object_set_new(o, "steady", json_boolean(l->steady));
    json_object_set_new(o, "note", json_string(l->note));
    json_object_set_new(o, "winner_iter", l->ok ? json_integer(l->e[l->winner].iter) : json_null());
    json_object_set_new(o, "tuning_best", json_pack("{s:i, s:f}", "iter", c->best.iter, "tflops", c->best.p.tflops));
    for (int i = 0; i < l->n; i++) {
        const struct ladder_rec_entry *x = &l->e[i];
        json_t *v = json_object();
        json_object_set_new(v, "iter", json_integer(x->iter));
        json_object_set_new(v, "tflops", isfinite(x->tflops) ? json_real(x->tflops) : json_null());
        json_object_set_new(v, "median_ms", isfinite(x->median_ms) ? json_real(x->median_ms) : json_null());
        json_object_set_new(v, "spread_pct", isfinite(x->spread_pct) ? json_real(x->spread_pct) : json_null());
        json_object_set_new(v, "sm_clock_mhz", isfinite(x->sm_clock_mhz) ? json_real(x->sm_clock_mhz) : json_null());
        json_object_set_new(v, "rel", isfinite(x->rel) ? json_real(x->rel) : json_null());
        json_array_append_new(es, v);
    }
    json_object_set_new(o, "entries", es);
    return o;
}

json_t *state_entry(const struct checkpoint *c, const char *status)
{
    char now[32];
    json_t *e = json_object(), *base = json_object();
    utc_now(now);
    checkpoint_identity_put(e, c);
    json_object_set_new(e, "agent", json_boolean(c->agent));
    json_object_set_new(e, "status", json_string(status));
    json_object_set_new(e, "phase", json_string(phase_name(c->phase)));
    json_object_set_new(e, "iteration", json_integer(c->iteration));
    json_object_set_new(e, "budget", json_integer(c->budget));
    json_object_set_new(e, "stop_reason", json_string(c->stop_reason));
    json_object_set_new(e, "seed_from", json_string(c->seed_from));
    json_object_set_new(base, "config", json_string(c->seed_config));
    json_object_set_new(base, "tflops", isfinite(c->baseline_tflops) ? json_real(c->baseline_tflops) : json_null());
    json_object_set_new(e, "baseline", base);
    struct registered_best rb;
    checkpoint_registered(c, &rb);
    if (rb.have) {
        json_t *b = json_object();
        json_object_set_new(b, "iter", json_integer(rb.iter));
        json_object_set_new(b, "tflops", json_real(rb.tflops));
        json_object_set_new(b, "config", json_string(rb.config));
        json_object_set_new(b, "kernel", json_string(rb.kernel));
        if (rb.from_ladder) { /* absent: the tuning's own best, as before the ladder existed */
            json_object_set_new(b, "measured", json_string("ladder"));
            json_object_set_new(b, "sm_clock_mhz", isfinite(rb.sm_clock_mhz) ? json_real(rb.sm_clock_mhz) : json_null());
        }
        /* kernel names the record (srcs/, maybe only a recipe); a done shape's whole best
         * is the published copy, which is what a user looks for */
        char pub[ENGINE_PATH_MAX];
        if (!strcmp(status, "done") && !path_published_best(pub, croq_dtype_name(c->sk.dtype), c->key))
            json_object_set_new(b, "published", json_string(pub));
        json_object_set_new(e, "best", b);
    } else {
        json_object_set_new(e, "best", json_null());
    }
    if (c->cold_l2)
        json_object_set_new(e, "l2", json_string("cold"));
    /* with l2, what a resume needs to create the shape as it was asked for when a crash
     * came before its checkpoint (absent: the default, as in every entry before it) */
    if (strcmp(c->strategy, CHECKPOINT_STRATEGY_DEFAULT))
        json_object_set_new(e, "strategy", json_string(c->strategy));
    if (c->ladder.done)
        json_object_set_new(e, "ladder", state_ladder_json(c));
    json_object_set_new(e, "updated_at", json_string(now));
    return e;
}

struct put_arg {
    const struct checkpoint *c;
    const char *status;
};

static int put_entry(json_t *root, void *arg, char *err, size_t errlen)
{
    struct put_arg *a = arg;
    json_object_set_new(json_object_get(root, "shapes"), a->c->key, state_entry(a->c, a->status));
    return 0;
}

int state_put(const char *dir, const struct checkpoint *c, const char *status, char *err, size_t errlen)
{
    struct put_arg a = {c, status};
    return state_update(dir, put_entry, &a, err, errlen);
}

struct put_new_arg {
    struct put_arg put;
    const char *dir;
};

static int put_new_entry(json_t *root, void *arg, char *err, size_t errlen)
{
    const char *dir = ((struct put_new_arg *)arg)->dir;
    struct put_arg *a = &((struct put_new_arg *)arg)->put;
    size_t n;
    const char **keys = state_shape_keys(root, &n);
    for (size_t i = 0; i < n; i++) {
        struct state_shape e;
        state_shape_get(root, keys[i], &e);
        if (strcmp(keys[i], a->c->key) && strcmp(e.backend, a->c->backend)) {
            snprintf(err, errlen, "'%.300s' holds shapes tuned with backend '%s' (%s), not '%s': results of "
                     "different backends are never mixed in one tuning directory; give --tuning ANOTHER_DIR for "
                     "backend '%s' (shape '%s' was not added)", dir, e.backend, keys[i], a->c->backend, a->c->backend,
                     a->c->key);
            free(keys);
            return -1;
        }
    }
    free(keys);
    return put_entry(root, arg, err, errlen);
}

int state_put_new(const char *dir, const struct checkpoint *c, const char *status, char *err, size_t errlen)
{
    struct put_new_arg a = {{c, status}, dir};
    return state_update(dir, put_new_entry, &a, err, errlen);
}
