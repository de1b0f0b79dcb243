/* src/report/bottleneck.c — bottleneck categories by phase (bottleneck.h). */
#include "report/bottleneck.h"

#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static const char *bn_name(const struct report_row *r)
{
    return r->bottleneck && *r->bottleneck ? r->bottleneck : BN_NONE_NAME;
}

static size_t bn_find(const struct bn_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->names[i], name))
            return i;
    return l->n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void bn_collect(const struct report_sweep *sw, struct bn_list *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sw->n_shapes; i++) {
        const struct report_shape *s = &sw->shapes[i];
        for (size_t j = 0; j < s->n_rows; j++) {
            if (s->rows[j].iter < 1 || bn_find(out, bn_name(&s->rows[j])) < out->n)
                continue;
            out->names = xrealloc(out->names, (out->n + 1) * sizeof *out->names);
            out->names[out->n++] = xstrdup(bn_name(&s->rows[j]));
        }
    }
    if (out->n)
        qsort(out->names, out->n, sizeof *out->names, cmp_str);
}

void bn_release(struct bn_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    memset(l, 0, sizeof *l);
}

int *bn_count(const struct report_shape *s, const struct bn_list *l)
{
    int *counts = calloc(STATS_PHASES * (l->n ? l->n : 1), sizeof *counts);
    if (!counts)
        die("out of memory");
    int budget = stats_phase_budget(s);
    for (size_t j = 0; j < s->n_rows; j++) {
        const struct report_row *r = &s->rows[j];
        size_t i = bn_find(l, bn_name(r));
        if (r->iter < 1 || i == l->n)
            continue;
        counts[stats_phase_of(r->iter, budget) * l->n + i]++;
    }
    return counts;
}
