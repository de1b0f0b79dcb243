/* src/report/read_ideas.c — logs/<key>/idea-log.jsonl: one JSON object per idea. The
 * report takes the justification metric (shown next to each KEEP) and the idea text
 * (used when results.tsv has none). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report/read.h"
#include "util/atomicio.h"
#include "util/log.h"

/* First string member among names, or NULL. */
static const char *json_str_any(json_t *o, const char *const *names)
{
    for (; *names; names++) {
        const char *v = json_string_value(json_object_get(o, *names));
        if (v)
            return v;
    }
    return NULL;
}

static void idea_take(struct report_shape *s, json_t *o, size_t *cap)
{
    static const char *const just[] = {"justification", "justification_metric", "metric", NULL};
    static const char *const text[] = {"idea", "text", NULL};
    const char *j = json_str_any(o, just);
    const char *t = json_str_any(o, text);
    if (s->n_ideas == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        s->ideas = xrealloc(s->ideas, *cap * sizeof *s->ideas);
    }
    s->ideas[s->n_ideas++] = (struct report_idea){
        .iter = (int)json_integer_value(json_object_get(o, "iter")),
        .justification = j ? xstrdup(j) : NULL,
        .idea = t ? xstrdup(t) : NULL,
    };
}

static void idea_line(struct report_shape *s, const char *line, int lineno, const char *rel,
                      struct report_notes *nl, size_t *cap)
{
    if (!*line)
        return;
    json_error_t err;
    json_t *o = json_loads(line, 0, &err);
    if (!o)
        notes_add(nl, NOTE_MALFORMED, s->key, "%s:%d: not JSON (%s)", rel, lineno, err.text);
    else if (!json_is_object(o) || !json_is_integer(json_object_get(o, "iter")))
        notes_add(nl, NOTE_MALFORMED, s->key, "%s:%d: not an object with an integer 'iter'", rel, lineno);
    else
        idea_take(s, o, cap);
    json_decref(o);
}

int idealog_read(struct report_shape *s, const char *path, const char *rel, struct report_notes *nl)
{
    size_t len, cap = 0;
    char *text = read_file(path, &len);
    if (!text)
        return -1;
    int lineno = 0;
    for (char *p = text; p < text + len;) {
        char *end = memchr(p, '\n', (size_t)(text + len - p));
        lineno++;
        if (!end) {
            notes_add(nl, NOTE_INFO, s->key, "%s:%d: last line has no newline (still being written?); ignored",
                      rel, lineno);
            break;
        }
        *end = '\0';
        idea_line(s, p, lineno, rel, nl, &cap);
        p = end + 1;
    }
    free(text);
    s->have_ideas = true;
    return 0;
}
