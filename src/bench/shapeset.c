/* src/bench/shapeset.c — shape set names and lists for bench. */
#include "shapeset.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes/shapes.h"

static const struct croq_shape reference_shape = {4096, 8192, 8192};
static const struct croq_shape odd_shapes[] = {{1000, 1000, 1024}, {3000, 2056, 4096}, {777, 1032, 512}};

int shapeset_push(struct shape_list *out, const struct croq_shape *s)
{
    for (int i = 0; i < out->n; i++)
        if (out->s[i].m == s->m && out->s[i].n == s->n && out->s[i].k == s->k)
            return 0;
    if (out->n == SHAPESET_MAX)
        return -1;
    out->s[out->n++] = *s;
    return 0;
}

/* The dtype's typical_shapes_for_scratch, read by the one reader of shapes.json. */
static int typical(struct shape_list *out, int dtype, char *err, size_t errlen)
{
    char path[PATH_MAX], why[600];
    struct scenario_set set;
    if (shapes_find_file(path, sizeof path, err, errlen))
        return -1;
    if (scenarios_load(path, &set, why, sizeof why)) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < set.n_typical[dtype] && !rc; i++)
        if (shapeset_push(out, &set.typical[dtype][i])) {
            snprintf(err, errlen, "'%s': the typical shapes of %s do not fit a list of %d", path,
                     croq_dtype_name(dtype), SHAPESET_MAX);
            rc = -1;
        }
    scenarios_release(&set);
    return rc;
}

/* One item of a --shapes list: a named set or MxNxK. */
static int add_item(struct shape_list *out, const char *tok, int dtype, char *err, size_t errlen)
{
    struct croq_shape s;
    if (!strcmp(tok, "typical"))
        return typical(out, dtype, err, errlen);
    if (!strcmp(tok, "reference"))
        return shapeset_push(out, &reference_shape);
    if (!strcmp(tok, "odd")) {
        for (size_t i = 0; i < sizeof odd_shapes / sizeof odd_shapes[0]; i++)
            shapeset_push(out, &odd_shapes[i]);
        return 0;
    }
    if (shape_parse(tok, &s)) {
        snprintf(err, errlen, "bad shape '%s' (expected MxNxK with positive integers or a set: typical, "
                 "reference, odd; several separated by commas)", tok);
        return -1;
    }
    if (shapeset_push(out, &s)) {
        snprintf(err, errlen, "too many shapes (at most %d)", SHAPESET_MAX);
        return -1;
    }
    return 0;
}

int shapeset_add(struct shape_list *out, const char *spec, int dtype, char *err, size_t errlen)
{
    char buf[4096];
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "shape list too long");
        return -1;
    }
    strcpy(buf, spec);
    int items = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), items++)
        if (add_item(out, tok, dtype, err, errlen))
            return -1;
    if (!items) {
        snprintf(err, errlen, "no shape in '%s'", spec);
        return -1;
    }
    return 0;
}
