/* src/proposer/model.c — the cost model that ranks candidate mutations: ridge
 * regression of log(TFLOPS) on engineered features, fitted on every measurement the
 * context carries (this shape's history; docs/proposer.md "Cost model").
 *
 * Features of (config, shape), PROP_MODEL_FEATURES of them:
 *   one-hot of every knob value (knobs.def order), so each knob's effect is learnt;
 *   waves:       log2(CTAs / 132), and the tail efficiency CTAs / (waves rounded up x 132);
 *   shared mem:  bytes per CTA / 227 KiB, and 1 / CTAs per SM by shared memory;
 *   registers:   accumulator registers per thread / 256 (knobs_acc_regs);
 *   bytes/flop:  (1/tile_m + 1/tile_n) x element size x 64, the operand bytes per MMA flop;
 *   k-loop:      log2(K / (tile_k x split_k)) / 8, pipeline steps per tile;
 *   shape:       log2(M), log2(N), log2(K) / 16 (constant within a shape; they matter
 *                when other shapes' measurements are fitted alongside).
 * y = ln(TFLOPS); the intercept is the mean of y (not penalised), the weights solve
 * (X'X + lambda I) w = X'(y - mean) by Cholesky with lambda = PROP_MODEL_LAMBDA: with a
 * dozen measurements and ~70 features the penalty keeps every unseen knob value at
 * "no effect" instead of a wild guess. The uncertainty of a prediction is the ridge
 * posterior's: sigma x sqrt(x' (X'X + lambda I)^-1 x), sigma the residual spread of the
 * fit (at least PROP_MODEL_SIGMA_MIN, the measurement noise). Deterministic.
 */
#include <math.h>
#include <string.h>

#include "internal.h"

#define SMEM_LIMIT 232448.0

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
    x[n++] = log2(ctas / PROPOSER_SM_COUNT) / 4;
    x[n++] = ctas / (ceil(ctas / slots) * slots);
    x[n++] = smem / SMEM_LIMIT;
    x[n++] = 1 / per_sm;
    x[n++] = knobs_acc_regs(c) / 256.0;
    x[n++] = (1.0 / c->v[KNOB_TILE_M] + 1.0 / c->v[KNOB_TILE_N]) * croq_dtype_size(c->dtype) * 64;
    double steps = (double)s->k / ((double)c->v[KNOB_TILE_K] * c->v[KNOB_SPLIT_K]);
    x[n++] = log2(steps < 1 ? 1 : steps) / 8;
    x[n++] = log2((double)s->m) / 16;
    x[n++] = log2((double)s->n) / 16;
    x[n++] = log2((double)s->k) / 16;
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

int prop_model_fit(struct prop_model *m, const struct croq_config *cfg, const struct croq_shape *shape,
                   const double *tflops, size_t n)
{
    double *a = m->chol, x[PROP_MODEL_FEATURES], b[PROP_MODEL_FEATURES];
    memset(m, 0, sizeof *m);
    int p = n_onehot() + PROP_MODEL_DERIVED;
    if (p > PROP_MODEL_FEATURES)
        return -1;
    double mean = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (tflops[i] > 0 && isfinite(tflops[i]))
            mean += log(tflops[i]), used++;
    if (used < PROP_MODEL_MIN_SAMPLES)
        return 0; /* too few to say anything: m->n stays 0 */
    mean /= (double)used;
    memset(a, 0, sizeof(double) * (size_t)(p * p));
    memset(b, 0, sizeof b);
    for (size_t i = 0; i < n; i++) {
        if (!(tflops[i] > 0 && isfinite(tflops[i])))
            continue;
        prop_model_features(&cfg[i], &shape[i], x);
        double y = log(tflops[i]) - mean;
        for (int r = 0; r < p; r++) {
            b[r] += x[r] * y;
            for (int c = 0; c <= r; c++)
                a[r * p + c] += x[r] * x[c];
        }
    }
    for (int r = 0; r < p; r++) {
        a[r * p + r] += PROP_MODEL_LAMBDA;
        for (int c = r + 1; c < p; c++)
            a[r * p + c] = a[c * p + r];
    }
    if (cholesky(a, p))
        return -1;
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
    m->mean = mean;
    m->n = (int)used;
    /* which one-hot features any sample had (a candidate using another is "unseen"),
     * and the residual spread: the scale of the model's uncertainty */
    double ss = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(tflops[i] > 0 && isfinite(tflops[i])))
            continue;
        prop_model_features(&cfg[i], &shape[i], x);
        double y = m->mean;
        for (int r = 0; r < p; r++)
            y += m->w[r] * x[r];
        ss += (log(tflops[i]) - y) * (log(tflops[i]) - y);
        for (int r = 0; r < n_onehot(); r++)
            if (x[r] > 0)
                m->seen[r] = true;
    }
    m->sigma = fmax(sqrt(ss / (double)used), PROP_MODEL_SIGMA_MIN);
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
        y += m->w[i] * x[i];
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
    for (int i = 0; i < m->p; i++) { /* L z = x: x' A^-1 x = |z|^2 */
        double v = x[i];
        for (int k = 0; k < i; k++)
            v -= m->chol[i * m->p + k] * z[k];
        z[i] = v / m->chol[i * m->p + i];
        q += z[i] * z[i];
    }
    return m->sigma * sqrt(q);
}
