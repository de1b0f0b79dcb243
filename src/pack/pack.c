/* src/pack/pack.c — the pack file format (pack.h): parse and serialize. */
#include "pack.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/decimal.h"
#include "util/hash.h"

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

const char *pack_measured_name(enum pack_measured m)
{
    return m == PACK_MEASURED_LADDER ? "ladder" : m == PACK_MEASURED_PAIR ? "pair" : "-";
}

const char *pack_l2_name(enum pack_l2 l) { return l == PACK_L2_WARM ? "warm" : l == PACK_L2_COLD ? "cold" : "-"; }

static void sum_hex(const void *data, size_t len, char out[17]) { hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, data, len), out); }

/* A cursor over the bytes being parsed. */
struct cur {
    const char *start, *p, *end;
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

static bool is_sum(const char *s)
{
    if (strlen(s) != 16)
        return false;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return false;
    return true;
}

/* Whether a tuned entry's key is "<dtype>_<m>x<n>x<k>" of its own fields, with an
 * optional "_<mode>" (lower-case letters and digits): then one key is one (dtype, shape,
 * mode), and a duplicate key is the only way to give one shape twice. */
static bool key_matches(const struct pack_entry *e)
{
    char want[PACK_KEY_MAX];
    int n = snprintf(want, sizeof want, "%s_%ldx%ldx%ld", croq_dtype_name(e->dtype), e->m, e->n, e->k);
    if (n < 0 || (size_t)n >= sizeof want || strncmp(e->key, want, (size_t)n))
        return false;
    const char *mode = e->key + n;
    if (!*mode)
        return true;
    if (*mode++ != '_' || !*mode)
        return false;
    for (; *mode; mode++)
        if (!((*mode >= 'a' && *mode <= 'z') || (*mode >= '0' && *mode <= '9')))
            return false;
    return true;
}

static int parse_provenance(const char *measured, const char *clock, const char *l2, struct pack_entry *e, int line,
                            char *err, size_t errlen)
{
    e->measured = !strcmp(measured, "ladder") ? PACK_MEASURED_LADDER
                : !strcmp(measured, "pair")   ? PACK_MEASURED_PAIR
                : !strcmp(measured, "-")      ? PACK_MEASURED_NONE
                                              : (enum pack_measured)-1;
    e->l2 = !strcmp(l2, "warm") ? PACK_L2_WARM : !strcmp(l2, "cold") ? PACK_L2_COLD
          : !strcmp(l2, "-")    ? PACK_L2_NONE : (enum pack_l2)-1;
    if ((int)e->measured < 0 || (int)e->l2 < 0 || e->fallback != (e->measured == PACK_MEASURED_NONE) ||
        e->fallback != (e->l2 == PACK_L2_NONE))
        return fail(err, errlen, "pack line %d: entry '%s': measured '%s' / l2 '%s' (a tuned entry is ladder|pair and "
                    "warm|cold, a fallback - and -)", line, e->key, measured, l2);
    e->clock_mhz = 0;
    if (strcmp(clock, "-")) {
        if (dec_double(clock, &e->clock_mhz) || !isfinite(e->clock_mhz) || e->clock_mhz <= 0 || e->clock_mhz > 1e5)
            return fail(err, errlen, "pack line %d: entry '%s': clock '%s' is not MHz or '-'", line, e->key, clock);
    }
    return 0;
}

static int parse_entry(struct cur *c, struct pack_entry *e, char *err, size_t errlen)
{
    char line[1024], dtype[16], measured[8], clock[16], l2[8], sum[17], got[17];
    int fb, used = 0;
    unsigned long long bytes;
    if (next_line(c, line, sizeof line))
        return fail(err, errlen, "pack line %d: expected an entry line", c->line + 1);
    e->line = c->line;
    if (sscanf(line, "entry %15s %ld %ld %ld %lf %d %16s %16s %95s %511s %7s %15s %7s %llu %16s%n", dtype, &e->m,
               &e->n, &e->k, &e->tflops, &fb, e->hash, e->tuned_hash, e->key, e->config, measured, clock, l2, &bytes,
               sum, &used) != 15 ||
        line[used] != '\0')
        return fail(err, errlen, "pack line %d: malformed entry '%.80s'", c->line, line);
    if ((e->dtype = croq_dtype_parse(dtype)) < 0 || (fb != 0 && fb != 1))
        return fail(err, errlen, "pack line %d: unknown dtype '%s' or fallback flag %d", c->line, dtype, fb);
    e->fallback = fb == 1;
    if (!isfinite(e->tflops) || e->tflops < 0 || e->tflops > PACK_TFLOPS_MAX ||
        (!e->fallback && (e->m < 1 || e->n < 1 || e->k < 1 || e->m > (1L << 20) || e->n > (1L << 20) ||
                          e->k > (1L << 20))))
        return fail(err, errlen, "pack line %d: entry '%s' has a shape or TFLOPS out of range", c->line, e->key);
    if (e->fallback ? strcmp(e->key, "-") : !key_matches(e))
        return fail(err, errlen, "pack line %d: entry key '%s' is not its %s %ldx%ldx%ld (a fallback's key is '-')",
                    c->line, e->key, dtype, e->m, e->n, e->k);
    /* a configuration the library cannot launch for this entry would only be dropped later,
     * silently (pack_rank's validity check), leaving a dtype without the kernel it names */
    struct croq_config cfg;
    char why[256];
    if (knobs_parse_signature(&cfg, e->config, why, sizeof why))
        return fail(err, errlen, "pack line %d: entry '%s': config: %s", c->line, e->key, why);
    if (cfg.dtype != e->dtype)
        return fail(err, errlen, "pack line %d: entry '%s' is %s but its config is %s", c->line, e->key, dtype,
                    croq_dtype_name(cfg.dtype));
    if (!is_sum(e->hash) || (strcmp(e->tuned_hash, "-") && !is_sum(e->tuned_hash)))
        return fail(err, errlen, "pack line %d: entry '%s': source hashes '%s' / '%s' are not 16 hex digits", c->line,
                    e->key, e->hash, e->tuned_hash);
    if (parse_provenance(measured, clock, l2, e, c->line, err, errlen))
        return -1;
    if (!is_sum(sum))
        return fail(err, errlen, "pack line %d: entry '%s': cubin sum '%s' is not 16 hex digits", c->line, e->key, sum);
    /* bytes is bounded by what is left before adding anything to it (no wrap-around) */
    if (bytes == 0 || bytes >= (unsigned long long)(c->end - c->p) || c->p[bytes] != '\n')
        return fail(err, errlen, "pack line %d: entry '%s' says %llu cubin bytes, the file has fewer",
                    c->line, e->key, bytes);
    e->cubin = (const unsigned char *)c->p;
    e->cubin_bytes = (size_t)bytes;
    sum_hex(e->cubin, e->cubin_bytes, got);
    if (strcmp(got, sum))
        return fail(err, errlen, "pack line %d: entry '%s': its cubin bytes sum to %s, the line says %s (the cubin is "
                    "damaged)", c->line, e->key, got, sum);
    c->p += bytes + 1;
    return 0;
}

/* One kernel per tuned shape (dtype, M, N, K), so per key too (a key names its shape),
 * and one fallback per dtype: a second copy could only be damaged or forged, and which
 * is the measured kernel is not the reader's to guess. */
static int check_unique(const struct pack *p, char *err, size_t errlen)
{
    for (size_t i = 1; i < p->n; i++)
        for (size_t j = 0; j < i; j++) {
            const struct pack_entry *a = &p->e[j], *b = &p->e[i];
            /* entry i stands on text line 6 + i (cubins are not lines): what parse records */
            int la = a->line ? a->line : 6 + (int)j, lb = b->line ? b->line : 6 + (int)i;
            if (a->fallback && b->fallback && a->dtype == b->dtype)
                return fail(err, errlen, "pack line %d: a second %s fallback entry (the first is line %d): one per dtype",
                            lb, croq_dtype_name(b->dtype), la);
            if (!a->fallback && !b->fallback && a->dtype == b->dtype && a->m == b->m && a->n == b->n && a->k == b->k)
                return fail(err, errlen, "pack line %d: entry '%s' (%.3f TFLOPS) is a second kernel for %s %ldx%ldx%ld "
                            "(line %d: '%s', %.3f TFLOPS): a pack holds one kernel per shape", lb, b->key, b->tflops,
                            croq_dtype_name(b->dtype), b->m, b->n, b->k, la, a->key, a->tflops);
        }
    return 0;
}

/* The optional model section, then the sum line (last in the file). */
static int parse_tail(struct cur *c, struct pack *p, char *err, size_t errlen)
{
    char line[128], sum[17], got[17];
    unsigned long long bytes;
    int used = 0;
    const char *at = c->p;
    if (next_line(c, line, sizeof line))
        return fail(err, errlen, "pack line %d: expected 'model' or 'sum' after the entries", c->line + 1);
    if (!strncmp(line, "model ", 6)) {
        if (sscanf(line, "model %llu %16s%n", &bytes, sum, &used) != 2 || line[used] || !is_sum(sum))
            return fail(err, errlen, "pack line %d: malformed '%.80s' (want 'model <bytes> <sum>')", c->line, line);
        if (bytes == 0 || bytes > PACK_MODEL_MAX || bytes >= (unsigned long long)(c->end - c->p) || c->p[bytes] != '\n')
            return fail(err, errlen, "pack line %d: the model says %llu bytes, the file has fewer (or more than %u)",
                        c->line, bytes, PACK_MODEL_MAX);
        p->model = (const unsigned char *)c->p;
        p->model_bytes = (size_t)bytes;
        sum_hex(p->model, p->model_bytes, got);
        if (strcmp(got, sum))
            return fail(err, errlen, "pack line %d: the model's bytes sum to %s, the line says %s (the model is damaged)",
                        c->line, got, sum);
        c->p += bytes + 1;
        at = c->p;
        if (next_line(c, line, sizeof line))
            return fail(err, errlen, "pack line %d: expected 'sum <hex>' after the model", c->line + 1);
    }
    if (sscanf(line, "sum %16s%n", sum, &used) != 1 || line[used] || !is_sum(sum))
        return fail(err, errlen, "pack line %d: expected 'sum <16 hex digits>', found '%.80s'", c->line, line);
    sum_hex(c->start, (size_t)(at - c->start), got);
    if (strcmp(got, sum))
        return fail(err, errlen, "pack line %d: the file sums to %s, its sum line says %s (a damaged byte)", c->line,
                    got, sum);
    if (c->p != c->end)
        return fail(err, errlen, "pack: %zu bytes after the sum line", (size_t)(c->end - c->p));
    memcpy(p->sum, sum, sizeof p->sum);
    return 0;
}

static int parse_body(struct cur *c, struct pack *p, char *err, size_t errlen)
{
    char line[256], cuda[32], count[32];
    int v = 0, used = 0;
    if (next_line(c, line, sizeof line)) /* line is unset: no newline, or too long for any magic */
        return fail(err, errlen, "not a kernel pack (no first line '%s')", PACK_MAGIC);
    if (strcmp(line, PACK_MAGIC)) {
        if (sscanf(line, "croqsparse-pack %d%n", &v, &used) == 1 && !line[used] && v >= 1 && v < PACK_FORMAT)
            return fail(err, errlen, "a pack of format %d; this library reads format %d (%s): export it again", v,
                        PACK_FORMAT, v == 1 ? "format 1 had no hash of the measured sources, no checksums"
                                            : "format 2 had no checksums, no measurement provenance, no model");
        if (sscanf(line, "croqsparse-pack %d%n", &v, &used) == 1 && !line[used] && v > PACK_FORMAT)
            return fail(err, errlen, "a pack of format %d, newer than this library reads (format %d): use the "
                        "croqsparse of the croqtuner that exported it", v, PACK_FORMAT);
        return fail(err, errlen, "not a kernel pack of format %d (first line is not '%s')", PACK_FORMAT, PACK_MAGIC);
    }
    if (header(c, "gpu", p->gpu, sizeof p->gpu, err, errlen) || header(c, "cuda", cuda, sizeof cuda, err, errlen) ||
        header(c, "driver", p->driver, sizeof p->driver, err, errlen) ||
        header(c, "entries", count, sizeof count, err, errlen))
        return -1;
    if (sscanf(cuda, "%d.%d", &p->cuda_major, &p->cuda_minor) != 2)
        return fail(err, errlen, "pack line 3: cuda '%s' is not <major>.<minor>", cuda);
    long n;
    if (dec_long(count, &n) || n < 0 || n > PACK_MAX_ENTRIES)
        return fail(err, errlen, "pack line 5: entries '%s' is not a count in [0, %d]", count, PACK_MAX_ENTRIES);
    p->e = calloc((size_t)n + 1, sizeof *p->e);
    if (!p->e)
        return fail(err, errlen, "out of memory for %ld pack entries", n);
    for (p->n = 0; p->n < (size_t)n; p->n++)
        if (parse_entry(c, &p->e[p->n], err, errlen))
            return -1;
    return parse_tail(c, p, err, errlen) || check_unique(p, err, errlen) ? -1 : 0;
}

int pack_parse(const void *data, size_t size, struct pack *p, char *err, size_t errlen)
{
    struct cur c = {data, data, (const char *)data + size, 0};
    memset(p, 0, sizeof *p);
    if (parse_body(&c, p, err, errlen) == 0)
        return 0;
    pack_release(p);
    return -1;
}

/* The checks pack_parse makes of an entry's own fields, for the writer. */
static int check_entry(const struct pack_entry *e, size_t i, char *err, size_t errlen)
{
    if (strpbrk(e->key, " \n") || strpbrk(e->config, " \n") || !e->key[0] || !e->tuned_hash[0] ||
        strpbrk(e->tuned_hash, " \n"))
        return fail(err, errlen, "pack entry %zu: key, config and tuned hash must be non-empty without blanks", i);
    if (e->fallback ? strcmp(e->key, "-") : !key_matches(e))
        return fail(err, errlen, "pack entry %zu: key '%s' is not its %s %ldx%ldx%ld (a fallback's key is '-')", i,
                    e->key, croq_dtype_name(e->dtype), e->m, e->n, e->k);
    if (!(e->tflops >= 0 && e->tflops <= PACK_TFLOPS_MAX))
        return fail(err, errlen, "pack entry %zu ('%s'): TFLOPS %g out of [0, %g]", i, e->key, e->tflops,
                    PACK_TFLOPS_MAX);
    if (e->fallback != (e->measured == PACK_MEASURED_NONE) || e->fallback != (e->l2 == PACK_L2_NONE) ||
        !(e->clock_mhz >= 0 && e->clock_mhz <= 1e5) || !e->cubin_bytes)
        return fail(err, errlen, "pack entry %zu ('%s'): a tuned entry needs its measurement (ladder|pair) and L2 "
                    "mode, a fallback has neither; a clock in [0, 1e5] MHz; a cubin", i, e->key);
    return 0;
}

int pack_serialize(const struct pack *p, unsigned char **out, size_t *len, char *err, size_t errlen)
{
    size_t cap = 640 + p->model_bytes;
    char sum[17], clock[32];
    for (size_t i = 0; i < p->n; i++) {
        if (check_entry(&p->e[i], i, err, errlen))
            return -1;
        cap += 768 + p->e[i].cubin_bytes;
    }
    if (check_unique(p, err, errlen))
        return -1;
    if (p->model_bytes > PACK_MODEL_MAX)
        return fail(err, errlen, "the model is %zu B, more than the format's %u", p->model_bytes, PACK_MODEL_MAX);
    unsigned char *buf = malloc(cap);
    if (!buf)
        return fail(err, errlen, "out of memory for a %zu-B pack", cap);
    size_t at = (size_t)snprintf((char *)buf, cap, "%s\ngpu %s\ncuda %d.%d\ndriver %s\nentries %zu\n", PACK_MAGIC,
                                 p->gpu, p->cuda_major, p->cuda_minor, p->driver, p->n);
    for (size_t i = 0; i < p->n; i++) {
        const struct pack_entry *e = &p->e[i];
        char line[1024];
        if (e->clock_mhz > 0)
            snprintf(clock, sizeof clock, "%.1f", e->clock_mhz);
        else
            snprintf(clock, sizeof clock, "-");
        sum_hex(e->cubin, e->cubin_bytes, sum);
        int w = snprintf(line, sizeof line, "entry %s %ld %ld %ld %.3f %d %s %s %s %s %s %s %s %zu %s\n",
                         croq_dtype_name(e->dtype), e->m, e->n, e->k, e->tflops, e->fallback ? 1 : 0, e->hash,
                         e->tuned_hash, e->key, e->config, pack_measured_name(e->measured), clock,
                         pack_l2_name(e->l2), e->cubin_bytes, sum);
        if (w < 0 || (size_t)w >= sizeof line || (size_t)w + e->cubin_bytes + 1 > cap - at) { /* cannot be: bounded fields */
            free(buf);
            return fail(err, errlen, "pack entry %zu ('%s'): its line does not fit", i, e->key);
        }
        memcpy(buf + at, line, (size_t)w);
        at += (size_t)w;
        memcpy(buf + at, e->cubin, e->cubin_bytes);
        at += e->cubin_bytes;
        buf[at++] = '\n';
    }
    if (p->model_bytes) {
        sum_hex(p->model, p->model_bytes, sum);
        at += (size_t)snprintf((char *)buf + at, cap - at, "model %zu %s\n", p->model_bytes, sum);
        memcpy(buf + at, p->model, p->model_bytes);
        at += p->model_bytes;
        buf[at++] = '\n';
    }
    sum_hex(buf, at, sum);
    at += (size_t)snprintf((char *)buf + at, cap - at, "sum %s\n", sum);
    *out = buf;
    *len = at;
    return 0;
}

void pack_release(struct pack *p)
{
    free(p->e);
    memset(p, 0, sizeof *p);
}
