/* src/report/html_shape.c — one shape's section of the report page: facts, artifact
 * links, what is missing, convergence (static and interactive), progression and
 * bottleneck tables. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/escape.h"
#include "report/figures.h"
#include "report/render.h"
#include "report/stats.h"
#include "report/tables.h"

/* Up to this many shapes, every shape's details are open when the page loads. */
#define HTML_SHAPES_OPEN_MAX 12

static void heading(const struct report_shape *s, struct strbuf *sb)
{
    strbuf_adds(sb, "<section class=\"shape\" id=\"shape-");
    esc_html(sb, s->key);
    strbuf_adds(sb, "\">\n<h2>");
    esc_html(sb, s->key);
    strbuf_addf(sb, " <span class=\"badge\">%s</span>", tables_run_name(s));
    const char *cls = shape_finished(s) ? " b-complete" : shape_running(s) ? " b-running" : "";
    strbuf_addf(sb, "<span class=\"badge%s\">", cls);
    esc_html(sb, s->status);
    strbuf_adds(sb, "</span>");
    if (s->simulated)
        strbuf_adds(sb, "<span class=\"badge b-sim\">SIMULATED data</span>");
    strbuf_adds(sb, "</h2>\n");
}

static void add_tflops(struct strbuf *sb, const char *what, double v)
{
    if (isfinite(v))
        strbuf_addf(sb, " · %s %.1f TFLOPS", what, v);
}

static void facts(const struct report_shape *s, struct strbuf *sb)
{
    const struct report_stats *st = &s->st;
    strbuf_addf(sb, "<p>%s, M=%ld N=%ld K=%ld · iterations %d", s->dtype, s->m, s->n, s->k, st->iters_done);
    if (st->budget > 0)
        strbuf_addf(sb, " of %d", st->budget);
    add_tflops(sb, "baseline", st->baseline);
    add_tflops(sb, "best", st->best);
    if (st->best_iter >= 0)
        strbuf_addf(sb, " (iteration %d", st->best_iter);
    if (st->best_iter >= 0 && isfinite(report_best_speedup(s)))
        strbuf_addf(sb, ", %.2f× baseline", report_best_speedup(s));
    if (st->best_iter >= 0 && isfinite(st->best_hw_eff))
        strbuf_addf(sb, ", %.1f%% of peak", st->best_hw_eff);
    if (st->best_iter >= 0)
        strbuf_adds(sb, ")");
    if (s->stop_reason[0]) {
        strbuf_adds(sb, " · ended: ");
        esc_html(sb, s->stop_reason);
    }
    /* The key decides the run (from scratch or not); say so if state.json disagrees. */
    if (s->mode[0] && (strstr(s->mode, "scratch") != NULL) != s->from_scratch) {
        strbuf_adds(sb, " · <b>state.json says mode ");
        esc_html(sb, s->mode);
        strbuf_adds(sb, "</b>");
    }
    strbuf_adds(sb, "</p>\n");
}

/* The best row's kernel source, if its path is a plain relative one. */
static const char *best_kernel(const struct report_shape *s)
{
    for (size_t i = 0; i < s->n_rows; i++) {
        const char *k = s->rows[i].kernel;
        if (s->rows[i].iter == s->st.best_iter && k && *k && k[0] != '/' && !strstr(k, ".."))
            return k;
    }
    return NULL;
}

static void artifacts(const struct report_render *rr, const struct report_shape *s, struct strbuf *sb)
{
    char rel[6][200];
    const char *text[6] = {"results.tsv", "idea-log.jsonl", "attempts.tsv", "checkpoint", "kernel sources",
                           "perf measurements"};
    snprintf(rel[0], sizeof rel[0], "logs/%s/results.tsv", s->key);
    snprintf(rel[1], sizeof rel[1], "logs/%s/idea-log.jsonl", s->key);
    snprintf(rel[2], sizeof rel[2], "logs/%s/attempts.tsv", s->key);
    snprintf(rel[3], sizeof rel[3], "checkpoints/%s.json", s->key);
    snprintf(rel[4], sizeof rel[4], "srcs/%s", s->key);
    snprintf(rel[5], sizeof rel[5], "perf/%s", s->key);
    strbuf_adds(sb, "<p class=\"dl\">artifacts: ");
    int shown = 0;
    for (int i = 0; i < 6; i++) {
        if (out_tuning_exists(rr->o, rel[i]))
            strbuf_adds(sb, shown++ ? " · " : "");
        html_link_tuning(rr, sb, rel[i], text[i]);
    }
    const char *bk = best_kernel(s);
    char published[200];
    snprintf(published, sizeof published, "kernels/gemm_sp_%s/%s_best.cu", s->dtype, s->key);
    if (bk && !out_tuning_exists(rr->o, bk)) /* kept as a recipe: the published copy is whole */
        bk = published;
    if (bk && out_tuning_exists(rr->o, bk)) {
        char t[64];
        snprintf(t, sizeof t, "best kernel (iteration %d)", s->st.best_iter);
        strbuf_adds(sb, shown++ ? " · " : "");
        html_link_tuning(rr, sb, bk, t);
    }
    if (s->vendor.path && out_tuning_exists(rr->o, s->vendor.path)) {
        strbuf_adds(sb, shown++ ? " · " : "");
        html_link_tuning(rr, sb, s->vendor.path, "vendor.json");
    }
    strbuf_adds(sb, shown ? "</p>\n" : "none found</p>\n");
}

static void shape_notes(const struct report_render *rr, const struct report_shape *s, struct strbuf *sb)
{
    const struct report_notes *nl = &rr->sw->notes;
    bool any = false;
    for (size_t i = 0; i < nl->n; i++) {
        if (!nl->v[i].key || strcmp(nl->v[i].key, s->key))
            continue;
        strbuf_adds(sb, any ? "" : "<ul class=\"notes\">\n");
        any = true;
        strbuf_addf(sb, "<li><span class=\"kind\">%s</span> ", note_kind_name(nl->v[i].kind));
        esc_html(sb, nl->v[i].text);
        strbuf_adds(sb, "</li>\n");
    }
    if (any)
        strbuf_adds(sb, "</ul>\n");
}

static void table_block(const struct report_render *rr, struct strbuf *sb, struct report_table *t,
                        const char *stem, const char *id)
{
    strbuf_adds(sb, "<div class=\"wide\">\n");
    table_html(t, sb, id);
    strbuf_adds(sb, "</div>\n");
    html_downloads(rr, sb, stem, false);
    table_release(t);
}

/* Whether shapes' details are open at load (few shapes); closed ones defer their figures. */
static bool details_open(const struct report_render *rr) { return rr->sw->n_shapes <= HTML_SHAPES_OPEN_MAX; }

/* What the figure shows that would otherwise look wrong: the best-so-far line going
 * down, and DISCARDs above it. */
static void explain_lines(const struct report_shape *s, struct strbuf *sb)
{
    struct strbuf drops = STRBUF_INIT, above = STRBUF_INIT;
    size_t nd = 0, na = 0;
    for (size_t i = 0; i < s->n_rows; i++) {
        if (fig_best_remeasured(s, i) && nd++ < 8)
            strbuf_addf(&drops, "%s%d (%.1f &rarr; %.1f)", nd > 1 ? ", " : "", s->rows[i].iter,
                        s->st.best_so_far[i - 1], s->st.best_so_far[i]);
        if (fig_discard_above(s, i) && na++ < 8)
            strbuf_addf(&above, "%s%d", na > 1 ? ", " : "", s->rows[i].iter);
    }
    if (nd)
        strbuf_addf(sb, "<p class=\"note\">The best-so-far line drops at iteration %s%s: there the best kernel was "
                        "measured again (a suspicious or close candidate is measured together with the best), and "
                        "the line shows that new measurement, which the engine compares later candidates with "
                        "(marked &#x2731; in the figure).</p>\n",
                    strbuf_str(&drops), nd > 8 ? ", ..." : "");
    if (na)
        strbuf_addf(sb, "<p class=\"note\">%zu DISCARD%s measured above the best so far (iteration %s%s): %s "
                        "(dark diamonds in the figure).</p>\n",
                    na, na == 1 ? "" : "s", strbuf_str(&above), na > 8 ? ", ..." : "",
                    s->decide_rules >= 4 ? "a row's own TFLOPS and the best's line are not one comparison (the "
                                           "line is the baseline's measurement times the confirmed speedups); these "
                                           "candidates' paired speedup over the best did not clear 1 + 1%, or its "
                                           "second pairing did not confirm it"
                    : s->decide_rules == 3 ? "their paired speedup over the best did not clear 1 + 1%"
                                           : "the gain was within the timing noise or the 2% floor, or did not hold "
                                             "when measured again with the best");
    strbuf_release(&drops);
    strbuf_release(&above);
}

static void convergence(const struct report_render *rr, size_t i, struct strbuf *sb)
{
    const struct report_shape *s = &rr->sw->shapes[i];
    char stem[160], id[160];
    strbuf_adds(sb, "<h3>Convergence: TFLOPS of every iteration</h3>\n");
    snprintf(stem, sizeof stem, "shapes/%s/convergence", s->key);
    if (rr->files[i].convergence)
        html_figure_as(rr, sb, stem, "convergence: TFLOPS per iteration", !details_open(rr));
    else
        html_downloads(rr, sb, stem, true);
    explain_lines(s, sb);
    strbuf_adds(sb, "<p class=\"dl\">Interactive: hover for each iteration's decision and idea; drag to zoom, "
                    "double-click to zoom out.</p>\n");
    html_dygraph(s, sb);
    struct report_table t;
    tables_progression(s, &t);
    strbuf_adds(sb, "<h3>Optimization progression (every KEEP)</h3>\n");
    if (s->decide_rules >= 4)
        strbuf_adds(sb, "<p class=\"note\">Decision rules 4: each gain is the speedup a second, independent pairing "
                        "with the best measured (the first pairing chose the candidate among many and overstates its "
                        "gain), and the best's TFLOPS are the previous best's times it: one scale, from the baseline's "
                        "measurement.</p>\n");
    snprintf(stem, sizeof stem, "shapes/%s/progression", s->key);
    snprintf(id, sizeof id, "progression-%s", s->key);
    table_block(rr, sb, &t, stem, id);
    if (s->have_ladder && s->ladder.ok) {
        tables_ladder(s, &t);
        strbuf_adds(sb, "<h3>Final ladder: the top configurations timed together</h3>\n"
                        "<p class=\"note\">After the last iteration the best, the last 5 kept and the 5 highest "
                        "recorded configurations ran in one worker, one warm-up to a steady clock, then rotating rounds "
                        "of one trial each; they are ranked by their trials relative to each round's (the clock drift "
                        "of a round cancels). The winner is the registered best, at the ladder's TFLOPS and clock.</p>\n");
        snprintf(stem, sizeof stem, "shapes/%s/ladder", s->key);
        snprintf(id, sizeof id, "ladder-%s", s->key);
        table_block(rr, sb, &t, stem, id);
    } else if (s->have_ladder) {
        strbuf_adds(sb, "<p class=\"note\">No final ladder: ");
        esc_html(sb, s->ladder.note);
        strbuf_adds(sb, "</p>\n");
    }
}

static void bottlenecks(const struct report_render *rr, size_t i, struct strbuf *sb)
{
    const struct report_shape *s = &rr->sw->shapes[i];
    char stem[160], id[160];
    strbuf_adds(sb, "<h3>Bottlenecks by phase of the run</h3>\n");
    snprintf(stem, sizeof stem, "shapes/%s/bottlenecks", s->key);
    if (rr->files[i].bottlenecks)
        html_figure_as(rr, sb, stem, "bottleneck categories per phase", !details_open(rr));
    struct report_table t;
    tables_bottleneck(s, &rr->bn, &t);
    snprintf(id, sizeof id, "bottlenecks-%s", s->key);
    table_block(rr, sb, &t, stem, id);
}

void html_shape(const struct report_render *rr, size_t i, struct strbuf *sb)
{
    const struct report_shape *s = &rr->sw->shapes[i];
    heading(s, sb);
    facts(s, sb);
    artifacts(rr, s, sb);
    shape_notes(rr, s, sb);
    if (s->n_rows) {
        /* A sweep page holds hundreds of shapes: their figures, charts and tables open on
         * demand (closed, nothing of them is fetched, decoded or built), so the page stays
         * fast; a report of a few shapes shows them open. */
        strbuf_addf(sb, "<details class=\"shape-detail\"%s><summary>convergence, bottlenecks, interactive chart "
                    "and tables</summary>\n", details_open(rr) ? " open" : "");
        convergence(rr, i, sb);
        bottlenecks(rr, i, sb);
        strbuf_adds(sb, "</details>\n");
    } else {
        strbuf_adds(sb, "<p>No iterations recorded yet.</p>\n");
    }
    strbuf_adds(sb, "</section>\n");
}
