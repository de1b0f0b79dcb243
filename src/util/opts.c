/* src/util/opts.c — the table-driven option parser of the subcommands (see opts.h). */
#include "opts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decimal.h"
#include "log.h"

static bool takes_value(const struct opt *o) { return o->type != OPT_FLAG; }

/* The entry argv word a names: exact name or alias, or "name=..." for one with a value.
 * *val: the text after '=' (NULL without one). */
static struct opt *lookup(struct opt_spec *s, const char *a, const char **val)
{
    *val = NULL;
    for (size_t k = 0; k < s->n; k++) {
        struct opt *o = &s->opts[k];
        const char *names[2] = {o->name, o->alias};
        for (int j = 0; j < 2; j++) {
            if (!names[j])
                continue;
            size_t n = strlen(names[j]);
            if (strncmp(a, names[j], n))
                continue;
            if (!a[n])
                return o;
            if (a[n] == '=') {
                *val = a + n + 1;
                return o;
            }
        }
    }
    return NULL;
}

const struct opt *opts_find(const struct opt_spec *s, const char *name)
{
    for (size_t k = 0; k < s->n; k++)
        if (!strcmp(s->opts[k].name, name))
            return &s->opts[k];
    return NULL;
}

bool opts_given(const struct opt_spec *s, const char *name)
{
    const struct opt *o = opts_find(s, name);
    return o && o->seen;
}

/* ---- value checks ---------------------------------------------------------------- */

/* 0 path exists (*st, symbolic links followed), 1 it does not, -1 it cannot be looked at
 * (err: why, e.g. a component that is not a directory, no permission). */
static int path_kind(const char *path, struct stat *st, char *err, size_t errlen)
{
    if (!*path) {
        snprintf(err, errlen, "an empty path");
        return -1;
    }
    if (stat(path, st)) {
        if (errno == ENOENT)
            return 1;
        snprintf(err, errlen, "'%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* input: the words of the readers (regfile.h); an output is never written either */
static const char *not_regular(const struct stat *st, bool input)
{
    return S_ISDIR(st->st_mode) ? "is a directory, not a regular file"
           : input              ? "is not a regular file (a FIFO, device or socket is never read)"
                                : "is not a regular file (a FIFO, device or socket is never written)";
}

int opts_check_file(const char *path, char *err, size_t errlen)
{
    struct stat st;
    int k = path_kind(path, &st, err, errlen);
    if (k > 0)
        snprintf(err, errlen, "'%s' does not exist", path);
    else if (!k && !S_ISREG(st.st_mode))
        snprintf(err, errlen, "'%s' %s", path, not_regular(&st, true));
    else if (!k)
        return 0;
    return -1;
}

int opts_check_dir(const char *path, char *err, size_t errlen)
{
    struct stat st;
    int k = path_kind(path, &st, err, errlen);
    if (k > 0)
        snprintf(err, errlen, "'%s' does not exist", path);
    else if (!k && !S_ISDIR(st.st_mode))
        snprintf(err, errlen, "'%s' is not a directory", path);
    else if (!k)
        return 0;
    return -1;
}

int opts_check_outfile(const char *path, char *err, size_t errlen)
{
    struct stat st;
    int k = path_kind(path, &st, err, errlen);
    if (k < 0)
        return -1;
    if (!k && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "'%s' %s", path, not_regular(&st, false));
        return -1;
    }
    return 0;
}

/* An --out FILE that does not exist yet: its directory must, and must take a new file
 * (no command makes an output file's directory), so the refusal comes before the work
 * instead of after it. */
static int new_file_dir(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (!stat(path, &st))
        return 0; /* there: opts_check_outfile judged it */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (strlen(path) >= sizeof dir) {
        snprintf(err, errlen, "'%.64s...': a path longer than %zu characters", path, sizeof dir - 1);
        return -1;
    }
    snprintf(dir, sizeof dir, "%.*s", slash ? (slash == path ? 1 : (int)(slash - path)) : 1, slash ? path : ".");
    if (stat(dir, &st)) {
        snprintf(err, errlen, "'%s': its directory '%s' %s", path, dir,
                 errno == ENOENT ? "does not exist" : strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "'%s': '%s' is not a directory", path, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK)) {
        snprintf(err, errlen, "'%s': its directory '%s': %s", path, dir, strerror(errno));
        return -1;
    }
    return 0;
}

int opts_check_outdir(const char *path, char *err, size_t errlen)
{
    struct stat st;
    int k = path_kind(path, &st, err, errlen);
    if (k < 0)
        return -1;
    if (!k && !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "'%s' is not a directory", path);
        return -1;
    }
    return 0;
}

/* "a|b|c" -> "a, b or c" */
static void choices_words(const char *choices, char *out, size_t len)
{
    size_t n = 0, bars = 0;
    for (const char *c = choices; *c; c++)
        bars += *c == '|';
    out[0] = '\0';
    for (const char *c = choices; *c && n + 5 < len; c++) {
        if (*c != '|') {
            out[n++] = *c;
            continue;
        }
        const char *sep = --bars ? ", " : " or ";
        n += (size_t)snprintf(out + n, len - n, "%s", sep);
    }
    out[n < len ? n : len - 1] = '\0';
}

static bool in_choices(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *c = choices; c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (n && len == n && !strncmp(c, v, n))
            return true;
        c = bar ? bar + 1 : NULL;
    }
    return false;
}

/* Validate v for o and store it (a repeatable option at slot). 0, or -1 with err. */
static int store(const struct opt *o, const char *v, int slot, char *err, size_t errlen)
{
    long l;
    double d;
    char *end;
    switch (o->type) {
    case OPT_FLAG:
        *(bool *)o->dst = true;
        return 0;
    case OPT_INT:
    case OPT_LONG:
        if (dec_long(v, &l)) {
            snprintf(err, errlen, "'%s' is not an integer", v);
            return -1;
        }
        if (l < o->lo || l > o->hi) {
            snprintf(err, errlen, "%ld is outside [%ld, %ld]", l, o->lo, o->hi);
            return -1;
        }
        if (o->type == OPT_INT)
            *(int *)o->dst = (int)l;
        else
            *(long *)o->dst = l;
        return 0;
    case OPT_U64: {
        errno = 0;
        unsigned long long u = strtoull(v, &end, 10);
        if (errno || end == v || *end || !isdigit((unsigned char)*v)) {
            snprintf(err, errlen, "'%s' is not an unsigned integer", v);
            return -1;
        }
        *(unsigned long long *)o->dst = u;
        return 0;
    }
    case OPT_DOUBLE:
    case OPT_PERCENT: {
        /* decimal only (util/decimal.h); a percentage may end in '%' */
        char num[64];
        size_t len = strlen(v);
        if (o->type == OPT_PERCENT && len && v[len - 1] == '%')
            len--;
        snprintf(num, sizeof num, "%.*s", (int)len, v);
        if (len >= sizeof num || dec_double(num, &d)) {
            snprintf(err, errlen, o->type == OPT_PERCENT ? "'%s' is not a percentage in 0..100 (e.g. 2 or 2%%)"
                                                         : "'%s' is not a number", v);
            return -1;
        }
        if (o->type == OPT_PERCENT && !(d >= 0 && d <= 100)) {
            snprintf(err, errlen, "'%s' is not a percentage in 0..100 (e.g. 2 or 2%%)", v);
            return -1;
        }
        if (o->type == OPT_DOUBLE && (o->dlo || o->dhi) && !(d >= o->dlo && d <= o->dhi)) {
            snprintf(err, errlen, "%s is outside [%g, %g]", v, o->dlo, o->dhi);
            return -1;
        }
        *(double *)o->dst = d;
        return 0;
    }
    case OPT_ENUM:
        if (!in_choices(o->choices, v)) {
            char words[256];
            choices_words(o->choices, words, sizeof words);
            snprintf(err, errlen, "'%s' is not %s", v, words);
            return -1;
        }
        break;
    case OPT_FILE:
        if (opts_check_file(v, err, errlen))
            return -1;
        break;
    case OPT_DIR:
        if (opts_check_dir(v, err, errlen))
            return -1;
        break;
    case OPT_OUTFILE:
        if (opts_check_outfile(v, err, errlen) || new_file_dir(v, err, errlen))
            return -1;
        break;
    case OPT_OUTDIR:
        if (opts_check_outdir(v, err, errlen))
            return -1;
        break;
    case OPT_CUSTOM:
        return o->check(v, o->max ? (void *)((const char **)o->dst + slot) : o->dst, err, errlen);
    case OPT_STR:
        break;
    }
    ((const char **)o->dst)[slot] = v;
    return 0;
}

int opts_value(const struct opt *o, const char *value, char *err, size_t errlen)
{
    return store(o, value, 0, err, errlen);
}

/* ---- --help and its drift check ---------------------------------------------------- */

/* Is "--name" in text as a whole option word (not the start of a longer one)? */
static bool names_option(const char *text, const char *name, size_t upto)
{
    size_t n = strlen(name);
    for (const char *p = text; (p = strstr(p, name)) && (size_t)(p - text) < upto; p += n) {
        bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '-');
        bool end = !(isalnum((unsigned char)p[n]) || p[n] == '-' || p[n] == '_');
        if (start && end)
            return true;
    }
    return false;
}

int opts_check_help(const struct opt_spec *s, char *err, size_t errlen)
{
    const char *u = s->usage;
    size_t all = strlen(u);
    const char *blank = strstr(u, "\n\n");
    size_t synopsis = blank ? (size_t)(blank - u) : all;
    for (size_t k = 0; k < s->n; k++) {
        const struct opt *o = &s->opts[k];
        if (!(o->flags & OPT_HIDDEN) && !names_option(u, o->name, all)) {
            snprintf(err, errlen, "%s --help does not list its option %s", s->command, o->name);
            return -1;
        }
    }
    /* every --word of the synopsis is an option of the table */
    for (const char *p = u; (p = strstr(p, "--")) && (size_t)(p - u) < synopsis;) {
        size_t n = 2;
        while (isalnum((unsigned char)p[n]) || p[n] == '-')
            n++;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), p);
        bool known = n == 2 || !strcmp(name, "--help");
        for (size_t k = 0; k < s->n && !known; k++)
            known = !strcmp(s->opts[k].name, name) && !(s->opts[k].flags & OPT_HIDDEN);
        if (!known) {
            snprintf(err, errlen, "%s --help shows %s, which is not one of its options", s->command, name);
            return -1;
        }
        p += n;
    }
    return 0;
}

/* ---- parsing ----------------------------------------------------------------------- */

int opts_parse(struct opt_spec *s, int argc, char **argv)
{
    char err[1200];
    for (size_t k = 0; k < s->n; k++) {
        s->opts[k].seen = 0;
        if (s->opts[k].max)
            *s->opts[k].count = 0;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(s->usage, stdout);
            /* the table is what parses: a help text that lost or invented an option is a
             * defect of this build, said where a test sees it */
            if (opts_check_help(s, err, sizeof err))
                log_warn("internal: %s (the command's option table)", err);
            return 1;
        }
        struct opt *o = lookup(s, a, &v);
        if (!o) {
            log_error("%s: unknown option '%s' (see 'croqtuner %s --help')", s->command, a, s->command);
            return 2;
        }
        if (!takes_value(o) && v) {
            log_error("%s: option '%s' takes no value", s->command, o->name);
            return 2;
        }
        if (takes_value(o) && !v) {
            if (i + 1 >= argc) {
                log_error("%s: option '%s' needs a value", s->command, o->name);
                return 2;
            }
            v = argv[++i];
            /* "--tuning --quiet": the value forgotten, the next option taken for it (and a
             * directory named "--quiet" made); "--tuning=--quiet" still gives such a value */
            const char *nv;
            if (!strncmp(v, "--", 2) && (lookup(s, v, &nv) || !strcmp(v, "--help"))) {
                log_error("%s: option '%s' needs a value, and '%s' is an option (write %s=VALUE for a value "
                          "that begins with '--')", s->command, o->name, v, o->name);
                return 2;
            }
        }
        if (o->seen && takes_value(o) && !o->max) {
            log_error("%s: option '%s' is given twice: it takes one value", s->command, o->name);
            return 2;
        }
        if (o->max && *o->count == o->max) {
            log_error("%s: at most %d %s options", s->command, o->max, o->name);
            return 2;
        }
        if (store(o, takes_value(o) ? v : "", o->max ? *o->count : 0, err, sizeof err)) {
            log_error("%s: option '%s': %s", s->command, o->name, err);
            return 2;
        }
        o->seen++;
        if (o->max)
            ++*o->count;
    }
    return 0;
}
