/* src/measure/shapeset.c — shape set names, lists, and shapes.json. */
#include "shapeset.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The source tree: this file is <root>/src/measure/shapeset.c (CMake compiles it by
 * absolute path, so __FILE__ names it). "" when __FILE__ is relative. */
static void source_root(char *out, size_t len)
{
    const char *tail = "/src/measure/shapeset.c";
    size_t n = strlen(__FILE__), t = strlen(tail);
    out[0] = '\0';
    if (__FILE__[0] == '/' && n > t && !strcmp(__FILE__ + n - t, tail) && n - t < len)
        snprintf(out, len, "%.*s", (int)(n - t), __FILE__);
}

int shapeset_find_file(char *path, size_t len, char *err, size_t errlen)
{
    char cand[4][PATH_MAX], root[PATH_MAX];
    const char *env = getenv("CROQ_SHAPES"), *src = getenv("CROQ_SOURCE_DIR");
    int n = 0;
    /* An explicit CROQ_SHAPES is the only place looked at: never a silent fallback. */
    if (env && *env) {
        if (access(env, R_OK) == 0) {
            snprintf(path, len, "%s", env);
            return 0;
        }
        snprintf(err, errlen, "CROQ_SHAPES='%s' is not a readable file", env);
        return -1;
    }
    if (src && *src)
        snprintf(cand[n++], PATH_MAX, "%.4000s/../shared/data/shapes.json", src);
    source_root(root, sizeof root);
    if (root[0])
        snprintf(cand[n++], PATH_MAX, "%.4000s/../shared/data/shapes.json", root);
    snprintf(cand[n++], PATH_MAX, "shared/data/shapes.json");
    snprintf(cand[n++], PATH_MAX, "../shared/data/shapes.json");
    for (int i = 0; i < n; i++)
        if (access(cand[i], R_OK) == 0) {
            snprintf(path, len, "%s", cand[i]);
            return 0;
        }
    size_t w = (size_t)snprintf(err, errlen, "cannot find shapes.json (set CROQ_SHAPES); tried");
    for (int i = 0; i < n && w < errlen; i++)
        w += (size_t)snprintf(err + w, errlen - w, " '%s'", cand[i]);
    return -1;
}

static int typical(struct shape_list *out, int dtype, char *err, size_t errlen)
{
    char path[PATH_MAX];
    json_error_t je;
    if (shapeset_find_file(path, sizeof path, err, errlen))
        return -1;
    json_t *root = json_load_file(path, 0, &je);
    json_t *list = json_object_get(json_object_get(root, "typical_shapes_for_scratch"), croq_dtype_name(dtype));
    size_t i;
    json_t *v;
    if (!json_is_array(list)) {
        snprintf(err, errlen, "'%s': no typical_shapes_for_scratch.%s list%s%s", path, croq_dtype_name(dtype),
                 root ? "" : ": ", root ? "" : je.text);
        json_decref(root);
        return -1;
    }
    json_array_foreach(list, i, v) {
        struct croq_shape s = {json_integer_value(json_array_get(v, 0)), json_integer_value(json_array_get(v, 1)),
                               json_integer_value(json_array_get(v, 2))};
        if (json_array_size(v) != 3 || s.m <= 0 || s.n <= 0 || s.k <= 0 || shapeset_push(out, &s)) {
            snprintf(err, errlen, "'%s': typical shape %zu of %s is not [M, N, K] (or the list is full)", path, i,
                     croq_dtype_name(dtype));
            json_decref(root);
            return -1;
        }
    }
    json_decref(root);
    return 0;
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
