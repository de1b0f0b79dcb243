/* src/costmodel/evaluate.c — how well the model across shapes predicts a shape it has not
 * seen: each shape of a dtype held out in turn, the model fitted on the others' rows
 * (costmodel_fit_shapes), and the held-out rows predicted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool usable(const struct costmodel_sample *s, int dtype)
{
    return s->cfg.dtype == dtype && s->tflops > 0 && isfinite(s->tflops);
}

/* One configuration of the held-out shape: its mean measured TFLOPS and the prediction. */
struct config_score {
    struct croq_config cfg;
    double sum;
    int rows;
    double pred;
};

static int by_pred_desc(const void *a, const void *b)
{
    const struct config_score *x = a, *y = b;
    if (x->pred != y->pred)
        return x->pred < y->pred ? 1 : -1;
    return memcmp(&x->cfg, &y->cfg, sizeof x->cfg); /* ties: a fixed order */
}

/* Score held-out shape `shape`: m fitted without it. */
static int score_shape(const struct costmodel *m, const struct costmodel_sample *s, size_t n, int dtype,
                       const struct croq_shape *shape, struct costmodel_heldout *h, double *row_err)
{
    size_t nrow = 0, ncfg = 0;
    double *err = malloc((n ? n : 1) * sizeof *err), *rel = malloc((n ? n : 1) * sizeof *rel);
    struct config_score *cs = malloc((n ? n : 1) * sizeof *cs);
    if (!err || !rel || !cs) {
        free(err), free(rel), free(cs);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!usable(&s[i], dtype) || memcmp(&s[i].shape, shape, sizeof *shape))
            continue;
        double p = costmodel_predict(m, &s[i].cfg, shape, NULL);
        err[nrow++] = fabs(p / s[i].tflops - 1);
        if (row_err)
            row_err[i] = err[nrow - 1];
        size_t c = 0;
        while (c < ncfg && memcmp(&cs[c].cfg, &s[i].cfg, sizeof cs[c].cfg))
            c++;
        if (c == ncfg)
            cs[ncfg++] = (struct config_score){.cfg = s[i].cfg, .pred = p};
        cs[c].sum += s[i].tflops;
        cs[c].rows++;
    }
    h->rows = (int)nrow;
    h->configs = (int)ncfg;
    h->err_median = median(err, nrow);
    h->err_worst = err[nrow - 1];
    qsort(cs, ncfg, sizeof *cs, by_pred_desc);
    int best = 0;
    for (size_t c = 0; c < ncfg; c++)
        if (cs[c].sum / cs[c].rows > cs[best].sum / cs[best].rows)
            best = (int)c;
    double bt = cs[best].sum / cs[best].rows, bp = cs[best].pred;
    h->best = cs[best].cfg;
    h->best_tflops = bt;
    h->pick = cs[0].cfg;
    h->pick_tflops = cs[0].sum / cs[0].rows;
    h->pick_ratio = h->pick_tflops / bt;
    h->top_ratio = 0;
    for (size_t c = 0; c < ncfg && c < COSTMODEL_TOP; c++)
        h->top_ratio = fmax(h->top_ratio, cs[c].sum / cs[c].rows / bt);
    h->best_rank = 0;
    for (size_t c = 0; c < ncfg; c++)
        if (c != (size_t)best && cs[c].pred > bp)
            h->best_rank++;
    /* the error of the prediction relative to the best's: what ranking sees */
    for (size_t c = 0; c < ncfg; c++)
        rel[c] = fabs((cs[c].pred / bp) / (cs[c].sum / cs[c].rows / bt) - 1);
    h->rel_err_median = median(rel, ncfg);
    h->rel_err_worst = rel[ncfg - 1];
    free(err), free(rel), free(cs);
    return 0;
}

int costmodel_leave_out(int dtype, const struct costmodel_sample *s, size_t n, struct costmodel_heldout *out,
                        size_t max, size_t *n_out, double *row_err)
{
    struct costmodel *m = malloc(sizeof *m);
    struct costmodel_sample *rest = malloc((n ? n : 1) * sizeof *rest);
    int rc = m && rest ? 0 : -1;
    *n_out = 0;
    if (row_err)
        for (size_t i = 0; i < n; i++)
            row_err[i] = NAN;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!usable(&s[i], dtype))
            continue;
        bool done = false;
        for (size_t j = 0; j < *n_out && !done; j++)
            done = !memcmp(&out[j].shape, &s[i].shape, sizeof s[i].shape);
        if (done)
            continue;
        if (*n_out == max) {
            rc = -1;
            break;
        }
        struct costmodel_heldout *h = &out[(*n_out)++];
        memset(h, 0, sizeof *h);
        h->shape = s[i].shape;
        size_t nr = 0;
        for (size_t j = 0; j < n; j++)
            if (memcmp(&s[j].shape, &h->shape, sizeof h->shape))
                rest[nr++] = s[j];
        if (costmodel_fit_shapes(m, dtype, rest, nr))
            rc = -1;
        else if (!m->n)
            h->rows = 0; /* fewer than 2 other shapes: no model to judge */
        else {
            h->fitted = true;
            h->fit_shapes = m->n_groups;
            h->fit_rows = m->n;
            rc = score_shape(m, s, n, dtype, &h->shape, h, row_err);
        }
    }
    free(m);
    free(rest);
    return rc;
}
