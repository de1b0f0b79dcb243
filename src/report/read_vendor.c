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

#include "report/read.h"
#include "util/log.h"
#include "util/regfile.h"

void vendor_clear(struct report_vendor *v)
{
    struct vendor_value none = {NAN, VSRC_NONE};
    v->cublas = v->sl_default = v->sl_search = v->ours = none;
    v->protocol = VPROTO_NONE;
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
    char *text = regfile_read(path, REGFILE_MAX, NULL);
    if (!text) {
        if (errno != ENOENT)
            notes_add(nl, NOTE_MALFORMED, s->key, "%s: %s", rel, regfile_strerror(errno));
        return -1;
    }
    json_t *o = json_loads(text, 0, &err);
    free(text);
    if (!o) {
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
    static const char *const members[] = {"cublas_tflops", "cusparselt_default_tflops", "cusparselt_search_tflops",
                                           "ours_tflops"};
    for (size_t i = 0; i < sizeof members / sizeof *members; i++) {
        json_t *v = json_object_get(o, members[i]);
        if (v && !json_is_null(v) && !json_is_number(v))
            notes_add(nl, NOTE_MALFORMED, s->key, "%s: '%s' is not a number (ignored)", rel, members[i]);
    }
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
