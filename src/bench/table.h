/* src/bench/table.h — `croqtuner bench` results as terminal lines, CSV and Markdown.
 *
 * Columns (CSV header and Markdown table, in this order):
 *   shape, dtype, kernel, TFLOPS, median_ms, spread_pct, max_err_over_tol, verified,
 *   sm_clock_mhz, pct_peak_at_clock, date, gpu, l2
 * l2 is "warm" or "cold" (bench --l2: the L2 state the worker timed with).
 * TFLOPS is dense-equivalent 2MNK/t/1e12; pct_peak_at_clock = TFLOPS / sparse peak at
 * the measured SM clock (1979 f16 / 3958 e4m3 at 1980 MHz, scaled), %; date is UTC
 * ISO 8601. A number that was not measured is an empty cell ("-" on the terminal).
 */
#ifndef CROQ_MEASURE_TABLE_H
#define CROQ_MEASURE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kernel.h"

struct bench_row {
    struct croq_shape shape;
    int dtype;
    char kernel[CROQ_LABEL_MAX];
    char status[32];          /* measure_status_name, or "compile_error" */
    char error[BUILD_ERROR_MAX]; /* why not verified (compiler or runner message) */
    bool verified;
    double tflops, median_ms, spread_pct, max_err_over_tol, sm_clock_mhz, pct_peak; /* NAN: none */
    char date[32];
    char gpu[96];
    char l2[8];               /* "warm" or "cold" */
};

/* Every number NAN, strings empty, l2 "warm", date = now. */
void bench_row_init(struct bench_row *r, int dtype, const struct croq_shape *s, const char *kernel);

void bench_table_header(FILE *f);
void bench_table_line(FILE *f, const struct bench_row *r);

/* Write PREFIX.csv and PREFIX.md (each atomically); the Markdown names the command that
 * made it (command: one line, or NULL). 0 or -1 with the failing file and errno text in err. */
int bench_table_write(const char *prefix, const char *command, const struct bench_row *rows, int n, char *err,
                      size_t errlen);

#endif
