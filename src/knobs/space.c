/* src/knobs/space.c — a generator's knob space: the strict reader of knobs.def's text,
 * the space against this binary's table, and the checks on a configuration (space.h). */
#include "space.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEF_ROWS_MAX 64    /* rows of one knobs.def (this binary's has KNOB_COUNT) */
#define DEF_CONSTS_MAX 64  /* #define NAME <integer> constants */
#define DEF_NAME_MAX 64    /* identifiers, knob names and macros */
#define DEF_TEXT_MAX 1024  /* a category or a meaning, adjacent literals joined */

/* One KNOB row as the generator's text declares it. */
struct def_row {
    char id[DEF_NAME_MAX], name[DEF_NAME_MAX], macro[DEF_NAME_MAX];
    int default_value;
    int n_values;
    int values[CROQ_KNOB_MAX_VALUES];
    int line;
};

struct reader {
    const char *p, *end;
    int line;
    char *err;
    size_t errlen;
    int n_consts; /* every #define: a value constant, or a name alone (the include guard) */
    char const_name[DEF_CONSTS_MAX][DEF_NAME_MAX];
    int const_value[DEF_CONSTS_MAX];
    bool const_has_value[DEF_CONSTS_MAX];
    int const_line[DEF_CONSTS_MAX];
    int guard_line;    /* the open #ifndef's line, 0 when none is open */
    int row_end_line;  /* the line a KNOB row's ')' was on (a directive may not follow it there) */
};

__attribute__((format(printf, 2, 3))) static int fail(struct reader *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "knobs.def line %d: %s", r->line, msg);
    return -1;
}

static int peek(const struct reader *r) { return r->p < r->end ? (unsigned char)*r->p : -1; }

static void advance(struct reader *r)
{
    if (r->p < r->end && *r->p++ == '\n')
        r->line++;
}

/* One comment at r->p: 1 skipped (a // one up to, not over, its newline), 0 none there,
 * -1 one that does not end. */
static int skip_comment(struct reader *r)
{
    if (peek(r) != '/' || r->p + 1 >= r->end || (r->p[1] != '*' && r->p[1] != '/'))
        return 0;
    if (r->p[1] == '/') {
        while (r->p < r->end && *r->p != '\n')
            advance(r);
        return 1;
    }
    int start = r->line;
    advance(r), advance(r);
    while (r->p < r->end && !(*r->p == '*' && r->p + 1 < r->end && r->p[1] == '/'))
        advance(r);
    if (r->p >= r->end) {
        r->line = start;
        return fail(r, "a comment that does not end");
    }
    advance(r), advance(r);
    return 1;
}

/* Blanks, newlines and comments. */
static int skip_space(struct reader *r)
{
    for (;;) {
        int c = peek(r), rc;
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v')
            advance(r);
        else if ((rc = skip_comment(r)) <= 0)
            return rc;
    }
}

/* Blanks and comments up to the end of the line (a preprocessor line's rest). */
static int skip_line_space(struct reader *r)
{
    for (;;) {
        int c = peek(r), rc;
        if (c == ' ' || c == '\t' || c == '\r')
            advance(r);
        else if ((rc = skip_comment(r)) <= 0)
            return rc;
    }
}

static bool ident_char(int c) { return c >= 0 && (isalnum(c) || c == '_'); }

/* An identifier into out; -1 without one. */
static int ident(struct reader *r, char out[DEF_NAME_MAX], const char *what)
{
    size_t n = 0;
    if (!(ident_char(peek(r)) && !isdigit(peek(r))))
        return fail(r, "expected %s", what);
    while (ident_char(peek(r))) {
        if (n + 1 >= DEF_NAME_MAX)
            return fail(r, "%s longer than %d characters", what, DEF_NAME_MAX - 1);
        out[n++] = *r->p;
        advance(r);
    }
    out[n] = '\0';
    return 0;
}

/* A decimal integer, optionally negative, that fits an int. */
static int integer(struct reader *r, int *out)
{
    bool neg = peek(r) == '-';
    if (neg)
        advance(r);
    if (!(peek(r) >= '0' && peek(r) <= '9'))
        return fail(r, "expected an integer");
    if (peek(r) == '0' && r->p + 1 < r->end && r->p[1] >= '0' && r->p[1] <= '9')
        return fail(r, "an integer with a leading 0 (the compiler reads it as octal, this reader would not)");
    long long v = 0;
    while (peek(r) >= '0' && peek(r) <= '9') {
        v = v * 10 + (*r->p - '0');
        if (v > INT_MAX)
            return fail(r, "integer out of range");
        advance(r);
    }
    if (ident_char(peek(r)))
        return fail(r, "expected an integer, got '%c' after its digits", *r->p);
    *out = neg ? (int)-v : (int)v;
    return 0;
}

/* An integer or a constant defined above. */
static int value(struct reader *r, int *out, const char *what)
{
    char name[DEF_NAME_MAX];
    if (peek(r) == '-' || (peek(r) >= '0' && peek(r) <= '9'))
        return integer(r, out);
    if (!ident_char(peek(r)))
        return fail(r, "expected %s (an integer or a CROQ_V_* constant)", what);
    if (ident(r, name, what))
        return -1;
    for (int i = 0; i < r->n_consts; i++)
        if (!strcmp(r->const_name[i], name) && r->const_has_value[i]) {
            *out = r->const_value[i];
            return 0;
        }
    return fail(r, "'%s' is not a constant defined above it", name);
}

/* One or more adjacent string literals, joined; only \" and \\ as escapes. */
static int string(struct reader *r, char *out, size_t cap, const char *what)
{
    size_t n = 0;
    if (peek(r) != '"')
        return fail(r, "expected %s (a string literal)", what);
    while (peek(r) == '"') {
        advance(r);
        for (;;) {
            int c = peek(r);
            if (c < 0 || c == '\n')
                return fail(r, "a string literal that does not end on its line");
            if (c == '"')
                break;
            if ((c < 0x20 && c != '\t') || c == 0x7f) /* a terminal escape, a CR: not a name or a meaning */
                return fail(r, "a control character (0x%02x) in a string literal", (unsigned)c);
            if (c == '\\') {
                advance(r);
                c = peek(r);
                if (c != '"' && c != '\\')
                    return fail(r, "escape '\\%c' in a string literal (only \\\" and \\\\ are read)", c < 0 ? '?' : c);
            }
            if (n + 1 >= cap)
                return fail(r, "%s longer than %zu characters", what, cap - 1);
            out[n++] = (char)c;
            advance(r);
        }
        advance(r); /* the closing quote */
        if (skip_space(r))
            return -1;
    }
    out[n] = '\0';
    return 0;
}

static int expect(struct reader *r, char c, const char *after)
{
    if (skip_space(r))
        return -1;
    if (peek(r) != c)
        return fail(r, "expected '%c' after %s", c, after);
    advance(r);
    return skip_space(r);
}

static int find_define(const struct reader *r, const char *name)
{
    for (int i = 0; i < r->n_consts; i++)
        if (!strcmp(r->const_name[i], name))
            return i;
    return -1;
}

/* "#ifndef X", "#define X", "#define X <integer>", "#endif": the preprocessor lines a
 * knobs.def has. Anything else is refused: the reader does not evaluate conditions, so
 * it takes them all as true, which holds for the include guard and nothing else; so a
 * #ifndef must name a macro not defined above it, cannot nest, and has its #endif. */
static int directive(struct reader *r)
{
    char word[DEF_NAME_MAX], name[DEF_NAME_MAX];
    if (r->row_end_line == r->line)
        return fail(r, "'#' after a KNOB row on its line (a preprocessor line begins its line)");
    advance(r); /* '#' */
    while (peek(r) == ' ' || peek(r) == '\t')
        advance(r);
    if (ident(r, word, "a preprocessor directive"))
        return -1;
    bool takes_name = !strcmp(word, "ifndef") || !strcmp(word, "define");
    if (!takes_name && strcmp(word, "endif"))
        return fail(r, "'#%s' (a knobs.def has only #ifndef, #define and #endif lines)", word);
    if (skip_line_space(r))
        return -1;
    if (takes_name && ident(r, name, "a macro name"))
        return -1;
    if (skip_line_space(r))
        return -1;
    if (!strcmp(word, "ifndef")) {
        if (r->guard_line)
            return fail(r, "'#ifndef %s' inside the #ifndef of line %d (a knobs.def has one include guard)", name,
                        r->guard_line);
        int i = find_define(r, name);
        if (i >= 0)
            return fail(r, "'#ifndef %s' after line %d defines it (the compiler would skip what it guards)", name,
                        r->const_line[i]);
        r->guard_line = r->line;
    } else if (!strcmp(word, "endif")) {
        if (!r->guard_line)
            return fail(r, "'#endif' without a #ifndef");
        r->guard_line = 0;
    } else {
        int v = 0;
        bool has_value = peek(r) != '\n' && peek(r) >= 0;
        if (r->n_consts == DEF_CONSTS_MAX)
            return fail(r, "more than %d #defines", DEF_CONSTS_MAX);
        if (find_define(r, name) >= 0)
            return fail(r, "macro '%s' defined twice", name);
        if (has_value && (integer(r, &v) || skip_line_space(r)))
            return -1;
        snprintf(r->const_name[r->n_consts], DEF_NAME_MAX, "%s", name);
        r->const_value[r->n_consts] = v;
        r->const_has_value[r->n_consts] = has_value;
        r->const_line[r->n_consts++] = r->line;
    }
    if (peek(r) >= 0 && peek(r) != '\n')
        return fail(r, "unexpected text after '#%s'", word);
    return 0;
}

static int knob_row(struct reader *r, struct def_row *row)
{
    char text[DEF_TEXT_MAX];
    memset(row, 0, sizeof *row);
    row->line = r->line;
    if (expect(r, '(', "KNOB") || ident(r, row->id, "the knob's id") || expect(r, ',', "the id") ||
        string(r, row->name, sizeof row->name, "the knob's name") || expect(r, ',', "the name") ||
        string(r, row->macro, sizeof row->macro, "the knob's macro") || expect(r, ',', "the macro") ||
        value(r, &row->default_value, "the default") || expect(r, ',', "the default") ||
        string(r, text, sizeof text, "the category") || expect(r, ',', "the category") ||
        string(r, text, sizeof text, "the meaning") || expect(r, ',', "the meaning"))
        return -1;
    for (;;) {
        int v;
        if (row->n_values == CROQ_KNOB_MAX_VALUES)
            return fail(r, "knob '%s' has more than %d values", row->name, CROQ_KNOB_MAX_VALUES);
        if (value(r, &v, "a value") || skip_space(r))
            return -1;
        for (int i = 0; i < row->n_values; i++)
            if (row->values[i] == v)
                return fail(r, "knob '%s' lists the value %d twice", row->name, v);
        row->values[row->n_values++] = v;
        if (peek(r) == ')')
            break;
        if (expect(r, ',', "a value"))
            return -1;
    }
    r->row_end_line = r->line;
    advance(r); /* ')' */
    bool has_default = false;
    for (int i = 0; i < row->n_values; i++)
        has_default |= row->values[i] == row->default_value;
    if (!has_default) {
        r->line = row->line;
        return fail(r, "knob '%s': the default %d is not among its values", row->name, row->default_value);
    }
    return 0;
}

/* Bytes the compiler and this reader would read differently: a NUL (the compiler stops
 * or warns, this reader's strings would end there), and a backslash ending a line (a line
 * splice: in a // comment it comments out the next line for the compiler). */
static int scan_bytes(struct reader *r)
{
    for (const char *q = r->p; q < r->end; q++) {
        if (*q == '\n')
            r->line++;
        else if (!*q)
            return fail(r, "a NUL byte (a knobs.def is text)");
        else if (*q == '\\' && ((q + 1 < r->end && q[1] == '\n') || (q + 2 < r->end && q[1] == '\r' && q[2] == '\n')))
            return fail(r, "a backslash at the end of the line (a line splice, which this reader does not follow)");
    }
    r->line = 1;
    return 0;
}

/* No #define names a knob's macro, this binary's or the text's own: it would stand in
 * the kernels' source beside (and after) the configuration's #define of that macro. */
static int defines_no_macro(struct reader *r, const struct def_row *rows, int n)
{
    for (int i = 0; i < r->n_consts; i++) {
        const char *name = r->const_name[i];
        bool knob = false;
        for (int k = 0; k < KNOB_COUNT; k++)
            knob |= !strcmp(croq_knobs[k].macro, name);
        for (int j = 0; j < n; j++)
            knob |= !strcmp(rows[j].macro, name);
        if (knob) {
            r->line = r->const_line[i];
            return fail(r, "'#define %s' defines a knob's macro (the kernels would read it, not the configuration's)",
                        name);
        }
    }
    return 0;
}

/* Every row of the text; 0 or -1 with r->err. */
static int read_rows(struct reader *r, struct def_row *rows, int *n)
{
    char word[DEF_NAME_MAX];
    *n = 0;
    if (scan_bytes(r))
        return -1;
    for (;;) {
        if (skip_space(r))
            return -1;
        if (peek(r) < 0) {
            if (r->guard_line) {
                r->line = r->guard_line;
                return fail(r, "this #ifndef has no #endif");
            }
            return defines_no_macro(r, rows, *n);
        }
        if (peek(r) == '#') {
            if (directive(r))
                return -1;
            continue;
        }
        if (ident(r, word, "a KNOB(...) row, a comment or a preprocessor line"))
            return -1;
        if (strcmp(word, "KNOB"))
            return fail(r, "'%s' (expected a KNOB(...) row, a comment or a preprocessor line)", word);
        if (*n == DEF_ROWS_MAX)
            return fail(r, "more than %d KNOB rows", DEF_ROWS_MAX);
        struct def_row *row = &rows[*n];
        if (knob_row(r, row))
            return -1;
        for (int i = 0; i < *n; i++)
            if (!strcmp(rows[i].name, row->name) || !strcmp(rows[i].macro, row->macro) || !strcmp(rows[i].id, row->id)) {
                r->line = row->line;
                return fail(r, "knob '%s' (id %s, macro %s) repeats the id, name or macro of line %d", row->name,
                            row->id, row->macro, rows[i].line);
            }
        (*n)++;
    }
}

void knob_space_full(struct knob_space *s, const char *owner)
{
    memset(s, 0, sizeof *s);
    snprintf(s->owner, sizeof s->owner, "%s", owner ? owner : "this croqtuner");
    for (int k = 0; k < KNOB_COUNT; k++) {
        s->declared[k] = true;
        s->knobs[k] = croq_knobs[k];
    }
}

static int value_index(const struct croq_knob *kn, int v)
{
    for (int i = 0; i < kn->n_values; i++)
        if (kn->values[i] == v)
            return i;
    return -1;
}

/* The value of kn nearest v (the lower of two as near): where knob_space_clamp moves v. */
static int nearest_value(const struct croq_knob *kn, int v)
{
    int to = kn->values[0];
    for (int i = 1; i < kn->n_values; i++) {
        long a = labs((long)kn->values[i] - v), b = labs((long)to - v);
        if (a < b || (a == b && kn->values[i] < to))
            to = kn->values[i];
    }
    return to;
}

/* Knob k of this binary against the generator's row of its name (NULL: it has none). */
static int space_knob(struct knob_space *s, int k, const struct def_row *row, char *err, size_t errlen)
{
    const struct croq_knob *mine = &croq_knobs[k];
    struct croq_knob *out = &s->knobs[k];
    *out = *mine;
    if (!row && k < KNOB_FIRST_LATE) { /* an early knob is in every configuration's text and #defines */
        snprintf(err, errlen, "%s has no knob '%s', which every configuration of this croqtuner sets (a knob "
                 "before KNOB_FIRST_LATE, src/knobs/knobs.h): its knobs.def is not an older form of this one",
                 s->owner, mine->name);
        return -1;
    }
    if (!row) {
        out->n_values = 1;
        out->values[0] = mine->default_value;
        s->restricted = true;
        return 0;
    }
    s->declared[k] = true;
    if (strcmp(row->macro, mine->macro)) {
        snprintf(err, errlen, "knobs.def line %d: %s declares knob '%s' with macro %s, this croqtuner with %s: "
                 "its kernels would not read the #define this croqtuner writes", row->line, s->owner, row->name,
                 row->macro, mine->macro);
        return -1;
    }
    if (k >= KNOB_FIRST_LATE && row->default_value != mine->default_value) {
        snprintf(err, errlen, "knobs.def line %d: %s declares late knob '%s' with default %d, this croqtuner with "
                 "%d: a late knob at its default is written nowhere, so the two would read one configuration "
                 "differently", row->line, s->owner, row->name, row->default_value, mine->default_value);
        return -1;
    }
    out->n_values = 0;
    for (int i = 0; i < mine->n_values; i++)
        for (int j = 0; j < row->n_values; j++)
            if (row->values[j] == mine->values[i])
                out->values[out->n_values++] = mine->values[i];
    if (!out->n_values) {
        snprintf(err, errlen, "knobs.def line %d: %s's knob '%s' shares no value with this croqtuner's", row->line,
                 s->owner, row->name);
        return -1;
    }
    s->restricted |= out->n_values != mine->n_values;
    /* a default the generator does not list: the value a start configuration is moved to
     * (knob_space_clamp), so the row's default is one of its values */
    if (value_index(out, mine->default_value) < 0)
        out->default_value = nearest_value(out, mine->default_value);
    return 0;
}

int knob_space_parse(struct knob_space *s, const char *owner, const char *text, size_t len, char *err,
                     size_t errlen)
{
    struct def_row *rows = malloc(DEF_ROWS_MAX * sizeof *rows);
    struct reader *r = malloc(sizeof *r);
    int n = 0, rc = -1;
    if (!rows || !r) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    *r = (struct reader){.p = text, .end = text + len, .line = 1, .err = err, .errlen = errlen};
    if (read_rows(r, rows, &n))
        goto out;
    memset(s, 0, sizeof *s);
    snprintf(s->owner, sizeof s->owner, "%s", owner ? owner : "the generator");
    rc = 0;
    for (int i = 0; i < n && !rc; i++) /* a macro of this binary's under another name: read unlike ours */
        for (int k = 0; k < KNOB_COUNT && !rc; k++)
            if (!strcmp(rows[i].macro, croq_knobs[k].macro) && strcmp(rows[i].name, croq_knobs[k].name)) {
                snprintf(err, errlen, "knobs.def line %d: %s declares macro %s as knob '%s', this croqtuner as knob "
                         "'%s': one macro under two names", rows[i].line, s->owner, rows[i].macro, rows[i].name,
                         croq_knobs[k].name);
                rc = -1;
            }
    for (int k = 0; k < KNOB_COUNT && !rc; k++) {
        const struct def_row *row = NULL;
        for (int i = 0; i < n && !row; i++)
            if (!strcmp(rows[i].name, croq_knobs[k].name))
                row = &rows[i];
        rc = space_knob(s, k, row, err, errlen);
    }
out:
    free(rows);
    free(r);
    return rc;
}

const struct croq_knob *knob_space_table(const struct knob_space *s) { return s ? s->knobs : croq_knobs; }


bool knob_space_allows(const struct knob_space *s, const struct croq_config *cfg, char *why, size_t whylen)
{
    if (!s || !s->restricted)
        return true;
    struct croq_config d;
    knobs_default(&d, cfg->dtype);
    for (int k = 0; k < KNOB_COUNT; k++) {
        const struct croq_knob *kn = &s->knobs[k];
        int v = cfg->v[k];
        if (!s->declared[k]) {
            if (v == d.v[k])
                continue;
            if (whylen)
                snprintf(why, whylen, "%s=%d: %s has no knob '%s' (its kernels implement only %s=%d)", kn->name, v,
                         s->owner, kn->name, kn->name, d.v[k]);
            return false;
        }
        if (value_index(kn, v) >= 0)
            continue;
        if (whylen) {
            int w = snprintf(why, whylen, "%s=%d: %s does not list this value of '%s' (it has", kn->name, v,
                             s->owner, kn->name);
            for (int i = 0; i < kn->n_values && w > 0 && (size_t)w < whylen; i++)
                w += snprintf(why + w, whylen - (size_t)w, "%s %d", i ? "," : "", kn->values[i]);
            if (w > 0 && (size_t)w < whylen)
                snprintf(why + w, whylen - (size_t)w, ")");
        }
        return false;
    }
    return true;
}

int knob_space_clamp(const struct knob_space *s, struct croq_config *cfg)
{
    int changed = 0;
    if (!s || !s->restricted)
        return 0;
    struct croq_config d;
    knobs_default(&d, cfg->dtype);
    for (int k = 0; k < KNOB_COUNT; k++) {
        const struct croq_knob *kn = &s->knobs[k];
        int v = cfg->v[k], to = v;
        if (!s->declared[k]) {
            to = d.v[k];
        } else if (value_index(kn, v) < 0) {
            to = nearest_value(kn, v);
        }
        changed += to != v;
        cfg->v[k] = to;
    }
    return changed;
}

void knob_space_describe(const struct knob_space *s, char *out, size_t len)
{
    size_t w = 0;
    if (!len)
        return;
    out[0] = '\0';
    for (int k = 0; s && k < KNOB_COUNT && w < len; k++) {
        const struct croq_knob *mine = &croq_knobs[k];
        if (!s->declared[k]) {
            w += (size_t)snprintf(out + w, len - w, "%sknob %s (held at %d)", w ? ", " : "", mine->name,
                                  mine->default_value);
            continue;
        }
        for (int i = 0; i < mine->n_values && w < len; i++)
            if (value_index(&s->knobs[k], mine->values[i]) < 0)
                w += (size_t)snprintf(out + w, len - w, "%s%s=%d", w ? ", " : "", mine->name, mine->values[i]);
    }
    if (!w)
        snprintf(out, len, "nothing");
    else if (w >= len && len > 4) /* cut: say so rather than end inside a name */
        memcpy(out + len - 4, "...", 4);
}
