/* src/report/tables.c — building the report's tables (tables.h). */
#include "report/tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "report/sweep.h"
#include "util/log.h"

const char *tables_run_name(const struct report_shape *s)
{
    return s->from_scratch ? "from-scratch" : "from-current-best";
}

const char *tables_sim_tag(const struct report_shape *s) { return s->simulated ? " [SIMULATED]" : ""; }

/* The marker of a measured vendor value: how its compare timed the subjects (VENDOR_LEGEND). */
static const char *protocol_marker(const struct report_vendor *v)
{
    return v->protocol == VPROTO_INTERLEAVED ? " [i]" : " [b]";
}

/* What the last three columns mean: said under the table. */
#define CONVERGENCE_LEGEND                                                                                   \
    "; 95 % of best at iteration: the first iteration whose running best reached 95 % of the final one; "  \
    "wall: seconds from the run's first results.tsv row to its last, a pause (a run cut and resumed later) " \
    "counted as its median gap between rows"

#define VENDOR_LEGEND                                                                                        \
    "; vendor source [i]: measured by a compare that timed the vendors and ours interleaved, round by "    \
    "round at one clock; [b]: by an older compare that timed them one after the other in blocks"

static const char *vendor_source(const struct report_shape *s, char *buf, size_t len)
{
    struct vendor_value sl = stats_sparselt(&s->vendor);
    enum vendor_src a = s->vendor.cublas.src, b = sl.src;
    if (a == VSRC_NONE && b == VSRC_NONE)
        return "";
    if ((a == VSRC_ANCHOR || a == VSRC_NONE) && (b == VSRC_ANCHOR || b == VSRC_NONE))
        return "anchor (not same run)";
    snprintf(buf, len, "measured%s%s", protocol_marker(&s->vendor),
             a == VSRC_ANCHOR || b == VSRC_ANCHOR ? " + anchor" : "");
    return buf;
}

static bool has_measured_vendor(const struct report_shape *s)
{
    return s->vendor.cublas.src == VSRC_MEASURED || stats_sparselt(&s->vendor).src == VSRC_MEASURED;
}

enum {
    S_M, S_N, S_K, S_DTYPE, S_RUN, S_BACKEND, S_STATUS, S_DONE, S_BUDGET, S_BASE, S_BEST, S_PEAK, S_SAME,
    S_CUBLAS, S_SL, S_VSRC, S_XBASE, S_XCUBLAS, S_XSL, S_CLOCK, S_REACH95, S_BUSY, S_NCOLS
};

static void summary_cols(struct report_table *t)
{
    static const struct { const char *h; bool right; } cols[S_NCOLS] = {
        {"M", true}, {"N", true}, {"K", true}, {"dtype", false}, {"run", false}, {"backend", false},
        {"status", false}, {"iterations done", true}, {"budget", true}, {"baseline (TFLOPS)", true},
        {"best (TFLOPS)", true}, {"% of peak", true}, {"best in the vendors' run (TFLOPS)", true},
        {"cuBLAS dense (TFLOPS)", true},
        {"cuSPARSELt (TFLOPS)", true}, {"vendor source", false}, {"speed-up vs baseline", true},
        {"speed-up vs cuBLAS", true}, {"speed-up vs cuSPARSELt", true}, {"best at SM clock (MHz)", true},
        {"95 % of best at iteration", true}, {"wall (s)", true},
    };
    for (int c = 0; c < S_NCOLS; c++)
        table_col(t, (size_t)c, cols[c].h, cols[c].right);
}

struct speedups {
    double base, cublas, sl;
};

/* Against the vendors, the best as re-measured in their run when there is one: the
 * tuning run's figure comes from another process and may sit a few % apart. */
static struct speedups speedups_of(const struct report_shape *s)
{
    double same = stats_best_same_run(s), ours = isfinite(same) ? same : s->st.best;
    double base = report_best_speedup(s);
    return (struct speedups){base,
                             stats_ratio(ours, s->vendor.cublas.tflops),
                             stats_ratio(ours, stats_sparselt(&s->vendor).tflops)};
}

static void summary_row(struct report_table *t, const struct report_shape *s)
{
    size_t r = table_row(t, false);
    struct speedups x = speedups_of(s);
    table_int(t, r, S_M, s->m);
    table_int(t, r, S_N, s->n);
    table_int(t, r, S_K, s->k);
    table_text(t, r, S_DTYPE, s->dtype);
    table_text(t, r, S_RUN, tables_run_name(s));
    table_text(t, r, S_BACKEND, s->simulated ? "sim (SIMULATED)" : "gpu");
    table_text(t, r, S_STATUS, s->status);
    table_int(t, r, S_DONE, s->st.iters_done);
    if (s->st.budget > 0)
        table_int(t, r, S_BUDGET, s->st.budget);
    table_num(t, r, S_BASE, s->st.baseline, 1);
    table_num(t, r, S_BEST, s->st.best, 1);
    table_num(t, r, S_PEAK, s->st.best_hw_eff, 1);
    table_num(t, r, S_SAME, stats_best_same_run(s), 1);
    table_num(t, r, S_CUBLAS, s->vendor.cublas.tflops, 1);
    table_num(t, r, S_SL, stats_sparselt(&s->vendor).tflops, 1);
    char vsrc[48];
    table_text(t, r, S_VSRC, vendor_source(s, vsrc, sizeof vsrc));
    table_ratio(t, r, S_XBASE, x.base, 2);
    table_ratio(t, r, S_XCUBLAS, x.cublas, 2);
    table_ratio(t, r, S_XSL, x.sl, 2);
    table_num(t, r, S_CLOCK, s->st.best_clock_mhz, 0);
    if (s->st.reach95_iter >= 0)
        table_int(t, r, S_REACH95, s->st.reach95_iter);
    table_num(t, r, S_BUSY, s->st.busy_s, 0);
}

/* The run counted for a shape in the vendor geometric means: of its from-current-best
 * and from-scratch runs, the one with the higher best, so a shape tuned twice counts once. */
static bool counts_in_geomean(const struct report_sweep *sw, const struct report_shape *s)
{
    const struct report_shape *p = sweep_partner(sw, s);
    if (!isfinite(s->st.best))
        return false;
    if (!p || !isfinite(p->st.best))
        return true;
    return s->st.best > p->st.best || (s->st.best == p->st.best && !s->from_scratch);
}

static size_t count_simulated(const struct report_sweep *sw)
{
    size_t sim = 0;
    for (size_t i = 0; i < sw->n_shapes; i++)
        sim += sw->shapes[i].simulated;
    return sim;
}

void tables_summary(const struct report_sweep *sw, struct report_table *t)
{
    bool measured = false;
    for (size_t i = 0; i < sw->n_shapes; i++)
        measured |= has_measured_vendor(&sw->shapes[i]);
    char caption[1024];
    snprintf(caption, sizeof caption, "%s%s%s",
             count_simulated(sw) ? "Sweep summary: best TFLOPS per shape and speed-ups (dense-equivalent 2MNK/t); "
                                   "rows of backend sim are the simulated backend's, not GPU measurements"
                                 : "Sweep summary: best TFLOPS per shape and speed-ups (dense-equivalent 2MNK/t)",
             CONVERGENCE_LEGEND,
             measured ? VENDOR_LEGEND : "");
    table_init(t, caption, S_NCOLS);
    summary_cols(t);
    for (size_t i = 0; i < sw->n_shapes; i++)
        summary_row(t, &sw->shapes[i]);
}

/* ---- geometric means ---------------------------------------------------------------- */

enum { G_DTYPE, G_RUN, G_SHAPES, G_VSHAPES, G_XBASE, G_XCUBLAS, G_XSL, G_NCOLS };

/* Which runs a geomean row takes: one mode's (its own baseline: speed-up vs baseline
 * means something), or one run per shape (the better one) for the vendor ratios, where
 * a speed-up vs baseline would mix a from-scratch run's gain over the simple baseline
 * with a from-current-best run's gain over its seed, and is left empty. */
enum gm_runs { GM_SCRATCH, GM_BEST, GM_PER_SHAPE };

static bool gm_takes(const struct report_sweep *sw, const struct report_shape *s, const char *dtype, enum gm_runs w)
{
    if ((dtype && strcmp(s->dtype, dtype)) || !isfinite(s->st.best))
        return false;
    if (w == GM_PER_SHAPE)
        return counts_in_geomean(sw, s);
    return s->from_scratch == (w == GM_SCRATCH);
}

static void geomean_row(struct report_table *t, const struct report_sweep *sw, const char *dtype, enum gm_runs w)
{
    static const char *const run_names[] = {"from-scratch", "from-current-best", "better run per shape"};
    size_t n = 0;
    double *v[3];
    for (int i = 0; i < 3; i++)
        v[i] = xmalloc((sw->n_shapes + 1) * sizeof(double));
    for (size_t i = 0; i < sw->n_shapes; i++) {
        const struct report_shape *s = &sw->shapes[i];
        if (!gm_takes(sw, s, dtype, w))
            continue;
        struct speedups x = speedups_of(s);
        v[0][n] = x.base, v[1][n] = x.cublas, v[2][n] = x.sl;
        n++;
    }
    size_t used[3];
    double g[3];
    for (int i = 0; i < 3; i++) {
        g[i] = stats_geomean(v[i], n, &used[i]);
        free(v[i]);
    }
    if (!n)
        return;
    size_t r = table_row(t, false);
    table_text(t, r, G_DTYPE, dtype ? dtype : "all");
    table_text(t, r, G_RUN, run_names[w]);
    table_int(t, r, G_SHAPES, (long)n);
    /* a shape without vendor numbers has no vendor ratio: say over how many they are */
    table_int(t, r, G_VSHAPES, (long)(used[1] > used[2] ? used[1] : used[2]));
    if (w != GM_PER_SHAPE)
        table_ratio(t, r, G_XBASE, g[0], 2);
    table_ratio(t, r, G_XCUBLAS, g[1], 2);
    table_ratio(t, r, G_XSL, g[2], 2);
}

void tables_geomean(const struct report_sweep *sw, struct report_table *t)
{
    static const struct { const char *h; bool right; } cols[G_NCOLS] = {
        {"dtype", false}, {"runs", false}, {"shapes", true}, {"shapes with vendor numbers", true},
        {"speed-up vs baseline", true}, {"speed-up vs cuBLAS", true}, {"speed-up vs cuSPARSELt", true},
    };
    size_t sim = count_simulated(sw);
    table_init(t, sim ? "Geometric means of the speed-ups, per dtype and run mode; they include simulated runs "
                        "(backend sim), which are not GPU measurements"
                      : "Geometric means of the speed-ups, per dtype and run mode",
               G_NCOLS);
    for (int c = 0; c < G_NCOLS; c++)
        table_col(t, (size_t)c, cols[c].h, cols[c].right);
    size_t n_dtypes = 0;
    for (size_t i = 0; i <= sw->n_shapes; i++) {
        const char *dt = i < sw->n_shapes ? sw->shapes[i].dtype : NULL;
        if (dt && i > 0 && !strcmp(dt, sw->shapes[i - 1].dtype))
            continue; /* shapes are sorted by dtype */
        if (!dt && n_dtypes < 2)
            break; /* one dtype: its rows are the "all" rows */
        for (int w = GM_SCRATCH; w <= GM_PER_SHAPE; w++)
            geomean_row(t, sw, dt, (enum gm_runs)w);
        n_dtypes++;
    }
}

size_t tables_pairs(const struct report_sweep *sw, struct report_table *t)
{
    static const char *const heads[] = {
        "M", "N", "K", "dtype", "baseline (TFLOPS)", "from-current-best best (TFLOPS)",
        "from-current-best best at iteration", "from-current-best iterations",
        "from-scratch best (TFLOPS)", "from-scratch best at iteration", "from-scratch iterations",
        "from-scratch vs from-current-best"};
    table_init(t, "From scratch vs from the current best: the same shape tuned both ways", 12);
    for (size_t c = 0; c < 12; c++)
        table_col(t, c, heads[c], c != 3);
    for (size_t i = 0; i < sw->n_shapes; i++) {
        const struct report_shape *fcb = &sw->shapes[i], *fs = sweep_partner(sw, fcb);
        if (fcb->from_scratch || !fs)
            continue;
        size_t r = table_row(t, false);
        table_int(t, r, 0, fcb->m);
        table_int(t, r, 1, fcb->n);
        table_int(t, r, 2, fcb->k);
        table_text(t, r, 3, fcb->dtype);
        table_num(t, r, 4, isfinite(fcb->st.baseline) ? fcb->st.baseline : fs->st.baseline, 1);
        const struct report_shape *runs[2] = {fcb, fs};
        for (int j = 0; j < 2; j++) {
            table_num(t, r, 5 + 3 * (size_t)j, runs[j]->st.best, 1);
            if (runs[j]->st.best_iter >= 0)
                table_int(t, r, 6 + 3 * (size_t)j, runs[j]->st.best_iter);
            table_int(t, r, 7 + 3 * (size_t)j, runs[j]->st.iters_done);
        }
        table_ratio(t, r, 11, stats_ratio(fs->st.best, fcb->st.best), 3);
    }
    return t->nrows;
}

void tables_progression(const struct report_shape *s, struct report_table *t)
{
    static const char *const heads[] = {"#", "iteration", "idea", "category", "bottleneck",
                                        "before (TFLOPS)", "after (TFLOPS)", "gain (%)", "justification"};
    char cap[160];
    snprintf(cap, sizeof cap, "%s: optimization progression (every KEEP)%s", s->key, tables_sim_tag(s));
    table_init(t, cap, 9);
    for (size_t c = 0; c < 9; c++)
        table_col(t, c, heads[c], c <= 1 || (c >= 5 && c <= 7));
    table_col_wrap(t, 2);
    table_col_wrap(t, 8);
    size_t n;
    struct progression_step *p = stats_progression(s, &n);
    for (size_t i = 0; i < n; i++) {
        size_t r = table_row(t, false);
        table_int(t, r, 0, (long)i + 1);
        table_int(t, r, 1, p[i].row->iter);
        table_text(t, r, 2, p[i].row->idea);
        table_text(t, r, 3, p[i].row->category);
        table_text(t, r, 4, p[i].row->bottleneck);
        table_num(t, r, 5, p[i].before, 1);
        table_num(t, r, 6, p[i].after, 1);
        table_num(t, r, 7, p[i].gain_pct, 1);
        table_text(t, r, 8, shape_idea_justification(s, p[i].row->iter));
    }
    free(p);
}

void tables_ladder(const struct report_shape *s, struct report_table *t)
{
    static const char *const heads[] = {"iteration", "decision", "recorded (TFLOPS)", "ladder (TFLOPS)",
                                        "ladder median (ms)", "spread (%)", "SM clock (MHz)", "vs winner", "config"};
    char cap[200];
    snprintf(cap, sizeof cap, "%s: final ladder, %d rounds%s (the winner is the registered best)%s", s->key,
             s->ladder.rounds, s->ladder.steady ? "" : ", warm-up not settled", tables_sim_tag(s));
    table_init(t, cap, 9);
    for (size_t c = 0; c < 9; c++)
        table_col(t, c, heads[c], c != 1 && c != 8);
    table_col_wrap(t, 8);
    double win = NAN;
    for (int k = 0; k < s->ladder.n; k++)
        if (s->ladder.e[k].iter == s->ladder.winner_iter)
            win = s->ladder.e[k].rel;
    for (int k = 0; k < s->ladder.n; k++) {
        const struct report_row *row = NULL;
        for (size_t i = 0; i < s->n_rows; i++)
            if (s->rows[i].iter == s->ladder.e[k].iter)
                row = &s->rows[i];
        size_t r = table_row(t, s->ladder.e[k].iter == s->ladder.winner_iter);
        table_int(t, r, 0, s->ladder.e[k].iter);
        table_text(t, r, 1, row ? report_decision_name(row->decision) : "?");
        table_num(t, r, 2, row ? row->tflops : NAN, 1);
        table_num(t, r, 3, s->ladder.e[k].tflops, 1);
        table_num(t, r, 4, s->ladder.e[k].median_ms, 4);
        table_num(t, r, 5, s->ladder.e[k].spread_pct, 2);
        table_num(t, r, 6, s->ladder.e[k].sm_clock_mhz, 0);
        /* its trials against the winner's, round by round (rel): > 1 is slower */
        table_ratio(t, r, 7, stats_ratio(s->ladder.e[k].rel, win), 4);
        table_code(t, r, 8, row ? row->config : NULL);
    }
}

const char *tables_phase_name(int phase)
{
    static const char *const names[STATS_PHASES] = {"early", "middle", "late"};
    return phase >= 0 && phase < STATS_PHASES ? names[phase] : "?";
}

void tables_phase_label(const struct report_shape *s, int phase, char *buf, size_t len)
{
    int lo, hi, budget = stats_phase_budget(s);
    stats_phase_range(phase, budget, &lo, &hi);
    if (budget <= 0 || lo > hi)
        snprintf(buf, len, "%s", tables_phase_name(phase));
    else
        snprintf(buf, len, "%s (%d-%d)", tables_phase_name(phase), lo, hi);
}

void tables_bottleneck(const struct report_shape *s, const struct bn_list *l, struct report_table *t)
{
    char cap[160];
    snprintf(cap, sizeof cap, "%s: bottleneck that motivated each iteration, by phase of the run%s", s->key,
             tables_sim_tag(s));
    table_init(t, cap, l->n + 2);
    table_col(t, 0, "phase (iterations)", false);
    table_col(t, 1, "iterations", true);
    for (size_t i = 0; i < l->n; i++)
        table_col(t, i + 2, l->names[i], true);
    int *counts = bn_count(s, l);
    long *total = calloc(l->n + 1, sizeof *total), all = 0;
    if (!total)
        die("out of memory");
    for (int p = 0; p < STATS_PHASES; p++) {
        size_t r = table_row(t, false);
        char label[64];
        tables_phase_label(s, p, label, sizeof label);
        table_text(t, r, 0, label);
        long sum = 0;
        for (size_t i = 0; i < l->n; i++) {
            table_int(t, r, i + 2, counts[(size_t)p * l->n + i]);
            sum += counts[(size_t)p * l->n + i];
            total[i] += counts[(size_t)p * l->n + i];
        }
        table_int(t, r, 1, sum);
        all += sum;
    }
    size_t r = table_row(t, true);
    table_text(t, r, 0, "all");
    table_int(t, r, 1, all);
    for (size_t i = 0; i < l->n; i++)
        table_int(t, r, i + 2, total[i]);
    free(total);
    free(counts);
}
