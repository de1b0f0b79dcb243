/* src/report/html.c — the report page: one static index.html that opens from disk (no
 * server, no network): tables, the rendered SVG figures, dygraphs charts fed from JSON
 * embedded in the page (a file:// page may not fetch its CSV), and links to every
 * shape's artifacts by relative path. Every text field goes through esc_html. */
#include <stdio.h>
#include <string.h>

#include "report/escape.h"
#include "report/render.h"
#include "report/tables.h"

static const char page_css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1400px;"
    "padding:0 16px;color:#222;line-height:1.4}\n"
    "h1{margin-bottom:4px}h2{border-bottom:2px solid #ddd;padding-bottom:4px;margin-top:40px}\n"
    "h3{margin-bottom:6px}.meta{color:#555}\n"
    "table.data{border-collapse:collapse;font-size:12px;margin:8px 0}\n"
    "table.data caption{text-align:left;font-weight:600;padding:4px 0}\n"
    "table.data th,table.data td{border-bottom:1px solid #e3e3e3;padding:3px 6px;vertical-align:top}\n"
    "table.data th{background:#f4f4f4;text-align:left;font-weight:600;vertical-align:bottom}\n"
    "table.data th.num{text-align:right;width:6em;white-space:normal}\n"
    "table.data td{white-space:nowrap}table.data td.text{white-space:normal;min-width:16em}\n"
    "table.data .num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "table.data tr.summary td{font-weight:600;border-top:2px solid #999}\n"
    ".wide{overflow-x:auto}\n"
    "figure{margin:8px 0}figure img{max-width:100%;border:1px solid #eee}\n"
    "figcaption,.dl{font-size:12px;color:#555}\n"
    ".badge{display:inline-block;font-size:12px;padding:1px 8px;border-radius:10px;background:#eee;"
    "vertical-align:middle;margin-left:6px;font-weight:500}\n"
    ".b-complete{background:#d9f0d3}.b-running{background:#fee8c8}.b-sim{background:#fcbba1}\n"
    ".warn{background:#fff3cd;border:1px solid #e0c36a;padding:8px 12px;border-radius:4px}\n"
    ".howto{background:#f6f8fa;border:1px solid #ddd;padding:8px 16px;border-radius:4px;font-size:14px}\n"
    ".notes li{font-size:13px}.kind{font-weight:600}\n"
    ".dy{width:100%;height:380px}.dylab{font-size:12px;min-height:18px}\n"
    ".dyinfo{font-size:13px;min-height:20px;color:#333;background:#f6f8fa;padding:4px 8px;white-space:pre-wrap}\n"
    "nav ul{columns:3;font-size:13px}\n";

/* Opens a shape's details when a link (#shape-KEY) points at it, and loads the figures
 * of a details block when it opens (a sweep page defers them). Builds one dygraphs
 * chart per <script class="dy-data"> block, when its chart comes
 * near the viewport (a sweep page has hundreds: building all at load took seconds); the
 * hover line shows the iteration's decision and idea through textContent, never as HTML. */
static const char page_js[] =
    "(function () {\n"
    "  'use strict';\n"
    "  function openHash() {\n"
    "    var el = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));\n"
    "    var dt = el && el.querySelector('details.shape-detail');\n"
    "    if (dt) dt.open = true;\n"
    "  }\n"
    "  var details = document.querySelectorAll('details.shape-detail');\n"
    "  for (var k = 0; k < details.length; k++)\n"
    "    details[k].addEventListener('toggle', function (e) {\n"
    "      var imgs = e.target.open ? e.target.querySelectorAll('img[data-src]') : [];\n"
    "      for (var m = 0; m < imgs.length; m++) {\n"
    "        imgs[m].src = imgs[m].getAttribute('data-src');\n"
    "        imgs[m].removeAttribute('data-src');\n"
    "      }\n"
    "    });\n"
    "  window.addEventListener('hashchange', openHash);\n"
    "  openHash();\n"
    "  function build(block) {\n"
    "    var d = JSON.parse(block.textContent);\n"
    "    var div = document.getElementById(d.div), info = document.getElementById(d.info);\n"
    "    if (typeof Dygraph === 'undefined') {\n"
    "      div.style.height = 'auto';\n"
    "      div.textContent = 'Interactive chart unavailable: dygraph.min.js is not next to this page.';\n"
    "      return;\n"
    "    }\n"
    "    info.textContent = d.hint;\n"
    "    new Dygraph(div, d.rows, {\n"
    "      labels: d.labels, colors: d.colors, series: d.series, valueRange: d.valueRange,\n"
    "      dateWindow: d.dateWindow,\n"
    "      xlabel: 'iteration', ylabel: 'TFLOPS', labelsDiv: d.labelsDiv, legend: 'always',\n"
    "      connectSeparatedPoints: false, highlightCircleSize: 5, yLabelWidth: 16,\n"
    "      highlightCallback: function (e, x, pts, row) { info.textContent = d.notes[row] || ''; },\n"
    "      unhighlightCallback: function () { info.textContent = d.hint; }\n"
    "    });\n"
    "  }\n"
    "  var blocks = document.querySelectorAll('script.dy-data');\n"
    "  if (!('IntersectionObserver' in window)) {\n"
    "    for (var i = 0; i < blocks.length; i++) build(blocks[i]);\n"
    "    return;\n"
    "  }\n"
    "  var pending = new Map();\n"
    "  var io = new IntersectionObserver(function (entries) {\n"
    "    entries.forEach(function (e) {\n"
    "      if (!e.isIntersecting || !pending.has(e.target)) return;\n"
    "      io.unobserve(e.target);\n"
    "      build(pending.get(e.target));\n"
    "      pending.delete(e.target);\n"
    "    });\n"
    "  }, {rootMargin: '800px 0px'});\n"
    "  for (var j = 0; j < blocks.length; j++) {\n"
    "    var div = document.getElementById(JSON.parse(blocks[j].textContent).div);\n"
    "    if (!div) continue;\n"
    "    pending.set(div, blocks[j]);\n"
    "    io.observe(div);\n"
    "  }\n"
    "})();\n";

void html_link_out(const struct report_render *rr, struct strbuf *sb, const char *rel, const char *text)
{
    if (!out_exists(rr->o, rel))
        return;
    strbuf_adds(sb, "<a href=\"");
    struct strbuf u = STRBUF_INIT;
    esc_url_path(&u, rel);
    esc_html(sb, strbuf_str(&u));
    strbuf_release(&u);
    strbuf_adds(sb, "\">");
    esc_html(sb, text);
    strbuf_adds(sb, "</a>");
}

bool html_link_tuning(const struct report_render *rr, struct strbuf *sb, const char *rel, const char *text)
{
    if (!out_tuning_exists(rr->o, rel))
        return false;
    struct strbuf u = STRBUF_INIT;
    esc_url_path(&u, rr->o->tuning_rel);
    strbuf_adds(&u, "/");
    esc_url_path(&u, rel);
    strbuf_adds(sb, "<a href=\"");
    esc_html(sb, strbuf_str(&u));
    strbuf_adds(sb, "\">");
    esc_html(sb, text);
    strbuf_adds(sb, "</a>");
    strbuf_release(&u);
    return true;
}

void html_downloads(const struct report_render *rr, struct strbuf *sb, const char *stem, bool figure)
{
    static const char *const fig_ext[] = {"svg", "pdf", "png", "gp", "dat"};
    static const char *const fig_txt[] = {"SVG", "PDF", "PNG", "gnuplot script", "data"};
    static const char *const tab_ext[] = {"csv", "md", "tex"};
    static const char *const tab_txt[] = {"CSV", "Markdown", "LaTeX"};
    size_t n = figure ? 5 : 3;
    strbuf_adds(sb, figure ? "<div class=\"dl\">figure files: " : "<div class=\"dl\">table as: ");
    for (size_t i = 0, shown = 0; i < n; i++) {
        char rel[512];
        snprintf(rel, sizeof rel, "%s.%s", stem, figure ? fig_ext[i] : tab_ext[i]);
        if (!out_exists(rr->o, rel))
            continue;
        strbuf_adds(sb, shown++ ? " · " : "");
        html_link_out(rr, sb, rel, figure ? fig_txt[i] : tab_txt[i]);
    }
    strbuf_adds(sb, "</div>\n");
}

static void page_head(const struct report_render *rr, struct strbuf *sb)
{
    strbuf_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<title>croqtuner report</title>\n");
    if (rr->dygraphs)
        strbuf_adds(sb, "<link rel=\"stylesheet\" href=\"dygraph.css\">\n");
    strbuf_addf(sb, "<style>\n%s</style>\n</head>\n<body>\n<h1>croqtuner report</h1>\n<p class=\"meta\">tuning directory <code>",
                page_css);
    esc_html(sb, rr->sw->tuning_dir);
    strbuf_addf(sb, "</code> · %zu shape run%s · generated %s UTC · ", rr->sw->n_shapes,
                rr->sw->n_shapes == 1 ? "" : "s", rr->generated);
    html_link_tuning(rr, sb, "state.json", "state.json");
    strbuf_adds(sb, " ");
    html_link_tuning(rr, sb, "RESUME.md", "RESUME.md");
    strbuf_adds(sb, "</p>\n");
    const struct state_sweep *in = &rr->sw->sweep;
    if (rr->sw->have_sweep) {
        strbuf_adds(sb, "<p class=\"meta\">last sweep: dtype ");
        esc_html(sb, in->dtype);
        strbuf_adds(sb, ", plan ");
        esc_html(sb, in->plan);
        strbuf_adds(sb, ", backend ");
        esc_html(sb, in->backend);
        if (in->last_wave)
            strbuf_addf(sb, ", waves 1-%d of %d", in->last_wave, state_sweep_plan_waves(in));
        strbuf_adds(sb, ", status <b>");
        esc_html(sb, in->status);
        strbuf_adds(sb, "</b></p>\n");
    }
    const struct report_notes *nl = &rr->sw->notes;
    size_t miss = notes_count(nl, NOTE_MISSING, NULL), bad = notes_count(nl, NOTE_MALFORMED, NULL);
    if (miss || bad)
        strbuf_addf(sb, "<p class=\"warn\">This report is partial: %zu item%s missing, %zu skipped as malformed. "
                        "<a href=\"#missing\">See what and why.</a></p>\n",
                    miss, miss == 1 ? "" : "s", bad);
}

/* Keys the simulated-data banner names in its sentence; the rest are in a list under it. */
#define HTML_SIM_KEYS_SHOWN 5

static void sim_warning(const struct report_render *rr, struct strbuf *sb)
{
    size_t n = 0;
    for (size_t i = 0; i < rr->sw->n_shapes; i++)
        n += rr->sw->shapes[i].simulated;
    if (!n)
        return;
    /* a count and a few keys: a sim sweep has 268 runs, which in one sentence bury it */
    if (n == rr->sw->n_shapes)
        strbuf_addf(sb, "<p class=\"warn\"><b>Simulated data.</b> All %zu run%s", n, n == 1 ? "" : "s");
    else
        strbuf_addf(sb, "<p class=\"warn\"><b>Simulated data.</b> %zu of the %zu runs", n, rr->sw->n_shapes);
    strbuf_addf(sb, " say <code>backend=sim</code> in their results.tsv: their numbers were not measured on a GPU "
                    "and must not be published (");
    size_t k = 0;
    for (size_t i = 0; i < rr->sw->n_shapes && k < HTML_SIM_KEYS_SHOWN; i++)
        if (rr->sw->shapes[i].simulated) {
            strbuf_adds(sb, k++ ? ", " : "");
            esc_html(sb, rr->sw->shapes[i].key);
        }
    if (n > k)
        strbuf_addf(sb, " and %zu more", n - k);
    strbuf_adds(sb, ").</p>\n");
    if (n <= k)
        return;
    strbuf_addf(sb, "<details class=\"sim-runs\"><summary>All %zu simulated runs</summary><ul>\n", n);
    for (size_t i = 0; i < rr->sw->n_shapes; i++)
        if (rr->sw->shapes[i].simulated) {
            strbuf_adds(sb, "<li>");
            esc_html(sb, rr->sw->shapes[i].key);
            strbuf_adds(sb, "</li>\n");
        }
    strbuf_adds(sb, "</ul></details>\n");
}

static void howto(struct strbuf *sb)
{
    strbuf_adds(sb,
        "<div class=\"howto\"><b>How to read this.</b><ul>\n"
        "<li>TFLOPS are dense-equivalent, 2·M·N·K / time / 10<sup>12</sup>, for C = A(M×K, 2:4 sparse) · B; higher is better. "
        "% of peak is against the sparse tensor-core peak at the measured SM clock.</li>\n"
        "<li><b>Convergence charts</b>: x = iteration (0 is the baseline kernel), y = TFLOPS. Each marker is one "
        "candidate kernel: black square = iteration 0, green dot = KEEP (became the new best), grey circle = DISCARD "
        "(correct, but slower or faster only within the noise; a dark diamond marks one that measured above the best: "
        "its gain was within the noise or did not hold when measured again). "
        "Red ×, orange triangle and purple square on the \"failed\" tick at the bottom are candidates that gave a wrong "
        "result, crashed or timed out: they have no TFLOPS. The blue step line is the best so far: under decision rules 4 "
        "(every shape tuned since issue 22) the best's TFLOPS on the shape's one scale, the baseline's measurement times "
        "each KEEP's speedup as a second, independent pairing with the best measured it, so it never falls; a candidate "
        "is kept when its first pairing's 95% interval lies above 1.01 and the second one's above 1. Under older rules "
        "the line is the best's own measurements and where it drops the best was measured again (a blue ✱, explained "
        "under the figure). Blue + marks past the last iteration are the final ladder, the top configurations timed "
        "together; the filled blue square is its winner, the registered best; dashed "
        "horizontal lines are the baseline and the vendor libraries (cuBLAS dense, cuSPARSELt 2:4).</li>\n"
        "<li>\"anchor (not same run)\" marks a vendor number from the reference table "
        "(vendor-anchors-h200.json, measured on another day), used where <code>croqtuner compare</code> has not measured "
        "this shape in this run: compare with care.</li>\n"
        "<li>Baseline = the run's iteration 0: the simple baseline kernel for a from-scratch run (key ending in _fs), "
        "the starting configuration (best of the nearest tuned shape) for a from-current-best run.</li>\n"
        "<li>Speed-ups (×) are best ÷ reference: above 1× this tuner's kernel is faster. The geometric "
        "means over baselines are per run mode; over the vendors each shape counts once (the better of its runs).</li>\n"
        "<li>Every figure comes as SVG, PDF and PNG with its gnuplot script and data beside it; every table as CSV, "
        "Markdown and LaTeX (booktabs). Hover an interactive chart to see each iteration's idea.</li>\n"
        "</ul></div>\n");
}

static void note_key_link(struct strbuf *sb, const char *key)
{
    strbuf_adds(sb, "<a href=\"#shape-");
    esc_html(sb, key);
    strbuf_adds(sb, "\">");
    esc_html(sb, key);
    strbuf_adds(sb, "</a>");
}

static void notes_section(const struct report_render *rr, struct strbuf *sb)
{
    const struct report_notes *nl = &rr->sw->notes;
    size_t miss = notes_count(nl, NOTE_MISSING, NULL), bad = notes_count(nl, NOTE_MALFORMED, NULL);
    strbuf_addf(sb, "<section id=\"missing\">\n<h2>Missing and skipped data</h2>\n"
                    "<p>%zu missing, %zu skipped as malformed, %zu other notes. ",
                miss, bad, nl->n - miss - bad);
    html_link_out(rr, sb, "notes.txt", "notes.txt");
    strbuf_adds(sb, "</p>\n");
    if (nl->n)
        strbuf_adds(sb, "<ul class=\"notes\">\n");
    size_t ng;
    struct note_group *g = notes_group(nl, &ng);
    for (int kind = NOTE_MISSING; kind <= NOTE_INFO; kind++)
        for (size_t i = 0; i < ng; i++) {
            if ((int)g[i].kind != kind)
                continue;
            strbuf_addf(sb, "<li><span class=\"kind\">%s</span> ", note_kind_name(g[i].kind));
            const char *k0 = nl->v[g[i].idx[0]].key;
            if (g[i].n == 1 && k0) {
                note_key_link(sb, k0);
                strbuf_adds(sb, ": ");
            }
            esc_html(sb, g[i].text);
            if (g[i].n > 1) { /* one line for a text many shapes share */
                size_t shown = 0;
                strbuf_addf(sb, " (×%zu", g[i].n);
                for (size_t j = 0; j < g[i].n && shown < NOTE_KEYS_SHOWN; j++)
                    if (nl->v[g[i].idx[j]].key) {
                        strbuf_adds(sb, shown++ ? ", " : ": ");
                        note_key_link(sb, nl->v[g[i].idx[j]].key);
                    }
                strbuf_adds(sb, shown < g[i].n && shown ? ", …)" : ")");
            }
            strbuf_adds(sb, "</li>\n");
        }
    note_groups_release(g, ng);
    if (nl->n)
        strbuf_adds(sb, "</ul>\n");
    strbuf_adds(sb, "</section>\n");
}

void html_figure(const struct report_render *rr, struct strbuf *sb, const char *stem, const char *alt)
{
    html_figure_as(rr, sb, stem, alt, false);
}

void html_figure_as(const struct report_render *rr, struct strbuf *sb, const char *stem, const char *alt,
                    bool deferred)
{
    char rel[512];
    snprintf(rel, sizeof rel, "%s.svg", stem);
    strbuf_adds(sb, deferred ? "<figure><img data-src=\"" : "<figure><img src=\"");
    struct strbuf u = STRBUF_INIT;
    esc_url_path(&u, rel);
    esc_html(sb, strbuf_str(&u));
    strbuf_release(&u);
    /* lazy: a sweep page holds two figures per shape, hundreds in all */
    strbuf_adds(sb, "\" loading=\"lazy\" decoding=\"async\" alt=\"");
    esc_html(sb, alt);
    strbuf_adds(sb, "\"><figcaption>");
    html_downloads(rr, sb, stem, true);
    strbuf_adds(sb, "</figcaption></figure>\n");
}

static void summary_section(const struct report_render *rr, struct strbuf *sb)
{
    struct report_table t;
    tables_summary(rr->sw, &t);
    strbuf_adds(sb, "<section id=\"summary\">\n<h2>Sweep summary</h2>\n<div class=\"wide\">\n");
    table_html(&t, sb, "summary-table");
    strbuf_adds(sb, "</div>\n");
    html_downloads(rr, sb, "tables/summary", false);
    table_release(&t);
    tables_geomean(rr->sw, &t);
    strbuf_adds(sb, "<h3>Geometric means</h3>\n<p>Speed-up over the baseline per run mode: a from-scratch run's "
                    "baseline is the simple baseline kernel, a from-current-best run's is the configuration it "
                    "started from, so the two are never averaged together. Vendor ratios count each shape once, "
                    "with its better run.</p>\n<div class=\"wide\">\n");
    table_html(&t, sb, "geomean-table");
    strbuf_adds(sb, "</div>\n");
    html_downloads(rr, sb, "tables/geomean", false);
    table_release(&t);
    for (size_t i = 0; i < rr->speedup.n; i++) {
        char stem[80];
        snprintf(stem, sizeof stem, "figures/%s", rr->speedup.names[i]);
        html_figure(rr, sb, stem, rr->speedup.titles[i]);
    }
    strbuf_adds(sb, "</section>\n");
}

static void pairs_section(const struct report_render *rr, struct strbuf *sb)
{
    if (!rr->has_pairs)
        return;
    struct report_table t;
    tables_pairs(rr->sw, &t);
    strbuf_adds(sb, "<section id=\"pairs\">\n<h2>From scratch vs from the current best</h2>\n<div class=\"wide\">\n");
    table_html(&t, sb, "pairs-table");
    strbuf_adds(sb, "</div>\n");
    html_downloads(rr, sb, "tables/fs-vs-fcb", false);
    table_release(&t);
    for (size_t i = 0; i < rr->sw->n_shapes; i++) {
        if (!rr->files[i].pair)
            continue;
        char stem[160];
        snprintf(stem, sizeof stem, "pairs/%s/fs-vs-fcb", rr->sw->shapes[i].base_key);
        html_figure(rr, sb, stem, "best so far: from scratch vs from current best");
    }
    strbuf_adds(sb, "</section>\n");
}

static void nav(const struct report_render *rr, struct strbuf *sb)
{
    strbuf_adds(sb, "<nav><b>Contents</b>: <a href=\"#environment\">environment</a> · "
                    "<a href=\"#summary\">sweep summary</a>");
    if (rr->has_pairs)
        strbuf_adds(sb, " · <a href=\"#pairs\">from scratch vs from current best</a>");
    strbuf_adds(sb, " · <a href=\"#missing\">missing and skipped data</a>\n<ul>\n");
    for (size_t i = 0; i < rr->sw->n_shapes; i++) {
        const struct report_shape *s = &rr->sw->shapes[i];
        strbuf_adds(sb, "<li><a href=\"#shape-");
        esc_html(sb, s->key);
        strbuf_adds(sb, "\">");
        esc_html(sb, s->key);
        strbuf_adds(sb, "</a> (");
        esc_html(sb, s->status);
        strbuf_adds(sb, ")</li>\n");
    }
    strbuf_adds(sb, "</ul></nav>\n");
}

void html_page(const struct report_render *rr, struct strbuf *sb)
{
    page_head(rr, sb);
    sim_warning(rr, sb);
    howto(sb);
    nav(rr, sb);
    html_environment(rr, sb);
    summary_section(rr, sb);
    pairs_section(rr, sb);
    notes_section(rr, sb);
    for (size_t i = 0; i < rr->sw->n_shapes; i++)
        html_shape(rr, i, sb);
    if (rr->dygraphs)
        strbuf_adds(sb, "<script src=\"dygraph.min.js\"></script>\n");
    strbuf_addf(sb, "<script>\n%s</script>\n</body>\n</html>\n", page_js);
}
