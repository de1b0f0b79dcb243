/* src/measure/run.c — measure_run: one `croq-runner run` and its parsed result. */
#include "measure.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "parse_common.h"
#include "spawn_runner.h"

static void result_reset(struct measure_result *r)
{
    memset(r, 0, sizeof *r);
    measure_result_clear_fields(r);
    r->exit_code = -1;
}

int measure_run(const struct measure_opts *o, struct measure_result *r)
{
    bool parse;
    result_reset(r);
    double limit = o->timeout_s > 0 ? o->timeout_s : measure_default_timeout(o, false);
    if (spawn_runner("run", o, limit, r, &parse))
        return -1;
    if (parse) {
        measure_parse(r->raw_json, r);
        spawn_runner_reconcile(r);
    }
    return 0;
}

void measure_result_release(struct measure_result *r)
{
    free(r->raw_json);
    free(r->stderr_text);
    r->raw_json = r->stderr_text = NULL;
}

char *measure_raw_record(const struct measure_result *r)
{
    json_error_t je;
    json_t *own = r->raw_json && *r->raw_json ? json_loads(r->raw_json, 0, &je) : NULL;
    const char *st = json_string_value(json_object_get(own, "status"));
    bool agrees = st && !strcmp(st, measure_status_name(r->status));
    json_decref(own);
    if (agrees)
        return strdup(r->raw_json);
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_integer(1));
    json_object_set_new(j, "status", json_string(measure_status_name(r->status)));
    json_object_set_new(j, "error", json_string(r->error));
    json_object_set_new(j, "exit_code", json_integer(r->exit_code));
    json_object_set_new(j, "term_signal", json_integer(r->term_signal));
    json_object_set_new(j, "timed_out", json_boolean(r->timed_out));
    json_object_set_new(j, "stderr", json_string(r->stderr_text ? r->stderr_text : ""));
    if (r->raw_json && *r->raw_json) { /* jansson refuses invalid UTF-8: then it is said so */
        json_t *out = json_string(r->raw_json);
        json_object_set_new(j, "stdout", out ? out : json_string("(not UTF-8; not kept)"));
    }
    char *text = json_dumps(j, JSON_INDENT(1));
    json_decref(j);
    return text;
}
