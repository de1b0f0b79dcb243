/* src/search/grid.c — grids (grid.h): parse a grid file's blocks, walk each block's
 * product in a seeded order, keep the valid configurations once; and the strategies'
 * knob space point by point. */
#include "grid.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/rng.h"
#include "util/atomicio.h"
#include "util/hash.h"
#include "util/log.h"

struct block {
    bool star; /* the anchor and one-knob moves from it, not the product */
    int n[KNOB_COUNT];
    int v[KNOB_COUNT][CROQ_KNOB_MAX_VALUES];
    int named[KNOB_COUNT];
};

static void block_default(struct block *b, int dtype)
{
    struct croq_config d;
    knobs_default(&d, dtype);
    memset(b, 0, sizeof *b);
    for (int k = 0; k < KNOB_COUNT; k++)
        b->n[k] = 1, b->v[k][0] = d.v[k];
}

static void block_all(struct block *b)
{
    memset(b, 0, sizeof *b);
    for (int k = 0; k < KNOB_COUNT; k++) {
        b->n[k] = croq_knobs[k].n_values;
        memcpy(b->v[k], croq_knobs[k].values, sizeof b->v[k]);
    }
}

static long block_points(const struct block *b)
{
    if (b->star) {
        long p = 1;
        for (int k = 0; k < KNOB_COUNT; k++)
            p += b->n[k] - 1;
        return p;
    }
    long p = 1;
    for (int k = 0; k < KNOB_COUNT && p <= GRID_MAX_POINTS; k++)
        p *= b->n[k];
    return p;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

/* "knob=v1,v2" or "knob=*" into b. 0 or -1 with err. */
static int parse_line(struct block *b, char *line, const char *where, char *err, size_t errlen)
{
    char *eq = strchr(line, '=');
    if (!eq) {
        snprintf(err, errlen, "%s: expected knob=v1,v2,... or [block], got '%.80s'", where, line);
        return -1;
    }
    *eq = '\0';
    char *name = trim(line), *vals = trim(eq + 1);
    int k = knobs_find(name);
    if (k < 0) {
        snprintf(err, errlen, "%s: unknown knob '%.40s' (see 'croqtuner knobs')", where, name);
        return -1;
    }
    if (b->named[k]) {
        snprintf(err, errlen, "%s: knob '%s' named twice in one block", where, name);
        return -1;
    }
    b->named[k] = 1;
    if (!strcmp(vals, "*")) {
        b->n[k] = croq_knobs[k].n_values;
        memcpy(b->v[k], croq_knobs[k].values, sizeof b->v[k]);
        return 0;
    }
    b->n[k] = 0;
    for (char *save = NULL, *t = strtok_r(vals, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end, *tok = trim(t);
        errno = 0;
        long v = strtol(tok, &end, 10);
        if (!*tok || *end || errno || !knobs_value_allowed(k, (int)v)) {
            snprintf(err, errlen, "%s: %s=%.20s is not one of the knob's values", where, name, tok);
            return -1;
        }
        for (int i = 0; i < b->n[k]; i++)
            if (b->v[k][i] == (int)v) {
                snprintf(err, errlen, "%s: %s=%ld listed twice", where, name, v);
                return -1;
            }
        b->v[k][b->n[k]++] = (int)v;
    }
    if (!b->n[k]) {
        snprintf(err, errlen, "%s: knob '%s' has no values", where, name);
        return -1;
    }
    return 0;
}

/* ---- the union, each configuration once ---- */

struct set {
    int *slot; /* index into g->cfg + 1; 0 empty */
    size_t cap;
};

static uint64_t cfg_hash(const struct croq_config *c)
{
    return hash_fnv1a64(HASH_FNV1A64_INIT, c, sizeof *c);
}

static void set_grow(struct set *s, const struct grid *g);

/* true if c was added (not already there) */
static bool set_add(struct set *s, struct grid *g, const struct croq_config *c, int block)
{
    if ((size_t)(g->n + 1) * 2 > s->cap)
        set_grow(s, g);
    size_t i = cfg_hash(c) & (s->cap - 1);
    for (; s->slot[i]; i = (i + 1) & (s->cap - 1))
        if (!memcmp(&g->cfg[s->slot[i] - 1], c, sizeof *c))
            return false;
    g->cfg = xrealloc(g->cfg, (size_t)(g->n + 1) * sizeof *g->cfg);
    g->block = xrealloc(g->block, (size_t)(g->n + 1) * sizeof *g->block);
    g->cfg[g->n] = *c;
    g->block[g->n] = block;
    s->slot[i] = ++g->n;
    return true;
}

static void set_grow(struct set *s, const struct grid *g)
{
    size_t cap = s->cap ? s->cap * 2 : 1024;
    int *slot = calloc(cap, sizeof *slot);
    if (!slot)
        die("out of memory");
    for (int j = 0; j < g->n; j++) {
        size_t i = cfg_hash(&g->cfg[j]) & (cap - 1);
        while (slot[i])
            i = (i + 1) & (cap - 1);
        slot[i] = j + 1;
    }
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
}

/* Point x of b: the product's mixed-radix index, or for a star 0 = the anchor (every
 * knob's first value) and then each other value of each knob in turn. */
static void block_point(const struct block *b, long x, struct croq_config *c)
{
    for (int k = 0; k < KNOB_COUNT; k++)
        c->v[k] = b->v[k][0];
    if (b->star) {
        for (int k = 0; k < KNOB_COUNT && x > 0; k++) {
            if (x < b->n[k]) {
                c->v[k] = b->v[k][x];
                return;
            }
            x -= b->n[k] - 1;
        }
        return;
    }
    for (int k = 0; k < KNOB_COUNT; k++) {
        c->v[k] = b->v[k][x % b->n[k]];
        x /= b->n[k];
    }
}

/* Walk b's product in a shuffled order (Fisher-Yates over the point indices, seeded by
 * seed and the block's index) into g. */
static void add_block(struct grid *g, struct set *s, const struct block *b, int bi, int dtype,
                      const struct croq_shape *shape, unsigned long long seed)
{
    long np = block_points(b);
    long *order = xmalloc((size_t)np * sizeof *order);
    uint64_t st = seed * 0x100000001B3ull + (uint64_t)bi;
    for (long i = 0; i < np; i++)
        order[i] = i;
    for (long i = np - 1; i > 0; i--) {
        long j = (long)(rng_splitmix64(&st) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    char why[CROQ_WHY_MAX];
    for (long i = 0; i < np; i++) {
        struct croq_config c = {.dtype = dtype};
        block_point(b, order[i], &c);
        if (!knobs_validate(&c, shape, why, sizeof why))
            g->n_invalid++;
        else if (!set_add(s, g, &c, bi))
            g->n_duplicate++;
    }
    free(order);
}

static int check_size(long *total, const struct block *b, const char *name, int bi, char *err, size_t errlen)
{
    *total += block_points(b);
    if (*total > GRID_MAX_POINTS) {
        snprintf(err, errlen, "%s: more than %ld points by block %d: narrow the grid", name, GRID_MAX_POINTS, bi + 1);
        return -1;
    }
    return 0;
}

int grid_parse(struct grid *g, const char *text, const char *name, int dtype, const struct croq_shape *shape,
               unsigned long long seed, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    struct block *blocks = NULL;
    int nb = 0, lineno = 0, rc = -1;
    bool open = false; /* the current block has a header or a line */
    char *copy = xstrdup(text ? text : ""), where[300];
    long total = 0;
    struct set set = {0};
    for (char *p = copy, *nl; p; p = nl) {
        nl = strchr(p, '\n');
        if (nl)
            *nl++ = '\0';
        lineno++;
        char *hash = strchr(p, '#');
        if (hash)
            *hash = '\0';
        char *line = trim(p);
        if (!*line)
            continue;
        snprintf(where, sizeof where, "%.200s:%d", name, lineno);
        size_t len = strlen(line);
        if (*line == '[') {
            if (line[len - 1] != ']') {
                snprintf(err, errlen, "%s: a block header is [name] or [name star]", where);
                goto out;
            }
            open = false;
        }
        if (!open) {
            blocks = xrealloc(blocks, (size_t)(nb + 1) * sizeof *blocks);
            block_default(&blocks[nb++], dtype);
            blocks[nb - 1].star = *line == '[' && len >= 7 && !strcmp(line + len - 6, " star]");
            open = true;
        }
        if (*line != '[' && parse_line(&blocks[nb - 1], line, where, err, errlen))
            goto out;
    }
    if (!text) { /* no file: the whole table */
        blocks = xrealloc(blocks, sizeof *blocks);
        block_all(&blocks[0]);
        nb = 1;
    }
    if (!nb) {
        snprintf(err, errlen, "%s: no block: the grid is empty", name);
        goto out;
    }
    for (int i = 0; i < nb; i++)
        if (check_size(&total, &blocks[i], name, i, err, errlen))
            goto out;
    for (int i = 0; i < nb; i++)
        add_block(g, &set, &blocks[i], i, dtype, shape, seed);
    g->n_blocks = nb;
    rc = 0;
out:
    free(set.slot);
    free(blocks);
    free(copy);
    return rc;
}

int grid_load(struct grid *g, const char *path, int dtype, const struct croq_shape *shape, unsigned long long seed,
              char *err, size_t errlen)
{
    if (!path) {
        /* the whole table is always too big: say what to give instead */
        int rc = grid_parse(g, NULL, "the knob table", dtype, shape, seed, err, errlen);
        if (rc) {
            size_t n = strlen(err);
            snprintf(err + n, errlen - n, " (give --grid FILE: bench/explore/grids/*.txt, docs/explore.md)");
        }
        return rc;
    }
    char *text = read_file(path, NULL);
    if (!text) {
        memset(g, 0, sizeof *g);
        snprintf(err, errlen, "cannot read grid file '%.200s': %s", path, strerror(errno));
        return -1;
    }
    int rc = grid_parse(g, text, path, dtype, shape, seed, err, errlen);
    free(text);
    return rc;
}

void grid_release(struct grid *g)
{
    free(g->cfg);
    free(g->block);
    memset(g, 0, sizeof *g);
}

long grid_space_points(const struct knob_space *space)
{
    const struct croq_knob *kn = knob_space_table(space);
    long p = 1;
    for (int k = 0; k < KNOB_FIRST_LATE; k++)
        p *= kn[k].n_values;
    return p;
}

void grid_space_point(const struct knob_space *space, long x, const struct croq_config *base, struct croq_config *out)
{
    const struct croq_knob *kn = knob_space_table(space);
    *out = *base;
    for (int k = 0; k < KNOB_FIRST_LATE; k++) {
        out->v[k] = kn[k].values[x % kn[k].n_values];
        x /= kn[k].n_values;
    }
}

long grid_space_index(const struct knob_space *space, const struct croq_config *cfg)
{
    const struct croq_knob *kn = knob_space_table(space);
    long x = 0, stride = 1;
    for (int k = 0; k < KNOB_FIRST_LATE; k++) {
        int i = 0;
        while (i < kn[k].n_values && kn[k].values[i] != cfg->v[k])
            i++;
        if (i == kn[k].n_values)
            return -1;
        x += i * stride;
        stride *= kn[k].n_values;
    }
    return x;
}
