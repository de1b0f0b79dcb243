/* src/codegen/codegen.c — knob defines + include flattening (see codegen.h). */
#include "codegen.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/generator.h"
#include "util/atomicio.h"
#include "util/log.h"

#define CODEGEN_NAME_MAX 256

static const char *const fault_names[] = {"none", "trap", "hang", "oob", "skipk", "elem", "meta"};

int codegen_fault_parse(const char *s)
{
    for (int i = CODEGEN_FAULT_TRAP; i <= CODEGEN_FAULT_META; i++)
        if (s && !strcmp(s, fault_names[i]))
            return i;
    return -1;
}

const char *codegen_fault_name(int fault)
{
    return fault >= 0 && fault <= CODEGEN_FAULT_META ? fault_names[fault] : "?";
}

const char *codegen_entry(const struct croq_config *cfg)
{
    return cfg->v[KNOB_KERNEL] == CROQ_V_BASELINE ? "baseline.cu" : "family.cu";
}

/* ---- include flattening ------------------------------------------------------ */

struct flat {
    const struct croq_embedded_file *files;
    bool *done;       /* per table row: already inlined */
    struct strbuf *out;
    char *err;
    size_t errlen;
};

/* Collapse "a/./b", "a/../b" and "//"; a path that climbs above the root fails. */
static int path_normalize(const char *in, char *out, size_t outlen)
{
    char buf[CODEGEN_NAME_MAX];
    const char *parts[64];
    int n = 0;
    if (strlen(in) >= sizeof buf)
        return -1;
    strcpy(buf, in);
    for (char *save = NULL, *tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (!strcmp(tok, "."))
            continue;
        if (!strcmp(tok, "..")) {
            if (!n)
                return -1;
            n--;
            continue;
        }
        if (n == 64)
            return -1;
        parts[n++] = tok;
    }
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = snprintf(out + len, outlen - len, "%s%s", i ? "/" : "", parts[i]);
        if (w < 0 || (size_t)w >= outlen - len)
            return -1;
        len += (size_t)w;
    }
    return n ? 0 : -1;
}

static int table_index(const struct croq_embedded_file *files, const char *name)
{
    for (int i = 0; files[i].name; i++)
        if (!strcmp(files[i].name, name))
            return i;
    return -1;
}

/* Row of the file `name` included from `includer`: relative to kernels/ first (the
 * documented convention), then relative to the includer's directory (what a C
 * preprocessor does first, so files written either way resolve). -1 if neither. */
static int resolve_include(const struct croq_embedded_file *files, const char *includer, const char *name)
{
    char norm[CODEGEN_NAME_MAX], joined[CODEGEN_NAME_MAX];
    int i = -1;
    if (!path_normalize(name, norm, sizeof norm))
        i = table_index(files, norm);
    const char *slash = strrchr(includer, '/');
    if (i < 0 && slash && name[0] != '/') {
        int w = snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - includer), includer, name);
        if (w > 0 && (size_t)w < sizeof joined && !path_normalize(joined, norm, sizeof norm))
            i = table_index(files, norm);
    }
    return i;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* If line (up to end) is `#include "name"`, copy name and return true. */
static bool parse_quoted_include(const char *line, const char *end, char *name, size_t namelen)
{
    const char *p = skip_blanks(line);
    if (*p != '#')
        return false;
    p = skip_blanks(p + 1);
    if (strncmp(p, "include", 7) || (p[7] != ' ' && p[7] != '\t' && p[7] != '"'))
        return false;
    p = skip_blanks(p + 7);
    if (*p != '"')
        return false;
    const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
    if (!q || (size_t)(q - p - 1) >= namelen)
        return false;
    memcpy(name, p + 1, (size_t)(q - p - 1));
    name[q - p - 1] = '\0';
    return true;
}

static bool is_pragma_once(const char *line, const char *end)
{
    const char *p = skip_blanks(line);
    if (*p != '#')
        return false;
    p = skip_blanks(p + 1);
    if (strncmp(p, "pragma", 6))
        return false;
    p = skip_blanks(p + 6);
    if (strncmp(p, "once", 4))
        return false;
    p = skip_blanks(p + 4);
    return p >= end || *p == '\n' || *p == '\r';
}

static int flatten_file(struct flat *f, int idx);

static int flatten_include(struct flat *f, int from, const char *name, int lineno)
{
    int j = resolve_include(f->files, f->files[from].name, name);
    if (j < 0) {
        snprintf(f->err, f->errlen,
                 "unknown include \"%s\" in '%s' line %d: not among the embedded kernel sources",
                 name, f->files[from].name, lineno);
        return -1;
    }
    if (f->done[j]) {
        strbuf_addf(f->out, "/* include of \"%s\": already inlined above */\n", f->files[j].name);
        return 0;
    }
    return flatten_file(f, j);
}

static int flatten_file(struct flat *f, int idx)
{
    const struct croq_embedded_file *file = &f->files[idx];
    f->done[idx] = true;
    strbuf_addf(f->out, "/* ==== begin \"%s\" ==== */\n", file->name);
    const char *p = file->text, *end = file->text + file->size;
    char name[CODEGEN_NAME_MAX];
    for (int lineno = 1; p < end; lineno++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl + 1 : end;
        if (parse_quoted_include(p, eol, name, sizeof name)) {
            if (flatten_include(f, idx, name, lineno))
                return -1;
        } else if (is_pragma_once(p, eol)) {
            strbuf_adds(f->out, "\n"); /* keeps line counts of the file's body intact */
        } else {
            strbuf_add(f->out, p, (size_t)(eol - p));
            if (!nl)
                strbuf_adds(f->out, "\n");
        }
        p = eol;
    }
    strbuf_addf(f->out, "/* ==== end \"%s\" ==== */\n", file->name);
    return 0;
}

int codegen_flatten(const struct croq_embedded_file *files, const char *entry, struct strbuf *out,
                    char *err, size_t errlen)
{
    int idx = table_index(files, entry);
    if (idx < 0) {
        snprintf(err, errlen,
                 "kernel source '%s' is not embedded (is kernels/%s missing? re-run cmake after adding it)",
                 entry, entry);
        return -1;
    }
    size_t n = 0;
    while (files[n].name)
        n++;
    struct flat f = {files, calloc(n, sizeof(bool)), out, err, errlen};
    if (!f.done)
        die("out of memory");
    int rc = flatten_file(&f, idx);
    free(f.done);
    return rc;
}

/* ---- the generated file ------------------------------------------------------ */

/* Text for a comment line: no newlines, no comment terminator. */
static void add_comment_text(struct strbuf *sb, const char *s)
{
    for (; *s; s++) {
        if (*s == '\n' || *s == '\r')
            strbuf_adds(sb, " ");
        else if (s[0] == '*' && s[1] == '/')
            strbuf_adds(sb, "* ");
        else
            strbuf_add(sb, s, 1);
    }
}

static void emit_header(struct strbuf *sb, const struct croq_config *cfg, const struct codegen_opts *o)
{
    char sig[CROQ_SIG_MAX];
    knobs_signature(cfg, sig);
    strbuf_adds(sb, "/* Generated by croqtuner (src/codegen/codegen.c) from the kernel sources embedded\n"
                    " * at build time. Self-contained: every quoted include is inlined below, so nvcc\n"
                    " * needs only the CUDA headers. Edits here do not flow back to kernels/.\n");
    strbuf_addf(sb, " * config: %s\n", sig);
    strbuf_addf(sb, " * entry: %s\n", codegen_entry(cfg));
    if (o && o->note) {
        strbuf_adds(sb, " * note: ");
        add_comment_text(sb, o->note);
        strbuf_adds(sb, "\n");
    }
    strbuf_adds(sb, " */\n");
}

static void emit_defines(struct strbuf *sb, const struct croq_config *cfg, int fault)
{
    strbuf_addf(sb, "#define CROQ_DTYPE %d /* %s */\n", cfg->dtype, croq_dtype_name(cfg->dtype));
    /* A late knob at its default is left to the kernel sources' own default, so the
     * header of every configuration older than the knob stays byte-identical and its
     * recipes regenerate (docs/engine.md, "Sources as recipes"). */
    for (int i = 0; i < KNOB_COUNT; i++)
        if (!KNOB_OMITTED(cfg, i))
            strbuf_addf(sb, "#define %s %d\n", croq_knobs[i].macro, cfg->v[i]);
    if (fault != CODEGEN_FAULT_NONE)
        strbuf_addf(sb, "#define CROQ_INJECT_FAULT %d /* %s: test-only fault injection */\n", fault,
                    codegen_fault_name(fault));
}

/* Fills the caller's error buffer, or prints when there is none. */
static void report(const struct codegen_opts *o, const char *msg)
{
    if (o && o->err && o->errlen)
        snprintf(o->err, o->errlen, "%s", msg);
    else
        log_error("%s", msg);
}

/* Another generator's files (a pinned snapshot's) implement only the knobs and values of
 * their own knobs.def (generator.h, src/knobs/space.h): a configuration outside them would
 * get #defines its kernels ignore, a candidate equal to another under a false name. This
 * binary's own files have its table by construction, and a table without knobs.def (a
 * test's) says nothing about knobs. -1 (reported) when cfg is outside or the table does
 * not read. */
static int refuse_outside_space(const struct croq_embedded_file *files, const struct croq_config *cfg,
                                const struct codegen_opts *o)
{
    struct knob_space space;
    char why[CROQ_WHY_MAX + 256], msg[sizeof why + 64];
    int rc = generator_knob_space(files, CODEGEN_VERSION, &space, why, sizeof why);
    if (rc == 1)
        return 0;
    if (rc < 0)
        snprintf(msg, sizeof msg, "the generator's knob table: %s", why);
    else if (!knob_space_allows(&space, cfg, why, sizeof why))
        snprintf(msg, sizeof msg, "configuration outside its generator's knobs: %s", why);
    else
        return 0;
    report(o, msg);
    return -1;
}

int codegen_emit(const struct croq_config *cfg, const struct codegen_opts *o, char **out_src)
{
    char why[CROQ_WHY_MAX], msg[CROQ_WHY_MAX + 512];
    int fault = o ? o->inject_fault : CODEGEN_FAULT_NONE;
    *out_src = NULL;
    if (!(o && o->regenerate) && !knobs_validate(cfg, NULL, why, sizeof why)) {
        snprintf(msg, sizeof msg, "invalid configuration: %s", why);
        report(o, msg);
        return -1;
    }
    if (fault < CODEGEN_FAULT_NONE || fault > CODEGEN_FAULT_META) {
        snprintf(msg, sizeof msg, "unknown fault kind %d", fault);
        report(o, msg);
        return -1;
    }
    const struct croq_embedded_file *files = o && o->files ? o->files : croq_embedded_files;
    if (files != croq_embedded_files && !(o && o->regenerate) && refuse_outside_space(files, cfg, o))
        return -1;
    struct strbuf sb = STRBUF_INIT;
    emit_header(&sb, cfg, o);
    emit_defines(&sb, cfg, fault);
    if (codegen_flatten(files, codegen_entry(cfg), &sb, msg, sizeof msg)) {
        strbuf_release(&sb);
        report(o, msg);
        return -1;
    }
    *out_src = strbuf_detach(&sb);
    return 0;
}

int codegen_write(const struct croq_config *cfg, const struct codegen_opts *o, const char *path)
{
    char *src;
    if (codegen_emit(cfg, o, &src))
        return -1;
    int rc = atomic_write_str(path, src);
    if (rc) {
        char msg[512];
        snprintf(msg, sizeof msg, "cannot write '%s': %s", path, strerror(errno));
        report(o, msg);
    }
    free(src);
    return rc;
}
