/* src/report/sweep.h — load a whole tuning directory into a struct report_sweep.
 *
 * Shapes are the union of the keys in state.json and the directories logs/<key>/; for
 * each, every artifact is read if present (read.h) and what is absent is noted.
 */
#ifndef CROQ_REPORT_SWEEP_H
#define CROQ_REPORT_SWEEP_H
#include "report/model.h"

/* The shape with this key, or NULL. */
struct report_shape *sweep_find(struct report_sweep *sw, const char *key);
/* The shape with this key, added empty if absent; NULL if key is not a shape key.
 * Adding may move the array: pointers from earlier calls become invalid. */
struct report_shape *sweep_add(struct report_sweep *sw, const char *key);

/* Read everything. anchors_path may be NULL (no anchors). Returns 0 when at least one
 * shape has data (results or a state.json entry), -1 when the directory is missing or
 * holds no tuning data at all, with the reason in why. */
int sweep_load(struct report_sweep *sw, const char *tuning_dir, const char *anchors_path,
               char *why, size_t whylen);

/* Note the shapes the recorded sweep plan holds that have no run here (plan.c). */
void plan_check(struct report_sweep *sw);

/* The other run of the same shape (key with/without "_fs"), or NULL. */
const struct report_shape *sweep_partner(const struct report_sweep *sw, const struct report_shape *s);
#endif
