/* src/measure/parse_common.h — pieces shared by the run and compare parsers and the
 * process side (internal to src/measure). */
#ifndef CROQ_MEASURE_PARSE_COMMON_H
#define CROQ_MEASURE_PARSE_COMMON_H

#include <jansson.h>

#include "util/jsonget.h"
#include "measure.h"

/* Runner output schema this parser reads (runner/output.h RUNNER_SCHEMA). */
#define MEASURE_SCHEMA 1

/* Fields to "unknown": numbers NAN, status BAD_OUTPUT, strings empty, dtype -1.
 * Keeps raw_json, stderr_text and the process facts. */
void measure_result_clear_fields(struct measure_result *r);

/* The runner's JSON object: the whole text, or failing that its last line that
 * starts with '{' (a library may print to stdout before it). NULL with
 * r->status = BAD_OUTPUT and r->error set. */
json_t *parse_load(const char *text, struct measure_result *r);

/* "schema" (must be MEASURE_SCHEMA), "status" (a runner status), "error". */
void parse_status(struct jget *g, json_t *root, struct measure_result *r);
void parse_gpu_state(struct jget *g, json_t *o, const char *pfx, struct measure_gpu_state *out);
void parse_peak(struct jget *g, json_t *o, const char *pfx, struct measure_peak *out);
/* o[key], a module identity (kernels/module_id.h): exactly CROQ_MODULE_ID_HEX lowercase hex
 * digits, or absent, null or "" (a module without one: out ""); anything else fails g naming the
 * field. */
void parse_module_id(struct jget *g, json_t *o, const char *pfx, const char *key, char out[CROQ_MODULE_ID_HEX + 1]);

#endif
