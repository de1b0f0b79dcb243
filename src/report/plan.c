/* src/report/plan.c — a sweep half done: the shapes its plan (the shapes.json recorded
 * in state.json "sweep") holds that have no run in this directory yet. Listed as one
 * note per dtype, since a sweep plans over a hundred shapes. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shapes/shapes.h"
#include "report/out.h"
#include "report/sweep.h"
#include "target/dtype.h"
#include "util/strbuf.h"

/* Examples named in the note; the count says the rest. */
#define PLAN_EXAMPLES 4

/* The recorded path is relative to where the sweep ran: try the tuning dir first. */
static const char *plan_path(const struct report_sweep *sw, char *buf, size_t len)
{
    const char *p = sw->info.shapes;
    if (p[0] != '/' && !report_path_fmt(buf, len, "%s/%s", sw->tuning_dir, p) && access(buf, R_OK) == 0)
        return buf;
    return p;
}

static bool started(struct report_sweep *sw, const char *dtype, const struct croq_shape *c)
{
    char key[80];
    snprintf(key, sizeof key, "%s_%ldx%ldx%ld", dtype, c->m, c->n, c->k);
    if (sweep_find(sw, key))
        return true;
    strncat(key, "_fs", sizeof key - strlen(key) - 1);
    return sweep_find(sw, key) != NULL;
}

static void plan_dtype(struct report_sweep *sw, const struct scenario_set *set, int dt, const char *path)
{
    const char *name = croq_dtype_name(dt);
    size_t planned = 0, missing = 0;
    struct strbuf ex = STRBUF_INIT;
    const struct croq_shape *lists[2] = {set->typical[dt], set->scenario};
    size_t counts[2] = {set->n_typical[dt], set->n_scenario};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            const struct croq_shape *c = &lists[l][i];
            if (l == 1 && scenarios_is_typical(set, dt, c))
                continue; /* counted with the typical shapes */
            planned++;
            if (started(sw, name, c))
                continue;
            if (missing++ < PLAN_EXAMPLES)
                strbuf_addf(&ex, "%s%s_%ldx%ldx%ld", ex.len ? ", " : "", name, c->m, c->n, c->k);
        }
    if (missing)
        notes_add(&sw->notes, NOTE_MISSING, NULL, "sweep plan '%s': %zu of %zu %s shapes not started yet (%s%s)",
                  path, missing, planned, name, strbuf_str(&ex), missing > PLAN_EXAMPLES ? ", ..." : "");
    strbuf_release(&ex);
}

void plan_check(struct report_sweep *sw)
{
    if (!sw->info.present || !sw->info.shapes)
        return;
    char buf[PATH_MAX], err[512];
    const char *path = plan_path(sw, buf, sizeof buf);
    struct scenario_set set;
    if (scenarios_load(path, &set, err, sizeof err)) {
        notes_add(&sw->notes, NOTE_INFO, NULL, "sweep plan '%s' not readable (%s): shapes not started cannot be listed",
                  path, err);
        return;
    }
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++)
        if (!strcmp(sw->info.dtype, "all") || !strcmp(sw->info.dtype, croq_dtype_name(dt)))
            plan_dtype(sw, &set, dt, sw->info.shapes);
    scenarios_release(&set);
}
