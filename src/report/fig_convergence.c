/* src/report/fig_convergence.c — per shape: every iteration's TFLOPS marked by its
 * decision, the best-so-far step line, the baseline and the vendor lines. */
#include <math.h>
#include <stdio.h>

#include "report/figures.h"
#include "report/plot.h"
#include "report/stats.h"
#include "report/tables.h"

static const struct decision_style styles[RD_COUNT] = {
    [RD_BASELINE] = {"iteration 0 (baseline)", "#000000", 5, 1.3},
    [RD_KEEP] = {"KEEP (new best)", "#1a9850", 7, 1.0},
    [RD_DISCARD] = {"DISCARD (slower, or faster only within the noise)", "#9e9e9e", 6, 0.8},
    [RD_INCORRECT] = {"DISCARD_INCORRECT", "#d7191c", 2, 1.1},
    [RD_CRASH] = {"DISCARD_RUNTIME_CRASH", "#e66101", 8, 1.1},
    [RD_TIMEOUT] = {"DISCARD_TIMEOUT", "#5e3c99", 4, 1.1},
    [RD_OTHER] = {"other decision", "#000000", 3, 1.1},
};

const struct decision_style *fig_decision_style(enum report_decision d)
{
    return &styles[d >= 0 && d < RD_COUNT ? d : RD_OTHER];
}

void fig_vendor_label(char *buf, size_t len, const char *name, const struct vendor_value *v)
{
    snprintf(buf, len, "%s %.1f%s", name, v->tflops, v->src == VSRC_ANCHOR ? " (anchor, not same run)" : "");
}

static void widen(double *lo, double *hi, double v)
{
    if (!isfinite(v))
        return;
    if (isnan(*lo) || v < *lo)
        *lo = v;
    if (isnan(*hi) || v > *hi)
        *hi = v;
}

/* 1, 2, 2.5 or 5 times a power of ten, about span/6: a tick step. */
static double nice_step(double span)
{
    double raw = span / 6.0, p = pow(10.0, floor(log10(raw)));
    static const double m[] = {1, 2, 2.5, 5, 10};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (m[i] * p >= raw)
            return m[i] * p;
    return 10 * p;
}

void fig_conv_range(const struct report_shape *s, struct conv_range *r)
{
    double lo = NAN, hi = NAN;
    r->has_failed = false;
    for (size_t i = 0; i < s->n_rows; i++) {
        if (!report_decision_failed(s->rows[i].decision))
            widen(&lo, &hi, s->rows[i].tflops);
        else
            r->has_failed = true;
        widen(&lo, &hi, s->st.best_so_far[i]);
    }
    widen(&lo, &hi, s->st.baseline);
    widen(&lo, &hi, s->vendor.cublas.tflops);
    widen(&lo, &hi, s->vendor.sl_default.tflops);
    widen(&lo, &hi, s->vendor.sl_search.tflops);
    for (int k = 0; s->have_ladder && s->ladder.ok && k < s->ladder.n; k++)
        widen(&lo, &hi, s->ladder.e[k].tflops); /* the final ladder's points are drawn too */
    if (isnan(lo))
        lo = 0, hi = 1;
    double span = hi - lo > 1e-9 ? hi - lo : (hi > 0 ? hi * 0.1 : 1.0);
    /* The lowest labelled tick is at or below every value; failed candidates get a row
     * of their own one tick step below it, behind a dotted line, so no label collides. */
    r->tick_step = nice_step(span * 1.2);
    r->tick_start = floor(lo / r->tick_step) * r->tick_step;
    r->lo = r->tick_start - (r->has_failed ? 1.0 : 0.1) * r->tick_step;
    r->hi = hi + 0.06 * span;
    r->sep_y = r->tick_start - 0.4 * r->tick_step;
    r->fail_y = r->tick_start - 0.75 * r->tick_step;
    int last = s->st.iters_done > s->st.budget ? s->st.iters_done : s->st.budget;
    r->x_max = last + 1 + (s->have_ladder && s->ladder.ok); /* the ladder's column after the last */

}

bool fig_discard_above(const struct report_shape *s, size_t i)
{
    return i > 0 && s->rows[i].decision == RD_DISCARD && isfinite(s->rows[i].tflops) &&
           isfinite(s->st.best_so_far[i - 1]) && s->rows[i].tflops > s->st.best_so_far[i - 1];
}

bool fig_best_remeasured(const struct report_shape *s, size_t i)
{
    return i > 0 && isfinite(s->st.best_so_far[i]) && isfinite(s->st.best_so_far[i - 1]) &&
           s->st.best_so_far[i] < s->st.best_so_far[i - 1];
}

/* Columns 5 and 6 single out what the legend must not misname: a DISCARD that measured
 * above the best so far (its gain was within the noise, or did not hold when measured
 * again), and the rows where the best-so-far line drops because the best was measured
 * again and the engine keeps that measurement as its reference. */
static void conv_data(const struct report_shape *s, struct strbuf *d, bool *above, bool *remeasured)
{
    *above = *remeasured = false;
    strbuf_adds(d, "# iter\ttflops\tdecision\tbest_so_far\tdiscard_above_best\tbest_remeasured\n");
    for (size_t i = 0; i < s->n_rows; i++) {
        const struct report_row *r = &s->rows[i];
        bool a = fig_discard_above(s, i), m = fig_best_remeasured(s, i);
        *above |= a;
        *remeasured |= m;
        strbuf_addf(d, "%d\t", r->iter);
        plot_num(d, r->tflops);
        strbuf_addf(d, "\t%s\t", report_decision_name(r->decision));
        plot_num(d, s->st.best_so_far[i]);
        strbuf_adds(d, "\t");
        plot_num(d, a ? r->tflops : NAN);
        strbuf_adds(d, "\t");
        plot_num(d, m ? s->st.best_so_far[i] : NAN);
        strbuf_adds(d, "\n");
    }
    /* the final ladder: its entries at one x past the last iteration (they were timed
     * together after it), decision LADDER, the winner LADDER_WINNER; no best-so-far */
    if (!s->have_ladder || !s->ladder.ok)
        return;
    struct conv_range r;
    fig_conv_range(s, &r);
    for (int k = 0; k < s->ladder.n; k++) {
        strbuf_addf(d, "%d\t", r.x_max - 1);
        plot_num(d, s->ladder.e[k].tflops);
        strbuf_addf(d, "\t%s\tNaN\tNaN\tNaN\n", s->ladder.e[k].iter == s->ladder.winner_iter ? "LADDER_WINNER" : "LADDER");
    }
}

static void plot_hline(struct strbuf *sb, const char *var, double v, const char *label, const char *color, int dt)
{
    if (!isfinite(v))
        return;
    strbuf_addf(sb, ", \\\n    %s with lines dt %d lw 1.5 lc rgb \"%s\" title ", var, dt, color);
    plot_str(sb, label);
}

static void conv_vendor_lines(struct strbuf *sb, const struct report_shape *s)
{
    char label[128];
    if (isfinite(s->st.baseline)) {
        snprintf(label, sizeof label, "baseline %.1f", s->st.baseline);
        plot_hline(sb, "baseline", s->st.baseline, label, "#000000", 2);
    }
    const struct { const char *var, *name, *color; const struct vendor_value *v; int dt; } lines[] = {
        {"cublas", "cuBLAS dense", "#8c510a", &s->vendor.cublas, 4},
        {"sl_default", "cuSPARSELt default", "#c51b7d", &s->vendor.sl_default, 3},
        {"sl_search", "cuSPARSELt search", "#01665e", &s->vendor.sl_search, 5},
    };
    for (size_t i = 0; i < 3; i++) {
        fig_vendor_label(label, sizeof label, lines[i].name, lines[i].v);
        plot_hline(sb, lines[i].var, lines[i].v->tflops, label, lines[i].color, lines[i].dt);
    }
}

static void conv_points(struct strbuf *sb, const struct report_shape *s)
{
    static const enum report_decision order[] = {RD_DISCARD, RD_KEEP, RD_BASELINE, RD_INCORRECT,
                                                 RD_CRASH, RD_TIMEOUT, RD_OTHER};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        enum report_decision d = order[i];
        const struct decision_style *st = fig_decision_style(d);
        if (!s->st.n_decision[d])
            continue;
        char label[128];
        snprintf(label, sizeof label, "%s%s", st->label, report_decision_failed(d) ? " (no TFLOPS)" : "");
        strbuf_addf(sb, ", \\\n    '' using 1:(strcol(3) eq \"%s\" ? %s : NaN) with points pt %d ps %.1f*psc lc rgb \"%s\" title ",
                    report_decision_name(d), report_decision_failed(d) ? "fail_y" : "$2", st->gnuplot_pt, st->size,
                    st->color);
        plot_str(sb, label);
    }
}


int fig_iter_tick_step(int x_max)
{
    static const int steps[] = {1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (x_max / steps[i] <= 10)
            return steps[i];
    return 1000;
}

static void conv_script(const struct report_shape *s, struct strbuf *sb, bool above, bool remeasured)
{
    struct conv_range r;
    fig_conv_range(s, &r);
    char title[200];
    snprintf(title, sizeof title, "%s %ldx%ldx%ld (%s): TFLOPS of every iteration%s", s->dtype, s->m, s->n, s->k,
             s->from_scratch ? "from scratch" : "from current best", tables_sim_tag(s));
    plot_script_begin(sb, "convergence", title);
    strbuf_adds(sb, "ylo = ");
    plot_num(sb, r.lo);
    strbuf_adds(sb, "; yhi = ");
    plot_num(sb, r.hi);
    strbuf_adds(sb, "; fail_y = ");
    plot_num(sb, r.fail_y);
    strbuf_adds(sb, "   # failed candidates have no TFLOPS: drawn at fail_y\n");
    strbuf_adds(sb, "sep_y = ");
    plot_num(sb, r.sep_y);
    strbuf_adds(sb, "; tick_start = ");
    plot_num(sb, r.tick_start);
    strbuf_adds(sb, "; tick_step = ");
    plot_num(sb, r.tick_step);
    strbuf_adds(sb, "\n");
    const char *vars[] = {"baseline", "cublas", "sl_default", "sl_search"};
    double vals[] = {s->st.baseline, s->vendor.cublas.tflops, s->vendor.sl_default.tflops, s->vendor.sl_search.tflops};
    for (int i = 0; i < 4; i++) {
        strbuf_addf(sb, "%s = ", vars[i]);
        plot_num(sb, vals[i]);
        strbuf_adds(sb, "\n");
    }
    strbuf_adds(sb, "set title ");
    plot_str(sb, title);
    strbuf_addf(sb, "\nset xlabel \"iteration\"\nset ylabel \"TFLOPS (dense-equivalent, 2MNK/t)\"\n"
                    "set xrange [-1:%d]\nset xtics 0, %d\nset yrange [ylo:yhi]\nset xlabel offset 0,0.3\n"
                    "set bmargin 11\nset ytics tick_start, tick_step\n%s"
                    "set key outside below center horizontal maxrows 3 Left reverse samplen 2 width 2 font \",10\"\n",
                r.x_max, fig_iter_tick_step(r.x_max),
                r.has_failed ? "set ytics add (\"failed\" fail_y)\n"
                               "set arrow 1 from graph 0, first sep_y to graph 1, first sep_y nohead lc rgb \"#bbbbbb\" dt 3\n"
                             : "");
    plot_formats_begin(sb, 1000, 600);
    strbuf_adds(sb, "  plot 'convergence.dat' using 1:4 with steps lw 2 lc rgb \"#2166ac\" title \"best so far\"");
    conv_points(sb, s);
    if (above)
        strbuf_adds(sb, ", \\\n    '' using 1:5 with points pt 13 ps 1.1*psc lc rgb \"#636363\" title "
                        "\"DISCARD above the best (gain within the noise or not confirmed)\"");
    if (remeasured)
        strbuf_adds(sb, ", \\\n    '' using 1:6 with points pt 3 ps 1.6*psc lw 1.5 lc rgb \"#2166ac\" title "
                        "\"best measured again: the line follows the new measurement\"");
    if (s->have_ladder && s->ladder.ok)
        strbuf_adds(sb, ", \\\n    '' using 1:(strcol(3) eq \"LADDER\" ? $2 : NaN) with points pt 1 ps 1.2*psc lc rgb "
                        "\"#2166ac\" title \"final ladder (top configurations timed together)\", \\\n"
                        "    '' using 1:(strcol(3) eq \"LADDER_WINNER\" ? $2 : NaN) with points pt 5 ps 1.4*psc lc rgb "
                        "\"#2166ac\" title \"final ladder's winner: the registered best\"");
    conv_vendor_lines(sb, s);
    strbuf_adds(sb, "\n");
    plot_formats_end(sb);
}

bool fig_convergence(struct report_out *o, const struct report_shape *s)
{
    struct strbuf script = STRBUF_INIT, data = STRBUF_INIT;
    char dir[128];
    snprintf(dir, sizeof dir, "shapes/%s", s->key);
    bool above, remeasured;
    conv_data(s, &data, &above, &remeasured);
    conv_script(s, &script, above, remeasured);
    bool ok = plot_render(o, dir, "convergence", &script, &data, s->key);
    strbuf_release(&script);
    strbuf_release(&data);
    return ok;
}
