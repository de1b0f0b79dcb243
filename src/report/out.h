/* src/report/out.h — the report's output directory: every file written atomically
 * (util/atomicio.h) under it, parents created, failures counted so the command can
 * exit non-zero; and the relative path from it back to the tuning directory, so the
 * page links the artifacts and still works when both are copied together.
 */
#ifndef CROQ_REPORT_OUT_H
#define CROQ_REPORT_OUT_H
#include <stdbool.h>
#include <stddef.h>

#include "report/notes.h"
#include "report/table.h"
#include "util/strbuf.h"

struct report_out {
    char *dir;           /* the output directory, as given */
    char *tuning_rel;    /* tuning dir relative to dir ("..") */
    char *tuning_dir;
    const char *gnuplot; /* program name or path */
    bool gnuplot_missing;
    int failures;        /* files that could not be written */
    struct report_notes *notes;
};

/* Create dir, check that a file can be created in it, and compute tuning_rel. 0, or -1
 * with one message logged (a directory that is not writable says so and suggests --out). */
int out_init(struct report_out *o, const char *dir, const char *tuning_dir, struct report_notes *notes);
void out_release(struct report_out *o);

/* Write rel (relative to o->dir) atomically, creating its directory. 0 or -1 (counted;
 * the first failure of a run is logged). */
int out_write(struct report_out *o, const char *rel, const char *data, size_t len);
int out_write_sb(struct report_out *o, const char *rel, const struct strbuf *sb);
/* Count a file of the report that could not be written (err: its errno); the first is logged. */
void out_failed(struct report_out *o, const char *path, int err);
/* Write stem.csv, stem.md and stem.tex. */
void out_write_table(struct report_out *o, const char *stem, const struct report_table *t);
/* Does rel (relative to o->dir) exist? */
bool out_exists(const struct report_out *o, const char *rel);
/* Does rel (relative to the tuning dir) exist? */
bool out_tuning_exists(const struct report_out *o, const char *rel);

/* snprintf for file paths: -1 (and errno ENAMETOOLONG) when the result did not fit,
 * so a cut path is never used. */
int report_path_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Path of `to` relative to directory `from_dir` (both existing). NULL on error. */
char *report_relpath(const char *from_dir, const char *to);
#endif
