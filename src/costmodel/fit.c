/* src/costmodel/fit.c — fitting: weighted ridge regression of ln(TFLOPS) on the features,
 * each group (shape) with its own level; the proposer's prior from other shapes; the
 * cross-shape fit of the library's model.
 *
 * Each group has its own level, so rows and features are centred on their group's
 * weighted mean (the within transform: a per-shape intercept, unpenalised) and the weights
 * solve (X~'WX~ + lambda I) w = X~'W y~ by Cholesky, lambda = COSTMODEL_LAMBDA: with a
 * dozen measurements and ~70 features the penalty keeps every unseen knob value at "no
 * effect" instead of a wild guess. sigma is the weighted residual spread of the fit (at
 * least COSTMODEL_SIGMA_MIN, the measurement noise).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Cholesky of the p x p matrix a (in place, lower); 0, or -1 if not positive definite. */
static int cholesky(double *a, int p)
{
    for (int j = 0; j < p; j++) {
        double d = a[j * p + j];
        for (int k = 0; k < j; k++)
            d -= a[j * p + k] * a[j * p + k];
        if (d <= 0)
            return -1;
        a[j * p + j] = sqrt(d);
        for (int i = j + 1; i < p; i++) {
            double v = a[i * p + j];
            for (int k = 0; k < j; k++)
                v -= a[i * p + k] * a[j * p + k];
            a[i * p + j] = v / a[j * p + j];
        }
    }
    return 0;
}

static bool usable(const struct costmodel_row *r)
{
    return r->tflops > 0 && isfinite(r->tflops) && r->weight > 0 && r->group >= 0;
}

/* The weighted means of ln(TFLOPS) and of the features per group: my[g], mx[g * p + j],
 * sw[g] the group's weight. xs[i * p + j]: row i's features (computed once by the caller). */
static void group_means(const struct costmodel_row *rows, size_t n, const double *xs, int p, int ng, double *my,
                        double *mx, double *sw)
{
    memset(my, 0, sizeof *my * (size_t)ng);
    memset(sw, 0, sizeof *sw * (size_t)ng);
    memset(mx, 0, sizeof *mx * (size_t)ng * (size_t)p);
    for (size_t i = 0; i < n; i++) {
        if (!usable(&rows[i]))
            continue;
        int g = rows[i].group;
        double w = rows[i].weight;
        sw[g] += w;
        my[g] += w * log(rows[i].tflops);
        for (int j = 0; j < p; j++)
            mx[g * p + j] += w * xs[i * (size_t)p + j];
    }
    for (int g = 0; g < ng; g++)
        if (sw[g] > 0) {
            my[g] /= sw[g];
            for (int j = 0; j < p; j++)
                mx[g * p + j] /= sw[g];
        }
}

/* The fit's working arrays: per-group means and every row's features. */
struct work {
    int p, ng;
    double *my, *sw, *mx, *xs;
};

static void work_release(struct work *k)
{
    free(k->my), free(k->sw), free(k->mx), free(k->xs);
}

/* Features, group means, and the ridge solution into m->w and m->chol (m->p set). */
static int solve(struct costmodel *m, const struct costmodel_row *rows, size_t n, struct work *k, double lambda)
{
    int p = k->p, ng = k->ng;
    double *a = m->chol, x[COSTMODEL_FEATURES], b[COSTMODEL_FEATURES];
    k->my = malloc(sizeof *k->my * (size_t)ng), k->sw = malloc(sizeof *k->sw * (size_t)ng);
    k->mx = malloc(sizeof *k->mx * (size_t)ng * (size_t)p), k->xs = malloc(sizeof *k->xs * (n ? n : 1) * (size_t)p);
    if (!k->my || !k->sw || !k->mx || !k->xs)
        return -1;
    double *my = k->my, *mx = k->mx, *xs = k->xs;
    for (size_t i = 0; i < n; i++)
        if (usable(&rows[i])) { /* every feature is computed; the fit keeps the first p */
            double f[COSTMODEL_FEATURES];
            costmodel_features(&rows[i].cfg, &rows[i].shape, f);
            memcpy(xs + i * (size_t)p, f, sizeof *f * (size_t)p);
        }
    group_means(rows, n, xs, p, ng, my, mx, k->sw);
    memset(a, 0, sizeof(double) * (size_t)(p * p));
    memset(b, 0, sizeof b);
    for (size_t i = 0; i < n; i++) {
        if (!usable(&rows[i]))
            continue;
        int g = rows[i].group;
        double w = rows[i].weight;
        for (int j = 0; j < p; j++)
            x[j] = xs[i * (size_t)p + j] - mx[g * p + j];
        double y = log(rows[i].tflops) - my[g];
        for (int r = 0; r < p; r++) {
            b[r] += w * x[r] * y;
            for (int c = 0; c <= r; c++)
                a[r * p + c] += w * x[r] * x[c];
        }
    }
    for (int r = 0; r < p; r++) {
        a[r * p + r] += lambda;
        for (int c = r + 1; c < p; c++)
            a[r * p + c] = a[c * p + r];
    }
    if (cholesky(a, p))
        return -1;
    /* L z = b, then L' w = z */
    for (int i = 0; i < p; i++) {
        double v = b[i];
        for (int j = 0; j < i; j++)
            v -= a[i * p + j] * m->w[j];
        m->w[i] = v / a[i * p + i];
    }
    for (int i = p - 1; i >= 0; i--) {
        double v = m->w[i];
        for (int j = i + 1; j < p; j++)
            v -= a[j * p + i] * m->w[j];
        m->w[i] = v / a[i * p + i];
    }
    m->p = p;
    m->has_chol = true;
    return 0;
}

/* Which one-hot features any row had (a candidate using another is "unseen"), and the
 * weighted residual spread of the within-group fit: the scale of the model's uncertainty. */
static void residuals(struct costmodel *m, const struct costmodel_row *rows, size_t n, const struct work *k)
{
    int p = k->p;
    double ss = 0, wsum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!usable(&rows[i]))
            continue;
        int g = rows[i].group;
        const double *xi = k->xs + i * (size_t)p;
        double y = k->my[g];
        for (int r = 0; r < p; r++)
            y += m->w[r] * (xi[r] - k->mx[g * p + r]);
        ss += rows[i].weight * (log(rows[i].tflops) - y) * (log(rows[i].tflops) - y);
        wsum += rows[i].weight;
        for (int r = 0; r < cm_n_onehot(); r++)
            if (xi[r] > 0)
                m->seen[r] = true;
    }
    m->sigma = fmax(sqrt(ss / wsum), COSTMODEL_SIGMA_MIN);
}

static void model_reset(struct costmodel *m)
{
    memset(m, 0, sizeof *m);
    m->dtype = -1;
}

int costmodel_fit(struct costmodel *m, const struct costmodel_row *rows, size_t n)
{
    model_reset(m);
    struct work k = {.p = cm_n_onehot() + COSTMODEL_DERIVED, .ng = 1};
    int used = 0, self = 0;
    if (k.p + COSTMODEL_SHAPE_EXTRA > COSTMODEL_FEATURES)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (usable(&rows[i])) {
            used++;
            self += rows[i].group == 0;
            k.ng = rows[i].group + 1 > k.ng ? rows[i].group + 1 : k.ng;
            if (m->dtype < 0)
                m->dtype = rows[i].cfg.dtype;
        }
    if (self < COSTMODEL_MIN_SAMPLES) {
        model_reset(m);
        return 0; /* too few of this shape's own to say anything about it */
    }
    if (solve(m, rows, n, &k, COSTMODEL_LAMBDA)) {
        work_release(&k);
        model_reset(m);
        return -1;
    }
    m->mean = k.my[0];
    memcpy(m->xbar, k.mx, sizeof *k.mx * (size_t)k.p);
    m->n = used;
    m->n_self = self;
    for (int g = 1; g < k.ng; g++)
        m->n_groups += k.sw[g] > 0;
    residuals(m, rows, n, &k);
    work_release(&k);
    return 0;
}

/* How much a measurement of shape a says about shape b: exp(-d^2 / 2 L^2), d the distance
 * of ln M, ln N, ln K, L = COSTMODEL_PRIOR_LENGTH. replay-bench showed far shapes mislead
 * (a 4x-8x step in M or N moves the best tile and the wave count entirely). */
static double similarity(const struct croq_shape *a, const struct croq_shape *b)
{
    double d = shape_log_distance(a, b) / COSTMODEL_PRIOR_LENGTH;
    return exp(-0.5 * d * d);
}

size_t costmodel_add_prior(struct costmodel_row *rows, size_t n, const struct costmodel_sample *s, size_t n_samples,
                           int dtype, const struct croq_shape *shape, int n_self)
{
    double total = 0;
    size_t first = n;
    int groups = 0;
    for (size_t i = 0; i < n_samples; i++) {
        const struct costmodel_sample *o = &s[i];
        if (o->cfg.dtype != dtype || !(o->tflops > 0) || !isfinite(o->tflops))
            continue;
        struct costmodel_row *r = &rows[n];
        *r = (struct costmodel_row){.cfg = o->cfg, .shape = o->shape, .tflops = o->tflops,
                                    .weight = similarity(&o->shape, shape), .group = -1};
        for (size_t j = first; j < n && r->group < 0; j++)
            if (!memcmp(&rows[j].shape, &o->shape, sizeof o->shape))
                r->group = rows[j].group;
        if (r->group < 0)
            r->group = ++groups;
        total += r->weight;
        n++;
    }
    double scale = (total > COSTMODEL_PRIOR_ROWS ? COSTMODEL_PRIOR_ROWS / total : 1) * COSTMODEL_PRIOR_HALF /
                   (COSTMODEL_PRIOR_HALF + n_self);
    for (size_t j = first; j < n; j++)
        rows[j].weight *= scale;
    return n;
}

/* Solve the 4 x 4 system a c = b (a symmetric positive definite) in place; 0 or -1. */
static int solve4(double a[16], double b[4], double c[4])
{
    if (cholesky(a, 4))
        return -1;
    for (int i = 0; i < 4; i++) {
        double v = b[i];
        for (int j = 0; j < i; j++)
            v -= a[i * 4 + j] * c[j];
        c[i] = v / a[i * 4 + i];
    }
    for (int i = 3; i >= 0; i--) {
        double v = c[i];
        for (int j = i + 1; j < 4; j++)
            v -= a[j * 4 + i] * c[j];
        c[i] = v / a[i * 4 + i];
    }
    return 0;
}

/* The ridge on the level regression's slopes: ln M, ln N, ln K span ~2-3 across the typical
 * shapes, so 1e-3 only keeps two or three shapes (an underdetermined line) well posed. */
#define LEVEL_LAMBDA 1e-3

int costmodel_fit_shapes(struct costmodel *m, int dtype, const struct costmodel_sample *s, size_t n)
{
    model_reset(m);
    struct costmodel_row *rows = malloc((n ? n : 1) * sizeof *rows);
    struct croq_shape *shapes = malloc((n ? n : 1) * sizeof *shapes);
    struct work k = {.p = cm_n_onehot() + COSTMODEL_DERIVED + COSTMODEL_SHAPE_EXTRA};
    size_t nr = 0;
    int rc = -1;
    if (!rows || !shapes || k.p > COSTMODEL_FEATURES)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (s[i].cfg.dtype != dtype || !(s[i].tflops > 0) || !isfinite(s[i].tflops))
            continue;
        int g = 0;
        while (g < k.ng && memcmp(&shapes[g], &s[i].shape, sizeof shapes[g]))
            g++;
        if (g == k.ng)
            shapes[k.ng++] = s[i].shape;
        rows[nr++] = (struct costmodel_row){.cfg = s[i].cfg, .shape = s[i].shape, .tflops = s[i].tflops,
                                            .weight = 1, .group = g};
    }
    rc = 0;
    if (nr < COSTMODEL_MIN_SAMPLES || k.ng < 2)
        goto out;
    if (solve(m, rows, nr, &k, COSTMODEL_SHAPES_LAMBDA)) {
        rc = -1;
        goto out;
    }
    /* xbar: the mean features of every row; a shape's level is its mean ln TFLOPS less
     * what its mean features explain, regressed on (1, ln M, ln N, ln K) */
    double wsum = 0, a[16] = {0}, b[4] = {0};
    for (int g = 0; g < k.ng; g++)
        wsum += k.sw[g];
    for (int j = 0; j < k.p; j++) {
        double v = 0;
        for (int g = 0; g < k.ng; g++)
            v += k.sw[g] * k.mx[g * k.p + j];
        m->xbar[j] = v / wsum;
    }
    for (int g = 0; g < k.ng; g++) {
        double lv = k.my[g], d[4] = {1, log((double)shapes[g].m), log((double)shapes[g].n), log((double)shapes[g].k)};
        for (int j = 0; j < k.p; j++)
            lv -= m->w[j] * (k.mx[g * k.p + j] - m->xbar[j]);
        for (int r = 0; r < 4; r++) {
            b[r] += d[r] * lv;
            for (int c = 0; c < 4; c++)
                a[r * 4 + c] += d[r] * d[c];
        }
    }
    for (int r = 1; r < 4; r++)
        a[r * 4 + r] += LEVEL_LAMBDA;
    if (solve4(a, b, m->level)) {
        rc = -1;
        goto out;
    }
    m->has_level = true;
    m->dtype = dtype;
    m->n = (int)nr;
    m->n_groups = k.ng;
    residuals(m, rows, nr, &k);
out:
    work_release(&k);
    free(rows);
    free(shapes);
    if (rc || !m->n)
        model_reset(m);
    return rc;
}
