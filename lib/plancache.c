/* lib/plancache.c — the plan cache file of croqsparse_plan_search (its one owner): which
 * kernel of a pack the search found fastest, per GPU, driver, pack, dtype, shape and
 * epilogue, so a later process takes the choice without timing again.
 *
 * Format (text, '\n'-terminated lines):
 *   croqsparse-plan-cache 1
 *   plan <key>\t<entry key>\t<config>\t<microseconds>     one per searched problem
 *   sum <16 hex digits>                                   FNV-1a 64 of every byte before it
 * <key> is cs_plancache_key's "<gpu>|driver <n>|pack <sum>|<dtype>|<M>x<N>x<K>|<epilogue>|
 * trust <here|elsewhere|none>" (the trust, src/pack/pack.h, sets which kernels the search
 * may pick: a line written when the pack's tuned kernels were not candidates on this GPU
 * is not taken once they are);
 * <entry key> and <config> name the pack entry (key "-" for a fallback, config its knob
 * signature); microseconds the search's median time of one product (> 0).
 * A file that does not parse whole (another magic, a malformed line, a repeated key, a
 * sum that does not match, bytes after the sum) is damaged: none of it is trusted, the
 * caller warns and searches again, and the next store replaces it, but only a file that
 * begins with the magic line: a path naming another file (the caller's own, a FIFO, a
 * device) is never written, and a symbolic link is written through. Writes are atomic
 * (util/atomicio: a temp file renamed over the old one), so a writer killed at any
 * point leaves the old file or the new one, never a torn one. Threads of one process
 * store one at a time. Two processes storing at once: each file is whole, the later
 * rename wins (the other's new line is lost, and found again by its next search).
 */
#define _GNU_SOURCE /* memrchr */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomicio.h"
#include "util/decimal.h"
#include "util/hash.h"
#include "util/regfile.h"

#define CACHE_MAGIC "croqsparse-plan-cache 1"

static void put_field(char *out, size_t len, const char *s)
{
    /* the key's separators and line breaks cannot come from a GPU name */
    snprintf(out, len, "%s", s);
    for (char *c = out; *c; c++)
        if (*c == '|' || *c == '\t' || *c == '\n' || *c == '\r')
            *c = '_';
}

void cs_plancache_key(char *out, size_t len, const char *gpu, int driver, const char *pack_sum,
                      enum pack_trust trust, croqsparse_dtype_t dtype, long m, long n, long k,
                      croqsparse_epilogue_t epi)
{
    char g[128];
    put_field(g, sizeof g, gpu);
    /* the library's version too: a choice another version's search made (1.5 added the
     * final) is searched again, not trusted */
    snprintf(out, len, "%s|driver %d|pack %s|%s|%ldx%ldx%ld|%s|trust %s|croqsparse %d", g, driver, pack_sum,
             dtype == CROQSPARSE_F16 ? "f16" : "e4m3", m, n, k,
             epi == CROQSPARSE_EPILOGUE_ALPHA_SCALES ? "alpha_scales" : "alpha", pack_trust_name(trust),
             CROQSPARSE_VERSION);
}

/* The parsed file: one record per "plan" line, its fields pointing into text. */
struct rec {
    char *key, *entry, *config, *us_text;
};
struct cache {
    char *text;
    struct rec *r;
    size_t n;
};

static void cache_release(struct cache *c)
{
    free(c->text);
    free(c->r);
    memset(c, 0, sizeof *c);
}

static int bad(char *note, size_t len, const char *path, int line, const char *what)
{
    char where[32] = "";
    if (line > 0)
        snprintf(where, sizeof where, " line %d", line);
    snprintf(note, len, "plan cache '%s'%s: %s: the file is damaged and ignored (none of it is trusted; the next "
             "search rewrites it)", path, where, what);
    return -1;
}

/* One "plan" line (NUL-terminated, split in place) into r. */
static bool split_line(char *line, struct rec *r)
{
    char *f[4];
    if (strncmp(line, "plan ", 5))
        return false;
    f[0] = line + 5;
    for (int i = 1; i < 4; i++) {
        char *t = strchr(f[i - 1], '\t');
        if (!t)
            return false;
        *t = '\0';
        f[i] = t + 1;
    }
    if (strchr(f[3], '\t') || !*f[0] || !*f[1] || !*f[2] || strchr(f[1], ' ') || strchr(f[2], ' '))
        return false;
    double us;
    if (dec_double(f[3], &us) || us <= 0) /* as the writer prints it: no '+', blank or hex */
        return false;
    *r = (struct rec){f[0], f[1], f[2], f[3]};
    return true;
}

static int rec_cmp(const void *a, const void *b)
{
    return strcmp((*(const struct rec *const *)a)->key, (*(const struct rec *const *)b)->key);
}

/* Read and check path whole. 1: no file; 0: parsed into c; -1: damaged (note says why). */
static int cache_read(const char *path, struct cache *c, char *note, size_t len)
{
    size_t size;
    memset(c, 0, sizeof *c);
    c->text = read_file(path, &size);
    if (!c->text) {
        if (errno == ENOENT)
            return 1;
        return bad(note, len, path, 0, strerror(errno));
    }
    /* not a plan cache at all (another file the caller's path names): never replaced */
    if (size && (size < sizeof CACHE_MAGIC || memcmp(c->text, CACHE_MAGIC "\n", sizeof CACHE_MAGIC))) {
        cache_release(c);
        snprintf(note, len, "'%s' is not a plan cache (its first line is not '" CACHE_MAGIC "'): it is not used, "
                 "and left as it is", path);
        return -1;
    }
    /* the last line first: the sum over every byte before it, so nothing is read from a
     * file a writer did not finish */
    char sum[17], *last = NULL;
    if (size && c->text[size - 1] == '\n') {
        last = size > 1 ? memrchr(c->text, '\n', size - 1) : NULL;
        last = last ? last + 1 : c->text;
    }
    if (!last || c->text + size - last != 21 || strncmp(last, "sum ", 4)) {
        cache_release(c);
        return bad(note, len, path, 0, "its last line is not 'sum <16 hex digits>' (a torn or truncated file)");
    }
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, c->text, (size_t)(last - c->text)), sum);
    if (memcmp(last + 4, sum, 16)) {
        cache_release(c);
        return bad(note, len, path, 0, "its sum does not match its bytes");
    }
    char *at = c->text, *nl;
    for (int line = 1; at < last; line++, at = nl + 1) {
        nl = memchr(at, '\n', (size_t)(last - at)); /* found: last follows a '\n' */
        *nl = '\0';
        if (line == 1) {
            if (strcmp(at, CACHE_MAGIC)) {
                cache_release(c);
                return bad(note, len, path, 1, "not '" CACHE_MAGIC "'");
            }
            continue;
        }
        struct rec *more = realloc(c->r, (c->n + 1) * sizeof *more);
        if (!more) {
            cache_release(c);
            return bad(note, len, path, line, "out of memory");
        }
        c->r = more;
        if (!split_line(at, &c->r[c->n++])) {
            cache_release(c);
            return bad(note, len, path, line, "not 'plan <key>\\t<entry>\\t<config>\\t<us>'");
        }
    }
    if (at == c->text) { /* no magic line: the sum line alone */
        cache_release(c);
        return bad(note, len, path, 1, "not '" CACHE_MAGIC "'");
    }
    /* one choice per key: a repeated key could only be damage */
    struct rec **by = malloc((c->n + 1) * sizeof *by);
    if (!by) {
        cache_release(c);
        return bad(note, len, path, 0, "out of memory");
    }
    for (size_t i = 0; i < c->n; i++)
        by[i] = &c->r[i];
    qsort(by, c->n, sizeof *by, rec_cmp);
    for (size_t i = 1; i < c->n; i++)
        if (!strcmp(by[i]->key, by[i - 1]->key)) {
            int l = (int)(by[i] > by[i - 1] ? by[i] - c->r : by[i - 1] - c->r) + 2;
            free(by);
            cache_release(c);
            return bad(note, len, path, l, "a key given twice");
        }
    free(by);
    return 0;
}

enum cs_cache_result cs_plancache_lookup(const char *path, const char *key, struct cs_cache_choice *out, char *note,
                                         size_t len)
{
    struct cache c;
    note[0] = '\0';
    int rc = cache_read(path, &c, note, len);
    if (rc)
        return rc > 0 ? CS_CACHE_MISS : CS_CACHE_DAMAGED;
    enum cs_cache_result r = CS_CACHE_MISS;
    for (size_t i = 0; i < c.n && r == CS_CACHE_MISS; i++)
        if (!strcmp(c.r[i].key, key)) {
            snprintf(out->key, sizeof out->key, "%s", c.r[i].entry);
            snprintf(out->config, sizeof out->config, "%s", c.r[i].config);
            out->us = strtod(c.r[i].us_text, NULL);
            r = CS_CACHE_HIT;
        }
    cache_release(&c);
    return r;
}

/* One store at a time in this process: atomic_write's temp file is named by the pid, so
 * two threads writing one cache file at once would share it. Other processes have their
 * own temp files, and the rename keeps each file whole. */
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;

static int store_locked(const char *path, const char *const *keys, const struct cs_cache_choice *ch, size_t n,
                        char *err, size_t len);

int cs_plancache_store(const char *path, const char *const *keys, const struct cs_cache_choice *ch, size_t n,
                       char *err, size_t len)
{
    pthread_mutex_lock(&store_lock);
    int rc = store_locked(path, keys, ch, n, err, len);
    pthread_mutex_unlock(&store_lock);
    return rc;
}

/* Whether path is empty or begins with the magic line: a plan cache (maybe damaged after
 * it), which a store may replace; any other file is not this module's to overwrite. */
static bool looks_like_cache(const char *path)
{
    char head[sizeof CACHE_MAGIC];
    int fd = regfile_open(path, O_RDONLY, 0, 0);
    if (fd < 0)
        return errno == ENOENT;
    ssize_t r = read(fd, head, sizeof head);
    close(fd);
    return r == 0 || (r == (ssize_t)sizeof head && !memcmp(head, CACHE_MAGIC "\n", sizeof head));
}

static int store_locked(const char *path, const char *const *keys, const struct cs_cache_choice *ch, size_t n,
                        char *err, size_t len)
{
    struct cache c;
    char note[512], real[PATH_MAX];
    struct stat st;
    /* A damaged cache is replaced, but only a file that is one: a caller's path naming
     * some other file (a FIFO, a device, a file without the magic line) is refused and left
     * as it is. A symbolic link is written through, so the link stays a link. */
    if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
        if (!realpath(path, real)) {
            snprintf(err, len, "plan cache '%s': a symbolic link that names no file (%s): not written", path,
                     strerror(errno));
            return -1;
        }
        path = real;
    }
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
        snprintf(err, len, "plan cache '%s' is not a regular file (a FIFO, device or directory is never written)",
                 path);
        return -1;
    }
    if (cache_read(path, &c, note, sizeof note) < 0) {
        if (!looks_like_cache(path)) {
            snprintf(err, len, "'%s' is not a plan cache (its first line is not '" CACHE_MAGIC "'): it is left "
                     "as it is", path);
            return -1;
        }
        memset(&c, 0, sizeof c); /* damaged: replaced by the new choices alone */
    }
    size_t cap = 64, at = 0;
    for (size_t i = 0; i < c.n; i++)
        cap += strlen(c.r[i].key) + strlen(c.r[i].entry) + strlen(c.r[i].config) + strlen(c.r[i].us_text) + 16;
    for (size_t i = 0; i < n; i++)
        cap += strlen(keys[i]) + strlen(ch[i].key) + strlen(ch[i].config) + 48;
    char *buf = malloc(cap);
    if (!buf) {
        cache_release(&c);
        snprintf(err, len, "out of memory writing the plan cache '%s'", path);
        return -1;
    }
    at += (size_t)snprintf(buf, cap, "%s\n", CACHE_MAGIC);
    for (size_t i = 0; i < c.n; i++) { /* the old records, but those of the keys stored now */
        bool replaced = false;
        for (size_t j = 0; j < n && !replaced; j++)
            replaced = !strcmp(c.r[i].key, keys[j]);
        if (!replaced)
            at += (size_t)snprintf(buf + at, cap - at, "plan %s\t%s\t%s\t%s\n", c.r[i].key, c.r[i].entry,
                                   c.r[i].config, c.r[i].us_text);
    }
    for (size_t i = 0; i < n; i++) {
        bool later = false; /* a key given twice now: its last choice */
        for (size_t j = i + 1; j < n && !later; j++)
            later = !strcmp(keys[i], keys[j]);
        if (!later)
            at += (size_t)snprintf(buf + at, cap - at, "plan %s\t%s\t%s\t%.9g\n", keys[i], ch[i].key, ch[i].config,
                                   ch[i].us);
    }
    char sum[17];
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, buf, at), sum);
    at += (size_t)snprintf(buf + at, cap - at, "sum %s\n", sum);
    int rc = atomic_write(path, buf, at);
    if (rc)
        snprintf(err, len, "cannot write the plan cache '%s': %s", path, strerror(errno));
    free(buf);
    cache_release(&c);
    return rc;
}
