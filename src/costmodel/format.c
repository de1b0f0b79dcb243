/* src/costmodel/format.c — the model's serialized form (costmodel.h "The serialized
 * format"): writing it, and reading it back strictly (every refusal names the line). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "util/decimal.h"

#define MAGIC "croq-costmodel"
#define LINE_MAX_CHARS 256
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * FNV_PRIME;
    return h;
}

/* snprintf into buf[0..cap) that keeps counting (and hashing) past the end. */
struct out {
    char *buf;
    size_t cap, len;
    uint64_t hash;
};

static void put(struct out *o, const char *fmt, ...)
{
    char line[LINE_MAX_CHARS];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    o->hash = fnv1a(o->hash, line, len);
    for (size_t i = 0; i < len; i++, o->len++)
        if (o->len + 1 < o->cap)
            o->buf[o->len] = line[i];
}

long costmodel_serialize(const struct costmodel *const *models, size_t n, char *buf, size_t cap)
{
    struct out o = {.buf = buf, .cap = cap, .hash = FNV_OFFSET};
    put(&o, "%s %d\n", MAGIC, COSTMODEL_FORMAT);
    for (size_t i = 0; i < n; i++) {
        const struct costmodel *m = models[i];
        const char *dt = m ? croq_dtype_name(m->dtype) : NULL;
        if (!m || m->n <= 0 || !dt || !strcmp(dt, "?") || m->p > COSTMODEL_FEATURES)
            return -1;
        put(&o, "model %s\n", dt);
        put(&o, "target %d %d %ld\n", COSTMODEL_SM_COUNT, COSTMODEL_SMEM_LIMIT, COSTMODEL_L2_BYTES);
        put(&o, "fit %d %d %.17g\n", m->n, m->n_groups, m->sigma);
        put(&o, "mean %.17g\n", m->mean);
        put(&o, "level %d %.17g %.17g %.17g %.17g\n", m->has_level ? 1 : 0, m->level[0], m->level[1], m->level[2],
            m->level[3]);
        put(&o, "features %d\n", m->p);
        for (int j = 0; j < m->p; j++) {
            char name[64];
            if (costmodel_feature_name(j, name, sizeof name))
                return -1;
            put(&o, "f %s %d %.17g %.17g\n", name, j < cm_n_onehot() && m->seen[j] ? 1 : 0, m->xbar[j], m->w[j]);
        }
        put(&o, "end\n");
    }
    uint64_t h = o.hash;
    put(&o, "sum %016" PRIx64 "\n", h);
    if (cap > 0)
        buf[o.len < cap ? o.len : cap - 1] = '\0';
    return (long)o.len;
}

/* A line-by-line reader of text[0..len) with the line number for messages. */
struct in {
    const char *p, *end;
    int line;
    char *err;
    size_t errlen;
    char buf[LINE_MAX_CHARS];
    char *tok[8];
    int ntok;
};

static int fail(struct in *r, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "cost model line %d: %s", r->line, msg);
    return -1;
}

/* The next line split on single spaces into r->tok; -1 at the end or on a line that is
 * too long, not terminated, or has more fields than r->tok holds. */
static int next_line(struct in *r)
{
    r->line++;
    if (r->p >= r->end)
        return fail(r, "the text ends early");
    const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    if (!nl)
        return fail(r, "the last line has no newline");
    size_t n = (size_t)(nl - r->p);
    if (n >= sizeof r->buf)
        return fail(r, "longer than %d characters", LINE_MAX_CHARS - 1);
    memcpy(r->buf, r->p, n);
    r->buf[n] = '\0';
    r->p = nl + 1;
    if (strlen(r->buf) != n)
        return fail(r, "a NUL byte");
    /* the writer puts printable ASCII and single spaces only: a CR (a file saved with
     * CRLF line ends), a tab or any other control byte is named, not echoed */
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)r->buf[i] < 0x20 || (unsigned char)r->buf[i] > 0x7e)
            return fail(r, "%s at column %zu (lines are printable ASCII fields separated by single spaces, "
                           "ending in '\\n' alone)",
                        r->buf[i] == '\r' ? "a carriage return" : "a byte that is no printable ASCII", i + 1);
    r->ntok = 0;
    for (char *s = r->buf; *s;) {
        if (r->ntok == (int)(sizeof r->tok / sizeof r->tok[0]))
            return fail(r, "too many fields");
        r->tok[r->ntok++] = s;
        char *sp = strchr(s, ' ');
        if (!sp)
            break;
        *sp = '\0';
        s = sp + 1;
        if (!*s)
            return fail(r, "a trailing space");
    }
    return 0;
}

/* The line is `word` and exactly nfields more fields. */
static int expect(struct in *r, const char *word, int nfields)
{
    if (next_line(r))
        return -1;
    if (r->ntok < 1 || strcmp(r->tok[0], word))
        return fail(r, "expected '%s', read '%s'", word, r->ntok ? r->tok[0] : "");
    if (r->ntok != nfields + 1)
        return fail(r, "'%s' needs %d field%s, has %d", word, nfields, nfields == 1 ? "" : "s", r->ntok - 1);
    return 0;
}

static int num(struct in *r, int i, const char *what, double *v)
{
    if (dec_double(r->tok[i], v)) /* as the writer prints it: no '+', blank or hex */
        return fail(r, "%s '%s' is not a finite number", what, r->tok[i]);
    return 0;
}

static int integer(struct in *r, int i, const char *what, long lo, long hi, long *v)
{
    if (dec_long(r->tok[i], v) || *v < lo || *v > hi)
        return fail(r, "%s '%s' is not an integer in [%ld, %ld]", what, r->tok[i], lo, hi);
    return 0;
}

static int parse_model(struct in *r, struct costmodel *m)
{
    long v, w, l2;
    double d;
    memset(m, 0, sizeof *m);
    m->dtype = croq_dtype_parse(r->tok[1]);
    if (m->dtype < 0)
        return fail(r, "unknown dtype '%s'", r->tok[1]);
    if (expect(r, "target", 3) || integer(r, 1, "SM count", 1, 1 << 20, &v) ||
        integer(r, 2, "shared memory per SM", 1, 1L << 30, &w) || integer(r, 3, "L2 bytes", 1, 1L << 40, &l2))
        return -1;
    if (v != COSTMODEL_SM_COUNT || w != COSTMODEL_SMEM_LIMIT || l2 != COSTMODEL_L2_BYTES)
        return fail(r, "the model's features assume %ld SMs, %ld bytes of shared memory per SM and %ld bytes of L2; "
                       "this build's are %d, %d and %ld", v, w, l2, COSTMODEL_SM_COUNT, COSTMODEL_SMEM_LIMIT,
                    COSTMODEL_L2_BYTES);
    if (expect(r, "fit", 3) || integer(r, 1, "rows", 1, 1L << 30, &v) ||
        integer(r, 2, "shapes", 0, 1L << 30, &w) || num(r, 3, "sigma", &m->sigma))
        return -1;
    m->n = (int)v, m->n_groups = (int)w;
    /* what a fit can give: at least two shapes (costmodel_fit_shapes), no more shapes than
     * rows, a spread that is not negative; numbers of ln TFLOPS, so a mean or a weight far
     * beyond any TFLOPS' logarithm is a damaged or hand-made model, not one to dispatch by */
    if (w < 2 || w > v)
        return fail(r, "fit of %ld rows over %ld shapes: a model is fitted on 2 or more shapes of at least one row "
                       "each", v, w);
    if (!(m->sigma >= 0) || m->sigma > 1e3)
        return fail(r, "sigma %g is not in [0, 1000] (a spread of ln TFLOPS)", m->sigma);
    if (expect(r, "mean", 1) || num(r, 1, "mean", &m->mean))
        return -1;
    if (fabs(m->mean) > 1e3)
        return fail(r, "mean %g is no logarithm of a TFLOPS", m->mean);
    if (expect(r, "level", 5) || integer(r, 1, "has-level", 0, 1, &v))
        return -1;
    m->has_level = v;
    for (int i = 0; i < 4; i++) {
        if (num(r, 2 + i, "level coefficient", &m->level[i]))
            return -1;
        if (fabs(m->level[i]) > 1e3) /* ln TFLOPS per ln size: a few units at most */
            return fail(r, "level coefficient %g is no logarithm's slope", m->level[i]);
    }
    m->p = cm_n_onehot() + COSTMODEL_DERIVED + COSTMODEL_SHAPE_EXTRA;
    if (expect(r, "features", 1) || integer(r, 1, "features", 1, COSTMODEL_FEATURES, &v))
        return -1;
    bool have[COSTMODEL_FEATURES] = {0};
    for (long f = 0; f < v; f++) {
        if (expect(r, "f", 4))
            return -1;
        int j = 0;
        for (char name[64]; j < m->p; j++)
            if (!costmodel_feature_name(j, name, sizeof name) && !strcmp(name, r->tok[1]))
                break;
        if (j == m->p)
            return fail(r, "feature '%s' is unknown to this build (its knob table differs)", r->tok[1]);
        if (have[j])
            return fail(r, "feature '%s' appears twice", r->tok[1]);
        have[j] = true;
        if (integer(r, 2, "seen", 0, 1, &w) || num(r, 3, "centre", &m->xbar[j]) || num(r, 4, "weight", &d))
            return -1;
        if (fabs(d) > 1e6 || fabs(m->xbar[j]) > 1e12)
            return fail(r, "feature '%s': weight %g or centre %g out of any fit's range", r->tok[1], d, m->xbar[j]);
        m->seen[j] = w && j < cm_n_onehot();
        m->w[j] = d;
    }
    return expect(r, "end", 0);
}

int costmodel_parse(const char *text, size_t len, struct costmodel *out, size_t max, size_t *n_out, char *err,
                    size_t errlen)
{
    struct in r = {.p = text, .end = text + len, .err = err, .errlen = errlen};
    *n_out = 0;
    /* the sum line: the last one; everything before it is what it hashes */
    const char *last = text + len;
    if (len && text[len - 1] == '\n')
        for (last = text + len - 1; last > text && last[-1] != '\n'; last--)
            ;
    if (!len || text[len - 1] != '\n' || (size_t)(text + len - last) < 5 || memcmp(last, "sum ", 4)) {
        snprintf(err, errlen, "cost model: no 'sum' line at the end (a truncated or damaged model)");
        return -1;
    }
    char want[32], got[32];
    snprintf(got, sizeof got, "%.*s", (int)(text + len - 1 - (last + 4)), last + 4);
    snprintf(want, sizeof want, "%016" PRIx64, fnv1a(FNV_OFFSET, text, (size_t)(last - text)));
    if (strcmp(got, want)) {
        snprintf(err, errlen, "cost model: sum '%s' does not match the text's %s (a damaged model)", got, want);
        return -1;
    }
    r.end = last;
    if (next_line(&r))
        return -1;
    if (r.ntok != 2 || strcmp(r.tok[0], MAGIC))
        return fail(&r, "not a cost model (expected '%s %d')", MAGIC, COSTMODEL_FORMAT);
    long v;
    if (integer(&r, 1, "format version", 0, 1L << 30, &v))
        return -1;
    if (v != COSTMODEL_FORMAT)
        return fail(&r, "format version %ld; this build reads version %d", v, COSTMODEL_FORMAT);
    while (r.p < r.end) {
        if (next_line(&r))
            return -1;
        if (r.ntok != 2 || strcmp(r.tok[0], "model"))
            return fail(&r, "expected 'model DTYPE', read '%s'", r.ntok ? r.tok[0] : "");
        if (*n_out == max)
            return fail(&r, "more than %zu models", max);
        if (costmodel_find(out, *n_out, croq_dtype_parse(r.tok[1])))
            return fail(&r, "a second model of dtype %s", r.tok[1]);
        if (parse_model(&r, &out[*n_out]))
            return -1;
        ++*n_out;
    }
    return 0;
}
