/* src/report/bottleneck.h — the bottleneck categories that motivated the ideas, counted
 * per phase of a run. The category names come from the data (results.tsv column
 * "bottleneck"), collected over the whole sweep and sorted, so every shape's chart
 * uses the same columns and colours and a category added later still shows.
 */
#ifndef CROQ_REPORT_BOTTLENECK_H
#define CROQ_REPORT_BOTTLENECK_H
#include <stddef.h>

#include "report/model.h"
#include "report/stats.h"

#define BN_NONE_NAME "(none)"

struct bn_list {
    char **names;  /* sorted; BN_NONE_NAME for an empty field */
    size_t n;
};

void bn_collect(const struct report_sweep *sw, struct bn_list *out);
void bn_release(struct bn_list *l);

/* counts[phase * l->n + i]: iterations >= 1 of phase whose bottleneck is names[i].
 * Returns a calloc'ed array the caller frees. */
int *bn_count(const struct report_shape *s, const struct bn_list *l);
#endif
