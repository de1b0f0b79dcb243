/* src/engine/prior.c — what the proposer's cost model knows of other shapes: the
 * measurements of the other tuned shapes INIT recorded (checkpoint "prior": a key and its
 * row count then, seed.c), and the explore datasets the options name (replay-bench). Read
 * once per process, at the first IDEATE, in a fixed order (sources in key order, rows in
 * file order, then the datasets in the given order), so an interrupted run hands the
 * model exactly what an uninterrupted one would (docs/proposer.md "Cost model").
 */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    for (size_t i = 0; i < log.n && i < (size_t)src->rows; i++) {
        const struct result_row *row = &log.rows[i];
        struct croq_config cfg;
        if (row->measured && isfinite(row->tflops) && row->tflops > 0 &&
            !knobs_parse_signature(&cfg, row->config, err, sizeof err) && cfg.dtype == sk.dtype)
            push(s, &cfg, &sk.shape, row->tflops);
    }
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
