/* src/report/notes.h — what the report could not show and why: missing artifacts,
 * malformed lines that were skipped, partial runs. Collected while reading, printed on
 * stderr, listed in the HTML page and in notes.txt, so a partial tuning directory
 * gives a partial report that says what is missing instead of failing.
 */
#ifndef CROQ_REPORT_NOTES_H
#define CROQ_REPORT_NOTES_H
#include <stddef.h>

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
#endif
