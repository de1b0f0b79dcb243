/* src/engine/prior.c — what the proposer's cost model knows of other shapes: the
 * measurements of the other tuned shapes INIT recorded (checkpoint "prior": a key and its
 * row count then, seed.c), and the explore datasets the options name (replay-bench). Read
 * once per process, at the first IDEATE, in a fixed order (sources in key order, rows in
 * file order, then the datasets in the given order), so an interrupted run hands the
 * model exactly what an uninterrupted one would (docs/proposer.md "Cost model"). And the
 * same rows of every shape of a tuning directory, for the model across shapes
 * (engine_tuning_samples: `croqtuner costmodel`, export).
 */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dataset/dataset.h"
#include "util/log.h"

struct samples {
    struct costmodel_sample *v;
    size_t n, cap;
};

static void push(struct samples *s, const struct croq_config *cfg, const struct croq_shape *shape, double tflops)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = (struct costmodel_sample){.cfg = *cfg, .shape = *shape, .tflops = tflops};
}

/* The rows the cost model takes from a results.tsv: the first limit rows (all: -1) that
 * are measured with a TFLOPS and whose configuration parses as the key's dtype. */
static void push_rows(const struct result_log *log, long limit, const struct shape_key *sk, struct samples *s)
{
    char err[CROQ_WHY_MAX];
    for (size_t i = 0; i < log->n && (limit < 0 || i < (size_t)limit); i++) {
        const struct result_row *row = &log->rows[i];
        struct croq_config cfg;
        if (row->measured && isfinite(row->tflops) && row->tflops > 0 &&
            !knobs_parse_signature(&cfg, row->config, err, sizeof err) && cfg.dtype == sk->dtype)
            push(s, &cfg, &sk->shape, row->tflops);
    }
}

/* The first src->rows rows of a source's results.tsv: those with a TFLOPS. */
static int load_source(struct run *r, const struct prior_src *src, struct samples *s)
{
    struct shape_key sk;
    struct result_log log;
    char path[ENGINE_PATH_MAX], err[600];
    if (key_parse(src->key, &sk, err, sizeof err))
        return run_fail(r, "shape '%s': prior shape '%s': %s", r->ck.key, src->key, err);
    if (path_fmt(path, "%s/logs/%s/results.tsv", r->dir, src->key))
        return run_fail(r, "shape '%s': the path of prior shape '%s' is too long", r->ck.key, src->key);
    if (result_log_read(path, &log, err, sizeof err) < 0)
        return run_fail(r, "shape '%s': the cost model reads the results of '%s': %s", r->ck.key, src->key, err);
    push_rows(&log, src->rows, &sk, s);
    result_log_release(&log);
    return 0;
}

static int load_dataset(struct run *r, const char *path, struct samples *s)
{
    struct dataset ds;
    char err[1024];
    if (dataset_load(path, false, &ds, err, sizeof err))
        return run_fail(r, "shape '%s': prior dataset: %s", r->ck.key, err);
    bool self = ds.dtype == r->ck.sk.dtype && !memcmp(&ds.shape, &r->ck.sk.shape, sizeof ds.shape);
    for (int i = 0; !self && ds.dtype == r->ck.sk.dtype && i < ds.n; i++)
        if (!strcmp(ds.r[i].status, "ok") && isfinite(ds.r[i].tflops) && ds.r[i].tflops > 0)
            push(s, &ds.r[i].cfg, &ds.shape, ds.r[i].tflops);
    dataset_release(&ds);
    return 0;
}

int prior_load(struct run *r)
{
    struct samples s = {0};
    if (r->prior_loaded)
        return 0;
    for (size_t i = 0; i < r->ck.n_prior; i++)
        if (load_source(r, &r->ck.prior[i], &s)) {
            free(s.v);
            return ENGINE_FAILED;
        }
    for (size_t i = 0; i < r->o->n_prior_datasets; i++)
        if (load_dataset(r, r->o->prior_datasets[i], &s)) {
            free(s.v);
            return ENGINE_FAILED;
        }
    r->prior = s.v;
    r->n_prior = s.n;
    r->prior_loaded = true;
    return 0;
}

int engine_tuning_samples(const char *dir, const char *backend, struct costmodel_sample **out, size_t *n_out,
                          char *err, size_t errlen)
{
    struct samples s = {0};
    char e[1024], path[ENGINE_PATH_MAX];
    struct stat st;
    *out = NULL, *n_out = 0;
    if (path_fmt(path, "%s/state.json", dir) || stat(path, &st)) {
        snprintf(err, errlen, "'%s' has no state.json: not a tuning directory", dir);
        return -1;
    }
    json_t *root = state_load(dir, e, sizeof e);
    if (!root) {
        snprintf(err, errlen, "%s: %s", dir, e);
        return -1;
    }
    size_t nk;
    /* a refused entry's rows cannot be read, and a model must not silently lack them */
    const char **keys = state_refused_keys(root, &nk);
    int rc = 0;
    if (nk) {
        state_shape_refused(root, keys[0], e, sizeof e);
        snprintf(err, errlen, "%s/state.json: %s: this shape's entry is refused (croqtuner audit says more)", dir, e);
        rc = -1;
    }
    free(keys);
    keys = state_shape_keys(root, &nk); /* the file's order: sorted */
    for (size_t i = 0; i < nk && !rc; i++) {
        struct state_shape shape;
        struct result_log log;
        state_shape_get(root, keys[i], &shape);
        if (!shape.key_ok || (backend && strcmp(shape.backend, backend)))
            continue;
        if (path_fmt(path, "%s/logs/%s/results.tsv", dir, shape.key)) {
            snprintf(err, errlen, "%s: the path of shape '%s' is too long", dir, shape.key);
            rc = -1;
        } else if (result_log_read(path, &log, e, sizeof e) < 0) {
            snprintf(err, errlen, "%s", e); /* it names the file */
            rc = -1;
        } else {
            push_rows(&log, -1, &shape.sk, &s);
            result_log_release(&log);
        }
    }
    free(keys);
    json_decref(root);
    if (rc) {
        free(s.v);
        return -1;
    }
    *out = s.v, *n_out = s.n;
    return 0;
}
