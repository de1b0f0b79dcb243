/* src/report/notes.c — the list of missing / skipped items (notes.h). */
#include "report/notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/strbuf.h"

void notes_add(struct report_notes *nl, enum note_kind kind, const char *key, const char *fmt, ...)
{
    if (nl->n == nl->cap) {
        nl->cap = nl->cap ? 2 * nl->cap : 16;
        nl->v = xrealloc(nl->v, nl->cap * sizeof *nl->v);
    }
    char *text = NULL;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    text = xmalloc((size_t)len + 1);
    va_start(ap, fmt);
    vsnprintf(text, (size_t)len + 1, fmt, ap);
    va_end(ap);
    nl->v[nl->n++] = (struct report_note){kind, key ? xstrdup(key) : NULL, text};
}

const char *note_kind_name(enum note_kind kind)
{
    switch (kind) {
    case NOTE_MISSING: return "missing";
    case NOTE_MALFORMED: return "skipped";
    default: return "note";
    }
}

size_t notes_count(const struct report_notes *nl, enum note_kind kind, const char *key)
{
    size_t c = 0;
    for (size_t i = 0; i < nl->n; i++)
        if (nl->v[i].kind == kind && (!key || (nl->v[i].key && !strcmp(nl->v[i].key, key))))
            c++;
    return c;
}

void notes_release(struct report_notes *nl)
{
    for (size_t i = 0; i < nl->n; i++) {
        free(nl->v[i].key);
        free(nl->v[i].text);
    }
    free(nl->v);
    *nl = (struct report_notes){0};
}
