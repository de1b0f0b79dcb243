/* src/measure/parse_ladder.c — a `serve` ladder reply -> struct measure_ladder (measure.h).
 * Only the trials are taken: every summary (median, TFLOPS, the rank) is computed by the
 * tuner from them (src/backend/backend.c backend_ladder_summarise), never read. */
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "parse_common.h"

int measure_ladder_parse(const char *text, struct measure_ladder *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->failed = -1;
    json_t *j = text ? json_loads(text, 0, NULL) : NULL, *l = json_object_get(j, "ladder");
    json_t *ks = json_object_get(l, "kernels"), *k, *f = json_object_get(j, "failed");
    int rc = -1;
    size_t i;
    if (json_is_integer(f))
        out->failed = (int)json_integer_value(f);
    out->steady = json_is_true(json_object_get(json_object_get(l, "warmup"), "steady"));
    if (!json_is_object(l) || !json_is_array(ks) || json_array_size(ks) > MEASURE_LADDER_MAX) {
        snprintf(err, errlen, "runner output: 'ladder.kernels' is not an array of at most %d kernels",
                 MEASURE_LADDER_MAX);
        goto out;
    }
    json_array_foreach(ks, i, k) {
        json_t *t = json_object_get(k, "trial_ms"), *c = json_object_get(k, "sm_clock_mhz");
        char pfx[48];
        struct jget g;
        snprintf(pfx, sizeof pfx, "ladder.kernels[%zu]", i);
        jget_init(&g, "runner output: ", err, errlen);
        parse_module_id(&g, k, pfx, "module_id", out->k[i].module_id); /* as a measure reply's */
        if (g.failed)
            goto out;
        out->n = (int)i + 1;
        if (!t) /* not timed: a verification failed before the timing */
            continue;
        if (!json_is_array(t) || json_array_size(t) < 1 || json_array_size(t) > MEASURE_MAX_TRIALS) {
            snprintf(err, errlen, "runner output: 'ladder.kernels[%zu].trial_ms' is not an array of 1..%d times", i,
                     MEASURE_MAX_TRIALS);
            goto out;
        }
        for (size_t r = 0; r < json_array_size(t); r++) {
            json_t *v = json_array_get(t, r), *cv = json_array_get(c, r);
            double ms = json_is_number(v) ? json_number_value(v) : NAN;
            if (!(isfinite(ms) && ms > 0)) {
                snprintf(err, errlen, "runner output: 'ladder.kernels[%zu].trial_ms[%zu]' is not a positive time", i, r);
                goto out;
            }
            out->k[i].trial_ms[r] = ms;
            out->k[i].clock_mhz[r] = json_is_integer(cv) && json_integer_value(cv) > 0 && json_integer_value(cv) < 10000
                                         ? (int)json_integer_value(cv) : -1;
            out->k[i].trials = (int)r + 1;
        }
    }
    rc = 0;
out:
    json_decref(j);
    return rc;
}
