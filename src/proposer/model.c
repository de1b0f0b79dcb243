/* src/proposer/model.c — the cost model that ranks candidate mutations: weighted ridge
 * regression of log(TFLOPS) on engineered features, fitted on every measurement the
 * context carries: this shape's history and other tuned shapes' measurements
 * (docs/proposer.md "Cost model").
 *
 * Features of (config, shape), p = the one-hot count + PROP_MODEL_DERIVED:
 *   one-hot of every knob value (knobs.def order), so each knob's effect is learnt;
 *   waves:       log2(CTAs / 132) / 4, and the tail efficiency CTAs / (waves rounded up x
 *                the CTAs that fit at once);
 *   SM fill:     min(1, CTAs / 132): a grid of fewer CTAs than SMs leaves SMs idle;
 *   persistence: persistent x log2(max(1, CTAs / 132)) / 4, and persistent with at most
 *                one wave: a persistent CTA loops over tiles, which pays only when there
 *                are several per SM;
 *   shared mem:  bytes per CTA / 227 KiB, and 1 / CTAs per SM by shared memory;
 *   registers:   accumulator registers per thread / 256 (knobs_acc_regs);
 *   bytes/flop:  (1/tile_m + 1/tile_n) x element size x 64, the operand bytes per MMA flop;
 *   k-loop:      log2(K / (tile_k x split_k)) / 8, pipeline steps per tile;
 *   split:       log2(split_k) x log2(M x N / 2^20) / 16: the f32 partials split-K adds
 *                grow with the output.
 * The derived quantities are what carries between shapes: the same tile is a full wave
 * on one shape and a quarter of one on another.
 *
 * Fit: each shape (group) has its own level, so rows and features are centred on their
 * group's weighted mean (the within transform: a per-shape intercept, unpenalised) and
 * the weights solve (X~'WX~ + lambda I) w = X~'W y~ by Cholesky, lambda =
 * PROP_MODEL_LAMBDA: with a dozen measurements and ~70 features the penalty keeps every
 * unseen knob value at "no effect" instead of a wild guess. A prediction is this shape's
 * level plus w . (x - this shape's mean features); its uncertainty is the ridge
 * posterior's, sigma x sqrt(z' (X~'WX~ + lambda I)^-1 z), sigma the weighted residual
 * spread of the fit (at least PROP_MODEL_SIGMA_MIN, the measurement noise).
 * Deterministic: the same rows in the same order give the same bits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SMEM_LIMIT ((double)croq_target()->smem_per_block) /* src/target/target.def */

static int n_onehot(void)
{
    int n = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        n += croq_knobs[k].n_values;
    return n;
}

int prop_model_features(const struct croq_config *c, const struct croq_shape *s, double *x)
{
    int n = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        for (int i = 0; i < croq_knobs[k].n_values; i++)
            x[n++] = c->v[k] == croq_knobs[k].values[i];
    double ctas = (double)prop_grid_ctas(c, s);
    double smem = (double)knobs_smem_bytes(c);
    double per_sm = smem > 0 ? floor(SMEM_LIMIT / smem) : 1;
    per_sm = per_sm < 1 ? 1 : per_sm;
    double slots = PROPOSER_SM_COUNT * per_sm;
    double waves = ctas / PROPOSER_SM_COUNT;
    x[n++] = log2(waves) / 4;
    x[n++] = ctas / (ceil(ctas / slots) * slots);
    x[n++] = waves < 1 ? waves : 1;
    x[n++] = c->v[KNOB_PERSISTENT] ? log2(waves > 1 ? waves : 1) / 4 : 0;
    x[n++] = c->v[KNOB_PERSISTENT] && waves <= 1;
    x[n++] = smem / SMEM_LIMIT;
    x[n++] = 1 / per_sm;
    x[n++] = knobs_acc_regs(c) / 256.0;
    x[n++] = (1.0 / c->v[KNOB_TILE_M] + 1.0 / c->v[KNOB_TILE_N]) * croq_dtype_size(c->dtype) * 64;
    double steps = (double)s->k / ((double)c->v[KNOB_TILE_K] * c->v[KNOB_SPLIT_K]);
    x[n++] = log2(steps < 1 ? 1 : steps) / 8;
    x[n++] = log2((double)c->v[KNOB_SPLIT_K]) * log2((double)s->m * (double)s->n / 1048576.0) / 16;
    return n;
}

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

static bool usable(const struct prop_fit_row *r)
{
    return r->tflops > 0 && isfinite(r->tflops) && r->weight > 0 && r->group >= 0;
}

/* The weighted means of ln(TFLOPS) and of the features per group: my[g], mx[g * p + j],
 * sw[g] the group's weight. xs[i * p + j]: row i's features (computed once by the caller). */
static void group_means(const struct prop_fit_row *rows, size_t n, const double *xs, int p, int ng, double *my,
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

int prop_model_fit(struct prop_model *m, const struct prop_fit_row *rows, size_t n)
{
    double *a = m->chol, x[PROP_MODEL_FEATURES], b[PROP_MODEL_FEATURES];
    memset(m, 0, sizeof *m);
    int p = n_onehot() + PROP_MODEL_DERIVED, ng = 1, used = 0, self = 0;
    if (p > PROP_MODEL_FEATURES)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (usable(&rows[i])) {
            used++;
            self += rows[i].group == 0;
            ng = rows[i].group + 1 > ng ? rows[i].group + 1 : ng;
        }
    if (self < PROP_MODEL_MIN_SAMPLES)
        return 0; /* too few of this shape's own to say anything about it */
    double *my = malloc(sizeof *my * (size_t)ng), *sw = malloc(sizeof *sw * (size_t)ng);
    double *mx = malloc(sizeof *mx * (size_t)ng * (size_t)p), *xs = malloc(sizeof *xs * (n ? n : 1) * (size_t)p);
    if (!my || !sw || !mx || !xs) {
        free(my), free(sw), free(mx), free(xs);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (usable(&rows[i]))
            prop_model_features(&rows[i].cfg, &rows[i].shape, xs + i * (size_t)p);
    group_means(rows, n, xs, p, ng, my, mx, sw);
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
        a[r * p + r] += PROP_MODEL_LAMBDA;
        for (int c = r + 1; c < p; c++)
            a[r * p + c] = a[c * p + r];
    }
    if (cholesky(a, p)) {
        free(my), free(sw), free(mx), free(xs);
        return -1;
    }
    /* L z = b, then L' w = z */
    for (int i = 0; i < p; i++) {
        double v = b[i];
        for (int k = 0; k < i; k++)
            v -= a[i * p + k] * m->w[k];
        m->w[i] = v / a[i * p + i];
    }
    for (int i = p - 1; i >= 0; i--) {
        double v = m->w[i];
        for (int k = i + 1; k < p; k++)
            v -= a[k * p + i] * m->w[k];
        m->w[i] = v / a[i * p + i];
    }
    m->p = p;
    m->mean = my[0];
    memcpy(m->xbar, mx, sizeof *mx * (size_t)p);
    m->n = used;
    m->n_self = self;
    for (int g = 1; g < ng; g++)
        m->n_groups += sw[g] > 0;
    /* which one-hot features any sample had (a candidate using another is "unseen"),
     * and the weighted residual spread: the scale of the model's uncertainty */
    double ss = 0, wsum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!usable(&rows[i]))
            continue;
        int g = rows[i].group;
        const double *xi = xs + i * (size_t)p;
        double y = my[g];
        for (int r = 0; r < p; r++)
            y += m->w[r] * (xi[r] - mx[g * p + r]);
        ss += rows[i].weight * (log(rows[i].tflops) - y) * (log(rows[i].tflops) - y);
        wsum += rows[i].weight;
        for (int r = 0; r < n_onehot(); r++)
            if (xi[r] > 0)
                m->seen[r] = true;
    }
    m->sigma = fmax(sqrt(ss / wsum), PROP_MODEL_SIGMA_MIN);
    free(my), free(sw), free(mx), free(xs);
    return 0;
}

double prop_model_predict(const struct prop_model *m, const struct croq_config *c, const struct croq_shape *s,
                          int *unseen)
{
    double x[PROP_MODEL_FEATURES];
    prop_model_features(c, s, x);
    double y = m->mean;
    int u = 0, h = n_onehot();
    for (int i = 0; i < m->p; i++)
        y += m->w[i] * (x[i] - m->xbar[i]);
    for (int i = 0; i < h; i++)
        u += x[i] > 0 && !m->seen[i];
    if (unseen)
        *unseen = u;
    return exp(y);
}

double prop_model_stddev(const struct prop_model *m, const struct croq_config *c, const struct croq_shape *s)
{
    double x[PROP_MODEL_FEATURES], z[PROP_MODEL_FEATURES], q = 0;
    prop_model_features(c, s, x);
    for (int i = 0; i < m->p; i++) { /* L z = x - xbar: (x - xbar)' A^-1 (x - xbar) = |z|^2 */
        double v = x[i] - m->xbar[i];
        for (int k = 0; k < i; k++)
            v -= m->chol[i * m->p + k] * z[k];
        z[i] = v / m->chol[i * m->p + i];
        q += z[i] * z[i];
    }
    return m->sigma * sqrt(q);
}
