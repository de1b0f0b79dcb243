/* src/measure/jget.c — typed JSON field reads with a first-error message. */
#include "jget.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void jget_init(struct jget *g, char *err, size_t errlen)
{
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
    snprintf(g->err, g->errlen, "runner output: '%s%s%s' %s", pfx ? pfx : "", pfx && *pfx ? "." : "",
             key, what);
}

/* The value at key, NULL when absent/null (an error if required). */
static json_t *lookup(struct jget *g, json_t *o, const char *pfx, const char *key, bool required)
{
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
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

bool jget_str(struct jget *g, json_t *o, const char *pfx, const char *key, bool required,
              char *out, size_t len)
{
    json_t *v = lookup(g, o, pfx, key, required);
    if (!v)
        return false;
    if (!json_is_string(v)) {
        jget_fail(g, pfx, key, "is not a string");
        return false;
    }
    snprintf(out, len, "%s", json_string_value(v));
    return true;
}
