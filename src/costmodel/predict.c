/* src/costmodel/predict.c — a fitted or parsed model's prediction, and its uncertainty. */
#include <math.h>

#include "internal.h"

double costmodel_predict(const struct costmodel *m, const struct croq_config *c, const struct croq_shape *s,
                         int *unseen)
{
    double x[COSTMODEL_FEATURES];
    if (costmodel_features(c, s, x) < 0)
        return NAN;
    double y = m->mean;
    if (m->has_level)
        y = m->level[0] + m->level[1] * log((double)s->m) + m->level[2] * log((double)s->n) +
            m->level[3] * log((double)s->k);
    int u = 0, h = cm_n_onehot();
    for (int i = 0; i < m->p; i++)
        y += m->w[i] * (x[i] - m->xbar[i]);
    for (int i = 0; i < h; i++)
        u += x[i] > 0 && !m->seen[i];
    if (unseen)
        *unseen = u;
    return exp(y);
}

double costmodel_stddev(const struct costmodel *m, const struct croq_config *c, const struct croq_shape *s)
{
    double x[COSTMODEL_FEATURES], z[COSTMODEL_FEATURES], q = 0;
    if (!m->has_chol || costmodel_features(c, s, x) < 0)
        return 0;
    for (int i = 0; i < m->p; i++) { /* L z = x - xbar: (x - xbar)' A^-1 (x - xbar) = |z|^2 */
        double v = x[i] - m->xbar[i];
        for (int k = 0; k < i; k++)
            v -= m->chol[i * m->p + k] * z[k];
        z[i] = v / m->chol[i * m->p + i];
        q += z[i] * z[i];
    }
    return m->sigma * sqrt(q);
}

const struct costmodel *costmodel_find(const struct costmodel *v, size_t n, int dtype)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].dtype == dtype)
            return &v[i];
    return NULL;
}
