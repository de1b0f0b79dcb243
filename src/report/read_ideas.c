/* src/report/read_ideas.c — logs/<key>/idea-log.jsonl: one JSON object per idea, read
 * leniently by src/artifacts (idea_parse_lenient). The report takes the justification
 * metric (shown next to each KEEP) and the idea text (used when results.tsv has none). */
#include <stdlib.h>
#include <string.h>

#include "artifacts/ideas.h"
#include "report/read.h"
#include "util/atomicio.h"
#include "util/log.h"

static void idea_line(struct report_shape *s, const char *line, int lineno, const char *rel,
                      struct report_notes *nl, size_t *cap)
{
    struct idea_brief b;
    char err[200];
    if (!*line)
        return;
    int rc = idea_parse_lenient(line, &b, err, sizeof err);
    if (rc == -1) {
        notes_add(nl, NOTE_MALFORMED, s->key, "%s:%d: not JSON (%s)", rel, lineno, err);
        return;
    }
    if (rc) {
        notes_add(nl, NOTE_MALFORMED, s->key, "%s:%d: not an object with an integer 'iter'", rel, lineno);
        return;
    }
    if (s->n_ideas == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        s->ideas = xrealloc(s->ideas, *cap * sizeof *s->ideas);
    }
    s->ideas[s->n_ideas++] = (struct report_idea){.iter = b.iter, .justification = b.justification, .idea = b.idea};
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
