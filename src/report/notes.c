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

struct note_group *notes_group(const struct report_notes *nl, size_t *ng)
{
    struct note_group *g = NULL;
    size_t n = 0;
    for (size_t i = 0; i < nl->n; i++) {
        size_t j = 0;
        while (j < n && !(g[j].kind == nl->v[i].kind && !strcmp(g[j].text, nl->v[i].text)))
            j++;
        if (j == n) {
            g = xrealloc(g, (n + 1) * sizeof *g);
            g[n++] = (struct note_group){nl->v[i].kind, nl->v[i].text, NULL, 0};
        }
        g[j].idx = xrealloc(g[j].idx, (g[j].n + 1) * sizeof *g[j].idx);
        g[j].idx[g[j].n++] = i;
    }
    *ng = n;
    return g;
}

void note_groups_release(struct note_group *g, size_t ng)
{
    for (size_t i = 0; i < ng; i++)
        free(g[i].idx);
    free(g);
}

void note_group_format(const struct report_notes *nl, const struct note_group *g, size_t max_keys,
                       struct strbuf *out)
{
    const char *key0 = nl->v[g->idx[0]].key;
    if (g->n == 1) {
        strbuf_addf(out, "%s%s%s", key0 ? key0 : "", key0 ? ": " : "", g->text);
        return;
    }
    strbuf_addf(out, "%s (x%zu", g->text, g->n);
    size_t shown = 0;
    for (size_t i = 0; i < g->n && shown < max_keys; i++) {
        const char *k = nl->v[g->idx[i]].key;
        if (k)
            strbuf_addf(out, "%s%s", shown++ ? ", " : ": ", k);
    }
    strbuf_adds(out, shown < g->n ? (shown ? ", ...)" : ")") : ")");
}
