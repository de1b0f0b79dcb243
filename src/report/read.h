/* src/report/read.h — readers for the tuning artifacts (docs/artifacts.md).
 *
 * Every reader is tolerant: a missing file returns -1 and leaves the shape without
 * that data; a malformed line is reported in the notes as "<rel>:<line>: why" and
 * skipped; a final line without '\n' is a record still being appended (atomicio.h,
 * append_record) and is ignored. rel is the path relative to the tuning directory,
 * used in messages so they name the file the user can open.
 */
#ifndef CROQ_REPORT_READ_H
#define CROQ_REPORT_READ_H
#include <stdbool.h>

#include <jansson.h>

#include "report/model.h"

/* logs/<key>/results.tsv into s->rows (s->have_results, s->simulated). 0, or -1 when
 * the file is missing or unusable as a whole (no header / no iter or decision column). */
int results_read(struct report_shape *s, const char *path, const char *rel, struct report_notes *nl);

/* logs/<key>/idea-log.jsonl into s->ideas. 0 or -1 (missing). */
int idealog_read(struct report_shape *s, const char *path, const char *rel, struct report_notes *nl);

/* state.json: fills status/mode/iteration/budget/baseline/best of the shapes it lists,
 * adding shapes it names that are not in *shapes yet. 0 or -1 (missing / unreadable). */
int state_read(struct report_sweep *sw, const char *path);

/* perf/<key>/vendor.json (written by `croqtuner compare`) into s->vendor. 0 or -1. */
/* Every vendor value (and ours) not measured: NAN, VSRC_NONE; protocol VPROTO_NONE. Keeps path and
 * ours_config. */
void vendor_clear(struct report_vendor *v);
int vendor_read(struct report_shape *s, const char *path, const char *rel, struct report_notes *nl);

/* Fill the vendor values still VSRC_NONE from the anchors file (rows matched on dtype,
 * M, N, K), marked VSRC_ANCHOR. Returns how many values were filled. */
int vendor_fill_from_anchors(struct report_shape *s, const json_t *anchors);

#endif
