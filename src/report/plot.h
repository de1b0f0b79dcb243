/* src/report/plot.h — figures rendered by gnuplot. Each figure is a script STEM.gp and
 * its data STEM.dat, kept beside the rendered STEM.svg / STEM.pdf / STEM.png so authors
 * can restyle and re-run `gnuplot STEM.gp` in that folder.
 *
 * The script renders all three formats in one run (terminals svg, pdfcairo,
 * pngcairo). It writes to the name in the gnuplot variable `outbase` (default STEM);
 * the report passes a hidden temporary name and renames each output into place, so a
 * reader never sees a half-written figure.
 */
#ifndef CROQ_REPORT_PLOT_H
#define CROQ_REPORT_PLOT_H
#include <stdbool.h>

#include "report/out.h"
#include "util/strbuf.h"

/* Start a script: comment header, outbase default, TSV data, common style. */
void plot_script_begin(struct strbuf *sb, const char *stem, const char *what);
/* Open the loop over the three formats; the caller then writes its `plot` command. */
void plot_formats_begin(struct strbuf *sb, int width_px, int height_px);
void plot_formats_end(struct strbuf *sb);

/* Write dir/STEM.gp and dir/STEM.dat, run gnuplot there and move the three outputs into
 * place. dir is relative to o->dir; key names the shape for notes (may be NULL).
 * Returns true when all three formats were rendered; otherwise a note says why. */
bool plot_render(struct report_out *o, const char *dir, const char *stem, const struct strbuf *script,
                 const struct strbuf *data, const char *key);

/* Print a double for a gnuplot script or data file: "NaN" when not finite. */
void plot_num(struct strbuf *sb, double v);
/* A gnuplot string literal in double quotes (\\ and \" escaped, control chars dropped). */
void plot_str(struct strbuf *sb, const char *s);
#endif
