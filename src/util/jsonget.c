/* src/util/jsonget.c — typed JSON member reads with a first-error message (jsonget.h). */
#include "jsonget.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void jget_init(struct jget *g, const char *ctx, char *err, size_t errlen)
{
    g->ctx = ctx ? ctx : "";
    g->err = err;
    g->errlen = errlen;
    g->failed = false;
    if (errlen)
        err[0] = '\0';
}

void jget_fail(struct jget *g, const char *pfx, const char *key, const char *what)
{
    if (g->failed)
        return;
    g->failed = true;
    snprintf(g->err, g->errlen, "%s'%s%s%s' %s", g->ctx, pfx ? pfx : "", pfx && *pfx ? "." : "", key, what);
}

/* The member, NULL when absent. */
static json_t *member(json_t *o, const char *key) { return json_is_object(o) ? json_object_get(o, key) : NULL; }

/* The value at key, NULL when absent/null (an error if required). */
static json_t *lookup(struct jget *g, json_t *o, const char *pfx, const char *key, bool required)
{
    json_t *v = member(o, key);
    if (v && !json_is_null(v))
        return v;
    if (required)
        jget_fail(g, pfx, key, "missing");
    return NULL;
}

json_t *jget_obj(struct jget *g, json_t *o, const char *pfx, const char *key, bool required)
{
    json_t *v = lookup(g, o, pfx, key, required);
    if (v && !json_is_object(v)) {
        jget_fail(g, pfx, key, "is not an object");
        return NULL;
    }
    return v;
}

json_t *jget_obj_or_null(struct jget *g, json_t *o, const char *pfx, const char *key)
{
    if (!member(o, key)) {
        jget_fail(g, pfx, key, "missing");
        return NULL;
    }
    return jget_obj(g, o, pfx, key, false);
}

json_t *jget_array(struct jget *g, json_t *o, const char *pfx, const char *key, bool required)
{
    json_t *v = lookup(g, o, pfx, key, required);
    if (v && !json_is_array(v)) {
        jget_fail(g, pfx, key, "is not an array");
        return NULL;
    }
    return v;
}

bool jget_value_num(json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return true;
    }
    const char *s = json_string_value(v);
    if (!s)
        return false;
    if (!strcmp(s, "nan"))
        *out = NAN;
    else if (!strcmp(s, "inf"))
        *out = INFINITY;
    else if (!strcmp(s, "-inf"))
        *out = -INFINITY;
    else
        return false;
    return true;
}

bool jget_num(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, double *out)
{
    json_t *v = lookup(g, o, pfx, key, required);
    if (!v)
        return false;
    if (!jget_value_num(v, out)) {
        jget_fail(g, pfx, key, "is not a number");
        return false;
    }
    return true;
}

bool jget_finite_or_null(struct jget *g, json_t *o, const char *pfx, const char *key, double *out)
{
    json_t *v = member(o, key);
    if (!v) {
        jget_fail(g, pfx, key, "missing");
        return false;
    }
    if (json_is_null(v)) {
        *out = NAN;
        return true;
    }
    if (!json_is_number(v) || !isfinite(json_number_value(v))) {
        jget_fail(g, pfx, key, "is not a finite number");
        return false;
    }
    *out = json_number_value(v);
    return true;
}

bool jget_int(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, long long *out)
{
    json_t *v = lookup(g, o, pfx, key, required);
    if (!v)
        return false;
    if (!json_is_integer(v)) {
        jget_fail(g, pfx, key, "is not an integer");
        return false;
    }
    *out = json_integer_value(v);
    return true;
}

bool jget_int_in(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, long long lo,
                 long long hi, long long *out)
{
    long long x;
    if (!jget_int(g, o, pfx, key, required, &x))
        return false;
    if (x < lo || x > hi) {
        char what[80];
        snprintf(what, sizeof what, "is not in [%lld, %lld]", lo, hi);
        jget_fail(g, pfx, key, what);
        return false;
    }
    *out = x;
    return true;
}

bool jget_bool(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, bool *out)
{
    json_t *v = lookup(g, o, pfx, key, required);
    if (!v)
        return false;
    if (!json_is_boolean(v)) {
        jget_fail(g, pfx, key, "is not true/false");
        return false;
    }
    *out = json_is_true(v);
    return true;
}

/* The string at key, NULL (with an error when it is not a string) otherwise. */
static const char *string_at(struct jget *g, json_t *o, const char *pfx, const char *key, bool required)
{
    json_t *v = lookup(g, o, pfx, key, required);
    if (!v)
        return NULL;
    if (!json_is_string(v)) {
        jget_fail(g, pfx, key, "is not a string");
        return NULL;
    }
    return json_string_value(v);
}

bool jget_str(struct jget *g, json_t *o, const char *pfx, const char *key, bool required,
              char *out, size_t len)
{
    const char *s = string_at(g, o, pfx, key, required);
    if (!s)
        return false;
    size_t n = strlen(s);
    if (n >= len) {
        jget_fail(g, pfx, key, "is too long");
        return false;
    }
    memcpy(out, s, n + 1);
    return true;
}

bool jget_text(struct jget *g, json_t *o, const char *pfx, const char *key, bool required,
               char *out, size_t len)
{
    const char *s = string_at(g, o, pfx, key, required);
    if (!s)
        return false;
    snprintf(out, len, "%s", s);
    return true;
}
