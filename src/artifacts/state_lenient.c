/* src/artifacts/state_lenient.c — state.json read for the report (state.h): every entry
 * that can be read, each problem named, nothing refused, so that an older, partial or
 * damaged tuning directory still gives a report. The engine never reads this way
 * (state_load validates). */
#include "artifacts/state.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/regfile.h"

static void note(const struct state_reader *rd, enum state_note kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note(const struct state_reader *rd, enum state_note kind, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    rd->note(rd->arg, kind, text);
}

static void entry(const struct state_reader *rd, const char *key, json_t *o)
{
    struct state_shape s;
    if (!json_is_object(o)) {
        note(rd, STATE_NOTE_MALFORMED, "state.json: entry '%s' is not an object", key);
        return;
    }
    state_shape_from_json(o, key, STATE_OLD_FORMS, &s);
    rd->shape(rd->arg, key, &s);
}

int state_read_lenient(const char *path, const struct state_reader *rd, struct state_sweep *sweep, bool *have_sweep)
{
    json_error_t err;
    *have_sweep = false;
    /* read once, O_NONBLOCK and fstat'ed (regfile.h): a FIFO or a device is never read */
    json_t *root = regfile_load_json_je(path, 0, &err);
    if (!root) {
        if (errno == ENOENT)
            return -1;
        if (err.line < 0)
            note(rd, STATE_NOTE_MALFORMED, "state.json: %s", err.text);
        else
            note(rd, STATE_NOTE_MALFORMED, "state.json:%d: %s", err.line, err.text);
        return -1;
    }
    json_t *shapes = json_object_get(root, "shapes"), *schema = json_object_get(root, "schema"), *v;
    if (schema && json_integer_value(schema) != ENGINE_SCHEMA)
        note(rd, STATE_NOTE_OTHER_SCHEMA, "state.json: schema %lld, this report reads schema %d",
             (long long)json_integer_value(schema), ENGINE_SCHEMA);
    if (json_is_object(shapes)) {
        const char *key;
        json_object_foreach(shapes, key, v)
            entry(rd, key, v);
    } else if (json_is_array(shapes)) {
        size_t i;
        json_array_foreach(shapes, i, v) {
            const char *key = json_string_value(json_object_get(v, "key"));
            if (key)
                entry(rd, key, v);
            else
                note(rd, STATE_NOTE_MALFORMED, "state.json: shapes[%zu] has no 'key'", i);
        }
    } else {
        note(rd, STATE_NOTE_MALFORMED, "state.json: no 'shapes' object or array");
    }
    *have_sweep = state_sweep_get(root, sweep);
    json_decref(root);
    return 0;
}
