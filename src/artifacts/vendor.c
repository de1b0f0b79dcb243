/* src/artifacts/vendor.c — perf/<key>/vendor.json written and read (vendor.h). */
#include "artifacts/vendor.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "artifacts/names.h"
#include "util/atomicio.h"
#include "util/regfile.h"
#include "util/utctime.h"

const char *const vendor_subject_names[VENDOR_SUBJECTS] = {"cusparselt_default", "cusparselt_search", "cublas"};
static const char *const timing_names[] = {[VENDOR_TIMING_BLOCKS] = "blocks",
                                           [VENDOR_TIMING_INTERLEAVED] = "interleaved"};

int vendor_record_paths(const char *tuning, int dtype, const struct croq_shape *s, bool from_scratch, char *key,
                        size_t keylen, char *dir, size_t dirlen, char *path, size_t pathlen)
{
    const struct shape_key k = {dtype, *s, from_scratch ? MODE_FROM_SCRATCH : MODE_FROM_CURRENT_BEST};
    char name[KEY_MAX];
    key_format(&k, name);
    return (size_t)snprintf(key, keylen, "%s", name) >= keylen ||
                   (size_t)snprintf(dir, dirlen, "%s/perf/%s", tuning, key) >= dirlen ||
                   (size_t)snprintf(path, pathlen, "%s/vendor.json", dir) >= pathlen
               ? -1
               : 0;
}

static void tflops_member(char *out, size_t len, int subject)
{
    snprintf(out, len, "%s_tflops", vendor_subject_names[subject]);
}

static json_t *number_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

static json_t *paired_json(const struct vendor_record *r)
{
    json_t *o = json_object();
    for (int i = 0; i < VENDOR_SUBJECTS; i++) {
        const struct vendor_ratio *p = &r->paired[i];
        char name[64];
        snprintf(name, sizeof name, "ours_over_%s", vendor_subject_names[i]);
        json_object_set_new(o, name, p->rounds ? json_pack("{s:f, s:f, s:f, s:i}", "median", p->median, "lo", p->lo,
                                                           "hi", p->hi, "rounds", p->rounds)
                                               : json_null());
    }
    return o;
}

int vendor_record_write(const char *tuning, const struct vendor_record *r, char *err, size_t errlen)
{
    char key[KEY_MAX], dir[4096], path[4200], stamp[32], member[64];
    if (vendor_record_paths(tuning, r->dtype, &r->shape, r->from_scratch, key, sizeof key, dir, sizeof dir, path,
                            sizeof path)) {
        snprintf(err, errlen, "the tuning directory's path is too long");
        return -1;
    }
    if (mkdir_p(dir)) {
        snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
        return -1;
    }
    /* a compare killed between the temp file and the rename left .vendor.json.tmp.<pid>:
     * no shape's run cleans perf/<dtype>_<M>x<N>x<K>/ when only its _fs shape is tuned */
    atomic_clean_temps(dir, "vendor.json.", 0);
    snprintf(stamp, sizeof stamp, "%s", r->timestamp);
    if (!stamp[0])
        utc_now(stamp);
    /* members in the order docs/report.md shows them */
    json_t *j = json_pack("{s:i, s:s, s:s, s:I, s:I, s:I}", "schema", 1, "key", key, "dtype",
                          croq_dtype_name(r->dtype), "M", (json_int_t)r->shape.m, "N", (json_int_t)r->shape.n, "K",
                          (json_int_t)r->shape.k);
    if (!j) {
        snprintf(err, errlen, "JSON encoding failed");
        return -1;
    }
    const int order[] = {VENDOR_CUBLAS, VENDOR_SLT_DEFAULT, VENDOR_SLT_SEARCH};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        tflops_member(member, sizeof member, order[i]);
        json_object_set_new(j, member, number_or_null(r->tflops[order[i]]));
    }
    json_object_set_new(j, "sm_clock_mhz", number_or_null(r->sm_clock_mhz));
    json_object_set_new(j, "timestamp", json_string(stamp));
    json_object_set_new(j, "gpu", json_string(r->gpu));
    json_object_set_new(j, "l2", json_string(r->cold_l2 ? "cold" : "warm"));
    bool interleaved = r->timing == VENDOR_TIMING_INTERLEAVED;
    json_object_set_new(j, "protocol", json_string(timing_names[r->timing]));
    if (interleaved)
        json_object_set_new(j, "rounds", json_integer(r->rounds));
    if (r->has_ours) {
        json_object_set_new(j, "ours_tflops", number_or_null(r->ours_tflops));
        json_object_set_new(j, "ours_config", json_string(r->ours_config));
        if (interleaved)
            json_object_set_new(j, "paired", paired_json(r));
    }
    char *text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(7));
    int rc = text ? atomic_write_str(path, text) : -1;
    if (rc)
        snprintf(err, errlen, "cannot write '%s': %s", path, text ? strerror(errno) : "JSON encoding failed");
    free(text);
    json_decref(j);
    return rc;
}

/* ---- reading ------------------------------------------------------------------------ */

struct reader {
    vendor_problem_fn problem;
    void *ctx;
};

static void say_at(const struct reader *rd, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say_at(const struct reader *rd, int line, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (rd->problem)
        rd->problem(rd->ctx, line, text);
}
#define say(rd, ...) say_at(rd, 0, __VA_ARGS__)

/* The file's own shape, where it names one, is the shape it is read for: a vendor.json
 * copied or linked from another shape's directory would put that shape's numbers here. */
static bool same_shape(json_t *o, int dtype, const struct croq_shape *s, char *why, size_t len)
{
    const char *dt = json_string_value(json_object_get(o, "dtype"));
    static const char *const dims[] = {"M", "N", "K"};
    long want[] = {s->m, s->n, s->k};
    if (json_object_get(o, "dtype") && !(dt && croq_dtype_parse(dt) == dtype)) {
        snprintf(why, len, "its 'dtype' is not %s", croq_dtype_name(dtype));
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

/* The file's own key, where it names one, is its directory's (perf/<key>/vendor.json): a
 * from-scratch run's record copied or linked into the shape's directory, or back, would
 * give one run the other's compare. */
static bool same_key(json_t *o, const char *path, char *why, size_t len)
{
    const char *key = json_string_value(json_object_get(o, "key"));
    const char *end = strrchr(path, '/'), *start = end;
    if (!json_object_get(o, "key") || !end)
        return true;
    while (start > path && start[-1] != '/')
        start--;
    if (!key || strlen(key) != (size_t)(end - start) || strncmp(key, start, (size_t)(end - start))) {
        snprintf(why, len, "its 'key' is not its directory's, '%.*s'", (int)(end - start), start);
        return false;
    }
    return true;
}

/* A TFLOPS member: absent or null (not measured, NAN), or a positive number no larger
 * than the peak; reported and NAN otherwise. */
static double tflops_value(json_t *o, const char *member, int dtype, double peak, const struct reader *rd)
{
    json_t *v = json_object_get(o, member);
    double x = json_number_value(v);
    if (!v || json_is_null(v))
        return NAN;
    if (!json_is_number(v))
        say(rd, "'%s' is not a number (ignored)", member);
    else if (!(x > 0))
        say(rd, "'%s' is %g, not a positive number (ignored)", member, x);
    else if (x > peak)
        say(rd, "'%s' is %g, above the %s sparse peak at the boost clock (%.0f TFLOPS; ignored)", member, x,
            croq_dtype_name(dtype), peak);
    else
        return x;
    return NAN;
}

/* What an interleaved record says of its timing: its rounds a whole number >= 1, each
 * paired ratio null or a positive median inside its interval. */
static void read_interleaved(json_t *o, struct vendor_record *r, const struct reader *rd)
{
    json_t *rounds = json_object_get(o, "rounds"), *paired = json_object_get(o, "paired");
    if (json_is_integer(rounds) && json_integer_value(rounds) >= 1 && json_integer_value(rounds) <= 1000000)
        r->rounds = (int)json_integer_value(rounds);
    else
        say(rd, "'rounds' of an interleaved compare is not a whole number >= 1");
    if (paired && !json_is_object(paired)) {
        say(rd, "'paired' is not an object");
        return;
    }
    const char *name;
    json_t *v;
    json_object_foreach(paired, name, v) {
        double m = json_number_value(json_object_get(v, "median")), lo = json_number_value(json_object_get(v, "lo")),
               hi = json_number_value(json_object_get(v, "hi"));
        json_t *n = json_object_get(v, "rounds");
        if (!json_is_null(v) && !(json_is_object(v) && lo > 0 && lo <= m && m <= hi)) {
            say(rd, "'paired.%s' is not a positive median inside its interval [lo, hi]", name);
            continue;
        }
        for (int i = 0; i < VENDOR_SUBJECTS; i++) {
            char want[64];
            snprintf(want, sizeof want, "ours_over_%s", vendor_subject_names[i]);
            if (!json_is_null(v) && !strcmp(name, want))
                r->paired[i] = (struct vendor_ratio){m, lo, hi, json_is_integer(n) ? (int)json_integer_value(n) : 0};
        }
    }
}

int vendor_record_read(const char *path, int dtype, const struct croq_shape *s, double peak_tflops,
                       struct vendor_record *out, vendor_problem_fn problem, void *ctx)
{
    struct reader rd = {problem, ctx};
    json_error_t je;
    char member[64], why[64];
    memset(out, 0, sizeof *out);
    out->dtype = dtype;
    out->shape = *s;
    out->sm_clock_mhz = out->ours_tflops = NAN;
    for (int i = 0; i < VENDOR_SUBJECTS; i++)
        out->tflops[i] = NAN;
    /* opened once, O_NONBLOCK and fstat'ed (regfile.h): a FIFO or a device in its place is
     * never read, even one put there after a check */
    json_t *o = regfile_load_json_je(path, 0, &je);
    if (!o) {
        int e = errno;
        if (e != ENOENT)
            say_at(&rd, je.line > 0 ? je.line : 0, "%s", je.text);
        errno = e;
        return -1;
    }
    int rc = -1;
    const char *pname = json_string_value(json_object_get(o, "protocol"));
    if (!json_is_object(o)) {
        say(&rd, "not a JSON object");
    } else if (json_object_get(o, "protocol") && !(pname && (!strcmp(pname, timing_names[VENDOR_TIMING_BLOCKS]) ||
                                                             !strcmp(pname, timing_names[VENDOR_TIMING_INTERLEAVED])))) {
        say(&rd, "'protocol' is not \"interleaved\" or \"blocks\" (file ignored)");
    } else if (!same_shape(o, dtype, s, why, sizeof why)) {
        say(&rd, "the record of another shape: %s (file ignored)", why);
    } else if (!same_key(o, path, why, sizeof why)) {
        say(&rd, "the record of another run: %s (file ignored)", why);
    } else {
        /* absent: a file from before the member, whose compare timed in blocks */
        out->timing = pname && !strcmp(pname, timing_names[VENDOR_TIMING_INTERLEAVED]) ? VENDOR_TIMING_INTERLEAVED
                                                                                       : VENDOR_TIMING_BLOCKS;
        if (out->timing == VENDOR_TIMING_INTERLEAVED)
            read_interleaved(o, out, &rd);
        for (int i = 0; i < VENDOR_SUBJECTS; i++) {
            tflops_member(member, sizeof member, i);
            out->tflops[i] = tflops_value(o, member, dtype, peak_tflops, &rd);
        }
        double ours = tflops_value(o, "ours_tflops", dtype, peak_tflops, &rd);
        const char *cfg = json_string_value(json_object_get(o, "ours_config"));
        if (cfg) {
            out->has_ours = true;
            out->ours_tflops = ours;
            snprintf(out->ours_config, sizeof out->ours_config, "%s", cfg);
        }
        json_t *clk = json_object_get(o, "sm_clock_mhz");
        if (json_is_number(clk) && json_number_value(clk) > 0)
            out->sm_clock_mhz = json_number_value(clk);
        snprintf(out->timestamp, sizeof out->timestamp, "%s", json_string_value(json_object_get(o, "timestamp")) ?: "");
        snprintf(out->gpu, sizeof out->gpu, "%s", json_string_value(json_object_get(o, "gpu")) ?: "");
        const char *l2 = json_string_value(json_object_get(o, "l2"));
        out->cold_l2 = l2 && !strcmp(l2, "cold");
        rc = 0;
    }
    json_decref(o);
    return rc;
}
