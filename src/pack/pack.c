/* src/pack/pack.c — the pack file format (pack.h): parse and serialize. */
#include "pack.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* A cursor over the bytes being parsed. */
struct cur {
    const char *p, *end;
    int line;
};

/* The next line (without '\n') into buf; -1 at the end or when longer than buf. */
static int next_line(struct cur *c, char *buf, size_t len)
{
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    if (!nl || (size_t)(nl - c->p) >= len)
        return -1;
    memcpy(buf, c->p, (size_t)(nl - c->p));
    buf[nl - c->p] = '\0';
    c->p = nl + 1;
    c->line++;
    return 0;
}

/* "<name> <rest>" header line into out (rest may hold blanks). */
static int header(struct cur *c, const char *name, char *out, size_t outlen, char *err, size_t errlen)
{
    char line[512];
    size_t n = strlen(name);
    if (next_line(c, line, sizeof line) || strncmp(line, name, n) || line[n] != ' ' ||
        strlen(line + n + 1) >= outlen)
        return fail(err, errlen, "pack line %d: expected '%s <value>'", c->line + 1, name);
    memcpy(out, line + n + 1, strlen(line + n + 1) + 1);
    return 0;
}

static int parse_entry(struct cur *c, struct pack_entry *e, char *err, size_t errlen)
{
    char line[1024], dtype[16];
    int fb, used = 0;
    unsigned long long bytes;
    if (next_line(c, line, sizeof line))
        return fail(err, errlen, "pack line %d: expected an entry line", c->line + 1);
    if (sscanf(line, "entry %15s %ld %ld %ld %lf %d %16s %16s %95s %511s %llu%n", dtype, &e->m, &e->n, &e->k,
               &e->tflops, &fb, e->hash, e->tuned_hash, e->key, e->config, &bytes, &used) != 11 ||
        line[used] != '\0')
        return fail(err, errlen, "pack line %d: malformed entry '%.80s'", c->line, line);
    if ((e->dtype = croq_dtype_parse(dtype)) < 0 || (fb != 0 && fb != 1))
        return fail(err, errlen, "pack line %d: unknown dtype '%s' or fallback flag %d", c->line, dtype, fb);
    e->fallback = fb == 1;
    if (!isfinite(e->tflops) || e->tflops < 0 ||
        (!e->fallback && (e->m < 1 || e->n < 1 || e->k < 1 || e->m > (1L << 20) || e->n > (1L << 20) ||
                          e->k > (1L << 20))))
        return fail(err, errlen, "pack line %d: entry '%s' has a shape or TFLOPS out of range", c->line, e->key);
    /* bytes is bounded by what is left before adding anything to it (no wrap-around) */
    if (bytes == 0 || bytes >= (unsigned long long)(c->end - c->p) || c->p[bytes] != '\n')
        return fail(err, errlen, "pack line %d: entry '%s' says %llu cubin bytes, the file has fewer",
                    c->line, e->key, bytes);
    e->cubin = (const unsigned char *)c->p;
    e->cubin_bytes = (size_t)bytes;
    c->p += bytes + 1;
    return 0;
}

static int parse_body(struct cur *c, struct pack *p, char *err, size_t errlen)
{
    char line[256], cuda[32], count[32];
    char *end;
    if (next_line(c, line, sizeof line)) /* line is unset: no newline, or too long for any magic */
        return fail(err, errlen, "not a kernel pack (no first line '%s')", PACK_MAGIC);
    if (strcmp(line, PACK_MAGIC)) {
        if (!strcmp(line, "croqsparse-pack 1"))
            return fail(err, errlen, "a pack of format 1 (no hash of the measured sources): export it again");
        return fail(err, errlen, "not a kernel pack (first line is not '%s')", PACK_MAGIC);
    }
    if (header(c, "gpu", p->gpu, sizeof p->gpu, err, errlen) || header(c, "cuda", cuda, sizeof cuda, err, errlen) ||
        header(c, "driver", p->driver, sizeof p->driver, err, errlen) ||
        header(c, "entries", count, sizeof count, err, errlen))
        return -1;
    if (sscanf(cuda, "%d.%d", &p->cuda_major, &p->cuda_minor) != 2)
        return fail(err, errlen, "pack line 3: cuda '%s' is not <major>.<minor>", cuda);
    long n = strtol(count, &end, 10);
    if (*end || n < 0 || n > PACK_MAX_ENTRIES)
        return fail(err, errlen, "pack line 5: entries '%s' is not a count in [0, %d]", count, PACK_MAX_ENTRIES);
    p->e = calloc((size_t)n + 1, sizeof *p->e);
    if (!p->e)
        return fail(err, errlen, "out of memory for %ld pack entries", n);
    for (p->n = 0; p->n < (size_t)n; p->n++)
        if (parse_entry(c, &p->e[p->n], err, errlen))
            return -1;
    if (c->p != c->end)
        return fail(err, errlen, "pack: %zu bytes after the last entry", (size_t)(c->end - c->p));
    return 0;
}

int pack_parse(const void *data, size_t size, struct pack *p, char *err, size_t errlen)
{
    struct cur c = {data, (const char *)data + size, 0};
    memset(p, 0, sizeof *p);
    if (parse_body(&c, p, err, errlen) == 0)
        return 0;
    pack_release(p);
    return -1;
}

int pack_serialize(const struct pack *p, unsigned char **out, size_t *len, char *err, size_t errlen)
{
    size_t cap = 512;
    for (size_t i = 0; i < p->n; i++)
        cap += 512 + p->e[i].cubin_bytes;
    unsigned char *buf = malloc(cap);
    if (!buf)
        return fail(err, errlen, "out of memory for a %zu-B pack", cap);
    size_t at = (size_t)snprintf((char *)buf, cap, "%s\ngpu %s\ncuda %d.%d\ndriver %s\nentries %zu\n", PACK_MAGIC,
                                 p->gpu, p->cuda_major, p->cuda_minor, p->driver, p->n);
    for (size_t i = 0; i < p->n; i++) {
        const struct pack_entry *e = &p->e[i];
        if (strpbrk(e->key, " \n") || strpbrk(e->config, " \n") || !e->key[0] || !e->tuned_hash[0] ||
            strpbrk(e->tuned_hash, " \n")) {
            free(buf);
            return fail(err, errlen, "pack entry %zu: key, config and tuned hash must be non-empty without blanks", i);
        }
        at += (size_t)snprintf((char *)buf + at, cap - at, "entry %s %ld %ld %ld %.3f %d %s %s %s %s %zu\n",
                               croq_dtype_name(e->dtype), e->m, e->n, e->k, e->tflops, e->fallback ? 1 : 0,
                               e->hash, e->tuned_hash, e->key, e->config, e->cubin_bytes);
        memcpy(buf + at, e->cubin, e->cubin_bytes);
        at += e->cubin_bytes;
        buf[at++] = '\n';
    }
    *out = buf;
    *len = at;
    return 0;
}

void pack_release(struct pack *p)
{
    free(p->e);
    memset(p, 0, sizeof *p);
}
