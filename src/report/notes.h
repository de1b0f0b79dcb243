/* src/report/notes.h — what the report could not show and why: missing artifacts,
 * malformed lines that were skipped, partial runs. Collected while reading, printed on
 * stderr, listed in the HTML page and in notes.txt, so a partial tuning directory
 * gives a partial report that says what is missing instead of failing.
 */
#ifndef CROQ_REPORT_NOTES_H
#define CROQ_REPORT_NOTES_H
#include <stddef.h>

#include "util/strbuf.h"

enum note_kind {
    NOTE_MISSING = 0,  /* an artifact that should be there is not */
    NOTE_MALFORMED,    /* a file or line that could not be read; skipped */
    NOTE_INFO          /* partial but expected (mid-run shape, anchors used) */
};

struct report_note {
    enum note_kind kind;
    char *key;         /* shape key, or NULL for the whole sweep */
    char *text;
};

struct report_notes {
    struct report_note *v;
    size_t n, cap;
};

void notes_add(struct report_notes *nl, enum note_kind kind, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *note_kind_name(enum note_kind kind); /* "missing", "skipped", "note" */
/* How many notes of kind (for key, or for any key when key is NULL). */
size_t notes_count(const struct report_notes *nl, enum note_kind kind, const char *key);
void notes_release(struct report_notes *nl);

/* Notes of one kind with the same text, in the order their first one was added: a sweep
 * of hundreds of shapes gives one line per repeated note, not hundreds (stderr, the
 * page; notes.txt keeps every note). idx[0..n) index nl->v. */
struct note_group {
    enum note_kind kind;
    const char *text;
    size_t *idx, n;
};
/* Keys a group's line names (stderr, the page); all are in notes.txt. */
#define NOTE_KEYS_SHOWN 8
/* The groups of nl (malloc'd, *ng of them); release with note_groups_release. */
struct note_group *notes_group(const struct report_notes *nl, size_t *ng);
void note_groups_release(struct note_group *g, size_t ng);
/* One group as text: "KEY: TEXT" for a single note ("TEXT" without a key), else
 * "TEXT (xN: KEY1, KEY2, ...)" naming at most max_keys keys, then "...". */
void note_group_format(const struct report_notes *nl, const struct note_group *g, size_t max_keys,
                       struct strbuf *out);
#endif
