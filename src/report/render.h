/* src/report/render.h — what the HTML page needs to know about the files already
 * written: which figures rendered, whether dygraphs was copied. The page links only
 * files that exist. */
#ifndef CROQ_REPORT_RENDER_H
#define CROQ_REPORT_RENDER_H
#include <stdbool.h>

#include "report/bottleneck.h"
#include "report/figures.h"
#include "report/model.h"
#include "report/out.h"
#include "util/strbuf.h"

struct shape_files {
    bool convergence;  /* shapes/<key>/convergence.{svg,pdf,png} rendered */
    bool bottlenecks;  /* shapes/<key>/bottlenecks.* rendered */
    bool pair;         /* pairs/<base_key>/fs-vs-fcb.* rendered (from-current-best key only) */
    bool tables;       /* shapes/<key>/progression.* and bottlenecks.{csv,md,tex} written */
};

struct report_render {
    const struct report_sweep *sw;
    struct report_out *o;
    struct bn_list bn;
    struct shape_files *files;  /* per shape, same order as sw->shapes */
    struct fig_speedup_list speedup; /* figures/speedup-*.* rendered */
    bool has_pairs;             /* tables/fs-vs-fcb.* written */
    bool dygraphs;              /* dygraph.min.js and dygraph.css copied beside index.html */
    char generated[32];         /* UTC time of this report */
};

/* The whole page (html.c); a shape's section (html_shape.c). */
void html_page(const struct report_render *rr, struct strbuf *sb);
void html_shape(const struct report_render *rr, size_t i, struct strbuf *sb);

/* <a href="rel">text</a> if rel exists under the output dir, else nothing. */
void html_link_out(const struct report_render *rr, struct strbuf *sb, const char *rel, const char *text);
/* Same for a path relative to the tuning dir (linked through o->tuning_rel). Returns
 * whether it linked. */
bool html_link_tuning(const struct report_render *rr, struct strbuf *sb, const char *rel, const char *text);
/* "SVG · PDF · PNG · gnuplot script · data" links for a figure stem, or the table
 * formats "CSV · Markdown · LaTeX" (figure=false). */
void html_downloads(const struct report_render *rr, struct strbuf *sb, const char *stem, bool figure);
/* A shape's interactive convergence chart: divs plus its JSON data block. */
void html_dygraph(const struct report_shape *s, struct strbuf *sb);
/* The "Environment" section: GPU, driver, CUDA, commits and SM clocks (html_env.c). */
void html_environment(const struct report_render *rr, struct strbuf *sb);
/* <figure> with the SVG and links to all of the figure's files. */
void html_figure(const struct report_render *rr, struct strbuf *sb, const char *stem, const char *alt);
/* Same; deferred: the image's address in data-src, loaded by the page's script when the
 * shape's details open (a sweep page holds hundreds of figures). */
void html_figure_as(const struct report_render *rr, struct strbuf *sb, const char *stem, const char *alt,
                    bool deferred);
#endif
