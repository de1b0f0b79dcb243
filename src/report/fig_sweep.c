/* src/report/fig_sweep.c — sweep-level figures: best TFLOPS per shape against the
 * baseline and the vendors (one figure per dtype and run mode, split into parts of at
 * most SPEEDUP_PER_FIGURE shapes), and from-scratch vs from-current-best best-so-far curves. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "target/dtype.h"
#include "report/figures.h"
#include "report/plot.h"
#include "report/stats.h"

static bool any_anchor(const struct report_shape *s)
{
    return s->vendor.cublas.src == VSRC_ANCHOR || stats_sparselt(&s->vendor).src == VSRC_ANCHOR;
}

/* The shapes of one figure: one dtype and run mode, at most SPEEDUP_PER_FIGURE of them
 * (the part-th slice), so no figure is wider than a page however many shapes a sweep has. */
struct speedup_part {
    const char *dtype;
    bool from_scratch;
    size_t first, count; /* which of the group's started shapes, in sweep order */
};

static bool in_group(const struct report_shape *s, const char *dtype, bool from_scratch)
{
    return s->n_rows && !strcmp(s->dtype, dtype) && s->from_scratch == from_scratch;
}

/* Returns how many shapes it wrote; *anchors: whether any vendor bar is an anchor;
 * has[j]: whether column j + 2 holds any number (gnuplot refuses an all-NaN histogram);
 * *longest: the longest shape label, in characters. */
static size_t speedup_data(const struct report_sweep *sw, const struct speedup_part *p, struct strbuf *d,
                           bool *anchors, bool has[4], size_t *longest)
{
    size_t n = 0, seen = 0;
    *anchors = false;
    *longest = 0;
    has[0] = has[1] = has[2] = has[3] = false;
    strbuf_adds(d, "shape\tbaseline\tbest (this tuner)\tcuBLAS dense\tcuSPARSELt (best of default, search)\n");
    for (size_t i = 0; i < sw->n_shapes; i++) {
        const struct report_shape *s = &sw->shapes[i];
        if (!in_group(s, p->dtype, p->from_scratch) || seen++ < p->first || n == p->count)
            continue; /* not started: nothing of ours to compare */
        size_t at = d->len;
        strbuf_addf(d, "%ldx%ldx%ld%s%s\t", s->m, s->n, s->k, any_anchor(s) ? " *" : "", s->simulated ? " sim" : "");
        *longest = d->len - at - 1 > *longest ? d->len - at - 1 : *longest;
        *anchors |= any_anchor(s);
        n++;
        double v[] = {s->st.baseline, s->st.best, s->vendor.cublas.tflops, stats_sparselt(&s->vendor).tflops};
        for (int j = 0; j < 4; j++) {
            has[j] |= isfinite(v[j]);
            plot_num(d, v[j]);
            strbuf_adds(d, j < 3 ? "\t" : "\n");
        }
    }
    return n;
}

static bool any_sim(const struct report_sweep *sw)
{
    for (size_t i = 0; i < sw->n_shapes; i++)
        if (sw->shapes[i].simulated && sw->shapes[i].n_rows)
            return true;
    return false;
}

static bool speedup_part(struct report_out *o, const struct report_sweep *sw, const struct speedup_part *p,
                         size_t part, size_t parts, struct fig_speedup_list *out)
{
    struct strbuf sb = STRBUF_INIT, d = STRBUF_INIT;
    bool anchors, has[4];
    char name[FIG_NAME_MAX], title[160];
    size_t longest;
    size_t rows = speedup_data(sw, p, &d, &anchors, has, &longest);
    if (!rows || !(has[0] || has[1] || has[2] || has[3]) || out->n == FIG_SPEEDUP_MAX) {
        strbuf_release(&d);
        return false;
    }
    const char *mode = p->from_scratch ? "scratch" : "best";
    snprintf(name, sizeof name, "speedup-%s-%s-%zu", p->dtype, mode, part + 1);
    /* a simulated sweep has no vendor numbers: the title names only what is drawn */
    bool vendors = has[2] || has[3];
    snprintf(title, sizeof title, "%s, %s: best kernel per shape vs %s", p->dtype,
             p->from_scratch ? "from scratch" : "from the current best",
             vendors ? "baseline and vendor libraries" : "the baseline kernel");
    if (parts > 1)
        snprintf(title + strlen(title), sizeof title - strlen(title), " (part %zu of %zu)", part + 1, parts);
    plot_script_begin(&sb, name, vendors ? "best TFLOPS per shape vs the baseline kernel, cuBLAS and cuSPARSELt"
                                         : "best TFLOPS per shape vs the baseline kernel");
    strbuf_adds(&sb, "set title \"");
    strbuf_adds(&sb, title);
    strbuf_adds(&sb, "\"\nset style data histograms\nset style histogram clustered gap 1\n"
                     "set style fill solid 0.9 border rgb \"white\"\nset yrange [0:*]\n"
                     "set ylabel \"TFLOPS (dense-equivalent, 2MNK/t)\"\n"
                     "set xlabel \"shape (MxNxK)\"\n"
                     "set xtics rotate by -35 left font \",9\"\nset rmargin 10\n"
                     "set key inside top left vertical Left reverse opaque font \",10\"\n");
    /* Room below the axis for the rotated shape labels and the x label under them: a label
     * of L characters at font 9 drops about 0.35 L lines of the default font at -35 degrees
     * (sin 35 x the narrower glyphs), plus 2 lines for the x label and 1 of air. */
    int bmargin = 3 + (int)(0.35 * (double)longest + 0.999);
    strbuf_addf(&sb, "set bmargin %d\n", bmargin);
    if (anchors)
        strbuf_adds(&sb, "set label \"* vendor bars are anchors (not same run)\" at screen 0.01, screen 0.03 font \",9\"\n");
    if (any_sim(sw)) /* top right: the x label sits at the bottom centre */
        strbuf_adds(&sb, "set label \"sim: simulated backend, not GPU measurements\" at screen 0.99, screen 0.97 right "
                         "font \",9\"\n");
    /* One cluster of bars per shape, 28 px each: a part of SPEEDUP_PER_FIGURE shapes is
     * at most 1320 px wide, legible on a page and in a paper column when scaled. */
    int width = (int)rows * 28 + 200 > 900 ? (int)rows * 28 + 200 : 900;
    /* taller by what the margin takes beyond the 8 lines it had, ~14 px a line */
    plot_formats_begin(&sb, width, 520 + (bmargin > 8 ? (bmargin - 8) * 14 : 0));
    /* The shape labels ride on the first plotted column; a vendor with no number at all
     * (a simulated sweep has none) is left out of the key rather than failing the plot. */
    static const char *const colour[4] = {"#bdbdbd", "#2166ac", "#8c510a", "#c51b7d"};
    bool first = true;
    for (int j = 0; j < 4; j++) {
        if (!has[j])
            continue;
        if (first)
            strbuf_addf(&sb, "  plot '%s.dat' using %d:xtic(1)", name, j + 2);
        else
            strbuf_addf(&sb, ", \\\n    '' using %d", j + 2);
        strbuf_addf(&sb, " title columnheader(%d) lc rgb \"%s\"", j + 2, colour[j]);
        first = false;
    }
    strbuf_adds(&sb, "\n");
    plot_formats_end(&sb);
    bool ok = plot_render(o, "figures", name, &sb, &d, NULL);
    strbuf_release(&sb);
    strbuf_release(&d);
    if (ok) {
        snprintf(out->names[out->n], FIG_NAME_MAX, "%s", name);
        snprintf(out->titles[out->n], sizeof out->titles[0], "%s", title);
        out->n++;
    }
    return ok;
}

size_t fig_speedup(struct report_out *o, const struct report_sweep *sw, struct fig_speedup_list *out)
{
    memset(out, 0, sizeof *out);
    for (int t = 0; t < CROQ_DTYPE_COUNT; t++)
        for (int m = 0; m < 2; m++) {
            struct speedup_part p = {croq_dtype_name(t), m == 0, 0, SPEEDUP_PER_FIGURE};
            size_t n = 0;
            for (size_t i = 0; i < sw->n_shapes; i++)
                n += in_group(&sw->shapes[i], p.dtype, p.from_scratch);
            size_t parts = (n + SPEEDUP_PER_FIGURE - 1) / SPEEDUP_PER_FIGURE;
            /* equal parts, so the last is not a stub of one or two shapes */
            size_t per = parts ? (n + parts - 1) / parts : 0;
            for (size_t k = 0; k < parts; k++) {
                p.first = k * per;
                p.count = per;
                speedup_part(o, sw, &p, k, parts, out);
            }
        }
    return out->n;
}

/* Best-so-far of s after iteration it (NaN past its last row). */
static double best_at(const struct report_shape *s, int it)
{
    double v = NAN;
    if (!s->n_rows || it > s->rows[s->n_rows - 1].iter)
        return NAN;
    for (size_t i = 0; i < s->n_rows && s->rows[i].iter <= it; i++)
        v = s->st.best_so_far[i];
    return v;
}

static void pair_data(const struct report_shape *fcb, const struct report_shape *fs, struct strbuf *d)
{
    int last = fcb->st.iters_done > fs->st.iters_done ? fcb->st.iters_done : fs->st.iters_done;
    strbuf_adds(d, "iter\tfrom current best\tfrom scratch\n");
    for (int it = 0; it <= last; it++) {
        strbuf_addf(d, "%d\t", it);
        plot_num(d, best_at(fcb, it));
        strbuf_adds(d, "\t");
        plot_num(d, best_at(fs, it));
        strbuf_adds(d, "\n");
    }
}

bool fig_pair(struct report_out *o, const struct report_shape *fcb, const struct report_shape *fs)
{
    struct strbuf sb = STRBUF_INIT, d = STRBUF_INIT;
    char title[200], dir[128];
    snprintf(title, sizeof title, "%s %ldx%ldx%ld: best so far, from scratch vs from current best", fcb->dtype,
             fcb->m, fcb->n, fcb->k);
    snprintf(dir, sizeof dir, "pairs/%s", fcb->base_key);
    pair_data(fcb, fs, &d);
    plot_script_begin(&sb, "fs-vs-fcb", title);
    strbuf_adds(&sb, "set title ");
    plot_str(&sb, title);
    int last = fcb->st.iters_done > fs->st.iters_done ? fcb->st.iters_done : fs->st.iters_done;
    strbuf_addf(&sb, "\nset xlabel \"iteration\"\nset ylabel \"best TFLOPS so far (dense-equivalent)\"\n"
                     "set xtics 0, %d\nset key bottom right Left reverse\n", fig_iter_tick_step(last));
    plot_formats_begin(&sb, 900, 480);
    strbuf_adds(&sb, "  plot 'fs-vs-fcb.dat' using 1:2 with steps lw 2 lc rgb \"#2166ac\" title columnheader(2), \\\n"
                     "    '' using 1:3 with steps lw 2 dt 2 lc rgb \"#d6604d\" title columnheader(3)\n");
    plot_formats_end(&sb);
    bool ok = plot_render(o, dir, "fs-vs-fcb", &sb, &d, fcb->key);
    strbuf_release(&sb);
    strbuf_release(&d);
    return ok;
}
