/* src/report/html_env.c — the page's "Environment" section: what the numbers were
 * measured on and with (GPU, driver, CUDA, the tool's commit, SM clocks), read from the
 * raw runner output of each shape's best row (perf/<key>/iterNNN-cand.json, which
 * croq-runner fills with gpu_json_identity) and the clocks of results.tsv, and what
 * made the report. A value that no file records is said to be unrecorded, never
 * guessed. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/nvml.h"
#include "report/escape.h"
#include "report/render.h"
#include "util/regfile.h"
#include "util/version.h"

#define ENV_VALUES_MAX 6

/* Distinct values of one field over the runs, with how many runs had each. */
struct env_field {
    const char *key, *label;
    char values[ENV_VALUES_MAX][96];
    size_t counts[ENV_VALUES_MAX], n, more, unrecorded;
};

static void field_add(struct env_field *f, const char *v)
{
    if (!v || !*v) {
        f->unrecorded++;
        return;
    }
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->values[i], v)) {
            f->counts[i]++;
            return;
        }
    if (f->n == ENV_VALUES_MAX) {
        f->more++;
        return;
    }
    snprintf(f->values[f->n], sizeof f->values[0], "%s", v);
    f->counts[f->n++] = 1;
}

static void field_html(struct strbuf *sb, const struct env_field *f)
{
    strbuf_adds(sb, "<li><b>");
    esc_html(sb, f->label);
    strbuf_adds(sb, "</b>: ");
    for (size_t i = 0; i < f->n; i++) {
        strbuf_adds(sb, i ? "; " : "");
        esc_html(sb, f->values[i]);
        strbuf_addf(sb, " (%zu run%s)", f->counts[i], f->counts[i] == 1 ? "" : "s");
    }
    if (f->more)
        strbuf_addf(sb, "; %zu more run%s with other values", f->more, f->more == 1 ? "" : "s");
    if (f->unrecorded)
        strbuf_addf(sb, "%snot recorded for %zu run%s%s", f->n ? "; " : "", f->unrecorded,
                    f->unrecorded == 1 ? "" : "s", f->n ? "" : " (their runner output predates the field)");
    strbuf_adds(sb, "</li>\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void html_environment(const struct report_render *rr, struct strbuf *sb)
{
    struct env_field f[] = {
        {.key = "gpu", .label = "GPU"},
        {.key = "driver", .label = "NVIDIA driver"},
        {.key = "driver_cuda", .label = "CUDA version the driver supports"},
        {.key = "built_with_cuda", .label = "CUDA toolkit croq-runner was built with"},
        {.key = "commit", .label = "croqtuner commit of the runs"},
    };
    const size_t nf = sizeof f / sizeof f[0];
    size_t n_clock = 0, sim = 0, measured = 0;
    for (size_t i = 0; i < rr->sw->n_shapes; i++)
        n_clock += rr->sw->shapes[i].n_rows;
    double *clock = malloc((n_clock + 1) * sizeof *clock);
    n_clock = 0;
    for (size_t i = 0; i < rr->sw->n_shapes; i++) {
        const struct report_shape *s = &rr->sw->shapes[i];
        if (!s->n_rows)
            continue;
        for (size_t j = 0; j < s->n_rows; j++)
            if (clock && isfinite(s->rows[j].sm_clock_mhz) && s->rows[j].sm_clock_mhz > 0)
                clock[n_clock++] = s->rows[j].sm_clock_mhz;
        if (s->simulated) {
            sim++;
            continue;
        }
        measured++;
        char path[4096], err[256];
        int it = s->st.best_iter >= 0 ? s->st.best_iter : 0;
        snprintf(path, sizeof path, "%s/perf/%s/iter%03d-cand.json", rr->sw->tuning_dir, s->key, it);
        json_t *raw = regfile_load_json(path, 0, err, sizeof err);
        for (size_t k = 0; k < nf; k++)
            field_add(&f[k], json_string_value(json_object_get(raw, f[k].key)));
        json_decref(raw);
    }
    strbuf_adds(sb, "<section id=\"environment\">\n<h2>Environment</h2>\n<ul>\n");
    if (sim)
        strbuf_addf(sb, "<li><b>simulated</b>: %zu run%s on the sim backend (no GPU, no driver, no CUDA)</li>\n", sim,
                    sim == 1 ? "" : "s");
    if (measured)
        for (size_t k = 0; k < nf; k++)
            field_html(sb, &f[k]);
    if (n_clock) {
        qsort(clock, n_clock, sizeof *clock, cmp_double);
        /* a simulated run's clock is the simulator's model, no NVML reading */
        const bool all_sim = sim == measured + sim;
        strbuf_addf(sb, "<li><b>SM clock during timing</b>%s: median %.0f MHz, range %.0f&ndash;%.0f MHz over %zu "
                        "measurements (%s)</li>\n",
                    all_sim ? " (simulated)" : "", clock[n_clock / 2], clock[0], clock[n_clock - 1], n_clock,
                    all_sim ? "the sim backend's modelled clock, not a GPU's" : "NVML, sampled with each trial");
    } else {
        strbuf_adds(sb, "<li><b>SM clock</b>: not recorded</li>\n");
    }
    free(clock);
    char driver[96];
    strbuf_adds(sb, "<li><b>this report</b>: made by croqtuner ");
    esc_html(sb, croq_version);
    strbuf_adds(sb, ", commit ");
    esc_html(sb, croq_commit);
    strbuf_adds(sb, ", built with CUDA ");
    esc_html(sb, croq_cuda_version);
    strbuf_adds(sb, "; driver on this machine: ");
    esc_html(sb, nvml_driver_version(driver, sizeof driver) ? "none" : driver);
    strbuf_adds(sb, "</li>\n</ul>\n</section>\n");
}
