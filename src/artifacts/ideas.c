/* src/artifacts/ideas.c — idea-log.jsonl: one JSON object per line, one line per stored
 * iteration (the baseline included), written with jansson so any idea text an agent
 * sends is escaped by a JSON encoder, never by hand.
 */
#include "artifacts/ideas.h"

#include <jansson.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonget.h"
#include "util/log.h"
#include "util/strbuf.h"

int idea_text_check(const char *s, size_t max, char *err, size_t errlen)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    if (len >= max) {
        snprintf(err, errlen, "text is %zu bytes long (at most %zu)", len, max - 1);
        return -1;
    }
    while (*p) {
        int extra = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2
                                  : (*p & 0xf8) == 0xf0 ? 3 : -1;
        if (extra < 0 || (extra == 1 && *p < 0xc2))
            goto bad;
        p++;
        for (int i = 0; i < extra; i++, p++)
            if ((*p & 0xc0) != 0x80)
                goto bad;
    }
    return 0;
bad:
    snprintf(err, errlen, "text is not valid UTF-8 (byte %zu)", (size_t)(p - (const unsigned char *)s));
    return -1;
}

void idea_text_sanitize(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int extra = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 && *p >= 0xc2 ? 1 : (*p & 0xf0) == 0xe0 ? 2
                                  : (*p & 0xf8) == 0xf0 && *p < 0xf5 ? 3 : -1;
        int ok = extra >= 0;
        for (int i = 1; ok && i <= extra; i++)
            ok = (p[i] & 0xc0) == 0x80;
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += 1 + extra;
    }
}

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

char *idea_format(const struct idea_record *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "schema", json_integer(ENGINE_SCHEMA));
    json_object_set_new(o, "backend", json_string(r->backend));
    json_object_set_new(o, "iter", json_integer(r->iter));
    json_object_set_new(o, "idea", json_string(r->idea));
    json_object_set_new(o, "category", json_string(r->category));
    json_object_set_new(o, "bottleneck", json_string(r->bottleneck));
    json_object_set_new(o, "justification", json_string(r->justification));
    json_object_set_new(o, "config", json_string(r->config));
    json_object_set_new(o, "source_hash", json_string(r->source_hash));
    json_object_set_new(o, "origin", json_string(r->origin));
    json_object_set_new(o, "decision", json_string(decision_name(r->decision)));
    json_object_set_new(o, "tflops", num_or_null(r->tflops));
    json_object_set_new(o, "best_tflops", num_or_null(r->best_tflops));
    json_object_set_new(o, "timestamp", json_string(r->timestamp));
    /* json_string refuses invalid UTF-8: text_check ran on every input, so a NULL
     * member here is a bug, and jansson then drops the member rather than crash. */
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(12));
    json_decref(o);
    struct strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, s ? s : "{}");
    strbuf_adds(&sb, "\n");
    free(s);
    return strbuf_detach(&sb);
}

/* First string member among names, or NULL. */
static const char *str_any(json_t *o, const char *const *names)
{
    for (; *names; names++) {
        const char *v = json_string_value(json_object_get(o, *names));
        if (v)
            return v;
    }
    return NULL;
}

int idea_parse_lenient(const char *line, struct idea_brief *out, char *err, size_t errlen)
{
    static const char *const just[] = {"justification", "justification_metric", "metric", NULL};
    static const char *const text[] = {"idea", "text", NULL};
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    memset(out, 0, sizeof *out);
    if (!o) {
        snprintf(err, errlen, "%s", je.text);
        return -1;
    }
    int rc = -2;
    if (json_is_object(o) && json_is_integer(json_object_get(o, "iter"))) {
        const char *j = str_any(o, just), *t = str_any(o, text);
        out->iter = (int)json_integer_value(json_object_get(o, "iter"));
        out->justification = j ? xstrdup(j) : NULL;
        out->idea = t ? xstrdup(t) : NULL;
        rc = 0;
    }
    json_decref(o);
    return rc;
}

int idea_parse(const char *line, struct idea_record *r, char *err, size_t errlen)
{
    json_error_t je;
    struct jget g;
    long long schema = 0, iter = 0;
    char dec[32];
    int rc = -1;
    memset(r, 0, sizeof *r);
    json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &je);
    if (!json_is_object(o)) {
        snprintf(err, errlen, "not a JSON object: %s", o ? "wrong type" : je.text);
        goto out;
    }
    jget_init(&g, "member ", err, errlen);
    jget_int(&g, o, "", "schema", true, &schema);
    if (!g.failed && schema != ENGINE_SCHEMA) {
        snprintf(err, errlen, "schema is not %d", ENGINE_SCHEMA);
        goto out;
    }
    if (jget_int_in(&g, o, "", "iter", true, 0, INT_MAX, &iter))
        r->iter = (int)iter;
    jget_str(&g, o, "", "backend", true, r->backend, sizeof r->backend);
    jget_str(&g, o, "", "idea", true, r->idea, sizeof r->idea);
    jget_str(&g, o, "", "category", true, r->category, sizeof r->category);
    jget_str(&g, o, "", "bottleneck", true, r->bottleneck, sizeof r->bottleneck);
    jget_str(&g, o, "", "justification", true, r->justification, sizeof r->justification);
    jget_str(&g, o, "", "config", true, r->config, sizeof r->config);
    jget_str(&g, o, "", "source_hash", true, r->source_hash, sizeof r->source_hash);
    jget_str(&g, o, "", "origin", true, r->origin, sizeof r->origin);
    jget_str(&g, o, "", "decision", true, dec, sizeof dec);
    jget_str(&g, o, "", "timestamp", true, r->timestamp, sizeof r->timestamp);
    jget_finite_or_null(&g, o, "", "tflops", &r->tflops);
    jget_finite_or_null(&g, o, "", "best_tflops", &r->best_tflops);
    if (g.failed)
        goto out;
    if (decision_parse(dec) < 0) {
        snprintf(err, errlen, "member 'decision': '%s' is not a decision", dec);
        goto out;
    }
    r->decision = (enum decision)decision_parse(dec);
    rc = 0;
out:
    json_decref(o);
    return rc;
}
