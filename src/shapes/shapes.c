/* src/shapes/shapes.c — finding and expanding shapes.json (see shapes.h). */
#include "shapes.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/datafile.h"
#include "util/log.h"
#include "util/regfile.h"

struct acc {
    struct croq_shape *v;
    size_t n, cap;
};

static void acc_add(struct acc *a, const struct scenario_set *s, long m, long n, long k)
{
    if (m < s->min_dim[0] || n < s->min_dim[1] || k < s->min_dim[2])
        return;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].m == m && a->v[i].n == n && a->v[i].k == k)
            return;
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 64;
        a->v = xrealloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = (struct croq_shape){m, n, k};
}

static const char *str_or_empty(json_t *v) { return json_is_string(v) ? json_string_value(v) : ""; }

static int dim_index(const char *d)
{
    return !strcmp(d, "M") ? 0 : !strcmp(d, "N") ? 1 : !strcmp(d, "K") ? 2 : -1;
}

#define FAIL(...)                              \
    do {                                       \
        snprintf(err, errlen, __VA_ARGS__);    \
        return -1;                             \
    } while (0)

/* "single": dims "S" take each size, the others their fixed value. */
static int expand_single(const char *name, json_t *sc, struct acc *a, const struct scenario_set *s, char *err, size_t errlen)
{
    const char *dn[3] = {"M", "N", "K"};
    json_t *sizes = json_object_get(sc, "sizes"), *v;
    size_t i;
    if (!json_is_array(sizes))
        FAIL("scenario '%s': 'sizes' is not an array", name);
    json_array_foreach(sizes, i, v) {
        long d[3];
        if (!json_is_integer(v))
            FAIL("scenario '%s': a size is not an integer", name);
        for (int j = 0; j < 3; j++) {
            json_t *x = json_object_get(sc, dn[j]);
            if (json_is_string(x) && !strcmp(json_string_value(x), "S"))
                d[j] = (long)json_integer_value(v);
            else if (json_is_integer(x))
                d[j] = (long)json_integer_value(x);
            else
                FAIL("scenario '%s': '%s' is neither \"S\" nor an integer", name, dn[j]);
        }
        acc_add(a, s, d[0], d[1], d[2]);
    }
    return 0;
}

static int fixed_dims(const char *name, json_t *fixed, long d[3], bool set[3], char *err, size_t errlen)
{
    const char *k;
    json_t *v;
    if (!json_is_object(fixed))
        FAIL("sub-series '%s': 'fixed' is not an object", name);
    json_object_foreach(fixed, k, v) {
        int j = dim_index(k);
        if (j < 0 || !json_is_integer(v))
            FAIL("sub-series '%s': fixed '%s' is not a dimension with an integer", name, k);
        d[j] = (long)json_integer_value(v);
        set[j] = true;
    }
    return 0;
}

static int expand_series(const char *name, json_t *sc, json_t *ss, struct acc *a, const struct scenario_set *s,
                         char *err, size_t errlen)
{
    long d[3] = {0, 0, 0};
    bool set[3] = {false, false, false};
    json_t *tied = json_object_get(ss, "tied_sizes"), *vary = json_object_get(ss, "vary_sizes"), *v;
    json_t *td = json_object_get(sc, "tied_dims"), *fd = json_object_get(sc, "free_dim");
    size_t i;
    if (fixed_dims(name, json_object_get(ss, "fixed"), d, set, err, errlen))
        return -1;
    int t0 = json_array_size(td) == 2 ? dim_index(str_or_empty(json_array_get(td, 0))) : -1;
    int t1 = t0 >= 0 ? dim_index(str_or_empty(json_array_get(td, 1))) : -1;
    int f = json_is_string(fd) ? dim_index(json_string_value(fd)) : -1;
    if (t0 < 0 || t1 < 0 || f < 0)
        FAIL("scenario of '%s': tied_dims / free_dim are not dimensions", name);
    json_t *list = json_is_array(tied) ? tied : vary;
    if (!json_is_array(list))
        FAIL("sub-series '%s': neither tied_sizes nor vary_sizes", name);
    json_array_foreach(list, i, v) {
        if (!json_is_integer(v))
            FAIL("sub-series '%s': a size is not an integer", name);
        long x = (long)json_integer_value(v), e[3] = {d[0], d[1], d[2]};
        if (list == tied)
            e[t0] = e[t1] = x;
        else
            e[f] = x;
        if (!e[0] || !e[1] || !e[2])
            FAIL("sub-series '%s': a dimension is neither fixed nor varied", name);
        acc_add(a, s, e[0], e[1], e[2]);
    }
    return 0;
}

static int expand(json_t *scen, struct acc *a, const struct scenario_set *s, char *err, size_t errlen)
{
    const char *name, *sname;
    json_t *sc, *ss;
    if (!json_is_object(scen))
        FAIL("'scenarios' is not an object");
    json_object_foreach(scen, name, sc) {
        const char *type = json_string_value(json_object_get(sc, "type"));
        if (type && !strcmp(type, "single")) {
            if (expand_single(name, sc, a, s, err, errlen))
                return -1;
        } else if (type && !strcmp(type, "tied_pair")) {
            json_t *subs = json_object_get(sc, "sub_series");
            if (!json_is_object(subs))
                FAIL("scenario '%s': 'sub_series' is not an object", name);
            json_object_foreach(subs, sname, ss) {
                if (expand_series(sname, sc, ss, a, s, err, errlen))
                    return -1;
            }
        } else {
            FAIL("scenario '%s': unknown type '%s'", name, type ? type : "(none)");
        }
    }
    return 0;
}

static int read_typical(json_t *doc, struct scenario_set *s, char *err, size_t errlen)
{
    json_t *ty = json_object_get(doc, "typical_shapes_for_scratch");
    if (!json_is_object(ty))
        FAIL("'typical_shapes_for_scratch' is not an object");
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++) {
        json_t *list = json_object_get(ty, croq_dtype_name(dt)), *v;
        size_t i;
        if (!json_is_array(list))
            FAIL("'typical_shapes_for_scratch.%s' is not an array", croq_dtype_name(dt));
        s->typical[dt] = xmalloc((json_array_size(list) + 1) * sizeof *s->typical[dt]);
        json_array_foreach(list, i, v) {
            json_t *m = json_array_get(v, 0), *n = json_array_get(v, 1), *k = json_array_get(v, 2);
            if (!json_is_integer(m) || !json_is_integer(n) || !json_is_integer(k) || json_array_size(v) != 3)
                FAIL("'typical_shapes_for_scratch.%s[%zu]' is not [M, N, K]", croq_dtype_name(dt), i);
            s->typical[dt][s->n_typical[dt]++] =
                (struct croq_shape){(long)json_integer_value(m), (long)json_integer_value(n), (long)json_integer_value(k)};
        }
    }
    return 0;
}

static int read_rules(json_t *doc, struct scenario_set *s, char *err, size_t errlen)
{
    const char *dn[3] = {"M", "N", "K"}, *mn[3] = {"min_M", "min_N", "min_K"};
    json_t *near = json_object_get(json_object_get(doc, "regions"), "near");
    json_t *cons = json_object_get(doc, "size_constraints"), *bud = json_object_get(doc, "iteration_budgets");
    for (int j = 0; j < 3; j++) {
        json_t *r = json_object_get(near, dn[j]), *c = json_object_get(cons, mn[j]);
        if (!json_is_integer(json_array_get(r, 0)) || !json_is_integer(json_array_get(r, 1)))
            FAIL("'regions.near.%s' is not [lo, hi]", dn[j]);
        s->near_lo[j] = (long)json_integer_value(json_array_get(r, 0));
        s->near_hi[j] = (long)json_integer_value(json_array_get(r, 1));
        s->min_dim[j] = json_is_integer(c) ? (long)json_integer_value(c) : 1;
    }
    json_t *bs = json_object_get(bud, "from_scratch"), *bb = json_object_get(bud, "from_current_best");
    if (!json_is_integer(bs) || json_integer_value(bs) < 1 || json_integer_value(bs) > 100000)
        FAIL("'iteration_budgets.from_scratch' is not an integer in 1..100000");
    if (!json_is_integer(bb) || json_integer_value(bb) < 1 || json_integer_value(bb) > 100000)
        FAIL("'iteration_budgets.from_current_best' is not an integer in 1..100000");
    s->budget_scratch = (int)json_integer_value(bs);
    s->budget_best = (int)json_integer_value(bb);
    return 0;
}

int scenarios_parse(json_t *doc, struct scenario_set *out, char *err, size_t errlen)
{
    struct acc a = {0};
    memset(out, 0, sizeof *out);
    if (!json_is_object(doc)) {
        snprintf(err, errlen, "not a JSON object");
        return -1;
    }
    if (read_rules(doc, out, err, errlen) || read_typical(doc, out, err, errlen) ||
        expand(json_object_get(doc, "scenarios"), &a, out, err, errlen)) {
        free(a.v);
        scenarios_release(out);
        return -1;
    }
    out->scenario = a.v;
    out->n_scenario = a.n;
    return 0;
}

int scenarios_load(const char *path, struct scenario_set *out, char *err, size_t errlen)
{
    char why[256];
    memset(out, 0, sizeof *out);
    json_t *doc = regfile_load_json(path, JSON_REJECT_DUPLICATES, err, errlen);
    if (!doc)
        return -1;
    int rc = scenarios_parse(doc, out, why, sizeof why);
    json_decref(doc);
    if (rc)
        snprintf(err, errlen, "cannot read '%s': %s", path, why);
    return rc;
}

void scenarios_release(struct scenario_set *s)
{
    free(s->scenario);
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++)
        free(s->typical[dt]);
    memset(s, 0, sizeof *s);
}

bool scenarios_is_near(const struct scenario_set *s, const struct croq_shape *x)
{
    long d[3] = {x->m, x->n, x->k};
    for (int j = 0; j < 3; j++)
        if (d[j] < s->near_lo[j] || d[j] > s->near_hi[j])
            return false;
    return true;
}

bool scenarios_is_typical(const struct scenario_set *s, int dtype, const struct croq_shape *x)
{
    if (dtype < 0 || dtype > 1)
        return false;
    for (size_t i = 0; i < s->n_typical[dtype]; i++)
        if (s->typical[dtype][i].m == x->m && s->typical[dtype][i].n == x->n && s->typical[dtype][i].k == x->k)
            return true;
    return false;
}

int shapes_find_file(char *path, size_t len, char *err, size_t errlen)
{
    if (!datafile_find("shapes.json", "CROQ_SHAPES", path, len, err, errlen))
        return 0;
    /* a clean clone has no ../shared: say which copy the checkout itself holds */
    size_t n = strlen(err);
    snprintf(err + n, errlen - n, "; the project's copy is ../shared/data/shapes.json beside the checkout; "
                                  "for a dry run use CROQ_SHAPES=tests/fixtures/shapes.json (5 scenario shapes per dtype, 3 typical ones: 2 f16, 1 e4m3)");
    return -1;
}

int scenarios_budget(const struct scenario_set *s, bool from_current_best)
{
    return from_current_best ? s->budget_best : s->budget_scratch;
}
