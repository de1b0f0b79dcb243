/* src/profile/json.c — struct profile_result -> JSON, for profile.json next to the raw
 * ncu output. Metrics are written by their struct field names
 * (docs/profiling.md maps each to its ncu metric); NAN is written as null because JSON
 * has no NaN. */
#include "profile_json.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicio.h"

#define FIELD(f) {#f, offsetof(struct profile_metrics, f)}
static const struct {
    const char *name;
    size_t offset;
} json_fields[] = {
    FIELD(sm_throughput_pct),         FIELD(tensor_pipe_pct),
    FIELD(dram_throughput_pct),       FIELD(l2_throughput_pct),
    FIELD(smem_throughput_pct),       FIELD(achieved_occupancy_pct),
    FIELD(theoretical_occupancy_pct), FIELD(stall_long_scoreboard_pct),
    FIELD(stall_barrier_pct),         FIELD(stall_no_instruction_pct),
    FIELD(duration_us),               FIELD(memory_throughput_pct),
    FIELD(l1tex_throughput_pct),      FIELD(stall_wait_pct),
    FIELD(stall_math_pipe_throttle_pct), FIELD(stall_mio_throttle_pct),
    FIELD(stall_short_scoreboard_pct), FIELD(stall_sleeping_pct),
    FIELD(occ_limit_registers),       FIELD(occ_limit_shared_mem),
    FIELD(occ_limit_warps),           FIELD(occ_limit_blocks),
    FIELD(registers_per_thread),      FIELD(top_stall_pct),
    FIELD(waves_per_sm),
};
#undef FIELD

static double *metric_at(struct profile_metrics *m, size_t offset)
{
    return (double *)((char *)m + offset);
}

json_t *profile_result_to_json(const struct profile_result *r)
{
    json_t *metrics = json_object();
    struct profile_metrics m = r->m;
    for (size_t i = 0; i < sizeof json_fields / sizeof *json_fields; i++) {
        double x = *metric_at(&m, json_fields[i].offset);
        json_object_set_new(metrics, json_fields[i].name, isnan(x) ? json_null() : json_real(x));
    }
    json_object_set_new(metrics, "top_stall", json_string(r->m.top_stall));
    return json_pack("{s:i, s:b, s:s, s:s, s:s, s:o}", "schema", PROFILE_JSON_SCHEMA, "ok", r->ok,
                     "reason", r->reason, "category", bottleneck_name(r->category), "justification",
                     r->justification, "metrics", metrics);
}

int profile_json_write_atomic(const char *path, json_t *j)
{
    char *text = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10));
    if (!text)
        return -1;
    size_t n = strlen(text);
    text[n] = '\n'; /* json_dumps' NUL becomes the final newline */
    int rc = atomic_write(path, text, n + 1);
    free(text);
    return rc;
}

int profile_write_json(const char *path, const struct profile_result *r)
{
    json_t *j = profile_result_to_json(r);
    if (!j)
        return -1;
    int rc = profile_json_write_atomic(path, j);
    json_decref(j);
    return rc;
}
