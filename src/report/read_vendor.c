/* src/report/read_vendor.c — the vendor numbers a shape's curves are compared with.
 *
 * perf/<key>/vendor.json, written by `croqtuner compare` on the same machine and run as
 * the tuning, is read through its owner (artifacts/vendor.h), each of its problems a
 * note. Values still missing are taken from the vendor anchors file
 * (shared/data/vendor-anchors-h200.json) and marked as anchors: measured on another day,
 * so they must never be shown as the same run.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts/vendor.h"
#include "knobs/knobs.h"
#include "report/read.h"
#include "target/target.h"
#include "util/log.h"

void vendor_clear(struct report_vendor *v)
{
    struct vendor_value none = {NAN, VSRC_NONE};
    v->cublas = v->sl_default = v->sl_search = v->ours = none;
    v->protocol = VPROTO_NONE;
}

struct problem_ctx {
    const struct report_shape *s;
    const char *rel;
    struct report_notes *nl;
};

static void problem(void *arg, int line, const char *text)
{
    struct problem_ctx *c = arg;
    if (line > 0)
        notes_add(c->nl, NOTE_MALFORMED, c->s->key, "%s:%d: %s", c->rel, line, text);
    else
        notes_add(c->nl, NOTE_MALFORMED, c->s->key, "%s: %s", c->rel, text);
}

static void take_value(struct vendor_value *dst, double v, enum vendor_src src)
{
    if (dst->src == VSRC_NONE && v > 0) { /* NAN: not measured */
        dst->tflops = v;
        dst->src = src;
    }
}

static void take(struct vendor_value *dst, json_t *v, enum vendor_src src)
{
    if (json_is_number(v))
        take_value(dst, json_number_value(v), src);
}

int vendor_read(struct report_shape *s, const char *path, const char *rel, struct report_notes *nl)
{
    int dtype = croq_dtype_parse(s->dtype);
    const struct croq_target *t = croq_target();
    struct croq_shape shape = {s->m, s->n, s->k};
    struct vendor_record r;
    struct problem_ctx ctx = {s, rel, nl};
    if (dtype < 0) /* a key of no known dtype has no vendor numbers to compare with */
        return -1;
    if (vendor_record_read(path, dtype, &shape, target_peak_tflops(t, dtype, t->boost_mhz), &r, problem, &ctx))
        return -1;
    take_value(&s->vendor.cublas, r.tflops[VENDOR_CUBLAS], VSRC_MEASURED);
    take_value(&s->vendor.sl_default, r.tflops[VENDOR_SLT_DEFAULT], VSRC_MEASURED);
    take_value(&s->vendor.sl_search, r.tflops[VENDOR_SLT_SEARCH], VSRC_MEASURED);
    s->vendor.protocol = r.timing == VENDOR_TIMING_INTERLEAVED ? VPROTO_INTERLEAVED : VPROTO_BLOCKS;
    if (r.has_ours && s->vendor.ours.src == VSRC_NONE) {
        take_value(&s->vendor.ours, r.ours_tflops, VSRC_MEASURED);
        free(s->vendor.ours_config);
        s->vendor.ours_config = xstrdup(r.ours_config);
    }
    free(s->vendor.path);
    s->vendor.path = xstrdup(rel);
    return 0;
}

static bool anchor_matches(json_t *row, const struct report_shape *s)
{
    const char *dt = json_string_value(json_object_get(row, "dtype"));
    return dt && !strcmp(dt, s->dtype) && json_integer_value(json_object_get(row, "M")) == s->m &&
           json_integer_value(json_object_get(row, "N")) == s->n &&
           json_integer_value(json_object_get(row, "K")) == s->k;
}

int vendor_fill_from_anchors(struct report_shape *s, const json_t *anchors)
{
    json_t *rows = json_object_get(anchors, "rows");
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        if (!anchor_matches(row, s))
            continue;
        int before = (s->vendor.cublas.src != VSRC_NONE) + (s->vendor.sl_default.src != VSRC_NONE) +
                     (s->vendor.sl_search.src != VSRC_NONE);
        take(&s->vendor.cublas, json_object_get(row, "cublas_dense_tflops"), VSRC_ANCHOR);
        take(&s->vendor.sl_default, json_object_get(row, "cusparselt_default_tflops"), VSRC_ANCHOR);
        take(&s->vendor.sl_search, json_object_get(row, "cusparselt_search_tflops"), VSRC_ANCHOR);
        return (s->vendor.cublas.src != VSRC_NONE) + (s->vendor.sl_default.src != VSRC_NONE) +
               (s->vendor.sl_search.src != VSRC_NONE) - before;
    }
    return 0;
}
