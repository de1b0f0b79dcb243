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

/* Row i of s is a DISCARD that measured above the best so far before it (a gain within
 * the noise, or one that did not hold when measured again): the legend must not call it
 * "not faster". */
bool fig_discard_above(const struct report_shape *s, size_t i);
/* The best-so-far line drops at row i: the best was measured again and the engine took
 * that measurement as its reference (docs/engine.md, "Noise and sanity"). */
bool fig_best_remeasured(const struct report_shape *s, size_t i);

/* Each writes its .gp/.dat under o->dir and renders; true when rendered. */
bool fig_convergence(struct report_out *o, const struct report_shape *s);            /* shapes/<key>/convergence */
bool fig_bottleneck(struct report_out *o, const struct report_shape *s, const struct bn_list *l); /* shapes/<key>/bottlenecks */
/* figures/speedup-<dtype>-<scratch|best>-<part>: the sweep's best per shape against the
 * baseline and the vendors, one figure per dtype and run mode, each of at most
 * SPEEDUP_PER_FIGURE shapes (a sweep of 268 shapes in one figure was 11,766 px wide).
 * Fills out with the stems rendered and their titles; returns how many. */
#define SPEEDUP_PER_FIGURE 40
#define FIG_SPEEDUP_MAX 64
#define FIG_NAME_MAX 48
struct fig_speedup_list {
    size_t n;
    char names[FIG_SPEEDUP_MAX][FIG_NAME_MAX];
    char titles[FIG_SPEEDUP_MAX][160];
};
size_t fig_speedup(struct report_out *o, const struct report_sweep *sw, struct fig_speedup_list *out);
bool fig_pair(struct report_out *o, const struct report_shape *fcb, const struct report_shape *fs); /* pairs/<base_key>/fs-vs-fcb */
#endif
