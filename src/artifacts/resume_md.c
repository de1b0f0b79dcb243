/* src/artifacts/resume_md.c — RESUME.md: where every shape stands, for a human who opens
 * the tuning directory cold. Generated from state.json (never read back). */
#include "artifacts/results.h"
#include "artifacts/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

static const char *str(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : "";
}

static void add_tflops(struct strbuf *sb, json_t *o)
{
    json_t *t = json_object_get(o, "tflops");
    char buf[32];
    if (json_is_number(t))
        strbuf_addf(sb, " %s |", results_tflops_show(buf, sizeof buf, json_number_value(t)));
    else
        strbuf_adds(sb, " - |");
}

static void add_shape(struct strbuf *sb, const char *key, json_t *e)
{
    json_t *best = json_object_get(e, "best");
    const char *status = str(e, "status");
    bool waiting = json_is_true(json_object_get(e, "agent")) && !strcmp(str(e, "phase"), "IDEATE") &&
                   !strcmp(status, "active");
    strbuf_addf(sb, "| %s | %s | %s | %s%s | %s | %lld/%lld |", key, str(e, "mode"), str(e, "backend"), status,
                waiting ? " (waiting for propose)" : "", str(e, "phase"),
                (long long)json_integer_value(json_object_get(e, "iteration")),
                (long long)json_integer_value(json_object_get(e, "budget")));
    add_tflops(sb, json_object_get(e, "baseline"));
    if (json_is_object(best)) {
        add_tflops(sb, best);
        /* A done shape's best is published whole under kernels/ (step_complete.c); its
         * srcs/ source may be kept only as a recipe (docs/artifacts.md). */
        if (!strcmp(status, "done") && strchr(key, '_'))
            strbuf_addf(sb, " kernels/gemm_sp_%.*s/%s_best.cu |", (int)(strchr(key, '_') - key), key, key);
        else
            strbuf_addf(sb, " %s |", str(best, "kernel"));
    } else {
        strbuf_adds(sb, " - | - |");
    }
    strbuf_addf(sb, " %s |\n", str(e, "stop_reason"));
}

char *resume_md_render(json_t *state)
{
    struct strbuf sb = STRBUF_INIT;
    json_t *shapes = json_object_get(state, "shapes"), *sw = json_object_get(state, "sweep");
    size_t n, i;
    const char **keys = json_sorted_keys(shapes, &n);
    strbuf_addf(&sb, "# croqtuner: where tuning stands (schema %d)\n\n", ENGINE_SCHEMA);
    strbuf_adds(&sb, "Generated from state.json after every change. To continue everything that is\n"
                     "not finished: `croqtuner resume --tuning <this directory>`. Live progress:\n"
                     "`croqtuner status --tuning <this directory>`.\n\n");
    if (json_is_object(sw)) {
        /* sweep --waves N: its "done" is of waves 1..N only, not of the whole plan */
        char waves[40] = "";
        json_t *lw = json_object_get(sw, "last_wave");
        if (json_is_integer(lw))
            snprintf(waves, sizeof waves, ", waves 1-%lld", (long long)json_integer_value(lw));
        strbuf_addf(&sb, "Sweep: dtype %s, plan %s%s, %s.\n\n", str(sw, "dtype"), str(sw, "plan"), waves,
                    str(sw, "status"));
    }
    strbuf_adds(&sb, "| shape | mode | backend | status | phase | iteration | baseline TFLOPS | best TFLOPS "
                     "| best kernel | stopped because |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < n; i++) {
        char why[600];
        if (state_shape_refused(state, keys[i], why, sizeof why)) /* its members cannot be shown as facts */
            strbuf_addf(&sb, "| %s | - | - | unreadable | - | - | - | - | - | state.json entry refused: %s |\n",
                        keys[i], why);
        else
            add_shape(&sb, keys[i], json_object_get(shapes, keys[i]));
    }
    free(keys);
    return strbuf_detach(&sb);
}
