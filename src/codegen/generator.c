/* src/codegen/generator.c — generator identity and snapshots (see generator.h). */
#include "generator.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "codegen/codegen.h"
#include "util/atomicio.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/regfile.h"

#define GEN_PATH_MAX 4096
#define GEN_FILES_MAX 256

static int by_name(const void *x, const void *y)
{
    const struct croq_embedded_file *const *a = x, *const *b = y;
    return strcmp((*a)->name, (*b)->name);
}

void generator_identity(int codegen_version, const struct croq_embedded_file *files, char id[GENERATOR_ID_MAX])
{
    size_t n = 0;
    while (files[n].name)
        n++;
    const struct croq_embedded_file **order = xmalloc((n + 1) * sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = &files[i];
    qsort(order, n, sizeof *order, by_name); /* the table's order is the glob's, not a promise */
    char head[64], size[32];
    snprintf(head, sizeof head, "croqtuner codegen %d", codegen_version);
    uint64_t h = hash_fnv1a64_str(HASH_FNV1A64_INIT, head);
    for (size_t i = 0; i < n; i++) {
        snprintf(size, sizeof size, "%zu", order[i]->size);
        h = hash_fnv1a64_str(h, order[i]->name);
        h = hash_fnv1a64_str(h, size);
        h = hash_fnv1a64(h, order[i]->text, order[i]->size);
    }
    free(order);
    hash_hex(h, id);
}

void generator_current(struct generator *g)
{
    memset(g, 0, sizeof *g);
    g->codegen_version = CODEGEN_VERSION;
    g->files = (struct croq_embedded_file *)croq_embedded_files;
    generator_identity(CODEGEN_VERSION, croq_embedded_files, g->id);
}

void generator_release(struct generator *g)
{
    if (g->owned && g->files) {
        for (struct croq_embedded_file *f = g->files; f->name; f++) {
            free((char *)f->name);
            free((char *)f->text);
        }
        free(g->files);
    }
    memset(g, 0, sizeof *g);
}

/* Append one file to a table being built (n rows so far, room for GEN_FILES_MAX). */
static int table_add(struct croq_embedded_file *t, size_t *n, const char *name, char *text, size_t size, char *err,
                     size_t errlen)
{
    if (*n == GEN_FILES_MAX) {
        snprintf(err, errlen, "more than %d kernel source files", GEN_FILES_MAX);
        free(text);
        return -1;
    }
    t[*n] = (struct croq_embedded_file){xstrdup(name), text, size};
    (*n)++;
    return 0;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a > b && !strcmp(s + a - b, suf);
}

/* Every regular file of root/sub with one of the suffixes, named prefix + file name. */
static int add_dir(struct croq_embedded_file *t, size_t *n, const char *root, const char *sub, const char *prefix,
                   const char *const *suffixes, char *err, size_t errlen)
{
    char dir[GEN_PATH_MAX], path[GEN_PATH_MAX], name[512];
    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    DIR *d = opendir(dir);
    if (!d) {
        if (!*prefix) { /* kernels/ itself must be there; kernels/ptx and kernels/parts may not */
            snprintf(err, errlen, "cannot open '%s': %s", dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        bool want = false;
        for (const char *const *s = suffixes; *s; s++)
            want |= has_suffix(e->d_name, *s);
        struct stat st;
        if (!want || (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
            stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        size_t size;
        char *text = read_file(path, &size);
        if (!text) {
            snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
            rc = -1;
            break;
        }
        snprintf(name, sizeof name, "%s%s", prefix, e->d_name);
        rc = table_add(t, n, name, text, size, err, errlen);
    }
    closedir(d);
    return rc;
}

static void own_table(struct generator *g, struct croq_embedded_file *t, size_t n)
{
    t[n] = (struct croq_embedded_file){NULL, NULL, 0};
    g->files = t;
    g->owned = true;
    generator_identity(g->codegen_version, t, g->id);
}

int generator_from_tree(const char *root, struct generator *g, char *err, size_t errlen)
{
    static const char *const top[] = {".h", ".cuh", ".cu", NULL}, *const sub[] = {".cuh", NULL};
    char path[GEN_PATH_MAX];
    memset(g, 0, sizeof *g);
    g->codegen_version = CODEGEN_VERSION;
    struct croq_embedded_file *t = xmalloc((GEN_FILES_MAX + 1) * sizeof *t);
    size_t n = 0, size;
    int rc = add_dir(t, &n, root, "kernels", "", top, err, errlen);
    if (!rc)
        rc = add_dir(t, &n, root, "kernels/ptx", "ptx/", sub, err, errlen);
    if (!rc) /* the parts family.cu is composed of (since issue 23) */
        rc = add_dir(t, &n, root, "kernels/parts", "parts/", sub, err, errlen);
    if (!rc) {
        snprintf(path, sizeof path, "%s/src/knobs/knobs.def", root);
        char *text = read_file(path, &size);
        if (!text) {
            snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
            rc = -1;
        } else {
            rc = table_add(t, &n, "knobs.def", text, size, err, errlen);
        }
    }
    own_table(g, t, n);
    if (rc)
        generator_release(g);
    return rc;
}

/* 16 lower-case hex digits: the only text that becomes a snapshot's file name. */
static bool id_valid(const char *id)
{
    size_t n = 0;
    for (; id[n]; n++)
        if (!((id[n] >= '0' && id[n] <= '9') || (id[n] >= 'a' && id[n] <= 'f')))
            return false;
    return n == GENERATOR_ID_MAX - 1;
}

static int snapshot_path(const char *tuning_dir, const char *id, char out[GEN_PATH_MAX])
{
    return (size_t)snprintf(out, GEN_PATH_MAX, "%s/generators/%s.json", tuning_dir, id) >= GEN_PATH_MAX ? -1 : 0;
}

int generator_save(const char *tuning_dir, const struct generator *g, char *err, size_t errlen)
{
    char path[GEN_PATH_MAX], dir[GEN_PATH_MAX];
    struct stat st;
    if (snapshot_path(tuning_dir, g->id, path) ||
        (size_t)snprintf(dir, sizeof dir, "%s/generators", tuning_dir) >= sizeof dir) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    if (!stat(path, &st)) { /* written once: the name is the content's identity */
        if (S_ISREG(st.st_mode))
            return 0;
        /* a FIFO or a directory there would pass for the snapshot every recipe names */
        snprintf(err, errlen, "cannot write the generator snapshot '%s': something that is %s is there", path,
                 S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        return -1;
    }
    json_t *files = json_object();
    for (const struct croq_embedded_file *f = g->files; f->name; f++)
        json_object_set_new(files, f->name, json_stringn(f->text, f->size));
    json_t *o = json_object();
    json_object_set_new(o, "schema", json_integer(1));
    json_object_set_new(o, "identity", json_string(g->id));
    json_object_set_new(o, "codegen_version", json_integer(g->codegen_version));
    json_object_set_new(o, "files", files);
    char *text = json_dumps(o, JSON_INDENT(1) | JSON_SORT_KEYS);
    json_decref(o);
    int rc = -1;
    if (!text)
        snprintf(err, errlen, "generator %s: a kernel source file is not valid UTF-8 text", g->id);
    else if (mkdir_p(dir) || atomic_write_str(path, text))
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    else
        rc = 0;
    free(text);
    return rc;
}

int generator_load(const char *tuning_dir, const char *id, struct generator *g, char *err, size_t errlen)
{
    char path[GEN_PATH_MAX];
    memset(g, 0, sizeof *g);
    if (!id_valid(id)) {
        snprintf(err, errlen, "'%.40s' is not a generator identity (16 hex digits)", id);
        return -1;
    }
    if (snapshot_path(tuning_dir, id, path)) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    /* opened once, O_NONBLOCK and fstat'ed (regfile.h): a FIFO or /dev/zero in its place
     * neither blocks nor is read */
    char why[600];
    json_t *o = regfile_load_json(path, JSON_REJECT_DUPLICATES, why, sizeof why);
    if (!o && errno == ENOENT)
        return 1;
    json_t *files = json_object_get(o, "files");
    const char *claimed = json_string_value(json_object_get(o, "identity"));
    json_t *ver = json_object_get(o, "codegen_version");
    if (!o || json_integer_value(json_object_get(o, "schema")) != 1 || !json_is_object(files) || !claimed ||
        !json_is_integer(ver) || json_object_size(files) > GEN_FILES_MAX) {
        snprintf(err, errlen, "generators/%s.json is not a generator snapshot (schema 1)%s%s", id, o ? "" : ": ",
                 o ? "" : why);
        json_decref(o);
        return -1;
    }
    g->codegen_version = (int)json_integer_value(ver);
    bool claims_id = !strcmp(claimed, id);
    struct croq_embedded_file *t = xmalloc((GEN_FILES_MAX + 1) * sizeof *t);
    size_t n = 0;
    const char *name;
    json_t *v;
    int rc = 0;
    json_object_foreach(files, name, v) {
        if (!json_is_string(v)) {
            snprintf(err, errlen, "generators/%s.json: file '%.100s' is not text", id, name);
            rc = -1;
            break;
        }
        size_t size = json_string_length(v);
        char *text = xmalloc(size + 1);
        memcpy(text, json_string_value(v), size);
        text[size] = '\0';
        if ((rc = table_add(t, &n, name, text, size, err, errlen)))
            break;
    }
    json_decref(o);
    own_table(g, t, n);
    if (!rc && (strcmp(g->id, id) || !claims_id)) {
        snprintf(err, errlen, "generators/%s.json holds files whose identity is %s: it was changed after it was "
                 "written", id, g->id);
        rc = -1;
    }
    if (rc)
        generator_release(g);
    return rc;
}

int generator_knob_space(const struct croq_embedded_file *files, int codegen_version, struct knob_space *s,
                         char *err, size_t errlen)
{
    const struct croq_embedded_file *def = NULL;
    for (const struct croq_embedded_file *f = files; f->name && !def; f++)
        if (!strcmp(f->name, "knobs.def"))
            def = f;
    if (!def)
        return 1;
    char id[GENERATOR_ID_MAX], owner[KNOB_SPACE_OWNER_MAX];
    generator_identity(codegen_version, files, id);
    snprintf(owner, sizeof owner, "generator %s", id);
    return knob_space_parse(s, owner, def->text, def->size, err, errlen);
}
