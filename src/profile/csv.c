/* src/profile/csv.c — RFC 4180 reader (see csv.h). One pass over the text with a
 * growable field buffer; a record is committed at an unquoted line end. */
#include "csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct growbuf {
    char *s;
    size_t n, cap;
};

static int buf_push(struct growbuf *b, char c)
{
    if (b->n + 1 >= b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        char *s = realloc(b->s, cap);
        if (!s)
            return -1;
        b->s = s;
        b->cap = cap;
    }
    b->s[b->n++] = c;
    b->s[b->n] = '\0';
    return 0;
}

struct parser {
    struct csv_table *t;
    struct csv_record rec; /* record being built */
    size_t rec_cap;
    size_t tab_cap;
    struct growbuf field;
};

static int field_commit(struct parser *p)
{
    if (p->rec.n == p->rec_cap) {
        size_t cap = p->rec_cap ? p->rec_cap * 2 : 16;
        char **f = realloc(p->rec.fields, cap * sizeof *f);
        if (!f)
            return -1;
        p->rec.fields = f;
        p->rec_cap = cap;
    }
    char *copy = strdup(p->field.s ? p->field.s : "");
    if (!copy)
        return -1;
    p->rec.fields[p->rec.n++] = copy;
    p->field.n = 0;
    if (p->field.s)
        p->field.s[0] = '\0';
    return 0;
}

static int record_commit(struct parser *p)
{
    if (field_commit(p))
        return -1;
    /* A line holding nothing (one empty field) is a blank line, not a record. */
    if (p->rec.n == 1 && !p->rec.fields[0][0]) {
        free(p->rec.fields[0]);
        p->rec.n = 0;
        return 0;
    }
    if (p->t->n == p->tab_cap) {
        size_t cap = p->tab_cap ? p->tab_cap * 2 : 8;
        struct csv_record *r = realloc(p->t->rows, cap * sizeof *r);
        if (!r)
            return -1;
        p->t->rows = r;
        p->tab_cap = cap;
    }
    p->t->rows[p->t->n++] = p->rec;
    p->rec = (struct csv_record){0};
    p->rec_cap = 0;
    return 0;
}

static void record_release(struct csv_record *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->fields[i]);
    free(r->fields);
    *r = (struct csv_record){0};
}

/* Skip to the character after the end of the current line. */
static const char *skip_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl ? nl + 1 : s + strlen(s);
}

static int parse_text(struct parser *p, const char *s, bool skip_tool_lines, char *err,
                      size_t errlen)
{
    bool at_line_start = true;
    while (*s) {
        if (at_line_start && skip_tool_lines && s[0] == '=' && s[1] == '=') {
            s = skip_line(s);
            continue;
        }
        at_line_start = false;
        char c = *s++;
        if (c == '"' && p->field.n == 0) {
            /* Quoted field: up to the closing quote; "" is a literal quote. */
            for (;;) {
                if (!*s) {
                    snprintf(err, errlen, "unterminated quoted field in record %zu", p->t->n + 1);
                    return -1;
                }
                if (s[0] == '"' && s[1] == '"') {
                    if (buf_push(&p->field, '"'))
                        goto oom;
                    s += 2;
                } else if (s[0] == '"') {
                    s++;
                    break;
                } else if (buf_push(&p->field, *s++)) {
                    goto oom;
                }
            }
            /* Tolerate blanks between the closing quote and the separator. */
            while (*s == ' ' || *s == '\t')
                s++;
        } else if (c == ',') {
            if (field_commit(p))
                goto oom;
        } else if (c == '\n' || (c == '\r' && *s == '\n')) {
            if (c == '\r')
                s++;
            if (record_commit(p))
                goto oom;
            at_line_start = true;
        } else if (buf_push(&p->field, c)) {
            goto oom;
        }
    }
    if ((p->field.n || p->rec.n) && record_commit(p))
        goto oom;
    return 0;
oom:
    snprintf(err, errlen, "out of memory reading CSV");
    return -1;
}

int csv_parse(const char *text, bool skip_tool_lines, struct csv_table *t, char *err, size_t errlen)
{
    struct parser p = {.t = t};
    *t = (struct csv_table){0};
    text = text ? text : "";
    if (!strncmp(text, "\xEF\xBB\xBF", 3)) /* a UTF-8 byte-order mark: not part of the first field */
        text += 3;
    int rc = parse_text(&p, text, skip_tool_lines, err, errlen);
    record_release(&p.rec);
    free(p.field.s);
    if (rc)
        csv_release(t);
    return rc;
}

void csv_release(struct csv_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        record_release(&t->rows[i]);
    free(t->rows);
    *t = (struct csv_table){0};
}
