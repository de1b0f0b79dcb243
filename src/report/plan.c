/* src/report/plan.c — a sweep half done: the shapes of the recorded sweep's plan (src/scale's
 * plan_build over the shapes.json state_plan_path names, with the sweep's dtype, mode and
 * --waves) that have no run in this directory yet. One note per dtype, since a sweep plans
 * over a hundred shapes; the shapes of waves a `--waves N` sweep leaves out get their own
 * note, since they are a later sweep's work and not this one's gap. The plan is scale's,
 * so the report counts what `croqtuner status` counts. */
#include <stdio.h>
#include <string.h>

#include "report/out.h"
#include "report/sweep.h"
#include "scale/scale.h"
#include "target/dtype.h"
#include "util/strbuf.h"

/* Examples named in the note; the count says the rest. */
#define PLAN_EXAMPLES 4

struct plan_count {
    size_t planned, missing;
    struct strbuf ex;
};

static void count_waves(struct report_sweep *sw, const struct scale_plan *p, int dt, struct plan_count *c)
{
    for (int st = 0; st < 3; st++)
        for (size_t i = 0; i < p->waves[dt][st].n; i++) {
            const char *key = p->waves[dt][st].s[i].key;
            c->planned++;
            if (sweep_find(sw, key))
                continue;
            if (c->missing++ < PLAN_EXAMPLES)
                strbuf_addf(&c->ex, "%s%s", c->ex.len ? ", " : "", key);
        }
}

void plan_check(struct report_sweep *sw)
{
    if (!sw->have_sweep || !sw->sweep.shapes[0])
        return;
    char path[ENGINE_PATH_MAX], err[600];
    struct scale_plan run, all;
    int dtype = state_sweep_dtype(&sw->sweep), mode = state_sweep_mode(&sw->sweep);
    int last = state_sweep_last_wave(&sw->sweep);
    /* a record only a lenient reader accepts (state_validate refuses it) names no plan */
    char bad[120] = "";
    if (dtype < 0 && strcmp(sw->sweep.dtype, "all"))
        snprintf(bad, sizeof bad, "dtype '%s'", sw->sweep.dtype);
    else if (mode < 0 && strcmp(sw->sweep.plan, "default"))
        snprintf(bad, sizeof bad, "plan '%s'", sw->sweep.plan);
    else if (sw->sweep.last_wave_bad)
        snprintf(bad, sizeof bad, "last_wave (not an integer 1-%d)", STATE_SWEEP_WAVES);
    if (bad[0]) {
        notes_add(&sw->notes, NOTE_MALFORMED, NULL,
                  "state.json: the sweep record's %s is not one a sweep writes: shapes not started cannot be listed", bad);
        return;
    }
    if (state_plan_path(sw->tuning_dir, &sw->sweep, path)) {
        notes_add(&sw->notes, NOTE_INFO, NULL, "sweep plan '%s': path too long: shapes not started cannot be listed",
                  sw->sweep.shapes);
        return;
    }
    if (plan_build(path, dtype, mode, sw->sweep.last_wave, false, &run, err, sizeof err)) {
        notes_add(&sw->notes, NOTE_INFO, NULL, "sweep plan '%s' not readable (%s): shapes not started cannot be listed",
                  path, err);
        return;
    }
    bool cut = last < state_sweep_plan_waves(&sw->sweep) && !plan_build(path, dtype, mode, 0, false, &all, err, sizeof err);
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++) {
        if (!run.dtypes[dt])
            continue;
        const char *name = croq_dtype_name(dt);
        struct plan_count c = {.ex = STRBUF_INIT}, later = {.ex = STRBUF_INIT};
        count_waves(sw, &run, dt, &c);
        if (c.missing)
            notes_add(&sw->notes, NOTE_MISSING, NULL, "sweep plan '%s': %zu of %zu %s shapes not started yet (%s%s)",
                      sw->sweep.shapes, c.missing, c.planned, name, strbuf_str(&c.ex),
                      c.missing > PLAN_EXAMPLES ? ", ..." : "");
        if (cut) {
            count_waves(sw, &all, dt, &later);
            if (later.missing > c.missing)
                notes_add(&sw->notes, NOTE_INFO, NULL,
                          "sweep plan '%s': the sweep runs waves 1-%d; the waves after %d hold %zu more %s shapes, "
                          "not started (the same sweep command without --waves goes on with them)",
                          sw->sweep.shapes, last, last, later.missing - c.missing, name);
        }
        strbuf_release(&c.ex);
        strbuf_release(&later.ex);
    }
    if (cut)
        plan_release(&all);
    plan_release(&run);
}
