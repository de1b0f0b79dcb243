/* src/report/read_state.c — state.json into the report's model: every shape's status,
 * mode, iteration, budget, baseline and best, and the sweep. The format and its lenient
 * reading (older forms, partial or damaged files) are src/artifacts' (state_read_lenient);
 * here each entry becomes a report shape and each problem a note.
 */
#include <stdio.h>
#include <stdlib.h>

#include "artifacts/state.h"
#include "report/read.h"
#include "report/sweep.h"
#include "util/log.h"

static void take_note(void *arg, enum state_note kind, const char *text)
{
    struct report_sweep *sw = arg;
    notes_add(&sw->notes, kind == STATE_NOTE_OTHER_SCHEMA ? NOTE_INFO : NOTE_MALFORMED, NULL, "%s", text);
}

static void take_shape(void *arg, const char *key, const struct state_shape *e)
{
    struct report_sweep *sw = arg;
    struct report_shape *s = sweep_add(sw, key);
    if (!s) {
        notes_add(&sw->notes, NOTE_MALFORMED, NULL, "state.json: '%s' is not a shape key; skipped", key);
        return;
    }
    s->in_state = true;
    snprintf(s->status, sizeof s->status, "%s", e->status);
    snprintf(s->mode, sizeof s->mode, "%s", e->mode);
    snprintf(s->phase, sizeof s->phase, "%s", e->phase);
    snprintf(s->stop_reason, sizeof s->stop_reason, "%.*s", (int)sizeof s->stop_reason - 1, e->stop_reason);
    s->state_iteration = e->iteration;
    s->state_budget = e->budget;
    s->state_baseline = e->baseline_tflops;
    s->state_best = e->best.tflops;
    s->have_ladder = e->have_ladder;
    s->ladder = e->ladder;
    s->best_from_ladder = e->have_best && e->best.from_ladder;
    s->ladder_best_iter = e->best.iter;
    s->ladder_best_clock = e->best.sm_clock_mhz;
}

int state_read(struct report_sweep *sw, const char *path)
{
    struct state_reader rd = {take_shape, take_note, sw};
    if (state_read_lenient(path, &rd, &sw->sweep, &sw->have_sweep))
        return -1;
    sw->have_state = true;
    return 0;
}
