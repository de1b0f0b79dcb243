/* src/report/figures.h — the report's figures (gnuplot, plot.h) and the numbers they
 * share with the interactive charts of the HTML page (same ranges, same labels).
 */
#ifndef CROQ_REPORT_FIGURES_H
#define CROQ_REPORT_FIGURES_H
#include <stdbool.h>
#include <stddef.h>

#include "report/bottleneck.h"
#include "report/model.h"
#include "report/out.h"

/* y range of a convergence plot, and the height at which candidates without a valid
 * TFLOPS (incorrect, crashed, timed out) are drawn: just above the bottom axis. */
struct conv_range {
    double lo, hi, fail_y;
    double sep_y;                 /* a dotted line between the failed row and the rest */
    double tick_start, tick_step; /* regular y ticks, starting above sep_y */
    bool has_failed;              /* any candidate without a valid TFLOPS: the failed row is drawn */
    int x_max;
};
void fig_conv_range(const struct report_shape *s, struct conv_range *r);

/* Whole-iteration x tic step for iterations 0..x_max, about ten tics: 1, 2, 5, 10, ... */
int fig_iter_tick_step(int x_max);

/* Legend text of a vendor line: "cuBLAS dense 662.7" + " (anchor, not same run)". */
void fig_vendor_label(char *buf, size_t len, const char *name, const struct vendor_value *v);

/* Marker style per decision, shared by gnuplot and dygraphs. */
struct decision_style {
    const char *label;   /* legend text */
    const char *color;   /* "#1a9850" */
    int gnuplot_pt;      /* gnuplot point type */
    double size;         /* gnuplot point size */
};
const struct decision_style *fig_decision_style(enum report_decision d);

/* Each writes its .gp/.dat under o->dir and renders; true when rendered. */
bool fig_convergence(struct report_out *o, const struct report_shape *s);            /* shapes/<key>/convergence */
bool fig_bottleneck(struct report_out *o, const struct report_shape *s, const struct bn_list *l); /* shapes/<key>/bottlenecks */
bool fig_speedup(struct report_out *o, const struct report_sweep *sw);               /* figures/speedup */
bool fig_pair(struct report_out *o, const struct report_shape *fcb, const struct report_shape *fs); /* pairs/<base_key>/fs-vs-fcb */
#endif
