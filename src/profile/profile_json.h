/* src/profile/profile_json.h — JSON form of a profile_result (module-internal; the
 * engine uses profile_write_json of profile.h). */
#ifndef CROQ_PROFILE_JSON_H
#define CROQ_PROFILE_JSON_H
#include <jansson.h>

#include "profile.h"

#define PROFILE_JSON_SCHEMA 1

/* A new object: {"schema":1,"ok":..,"reason":..,"category":..,"justification":..,
 * "metrics":{field: number or null, ..., "top_stall": ".."}}. */
json_t *profile_result_to_json(const struct profile_result *r);
/* Dump j (indented, sorted keys) and replace path atomically. 0 or -1. */
int profile_json_write_atomic(const char *path, json_t *j);
#endif
