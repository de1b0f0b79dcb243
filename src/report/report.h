/* src/report/report.h — `croqtuner report`: read a tuning directory and write the
 * report (tables, figures, one HTML page) into an output directory. docs/report.md
 * describes every output file.
 */
#ifndef CROQ_REPORT_REPORT_H
#define CROQ_REPORT_REPORT_H
#include <stdbool.h>
#include <stdio.h>

struct report_opts {
    const char *tuning_dir;   /* required */
    const char *out_dir;      /* NULL: <tuning_dir>/report */
    const char *anchors;      /* vendor anchors JSON; NULL: none */
    const char *gnuplot;      /* NULL: "gnuplot" from PATH */
    const char *dygraphs_dir; /* NULL: /usr/share/javascript/dygraphs */
    bool link_dygraphs;       /* OUT's dygraph.min.js and dygraph.css: relative symbolic links to
                                 dygraphs_dir's instead of copies (one vendored copy in a
                                 repository, results/vendor/dygraphs) */
};

/* 0: report written (possibly partial: notes say what is missing); 1: no tuning data
 * or an output file could not be written (message on stderr). A one-line summary and
 * the path of index.html go to out. */
int report_run(const struct report_opts *opts, FILE *out);

/* The default anchors file: $CROQ_ANCHORS, else shared/data/vendor-anchors-h200.json
 * found by datafile_find (util/datafile.h: next to the source tree or the binary, then
 * under the current directory or its parent), so a report run from anywhere finds it.
 * NULL if none exists. The path is static: not thread-safe. */
const char *report_default_anchors(void);
#endif
