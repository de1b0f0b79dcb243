/* src/report/read_vendor.c — the vendor numbers a shape's curves are compared with.
 *
 * perf/<key>/vendor.json is written by `croqtuner compare` on the same machine and run
 * as the tuning (docs/report.md defines it):
 *   {"schema": 1, "key": "...", "cublas_tflops": 662.7,
 *    "cusparselt_default_tflops": 992.2, "cusparselt_search_tflops": 989.1,
 *    "ours_tflops": 970.4, "ours_config": "dtype=f16,kernel=1,...", ...}
 * A value that is null or absent was not measured. ours_* (optional) is our kernel of
 * that configuration measured in the same process as the vendors. "protocol" says how that
 * process timed them: "interleaved" (rounds of one trial of each) or "blocks" (one after the
 * other; files written before the member have none and mean this); any other value leaves
 * the file unread (its numbers' meaning is unknown), with a note. Values still missing are taken
 * from the vendor anchors file (shared/data/vendor-anchors-h200.json) and marked as
 * anchors: measured on another day, so they must never be shown as the same run.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "knobs/knobs.h"
#include "report/read.h"
#include "target/target.h"
#include "util/log.h"
#include "util/regfile.h"

void vendor_clear(struct report_vendor *v)
{
    struct vendor_value none = {NAN, VSRC_NONE};
    v->cublas = v->sl_default = v->sl_search = v->ours = none;
    v->protocol = VPROTO_NONE;
}

/* The file's own shape, where it names one, is the shape it is read for: a vendor.json
 * copied or linked from another shape's directory would put that shape's numbers here. */
static bool same_shape(json_t *o, const struct report_shape *s, char *why, size_t len)
{
    const char *dt = json_string_value(json_object_get(o, "dtype"));
    static const char *const dims[] = {"M", "N", "K"};
    long want[] = {s->m, s->n, s->k};
    if (json_object_get(o, "dtype") && !(dt && !strcmp(dt, s->dtype))) {
        snprintf(why, len, "its 'dtype' is not %s", s->dtype);
        return false;
    }
    for (int i = 0; i < 3; i++) {
        json_t *v = json_object_get(o, dims[i]);
        if (v && !(json_is_integer(v) && json_integer_value(v) == want[i])) {
            snprintf(why, len, "its '%s' is not %ld", dims[i], want[i]);
            return false;
        }
    }
    return true;
}

/* A TFLOPS member: absent or null (not measured), or a positive number no larger than the
 * dtype's sparse peak at the boost clock, which nothing can exceed; noted and left out
 * otherwise. */
static void check_tflops(json_t *o, const char *member, const struct report_shape *s, const char *rel,
                         struct report_notes *nl)
{
    json_t *v = json_object_get(o, member);
    int dtype = croq_dtype_parse(s->dtype);
    const struct croq_target *t = croq_target();
    double peak = dtype >= 0 ? target_peak_tflops(t, dtype, t->boost_mhz) : INFINITY;
    if (!v || json_is_null(v))
        return;
    if (!json_is_number(v))
        notes_add(nl, NOTE_MALFORMED, s->key, "%s: '%s' is not a number (ignored)", rel, member);
    else if (!(json_number_value(v) > 0))
        notes_add(nl, NOTE_MALFORMED, s->key, "%s: '%s' is %g, not a positive number (ignored)", rel, member,
                  json_number_value(v));
    else if (json_number_value(v) > peak)
        notes_add(nl, NOTE_MALFORMED, s->key, "%s: '%s' is %g, above the %s sparse peak at the boost clock (%.0f "
                  "TFLOPS; ignored)", rel, member, json_number_value(v), s->dtype, peak);
    else
        return;
    json_object_del(o, member); /* what take() does not see is not taken */
}

/* What an interleaved record says of its timing, which the report does not use beyond the
 * mark: its rounds a whole number >= 1, each paired ratio null or a positive median inside
 * its interval. A note for each that is not. */
static void check_interleaved(json_t *o, const struct report_shape *s, const char *rel, struct report_notes *nl)
{
    json_t *r = json_object_get(o, "rounds"), *paired = json_object_get(o, "paired"), *v;
    const char *name;
    if (!(json_is_integer(r) && json_integer_value(r) >= 1))
        notes_add(nl, NOTE_MALFORMED, s->key, "%s: 'rounds' of an interleaved compare is not a whole number >= 1", rel);
    if (paired && !json_is_object(paired)) {
        notes_add(nl, NOTE_MALFORMED, s->key, "%s: 'paired' is not an object", rel);
        return;
    }
    json_object_foreach(paired, name, v) {
        double m = json_number_value(json_object_get(v, "median")), lo = json_number_value(json_object_get(v, "lo")),
               hi = json_number_value(json_object_get(v, "hi"));
        if (!json_is_null(v) && !(json_is_object(v) && lo > 0 && lo <= m && m <= hi))
            notes_add(nl, NOTE_MALFORMED, s->key, "%s: 'paired.%s' is not a positive median inside its interval "
                      "[lo, hi]", rel, name);
    }
}

static void take(struct vendor_value *dst, json_t *v, enum vendor_src src)
{
    if (dst->src == VSRC_NONE && json_is_number(v) && json_number_value(v) > 0) {
        dst->tflops = json_number_value(v);
        dst->src = src;
    }
}

int vendor_read(struct report_shape *s, const char *path, const char *rel, struct report_notes *nl)
{
    json_error_t err;
    /* opened once, O_NONBLOCK and fstat'ed (regfile.h): a FIFO or a device in its place is
     * never read, even one put there after a check */
    json_t *o = regfile_load_json_je(path, 0, &err);
    if (!o) {
        if (errno != ENOENT && err.line < 0)
            notes_add(nl, NOTE_MALFORMED, s->key, "%s: %s", rel, err.text);
        else if (errno != ENOENT)
            notes_add(nl, NOTE_MALFORMED, s->key, "%s:%d: %s", rel, err.line, err.text);
        return -1;
    }
    if (!json_is_object(o)) {
        notes_add(nl, NOTE_MALFORMED, s->key, "%s: not a JSON object", rel);
        json_decref(o);
        return -1;
    }
    /* absent: a file from before the member, whose compare timed in blocks */
    json_t *proto = json_object_get(o, "protocol");
    const char *pname = json_string_value(proto);
    enum vendor_protocol protocol = VPROTO_BLOCKS;
    if (proto && pname && !strcmp(pname, "interleaved")) {
        protocol = VPROTO_INTERLEAVED;
    } else if (proto && !(pname && !strcmp(pname, "blocks"))) {
        notes_add(nl, NOTE_MALFORMED, s->key, "%s: 'protocol' is not \"interleaved\" or \"blocks\" (file ignored)",
                  rel);
        json_decref(o);
        return -1;
    }
    char why[64];
    if (!same_shape(o, s, why, sizeof why)) {
        notes_add(nl, NOTE_MALFORMED, s->key, "%s: the record of another shape: %s (file ignored)", rel, why);
        json_decref(o);
        return -1;
    }
    if (protocol == VPROTO_INTERLEAVED)
        check_interleaved(o, s, rel, nl);
    static const char *const members[] = {"cublas_tflops", "cusparselt_default_tflops", "cusparselt_search_tflops",
                                           "ours_tflops"};
    for (size_t i = 0; i < sizeof members / sizeof *members; i++)
        check_tflops(o, members[i], s, rel, nl);
    take(&s->vendor.cublas, json_object_get(o, "cublas_tflops"), VSRC_MEASURED);
    take(&s->vendor.sl_default, json_object_get(o, "cusparselt_default_tflops"), VSRC_MEASURED);
    take(&s->vendor.sl_search, json_object_get(o, "cusparselt_search_tflops"), VSRC_MEASURED);
    s->vendor.protocol = protocol;
    const char *cfg = json_string_value(json_object_get(o, "ours_config"));
    if (cfg && s->vendor.ours.src == VSRC_NONE) {
        take(&s->vendor.ours, json_object_get(o, "ours_tflops"), VSRC_MEASURED);
        free(s->vendor.ours_config);
        s->vendor.ours_config = xstrdup(cfg);
    }
    free(s->vendor.path);
    s->vendor.path = xstrdup(rel);
    json_decref(o);
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
