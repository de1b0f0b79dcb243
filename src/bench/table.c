/* src/bench/table.c — bench rows on the terminal, in CSV and in Markdown. */
#include "table.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "util/atomicio.h"
#include "util/strbuf.h"
#include "util/utctime.h"

void bench_row_init(struct bench_row *r, int dtype, const struct croq_shape *s, const char *kernel)
{
    memset(r, 0, sizeof *r);
    r->shape = *s;
    r->dtype = dtype;
    snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
    snprintf(r->l2, sizeof r->l2, "warm");
    r->tflops = r->median_ms = r->spread_pct = r->max_err_over_tol = r->sm_clock_mhz = r->pct_peak = NAN;
    utc_now(r->date);
}

static void shape_text(const struct croq_shape *s, char *out, size_t len)
{
    snprintf(out, len, "%ldx%ldx%ld", s->m, s->n, s->k);
}

/* A number with the given decimals, or the empty text for NAN. */
static const char *num(char *buf, size_t len, double x, int decimals, const char *empty)
{
    if (isnan(x))
        snprintf(buf, len, "%s", empty);
    else
        snprintf(buf, len, "%.*f", decimals, x);
    return buf;
}

void bench_table_header(FILE *f)
{
    fprintf(f, "%-16s %-5s %-28s %-8s %8s %10s %8s %7s %6s %4s\n", "shape", "dtype", "kernel", "verified", "TFLOPS",
            "ms", "err/tol", "clock", "%peak", "l2");
}

void bench_table_line(FILE *f, const struct bench_row *r)
{
    char shape[64], a[32], b[32], c[32], d[32], e[32];
    shape_text(&r->shape, shape, sizeof shape);
    fprintf(f, "%-16s %-5s %-28s %-8s %8s %10s %8s %7s %6s %4s\n", shape, croq_dtype_name(r->dtype), r->kernel,
            r->verified ? "yes" : "NO", num(a, sizeof a, r->tflops, 1, "-"), num(b, sizeof b, r->median_ms, 4, "-"),
            num(c, sizeof c, r->max_err_over_tol, 3, "-"), num(d, sizeof d, r->sm_clock_mhz, 0, "-"),
            num(e, sizeof e, r->pct_peak, 1, "-"), r->l2);
}

static const char *const columns[] = {"shape", "dtype", "kernel", "TFLOPS", "median_ms", "spread_pct",
                                      "max_err_over_tol", "verified", "sm_clock_mhz", "pct_peak_at_clock",
                                      "date", "gpu", "l2"};
#define NCOL (sizeof columns / sizeof columns[0])
#define CELL 192 /* > CROQ_LABEL_MAX */

/* The cells of one row, as text, in column order. */
static void cells(const struct bench_row *r, char out[NCOL][CELL])
{
    shape_text(&r->shape, out[0], CELL);
    snprintf(out[1], CELL, "%s", croq_dtype_name(r->dtype));
    snprintf(out[2], CELL, "%s", r->kernel);
    num(out[3], CELL, r->tflops, 2, "");
    num(out[4], CELL, r->median_ms, 5, "");
    num(out[5], CELL, r->spread_pct, 2, "");
    num(out[6], CELL, r->max_err_over_tol, 4, "");
    snprintf(out[7], CELL, "%s", r->verified ? "yes" : "no");
    num(out[8], CELL, r->sm_clock_mhz, 0, "");
    num(out[9], CELL, r->pct_peak, 2, "");
    snprintf(out[10], CELL, "%s", r->date);
    snprintf(out[11], CELL, "%s", r->gpu);
    snprintf(out[12], CELL, "%s", r->l2);
}

/* RFC 4180: quote a cell holding a comma, quote or newline; double the quotes. */
static void csv_cell(struct strbuf *sb, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        strbuf_adds(sb, s);
        return;
    }
    strbuf_adds(sb, "\"");
    for (; *s; s++)
        strbuf_add(sb, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
    strbuf_adds(sb, "\"");
}

static void csv_text(struct strbuf *sb, const struct bench_row *rows, int n)
{
    char c[NCOL][CELL];
    for (size_t j = 0; j < NCOL; j++)
        strbuf_addf(sb, "%s%s", j ? "," : "", columns[j]);
    strbuf_adds(sb, "\n");
    for (int i = 0; i < n; i++) {
        cells(&rows[i], c);
        for (size_t j = 0; j < NCOL; j++) {
            if (j)
                strbuf_adds(sb, ",");
            csv_cell(sb, c[j]);
        }
        strbuf_adds(sb, "\n");
    }
}

static void md_text(struct strbuf *sb, const char *command, const struct bench_row *rows, int n)
{
    char c[NCOL][CELL];
    int verified = 0;
    strbuf_adds(sb, "# croqtuner bench\n\n");
    if (command)
        strbuf_addf(sb, "Command: `%s`\n\n", command);
    strbuf_adds(sb, "|");
    for (size_t j = 0; j < NCOL; j++)
        strbuf_addf(sb, " %s |", columns[j]);
    strbuf_adds(sb, "\n|");
    for (size_t j = 0; j < NCOL; j++)
        strbuf_adds(sb, j >= 3 && j <= 9 && j != 7 ? " ---: |" : " --- |");
    strbuf_adds(sb, "\n");
    for (int i = 0; i < n; i++) {
        cells(&rows[i], c);
        verified += rows[i].verified;
        strbuf_adds(sb, "|");
        for (size_t j = 0; j < NCOL; j++)
            strbuf_addf(sb, " %s |", c[j][0] ? c[j] : "-");
        strbuf_adds(sb, "\n");
    }
    strbuf_addf(sb, "\n%d of %d kernels verified. TFLOPS = 2MNK/t (dense-equivalent); pct_peak_at_clock is "
                    "against the sparse tensor-core peak scaled to the measured SM clock.\n", verified, n);
}

static int write_one(const char *path, struct strbuf *sb, char *err, size_t errlen)
{
    if (atomic_write(path, sb->buf ? sb->buf : "", sb->len) == 0)
        return 0;
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    return -1;
}

int bench_table_write(const char *prefix, const char *command, const struct bench_row *rows, int n, char *err,
                      size_t errlen)
{
    char path[4096];
    struct strbuf csv = STRBUF_INIT, md = STRBUF_INIT;
    csv_text(&csv, rows, n);
    md_text(&md, command, rows, n);
    snprintf(path, sizeof path, "%.4000s.csv", prefix);
    int rc = write_one(path, &csv, err, errlen);
    snprintf(path, sizeof path, "%.4000s.md", prefix);
    if (rc == 0)
        rc = write_one(path, &md, err, errlen);
    strbuf_release(&csv);
    strbuf_release(&md);
    return rc;
}
