/* src/report/read_state.c — state.json: every shape's status, mode, iteration, budget,
 * baseline and best (docs/artifacts.md).
 *
 * "shapes" may be an object keyed by shape key or an array of objects with a "key";
 * baseline and best may be numbers or objects with a "tflops" member. Accepting both
 * keeps the report working while the engine's format settles.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/read.h"
#include "report/sweep.h"
#include "util/log.h"
#include "util/regfile.h"

/* A TFLOPS value given as a number, or as an object's "tflops"; NAN otherwise. */
static double tflops_of(json_t *v)
{
    if (json_is_object(v))
        v = json_object_get(v, "tflops");
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static double first_tflops(json_t *o, const char *a, const char *b)
{
    double v = tflops_of(json_object_get(o, a));
    return isnan(v) ? tflops_of(json_object_get(o, b)) : v;
}

static int int_or(json_t *o, const char *name, int dflt)
{
    json_t *v = json_object_get(o, name);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static void copy_str(char *dst, size_t len, json_t *o, const char *name)
{
    const char *v = json_string_value(json_object_get(o, name));
    snprintf(dst, len, "%s", v ? v : "");
}

static void sweep_info(struct report_sweep *sw, json_t *o)
{
    struct report_sweep_info *in = &sw->info;
    if (!json_is_object(o))
        return;
    in->present = true;
    copy_str(in->dtype, sizeof in->dtype, o, "dtype");
    copy_str(in->plan, sizeof in->plan, o, "plan");
    copy_str(in->status, sizeof in->status, o, "status");
    copy_str(in->backend, sizeof in->backend, o, "backend");
    const char *shapes = json_string_value(json_object_get(o, "shapes"));
    free(in->shapes);
    in->shapes = shapes && *shapes ? xstrdup(shapes) : NULL;
}

static void state_shape(struct report_sweep *sw, const char *key, json_t *o)
{
    if (!json_is_object(o)) {
        notes_add(&sw->notes, NOTE_MALFORMED, NULL, "state.json: entry '%s' is not an object", key);
        return;
    }
    struct report_shape *s = sweep_add(sw, key);
    if (!s) {
        notes_add(&sw->notes, NOTE_MALFORMED, NULL, "state.json: '%s' is not a shape key; skipped", key);
        return;
    }
    s->in_state = true;
    copy_str(s->status, sizeof s->status, o, "status");
    copy_str(s->mode, sizeof s->mode, o, "mode");
    copy_str(s->phase, sizeof s->phase, o, "phase");
    copy_str(s->stop_reason, sizeof s->stop_reason, o, "stop_reason");
    s->state_iteration = int_or(o, "iteration", -1);
    s->state_budget = int_or(o, "budget", -1);
    s->state_baseline = first_tflops(o, "baseline", "baseline_tflops");
    s->state_best = first_tflops(o, "best", "best_tflops");
}

int state_read(struct report_sweep *sw, const char *path)
{
    json_error_t err;
    if (!access(path, F_OK) && !regfile_is(path)) { /* a FIFO or a device: never read (regfile.h) */
        notes_add(&sw->notes, NOTE_MALFORMED, NULL, "state.json: %s", regfile_strerror(EINVAL));
        return -1;
    }
    json_t *root = json_load_file(path, 0, &err);
    if (!root) {
        if (strstr(err.text, "unable to open"))
            return -1;
        notes_add(&sw->notes, NOTE_MALFORMED, NULL, "state.json:%d: %s", err.line, err.text);
        return -1;
    }
    json_t *shapes = json_object_get(root, "shapes");
    json_t *schema = json_object_get(root, "schema");
    if (schema && json_integer_value(schema) != 1)
        notes_add(&sw->notes, NOTE_INFO, NULL, "state.json: schema %lld, this report reads schema 1",
                  (long long)json_integer_value(schema));
    if (json_is_object(shapes)) {
        const char *key;
        json_t *v;
        json_object_foreach(shapes, key, v)
            state_shape(sw, key, v);
    } else if (json_is_array(shapes)) {
        size_t i;
        json_t *v;
        json_array_foreach(shapes, i, v) {
            const char *key = json_string_value(json_object_get(v, "key"));
            if (key)
                state_shape(sw, key, v);
            else
                notes_add(&sw->notes, NOTE_MALFORMED, NULL, "state.json: shapes[%zu] has no 'key'", i);
        }
    } else {
        notes_add(&sw->notes, NOTE_MALFORMED, NULL, "state.json: no 'shapes' object or array");
    }
    sweep_info(sw, json_object_get(root, "sweep"));
    json_decref(root);
    sw->have_state = true;
    return 0;
}
