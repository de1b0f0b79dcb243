/* runner/output.c — build and print the command's JSON object. */
#include "output.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

json_t *output_new(const char *cmd)
{
    /* "status" is created now so it prints near the top; jansson keeps key order. */
    return json_pack("{s:i, s:s, s:s}", "schema", RUNNER_SCHEMA, "command", cmd, "status", "pending");
}

int output_emit(json_t *out, enum runner_status status, const char *error)
{
    json_object_set_new(out, "status", json_string(runner_status_name(status)));
    if (status != RS_OK && error && error[0])
        json_object_set_new(out, "error", json_string(error));
    char *text = json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(7));
    if (text) {
        fputs(text, stdout);
        fputc('\n', stdout);
        free(text);
    } else {
        /* Only a non-JSON value could do this (NaN); say so in a parseable way. */
        printf("{\"schema\":%d,\"status\":\"internal_error\",\"error\":\"output not representable as JSON\"}\n",
               RUNNER_SCHEMA);
        status = RS_INTERNAL_ERROR;
    }
    fflush(stdout);
    json_decref(out);
    return runner_status_exit(status);
}

void output_module_id(json_t *out, const char *key, const struct kl_module *m)
{
    json_object_set_new(out, key, json_string(m->module_id));
}

void output_problem(json_t *out, int dtype, const struct croq_shape *s, uint64_t seed)
{
    json_object_set_new(out, "dtype", json_string(croq_dtype_name(dtype)));
    json_object_set_new(out, "m", json_integer(s->m));
    json_object_set_new(out, "n", json_integer(s->n));
    json_object_set_new(out, "k", json_integer(s->k));
    /* JSON integers are read as signed 64-bit by most parsers: larger seeds as text. */
    if (seed <= (uint64_t)INT64_MAX)
        json_object_set_new(out, "seed", json_integer((json_int_t)seed));
    else
        json_object_set_new(out, "seed", json_sprintf("%llu", (unsigned long long)seed));
}
