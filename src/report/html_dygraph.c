/* src/report/html_dygraph.c — a shape's interactive convergence chart: the same series,
 * colours and y range as the gnuplot figure, as JSON inside the page. The JSON is made
 * by jansson (so idea text is a proper JSON string) and then has < > & escaped so no
 * text can close the <script> element. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/escape.h"
#include "report/figures.h"
#include "report/render.h"

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

struct series {
    json_t *labels, *colors, *opts;
};

static void add_series(struct series *sr, const char *label, const char *color, json_t *opt)
{
    json_array_append_new(sr->labels, json_string(label));
    json_array_append_new(sr->colors, json_string(color));
    json_object_set_new(sr->opts, label, opt);
}

static json_t *points_opt(double size)
{
    return json_pack("{s:i, s:b, s:f}", "strokeWidth", 0, "drawPoints", 1, "pointSize", size);
}

static json_t *hline_opt(int dash)
{
    return json_pack("{s:f, s:[i,i]}", "strokeWidth", 1.5, "strokePattern", dash, 4);
}

/* Which horizontal lines the chart has, in column order. */
struct hline {
    char label[128];
    const char *color;
    double v;
    int dash;
};

static size_t hlines_of(const struct report_shape *s, struct hline *h)
{
    size_t n = 0;
    if (isfinite(s->st.baseline)) {
        h[n] = (struct hline){"", "#000000", s->st.baseline, 6};
        snprintf(h[n++].label, sizeof h->label, "baseline %.1f", s->st.baseline);
    }
    const struct { const char *name, *color; const struct vendor_value *v; int dash; } vend[] = {
        {"cuBLAS dense", "#8c510a", &s->vendor.cublas, 10},
        {"cuSPARSELt default", "#c51b7d", &s->vendor.sl_default, 3},
        {"cuSPARSELt search", "#01665e", &s->vendor.sl_search, 8},
    };
    for (size_t i = 0; i < 3; i++) {
        if (vend[i].v->src == VSRC_NONE)
            continue;
        h[n] = (struct hline){"", vend[i].color, vend[i].v->tflops, vend[i].dash};
        fig_vendor_label(h[n++].label, sizeof h->label, vend[i].name, vend[i].v);
    }
    return n;
}

static json_t *row_note(const struct report_row *r)
{
    char head[96];
    if (isfinite(r->tflops) && !report_decision_failed(r->decision))
        snprintf(head, sizeof head, "iteration %d · %s · %.1f TFLOPS", r->iter, r->decision_text, r->tflops);
    else
        snprintf(head, sizeof head, "iteration %d · %s · no TFLOPS", r->iter, r->decision_text);
    json_t *j = json_sprintf("%s%s%s%s%s", head, r->idea && *r->idea ? " · " : "", r->idea ? r->idea : "",
                             r->note && *r->note ? " · note: " : "", r->note ? r->note : "");
    return j ? j : json_string(head); /* json_sprintf fails on invalid UTF-8 */
}

static void build_rows(const struct report_shape *s, const int *col_of, size_t ncols, const struct hline *h,
                       size_t nh, double fail_y, json_t *rows, json_t *notes)
{
    for (size_t i = 0; i < s->n_rows; i++) {
        const struct report_row *r = &s->rows[i];
        json_t *row = json_array();
        json_array_append_new(row, json_integer(r->iter));
        json_array_append_new(row, num_or_null(s->st.best_so_far[i]));
        for (size_t c = 2; c < ncols - nh; c++) {
            bool mine = col_of[r->decision] == (int)c;
            double v = report_decision_failed(r->decision) ? fail_y : r->tflops;
            json_array_append_new(row, mine ? num_or_null(v) : json_null());
        }
        for (size_t k = 0; k < nh; k++)
            json_array_append_new(row, json_real(h[k].v));
        json_array_append_new(rows, row);
        json_array_append_new(notes, row_note(r));
    }
}

/* A row carrying only the horizontal lines, so they span the whole budget of a mid-run
 * shape, as in the static figure. */
static void add_end_row(json_t *rows, json_t *notes, int x, size_t ncols, const struct hline *h, size_t nh)
{
    json_t *row = json_array();
    json_array_append_new(row, json_integer(x));
    for (size_t c = 1; c < ncols - nh; c++)
        json_array_append_new(row, json_null());
    for (size_t k = 0; k < nh; k++)
        json_array_append_new(row, json_real(h[k].v));
    json_array_append_new(rows, row);
    json_array_append_new(notes, json_string("end of the iteration budget"));
}

static json_t *chart_json(const struct report_shape *s)
{
    struct conv_range cr;
    fig_conv_range(s, &cr);
    struct series sr = {json_array(), json_array(), json_object()};
    json_array_append_new(sr.labels, json_string("iteration"));
    add_series(&sr, "best so far", "#2166ac", json_pack("{s:b, s:f}", "stepPlot", 1, "strokeWidth", 2.0));
    int col_of[RD_COUNT];
    static const enum report_decision order[] = {RD_KEEP, RD_DISCARD, RD_BASELINE, RD_INCORRECT,
                                                 RD_CRASH, RD_TIMEOUT, RD_OTHER};
    size_t ncols = 2;
    for (size_t i = 0; i < RD_COUNT; i++)
        col_of[i] = -1;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        enum report_decision d = order[i];
        if (!s->st.n_decision[d])
            continue;
        const struct decision_style *st = fig_decision_style(d);
        char label[128];
        snprintf(label, sizeof label, "%s%s", st->label, report_decision_failed(d) ? " (no TFLOPS)" : "");
        add_series(&sr, label, st->color, points_opt(d == RD_DISCARD ? 2.0 : 3.0));
        col_of[d] = (int)ncols++;
    }
    struct hline h[4];
    size_t nh = hlines_of(s, h);
    for (size_t k = 0; k < nh; k++)
        add_series(&sr, h[k].label, h[k].color, hline_opt(h[k].dash));
    json_t *rows = json_array(), *notes = json_array();
    build_rows(s, col_of, ncols + nh, h, nh, cr.fail_y, rows, notes);
    /* The first one ends the best-so-far step one iteration later (a step plot draws up
     * to the next x even when it has no value). */
    int last = s->n_rows ? s->rows[s->n_rows - 1].iter : 0;
    if (s->n_rows && cr.x_max - 1 > last + 1)
        add_end_row(rows, notes, last + 1, ncols + nh, h, nh);
    if (s->n_rows && cr.x_max - 1 > last)
        add_end_row(rows, notes, cr.x_max - 1, ncols + nh, h, nh);
    /* The x range is the whole budget, as in the static figure, so a mid-run shape shows
     * how far it is. */
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:[f,f], s:[i,i], s:s}", "labels", sr.labels, "colors", sr.colors,
                     "series", sr.opts, "rows", rows, "notes", notes, "valueRange", cr.lo, cr.hi, "dateWindow", -1,
                     cr.x_max, "hint",
                     "Hover the chart: the iteration's decision and idea appear here. Failed candidates sit at the "
                     "bottom of the chart.");
}

void html_dygraph(const struct report_shape *s, struct strbuf *sb)
{
    json_t *j = chart_json(s);
    char id[96];
    snprintf(id, sizeof id, "dy-%s", s->key);
    json_object_set_new(j, "div", json_string(id));
    snprintf(id, sizeof id, "dylab-%s", s->key);
    json_object_set_new(j, "labelsDiv", json_string(id));
    snprintf(id, sizeof id, "dyinfo-%s", s->key);
    json_object_set_new(j, "info", json_string(id));
    char *text = json_dumps(j, JSON_COMPACT);
    strbuf_addf(sb, "<div class=\"dy\" id=\"dy-%s\"></div>\n<div class=\"dylab\" id=\"dylab-%s\"></div>\n"
                    "<div class=\"dyinfo\" id=\"dyinfo-%s\"></div>\n<script type=\"application/json\" class=\"dy-data\">",
                s->key, s->key, s->key);
    esc_json_script(sb, text ? text : "{}");
    strbuf_adds(sb, "</script>\n");
    free(text);
    json_decref(j);
}
