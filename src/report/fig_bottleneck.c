/* src/report/fig_bottleneck.c — per shape: stacked bars of the bottleneck categories
 * that motivated the iterations, one bar per phase (third of the budget). */
#include <stdio.h>
#include <stdlib.h>

#include "report/figures.h"
#include "report/plot.h"
#include "report/tables.h"

/* Colour per category position; the list is sweep-wide and sorted, so a category has
 * the same colour in every shape's chart. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define N_PALETTE (sizeof palette / sizeof palette[0])

/* A header cell must stay one tab-separated field. */
static void add_field(struct strbuf *sb, const char *s)
{
    for (; *s; s++)
        strbuf_add(sb, (*s == '\t' || *s == '\n' || *s == '\r') ? " " : s, 1);
}

static void bn_data(const struct report_shape *s, const struct bn_list *l, struct strbuf *d)
{
    int *counts = bn_count(s, l);
    strbuf_adds(d, "phase");
    for (size_t i = 0; i < l->n; i++) {
        strbuf_adds(d, "\t");
        add_field(d, l->names[i]);
    }
    strbuf_adds(d, "\n");
    for (int p = 0; p < STATS_PHASES; p++) {
        char label[64];
        tables_phase_label(s, p, label, sizeof label);
        strbuf_adds(d, label);
        for (size_t i = 0; i < l->n; i++)
            strbuf_addf(d, "\t%d", counts[(size_t)p * l->n + i]);
        strbuf_adds(d, "\n");
    }
    free(counts);
}

static void bn_script(const struct report_shape *s, const struct bn_list *l, struct strbuf *sb)
{
    char title[200];
    snprintf(title, sizeof title, "%s %ldx%ldx%ld (%s): bottleneck behind each idea, by phase%s", s->dtype, s->m,
             s->n, s->k, s->from_scratch ? "from scratch" : "from current best", tables_sim_tag(s));
    plot_script_begin(sb, "bottlenecks", title);
    for (size_t i = 0; i < N_PALETTE; i++)
        strbuf_addf(sb, "set linetype %zu lc rgb \"%s\"\n", i + 1, palette[i]);
    strbuf_addf(sb, "set linetype cycle %zu\n", N_PALETTE);
    strbuf_adds(sb, "set title ");
    plot_str(sb, title);
    strbuf_addf(sb, "\nset style data histograms\nset style histogram rowstacked\n"
                    "set style fill solid 0.9 border rgb \"white\"\nset boxwidth 0.6 relative\n"
                    "set yrange [0:*]\nset xlabel \"phase of the run (iterations; thirds of the budget)\"\n"
                    "set ylabel \"iterations (count)\"\n"
                    "set key outside right top vertical Left reverse title \"bottleneck\" font \",10\"\n");
    plot_formats_begin(sb, 900, 480);
    strbuf_addf(sb, "  plot for [c=2:%zu] 'bottlenecks.dat' using c:xtic(1) title columnheader(c)\n", l->n + 1);
    plot_formats_end(sb);
}

bool fig_bottleneck(struct report_out *o, const struct report_shape *s, const struct bn_list *l)
{
    if (!l->n)
        return false;
    struct strbuf script = STRBUF_INIT, data = STRBUF_INIT;
    char dir[128];
    snprintf(dir, sizeof dir, "shapes/%s", s->key);
    bn_data(s, l, &data);
    bn_script(s, l, &script);
    bool ok = plot_render(o, dir, "bottlenecks", &script, &data, s->key);
    strbuf_release(&script);
    strbuf_release(&data);
    return ok;
}
