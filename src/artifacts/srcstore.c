/* src/artifacts/srcstore.c — whole sources and recipes (see srcstore.h). */
#include "srcstore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "util/atomicio.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/regfile.h"

#define SS_PATH_MAX 4096

static int full_path(const char *dir, const char *rel, char out[SS_PATH_MAX])
{
    return (size_t)snprintf(out, SS_PATH_MAX, "%s/%s", dir, rel) >= SS_PATH_MAX ? -1 : 0;
}

int srcstore_recipe_rel(const char *rel, char out[SRCSTORE_REL_MAX])
{
    size_t n = strlen(rel);
    if (n < 4 || strcmp(rel + n - 3, ".cu") || n - 3 + sizeof ".gen.json" > SRCSTORE_REL_MAX)
        return -1;
    snprintf(out, SRCSTORE_REL_MAX, "%.*s.gen.json", (int)(n - 3), rel);
    return 0;
}

/* 0 a regular file; 1 absent; -1 something else is there (errno set). */
static int regular_file(const char *path)
{
    struct stat st;
    if (stat(path, &st))
        return errno == ENOENT ? 1 : -1;
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

static bool hex16(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return false;
    return n == 16;
}

static int copy_field(char *dst, size_t cap, const char *src)
{
    if (!src || strlen(src) >= cap)
        return -1;
    memcpy(dst, src, strlen(src) + 1);
    return 0;
}

int srcstore_recipe_read(const char *dir, const char *rel, struct srcstore_recipe *r, char *err, size_t errlen)
{
    char rrel[SRCSTORE_REL_MAX], path[SS_PATH_MAX];
    memset(r, 0, sizeof *r);
    if (srcstore_recipe_rel(rel, rrel) || full_path(dir, rrel, path)) {
        snprintf(err, errlen, "'%.200s' is not a source path (*.cu)", rel);
        return -1;
    }
    /* opened once, O_NONBLOCK and fstat'ed (regfile.h): a FIFO put there after a check
     * could not block the read */
    char why[600];
    json_t *o = regfile_load_json(path, JSON_REJECT_DUPLICATES, why, sizeof why);
    if (!o && errno == ENOENT)
        return 1;
    json_t *note = json_object_get(o, "note"), *bytes = json_object_get(o, "bytes"),
           *ver = json_object_get(o, "codegen_version");
    const char *fault = json_string_value(json_object_get(o, "inject_fault"));
    int f = fault && !strcmp(fault, "none") ? CODEGEN_FAULT_NONE : codegen_fault_parse(fault);
    if (!o || json_integer_value(json_object_get(o, "schema")) != 1 || !json_is_integer(ver) ||
        copy_field(r->generator, sizeof r->generator, json_string_value(json_object_get(o, "generator"))) ||
        !hex16(r->generator) ||
        copy_field(r->config, sizeof r->config, json_string_value(json_object_get(o, "config"))) ||
        copy_field(r->source_hash, sizeof r->source_hash, json_string_value(json_object_get(o, "source_hash"))) ||
        !hex16(r->source_hash) || !json_is_integer(bytes) || json_integer_value(bytes) < 0 || f < 0 ||
        !(json_is_null(note) || (json_is_string(note) && !copy_field(r->note, sizeof r->note, json_string_value(note))))) {
        snprintf(err, errlen, "%s is not a source recipe (schema 1)%s%s", rrel, o ? "" : ": ", o ? "" : why);
        json_decref(o);
        return -1;
    }
    r->codegen_version = (int)json_integer_value(ver);
    r->has_note = json_is_string(note);
    r->inject_fault = f;
    r->bytes = (size_t)json_integer_value(bytes);
    json_decref(o);
    return 0;
}

static int recipe_write(const char *dir, const char *rel, const struct srcstore_recipe *r, char *err, size_t errlen)
{
    char rrel[SRCSTORE_REL_MAX], path[SS_PATH_MAX];
    if (srcstore_recipe_rel(rel, rrel) || full_path(dir, rrel, path)) {
        snprintf(err, errlen, "'%.200s' is not a source path (*.cu)", rel);
        return -1;
    }
    json_t *o = json_object();
    json_object_set_new(o, "schema", json_integer(1));
    json_object_set_new(o, "codegen_version", json_integer(r->codegen_version));
    json_object_set_new(o, "generator", json_string(r->generator));
    json_object_set_new(o, "config", json_string(r->config));
    json_object_set_new(o, "note", r->has_note ? json_string(r->note) : json_null());
    json_object_set_new(o, "inject_fault", json_string(codegen_fault_name(r->inject_fault)));
    json_object_set_new(o, "source_hash", json_string(r->source_hash));
    json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
    char *text = json_dumps(o, JSON_PRESERVE_ORDER);
    json_decref(o);
    int rc = 0;
    if (!text) {
        snprintf(err, errlen, "%s: the note is not valid UTF-8", rrel);
        return -1;
    }
    size_t n = strlen(text);
    char *line = xmalloc(n + 2);
    memcpy(line, text, n);
    memcpy(line + n, "\n", 2);
    if (atomic_write_str(path, line)) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        rc = -1;
    }
    free(line);
    free(text);
    return rc;
}

static void hash_of(const char *src, size_t len, char out[GENERATOR_ID_MAX])
{
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, src, len), out);
}

/* The generator of the files o names (this binary's when none); nothing to release. */
static void generator_of(const struct codegen_opts *o, struct generator *g)
{
    generator_current(g);
    if (o && o->files) {
        g->files = (struct croq_embedded_file *)o->files;
        generator_identity(CODEGEN_VERSION, o->files, g->id);
    }
}

static void say(const struct codegen_opts *o, const char *msg)
{
    if (o && o->err && o->errlen)
        snprintf(o->err, o->errlen, "%s", msg);
    else
        log_error("%s", msg);
}

int srcstore_generate(const char *dir, const char *rel, const struct croq_config *cfg, const struct codegen_opts *o,
                      char hash[GENERATOR_ID_MAX])
{
    char msg[1024], path[SS_PATH_MAX];
    char *src;
    struct generator g;
    if (codegen_emit(cfg, o, &src))
        return 1;
    size_t len = strlen(src);
    generator_of(o, &g);
    struct srcstore_recipe r = {.codegen_version = CODEGEN_VERSION, .has_note = o && o->note,
                                .inject_fault = o ? o->inject_fault : 0, .bytes = len};
    snprintf(r.generator, sizeof r.generator, "%s", g.id);
    knobs_signature(cfg, r.config);
    if (r.has_note && strlen(o->note) >= sizeof r.note) {
        free(src);
        say(o, "the source note is too long for its recipe");
        return -1;
    }
    snprintf(r.note, sizeof r.note, "%s", r.has_note ? o->note : "");
    hash_of(src, len, r.source_hash);
    /* snapshot, recipe, then the working copy: whatever a crash leaves, srcstore_compact
     * removes a whole file only after its recipe reproduced it */
    int rc = -1;
    if (full_path(dir, rel, path))
        say(o, "tuning directory path too long");
    else if (generator_save(dir, &g, msg, sizeof msg) || recipe_write(dir, rel, &r, msg, sizeof msg))
        say(o, msg);
    else if (atomic_write(path, src, len))
        snprintf(msg, sizeof msg, "cannot write '%.900s': %s", path, strerror(errno)), say(o, msg);
    else
        rc = 0;
    if (!rc)
        memcpy(hash, r.source_hash, GENERATOR_ID_MAX);
    free(src);
    return rc;
}

/* r's source generated with g's files (the knob rules not applied again). */
static int emit_with(const struct generator *g, const struct srcstore_recipe *r, char **src, size_t *len, char *err,
                     size_t errlen)
{
    struct croq_config cfg;
    char why[512];
    if (knobs_parse_signature(&cfg, r->config, why, sizeof why)) {
        snprintf(err, errlen, "the recipe's config: %s", why);
        return -1;
    }
    struct codegen_opts co = {.inject_fault = r->inject_fault, .note = r->has_note ? r->note : NULL,
                              .files = g->files, .err = why, .errlen = sizeof why, .regenerate = true};
    if (codegen_emit(&cfg, &co, src)) {
        snprintf(err, errlen, "generator %s: %s", g->id, why);
        return -1;
    }
    *len = strlen(*src);
    return 0;
}

int srcstore_regenerate(const char *dir, const struct srcstore_recipe *r, char **src, size_t *len, char *err,
                        size_t errlen)
{
    struct generator g;
    char why[512], ours[GENERATOR_ID_MAX];
    *src = NULL;
    generator_current(&g);
    memcpy(ours, g.id, sizeof ours);
    if (r->codegen_version != CODEGEN_VERSION) {
        snprintf(err, errlen, "written by codegen version %d; this croqtuner writes version %d and cannot "
                 "regenerate it", r->codegen_version, CODEGEN_VERSION);
        return -1;
    }
    if (strcmp(g.id, r->generator)) {
        int lrc = generator_load(dir, r->generator, &g, why, sizeof why);
        if (lrc) {
            if (lrc > 0)
                snprintf(err, errlen, "generated by generator %s, which is not this croqtuner's (%s), and "
                         "generators/%s.json is missing: cannot regenerate", r->generator, ours, r->generator);
            else
                snprintf(err, errlen, "cannot regenerate: %s", why);
            return -1;
        }
        if (g.codegen_version != CODEGEN_VERSION) {
            snprintf(err, errlen, "generator %s is codegen version %d; this croqtuner writes version %d and "
                     "cannot regenerate it", g.id, g.codegen_version, CODEGEN_VERSION);
            generator_release(&g);
            return -1;
        }
    }
    int rc = emit_with(&g, r, src, len, err, errlen);
    generator_release(&g);
    return rc;
}

/* Regenerated and checked against the recipe. */
static int regenerate_checked(const char *dir, const char *rel, char **src, size_t *len, char *err, size_t errlen)
{
    struct srcstore_recipe r;
    char h[GENERATOR_ID_MAX];
    int rc = srcstore_recipe_read(dir, rel, &r, err, errlen);
    if (rc > 0)
        snprintf(err, errlen, "%s is missing and has no recipe", rel);
    if (rc)
        return -1;
    if (srcstore_regenerate(dir, &r, src, len, err, errlen))
        return -1;
    hash_of(*src, *len, h);
    if (strcmp(h, r.source_hash) || *len != r.bytes) {
        snprintf(err, errlen, "%s regenerated from its recipe hashes to %s (%zu bytes), the recipe says %s (%zu "
                 "bytes)", rel, h, *len, r.source_hash, r.bytes);
        free(*src);
        *src = NULL;
        return -1;
    }
    return 0;
}

/* 0: path is no symlink (a regular file or directory as want_dir says, or absent: 1);
 * -1 with err otherwise. */
static int plain_component(const char *path, const char *rel, const char *part, bool want_dir, char *err,
                           size_t errlen)
{
    struct stat st;
    if (lstat(path, &st)) {
        if (errno == ENOENT)
            return 1;
        snprintf(err, errlen, "%s: %s: %s", rel, part, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(err, errlen, "%s: '%s' is a symbolic link, not a file of the tuning directory", rel, part);
        return -1;
    }
    if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: '%s' is not a %s", rel, part, want_dir ? "directory" : "regular file");
        return -1;
    }
    return 0;
}

int srcstore_check_inside(const char *dir, const char *rel, char *err, size_t errlen)
{
    char path[SS_PATH_MAX], rrel[SRCSTORE_REL_MAX];
    size_t n = strlen(rel);
    if (!n || rel[0] == '/' || srcstore_recipe_rel(rel, rrel)) {
        snprintf(err, errlen, "'%.200s' is not a source path relative to the tuning directory (*.cu)", rel);
        return -1;
    }
    /* every component but the last must be a plain name and a real directory */
    for (const char *p = rel, *slash; (slash = strchr(p, '/')); p = slash + 1) {
        size_t len = (size_t)(slash - p);
        if (!len || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.')) {
            snprintf(err, errlen, "'%.200s' leaves the tuning directory or is not a plain path", rel);
            return -1;
        }
        if ((size_t)snprintf(path, sizeof path, "%s/%.*s", dir, (int)(slash - rel), rel) >= sizeof path) {
            snprintf(err, errlen, "tuning directory path too long");
            return -1;
        }
        int rc = plain_component(path, rel, path + strlen(dir) + 1, true, err, errlen);
        if (rc)
            return rc > 0 ? (snprintf(err, errlen, "%s: '%s' does not exist", rel, path + strlen(dir) + 1), -1)
                          : -1;
    }
    if (full_path(dir, rel, path)) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    int rc = plain_component(path, rel, rel, false, err, errlen);
    if (rc <= 0)
        return rc;
    /* only a recipe: that is what is read */
    if (full_path(dir, rrel, path)) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    rc = plain_component(path, rel, rrel, false, err, errlen);
    if (rc > 0)
        snprintf(err, errlen, "%s is missing and has no recipe", rel);
    return rc ? -1 : 0;
}

int srcstore_read(const char *dir, const char *rel, char **src, size_t *len, char *err, size_t errlen)
{
    char path[SS_PATH_MAX];
    *src = NULL;
    if (full_path(dir, rel, path)) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    int st = regular_file(path);
    if (st < 0) {
        snprintf(err, errlen, "%s: %s", rel, regfile_strerror(errno));
        return -1;
    }
    if (st == 0) {
        if (!(*src = read_file(path, len))) {
            snprintf(err, errlen, "cannot read %s: %s", rel, regfile_strerror(errno));
            return -1;
        }
        return 0;
    }
    return regenerate_checked(dir, rel, src, len, err, errlen);
}

int srcstore_materialize(const char *dir, const char *rel, char *err, size_t errlen)
{
    char path[SS_PATH_MAX];
    char *src;
    size_t len;
    if (full_path(dir, rel, path)) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    if (regular_file(path) == 0)
        return 0;
    if (regenerate_checked(dir, rel, &src, &len, err, errlen))
        return -1;
    int rc = atomic_write(path, src, len);
    if (rc)
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    free(src);
    return rc;
}

int srcstore_copy(const char *dir, const char *from_rel, const char *to_rel, char *err, size_t errlen)
{
    char from[SS_PATH_MAX], to[SS_PATH_MAX];
    struct srcstore_recipe r;
    int rc = srcstore_recipe_read(dir, from_rel, &r, err, errlen);
    if (rc < 0 || (rc == 0 && recipe_write(dir, to_rel, &r, err, errlen)))
        return -1;
    if (full_path(dir, from_rel, from) || full_path(dir, to_rel, to)) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    if (regular_file(from) == 1 && rc == 0) /* only a recipe: nothing more to copy */
        return 0;
    if (atomic_copy(from, to)) {
        snprintf(err, errlen, "cannot copy '%s' to '%s': %s", from, to, strerror(errno));
        return -1;
    }
    return 0;
}

/* Remove path if its bytes are exactly src[0..len). 0 removed, 1 differ, -1 error. */
static int remove_if_same(const char *path, const char *src, size_t len, char *err, size_t errlen)
{
    size_t n;
    char *whole = read_file(path, &n);
    if (!whole) {
        snprintf(err, errlen, "cannot read '%s': %s", path, regfile_strerror(errno));
        return -1;
    }
    bool same = n == len && !memcmp(whole, src, len);
    free(whole);
    if (!same) {
        snprintf(err, errlen, "regenerated bytes differ from the whole file");
        return 1;
    }
    if (unlink(path)) {
        snprintf(err, errlen, "cannot remove '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int srcstore_compact(const char *dir, const char *rel, char *err, size_t errlen)
{
    char path[SS_PATH_MAX];
    struct srcstore_recipe r;
    char *src;
    size_t len;
    int rc = srcstore_recipe_read(dir, rel, &r, err, errlen);
    if (rc)
        return rc > 0 ? (snprintf(err, errlen, "no recipe"), 1) : 1;
    if (full_path(dir, rel, path)) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    if ((rc = regular_file(path)) != 0)
        return rc > 0 ? 0 : (snprintf(err, errlen, "%s: %s", rel, regfile_strerror(errno)), -1);
    if (srcstore_regenerate(dir, &r, &src, &len, err, errlen))
        return 1;
    char h[GENERATOR_ID_MAX];
    hash_of(src, len, h);
    rc = strcmp(h, r.source_hash) ? (snprintf(err, errlen, "regenerated bytes differ from the recipe's hash"), 1)
                                   : remove_if_same(path, src, len, err, errlen);
    free(src);
    return rc;
}

/* The text of a header line "<prefix>...\n" inside the first comment, or NULL. */
static bool header_field(const char *src, const char *prefix, char *out, size_t cap)
{
    const char *end = strstr(src, "*/");
    const char *p = strstr(src, prefix);
    if (!p || !end || p > end)
        return false;
    p += strlen(prefix);
    const char *nl = strchr(p, '\n');
    if (!nl || (size_t)(nl - p) >= cap)
        return false;
    memcpy(out, p, (size_t)(nl - p));
    out[nl - p] = '\0';
    return true;
}

bool srcstore_note(const char *src, char *out, size_t cap) { return header_field(src, "\n * note: ", out, cap); }

bool srcstore_config(const char *src, char *out, size_t cap) { return header_field(src, "\n * config: ", out, cap); }

int srcstore_adopt(const char *dir, const char *rel, const struct generator *gens, size_t n, size_t *used, char *err,
                   size_t errlen)
{
    char path[SS_PATH_MAX];
    struct srcstore_recipe r = {.codegen_version = CODEGEN_VERSION};
    size_t len;
    if (full_path(dir, rel, path)) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    char *whole = read_file(path, &len);
    if (!whole) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    if (strncmp(whole, "/* Generated by croqtuner", 25) || !header_field(whole, "\n * config: ", r.config, sizeof r.config)) {
        free(whole);
        snprintf(err, errlen, "not a generated source (no generator header)");
        return 1;
    }
    r.has_note = srcstore_note(whole, r.note, sizeof r.note);
    const char *fl = strstr(whole, "\n#define CROQ_INJECT_FAULT ");
    if (fl && sscanf(fl, "\n#define CROQ_INJECT_FAULT %d", &r.inject_fault) != 1)
        r.inject_fault = -1;
    hash_of(whole, len, r.source_hash);
    r.bytes = len;
    int rc = 1;
    snprintf(err, errlen, "none of the %zu generator(s) given reproduces it", n);
    for (size_t i = 0; i < n && rc == 1 && r.inject_fault >= 0; i++) {
        char *src, why[512];
        size_t slen;
        if (emit_with(&gens[i], &r, &src, &slen, why, sizeof why))
            continue; /* this generator cannot make it (e.g. a knob it does not have) */
        if (slen == len && !memcmp(src, whole, len)) {
            snprintf(r.generator, sizeof r.generator, "%s", gens[i].id);
            if (generator_save(dir, &gens[i], err, errlen) || recipe_write(dir, rel, &r, err, errlen))
                rc = -1;
            else if (unlink(path))
                snprintf(err, errlen, "cannot remove '%s': %s", path, strerror(errno)), rc = -1;
            else
                rc = 0, *used = i;
        }
        free(src);
    }
    free(whole);
    return rc;
}
