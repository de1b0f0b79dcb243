/* src/measure/parse_common.c — loading the JSON, status, gpu_state and peak blocks. */
#include "parse_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void measure_result_clear_fields(struct measure_result *r)
{
    r->status = MEASURE_BAD_OUTPUT;
    r->error[0] = r->gpu[0] = '\0';
    r->dtype = -1;
    r->m = r->n = r->k = 0;
    memset(&r->verify, 0, sizeof r->verify);
    memset(&r->timing, 0, sizeof r->timing);
    memset(&r->gpu_state, 0, sizeof r->gpu_state);
    memset(&r->peak, 0, sizeof r->peak);
    memset(&r->abi, 0, sizeof r->abi);
    memset(&r->paired, 0, sizeof r->paired);
    memset(&r->warmup, 0, sizeof r->warmup);
    r->l2[0] = '\0';
    r->module_id[0] = r->incumbent_module_id[0] = '\0';
    r->paired.inc_median_ms = r->paired.inc_tflops = NAN;
    r->verify_s = r->time_s = NAN;
    r->warmup.ms = r->warmup.sm_clock_mhz = r->warmup.power_w = NAN;
    r->verify.max_abs_err = r->verify.max_err_over_tol = NAN;
    r->timing.median_ms = r->timing.spread_pct = r->timing.tflops = NAN;
    r->gpu_state.sm_clock_median_mhz = r->gpu_state.sm_clock_max_mhz = NAN;
    r->gpu_state.temp_c = r->gpu_state.power_w = NAN;
    r->gpu_state.n_processes = -1;
    r->peak.sparse_tflops_at_clock = r->peak.hw_eff_pct = r->peak.clock_mhz = NAN;
    r->peak.plausible = true;
}

static json_t *last_object_line(const char *text)
{
    const char *line = NULL;
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (*p == '{')
            line = p;
    return line ? json_loads(line, JSON_DISABLE_EOF_CHECK, NULL) : NULL;
}

json_t *parse_load(const char *text, struct measure_result *r)
{
    json_error_t je;
    measure_result_clear_fields(r);
    if (!text || !*text) {
        snprintf(r->error, sizeof r->error, "runner output is empty");
        return NULL;
    }
    json_t *root = json_loads(text, 0, &je);
    if (!root)
        root = last_object_line(text);
    if (!root) {
        snprintf(r->error, sizeof r->error, "runner output is not JSON (line %d: %s)", je.line, je.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        snprintf(r->error, sizeof r->error, "runner output is not a JSON object");
        return NULL;
    }
    return root;
}

void parse_status(struct jget *g, json_t *root, struct measure_result *r)
{
    long long schema = -1;
    char status[32] = "";
    if (jget_int(g, root, "", "schema", true, &schema) && schema != MEASURE_SCHEMA)
        jget_fail(g, "", "schema", "is not 1 (runner and tuner from different builds?)");
    jget_text(g, root, "", "error", false, r->error, sizeof r->error);
    if (!jget_text(g, root, "", "status", true, status, sizeof status))
        return;
    int s = measure_status_parse(status);
    /* Only the runner's own statuses; crash/timeout/... are ours to decide. */
    if (s < 0 || s > MEASURE_INTERNAL_ERROR) {
        jget_fail(g, "", "status", "is not a runner status");
        return;
    }
    r->status = (enum measure_status)s;
}

static void join_reasons(json_t *a, char *out, size_t len)
{
    size_t i, n = 0;
    json_t *v;
    out[0] = '\0';
    json_array_foreach(a, i, v)
        if (json_is_string(v) && n < len)
            n += (size_t)snprintf(out + n, len - n, "%s%s", n ? "," : "", json_string_value(v));
}

void parse_gpu_state(struct jget *g, json_t *o, const char *pfx, struct measure_gpu_state *out)
{
    out->present = true;
    jget_text(g, o, pfx, "nvml", false, out->nvml, sizeof out->nvml);
    jget_num(g, o, pfx, "sm_clock_median_mhz", false, &out->sm_clock_median_mhz);
    jget_num(g, o, pfx, "sm_clock_max_mhz", false, &out->sm_clock_max_mhz);
    jget_num(g, o, pfx, "temp_c", false, &out->temp_c);
    jget_num(g, o, pfx, "power_w", false, &out->power_w);
    json_t *reasons = jget_array(g, o, pfx, "throttle_reasons", false);
    if (reasons)
        join_reasons(reasons, out->throttle, sizeof out->throttle);
    json_t *procs = jget_array(g, o, pfx, "processes", false);
    if (procs)
        out->n_processes = (int)json_array_size(procs);
}

void parse_module_id(struct jget *g, json_t *o, const char *pfx, const char *key, char out[CROQ_MODULE_ID_HEX + 1])
{
    char text[64] = "";
    out[0] = '\0';
    if (!json_object_get(o, key) || !jget_str(g, o, pfx, key, false, text, sizeof text) || !text[0])
        return;
    bool ok = strlen(text) == CROQ_MODULE_ID_HEX;
    for (size_t i = 0; ok && i < CROQ_MODULE_ID_HEX; i++)
        ok = (text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f');
    if (!ok) {
        jget_fail(g, pfx, key, "is not a module id (16 lowercase hex digits, kernels/module_id.h)");
        return;
    }
    memcpy(out, text, CROQ_MODULE_ID_HEX + 1);
}

void parse_peak(struct jget *g, json_t *o, const char *pfx, struct measure_peak *out)
{
    out->present = true;
    jget_num(g, o, pfx, "sparse_tflops_at_clock", false, &out->sparse_tflops_at_clock);
    jget_num(g, o, pfx, "hw_eff_pct", false, &out->hw_eff_pct);
    jget_num(g, o, pfx, "clock_mhz", false, &out->clock_mhz);
    jget_bool(g, o, pfx, "plausible", false, &out->plausible);
}
