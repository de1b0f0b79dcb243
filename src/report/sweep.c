/* src/report/sweep.c — read a tuning directory into the model (sweep.h). */
#include "report/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifacts/srcstore.h"
#include "report/out.h"
#include "report/read.h"
#include "report/stats.h"
#include "util/log.h"
#include "util/regfile.h"

struct report_shape *sweep_find(struct report_sweep *sw, const char *key)
{
    for (size_t i = 0; i < sw->n_shapes; i++)
        if (!strcmp(sw->shapes[i].key, key))
            return &sw->shapes[i];
    return NULL;
}

struct report_shape *sweep_add(struct report_sweep *sw, const char *key)
{
    struct report_shape tmp = {0};
    if (shape_key_parse(key, &tmp))
        return NULL;
    struct report_shape *s = sweep_find(sw, key);
    if (s)
        return s;
    sw->shapes = xrealloc(sw->shapes, (sw->n_shapes + 1) * sizeof *sw->shapes);
    s = &sw->shapes[sw->n_shapes++];
    *s = tmp;
    s->state_iteration = s->state_budget = -1;
    s->state_baseline = s->state_best = NAN;
    vendor_clear(&s->vendor);
    return s;
}

const struct report_shape *sweep_partner(const struct report_sweep *sw, const struct report_shape *s)
{
    char want[80];
    snprintf(want, sizeof want, "%s%s", s->base_key, s->from_scratch ? "" : "_fs");
    for (size_t i = 0; i < sw->n_shapes; i++)
        if (!strcmp(sw->shapes[i].key, want))
            return &sw->shapes[i];
    return NULL;
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* Every directory under logs/ is a shape. */
static void scan_logs(struct report_sweep *sw, const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/logs", dir);
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char sub[PATH_MAX];
        struct stat stb;
        if (report_path_fmt(sub, sizeof sub, "%s/%s", path, e->d_name) || stat(sub, &stb) || !S_ISDIR(stb.st_mode))
            continue;
        if (!sweep_add(sw, e->d_name))
            notes_add(&sw->notes, NOTE_MALFORMED, NULL, "logs/%s: not a shape key; skipped", e->d_name);
    }
    closedir(d);
}

static bool pending_status(const char *st)
{
    return !strcmp(st, "pending") || !strcmp(st, "queued") || !strcmp(st, "not_started");
}

static void load_results(struct report_sweep *sw, struct report_shape *s)
{
    char path[PATH_MAX], rel[256];
    snprintf(rel, sizeof rel, "logs/%s/results.tsv", s->key);
    snprintf(path, sizeof path, "%s/%s", sw->tuning_dir, rel);
    if (!exists(path)) {
        if (s->in_state && pending_status(s->status))
            notes_add(&sw->notes, NOTE_INFO, s->key, "not started yet (status %s): no %s", s->status, rel);
        else
            notes_add(&sw->notes, NOTE_MISSING, s->key, "%s", rel);
        return;
    }
    results_read(s, path, rel, &sw->notes);
    snprintf(rel, sizeof rel, "logs/%s/idea-log.jsonl", s->key);
    snprintf(path, sizeof path, "%s/%s", sw->tuning_dir, rel);
    bool has_ideas = s->n_rows > 1;
    if (idealog_read(s, path, rel, &sw->notes) && has_ideas)
        notes_add(&sw->notes, NOTE_MISSING, s->key, "%s (idea justifications not shown)", rel);
}

static void load_vendor(struct report_sweep *sw, struct report_shape *s, const json_t *anchors)
{
    /* A from-scratch run compares with the same vendor numbers as its shape, unless it has
     * a record of its own (compare --mode scratch): one that is there but unusable is not
     * replaced by the other run's, whose compare measured another best. */
    const char *keys[] = {s->key, s->base_key};
    for (int i = 0; i < (s->from_scratch ? 2 : 1) && !s->vendor.path; i++) {
        char path[PATH_MAX], rel[256];
        struct stat st;
        snprintf(rel, sizeof rel, "perf/%s/vendor.json", keys[i]);
        snprintf(path, sizeof path, "%s/%s", sw->tuning_dir, rel);
        if (vendor_read(s, path, rel, &sw->notes) && !(lstat(path, &st) && errno == ENOENT))
            break;
    }
    /* Simulated TFLOPS next to real vendor numbers would read as a comparison: none. */
    if (s->simulated) {
        vendor_clear(&s->vendor);
        if (s->have_results)
            notes_add(&sw->notes, NOTE_INFO, s->key, "simulated run: no vendor comparison (anchors are real H200 "
                                                     "numbers)");
        return;
    }
    int anchored = anchors ? vendor_fill_from_anchors(s, anchors) : 0;
    /* Without results there is nothing to compare with yet: no note. */
    if ((s->vendor.path && !anchored) || !s->have_results)
        return;
    char tried[200];
    snprintf(tried, sizeof tried, "perf/%s/vendor.json%s%s%s", s->key, s->from_scratch ? " or perf/" : "",
             s->from_scratch ? s->base_key : "", s->from_scratch ? "/vendor.json" : "");
    if (!s->vendor.path && anchored)
        notes_add(&sw->notes, NOTE_INFO, s->key, "no usable %s: cuBLAS/cuSPARSELt lines are anchors (not same run)",
                  tried);
    else if (anchored)
        notes_add(&sw->notes, NOTE_INFO, s->key, "%s lacks %d vendor value(s): taken from anchors (not same run)",
                  s->vendor.path, anchored);
    else
        notes_add(&sw->notes, NOTE_MISSING, s->key,
                  "%s (run 'croqtuner compare'); no anchor for this shape either", tried);
}

/* Say which figure the vendor speed-ups divide: the best re-measured in the vendors' run,
 * or (older vendor.json, or a compare of another configuration) the tuning run's best. */
static void note_same_run(struct report_sweep *sw, const struct report_shape *s)
{
    if (!s->vendor.path || !isfinite(s->st.best) || isfinite(stats_best_same_run(s)))
        return;
    const char *best_cfg = stats_best_config(s);
    const char *why = !s->vendor.ours_config ? "no ours_config"
                      : best_cfg && !strcmp(best_cfg, s->vendor.ours_config)
                          ? "the compare run did not verify it: ours_tflops is null"
                          : "it measured another configuration";
    notes_add(&sw->notes, NOTE_INFO, s->key,
              "%s has no measurement of the best configuration (%s): speed-ups vs cuBLAS/cuSPARSELt divide the "
              "tuning run's best, measured in another process",
              s->vendor.path, why);
}

static void note_partial(struct report_sweep *sw, const struct report_shape *s)
{
    const struct report_stats *st = &s->st;
    if (!s->in_state && s->have_results)
        notes_add(&sw->notes, NOTE_MISSING, s->key, "not in state.json: status and budget unknown");
    bool short_of_budget = s->have_results && st->budget > 0 && st->iters_done < st->budget;
    if (short_of_budget && shape_finished(s))
        notes_add(&sw->notes, NOTE_INFO, s->key, "ended at %d of %d iterations: %s", st->iters_done, st->budget,
                  s->stop_reason[0] ? s->stop_reason : "no reason recorded");
    else if (short_of_budget)
        notes_add(&sw->notes, NOTE_INFO, s->key, "mid-run: %d of %d iterations (status %s%s%s)", st->iters_done,
                  st->budget, s->status, s->phase[0] ? ", phase " : "", s->phase);
    if (st->best_iter < 0 || !s->have_results)
        return;
    for (size_t i = 0; i < s->n_rows; i++) {
        const char *k = s->rows[i].kernel;
        char path[PATH_MAX];
        if (s->rows[i].iter != st->best_iter || !k || !*k)
            continue;
        char recipe[SRCSTORE_REL_MAX], rpath[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", sw->tuning_dir, k);
        /* a generated source is kept as its recipe once the shape is done (src/artifacts/srcstore.h) */
        bool as_recipe = !srcstore_recipe_rel(k, recipe) &&
                         (size_t)snprintf(rpath, sizeof rpath, "%s/%s", sw->tuning_dir, recipe) < sizeof rpath &&
                         exists(rpath);
        if (k[0] == '/' || strstr(k, "..") || !(exists(path) || as_recipe))
            notes_add(&sw->notes, NOTE_MISSING, s->key, "%s (source of the best kernel, iteration %d)", k,
                      st->best_iter);
    }
}

static int shape_cmp(const void *a, const void *b)
{
    const struct report_shape *x = a, *y = b;
    int c = strcmp(x->dtype, y->dtype);
    if (c)
        return c;
    if (x->m != y->m)
        return x->m < y->m ? -1 : 1;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return (int)x->from_scratch - (int)y->from_scratch;
}

/* Anchors are real GPU numbers, never shown beside simulated runs: a report of
 * simulated runs only does not read them, and not finding them is no gap in it. */
static json_t *load_anchors(struct report_sweep *sw, const char *path)
{
    bool any_real = false;
    for (size_t i = 0; i < sw->n_shapes; i++)
        any_real |= !sw->shapes[i].simulated;
    if (!any_real) { /* found or not: never read, so the notes do not depend on where the binary lives */
        notes_add(&sw->notes, NOTE_INFO, NULL, "vendor anchors not used; none is needed: every run is simulated, "
                  "and anchors are real GPU numbers");
        return NULL;
    }
    if (!path) {
        notes_add(&sw->notes, NOTE_MISSING, NULL, "vendor anchors file not found (give --anchors FILE: the project's "
                  "../shared/data/vendor-anchors-h200.json, or for a dry run tests/fixtures/tuning/"
                  "vendor-anchors.json): shapes without vendor.json show no vendor lines");
        return NULL;
    }
    json_error_t err;
    /* read once, O_NONBLOCK and fstat'ed (regfile.h): a FIFO or a device is never read */
    json_t *a = regfile_load_json_je(path, 0, &err);
    if (!a || !json_is_array(json_object_get(a, "rows"))) {
        if (a)
            notes_add(&sw->notes, NOTE_MALFORMED, NULL, "'%s': no 'rows' array", path);
        else if (err.line > 0)
            notes_add(&sw->notes, NOTE_MALFORMED, NULL, "'%s':%d: %s", path, err.line, err.text);
        else /* line -1: the file was not read */
            notes_add(&sw->notes, NOTE_MALFORMED, NULL, "'%s': %s", path, err.text);
        json_decref(a);
        return NULL;
    }
    return a;
}

static int check_dir(const char *dir, char *why, size_t whylen)
{
    struct stat stb;
    if (stat(dir, &stb)) {
        snprintf(why, whylen, "cannot open tuning directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(stb.st_mode)) {
        snprintf(why, whylen, "tuning directory '%s' is not a directory", dir);
        return -1;
    }
    return 0;
}

int sweep_load(struct report_sweep *sw, const char *dir, const char *anchors_path, char *why, size_t whylen)
{
    if (check_dir(dir, why, whylen))
        return -1;
    sw->tuning_dir = xstrdup(dir);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/state.json", dir);
    if (state_read(sw, path) && !exists(path))
        notes_add(&sw->notes, NOTE_MISSING, NULL, "state.json: status and budget of every shape unknown");
    scan_logs(sw, dir);
    if (sw->n_shapes == 0) {
        snprintf(why, whylen, "no tuning data in '%s': no state.json shapes and no logs/<key>/ directories", dir);
        return -1;
    }
    for (size_t i = 0; i < sw->n_shapes; i++)
        load_results(sw, &sw->shapes[i]);
    json_t *anchors = load_anchors(sw, anchors_path);
    for (size_t i = 0; i < sw->n_shapes; i++) {
        struct report_shape *s = &sw->shapes[i];
        load_vendor(sw, s, anchors);
        stats_compute(s);
        note_same_run(sw, s);
        note_partial(sw, s);
    }
    json_decref(anchors);
    plan_check(sw);
    qsort(sw->shapes, sw->n_shapes, sizeof *sw->shapes, shape_cmp);
    size_t with_data = 0;
    for (size_t i = 0; i < sw->n_shapes; i++)
        with_data += sw->shapes[i].have_results || sw->shapes[i].in_state;
    if (!with_data) {
        snprintf(why, whylen, "no tuning data in '%s': no readable logs/<key>/results.tsv and no shape in state.json", dir);
        return -1;
    }
    return 0;
}
