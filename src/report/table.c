/* src/report/table.c — building a typed table (table.h). */
#include "report/table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

void table_init(struct report_table *t, const char *caption, size_t ncols)
{
    memset(t, 0, sizeof *t);
    t->caption = xstrdup(caption);
    t->ncols = ncols;
    t->cols = xmalloc(ncols * sizeof *t->cols);
    memset(t->cols, 0, ncols * sizeof *t->cols);
}

void table_col(struct report_table *t, size_t c, const char *head, bool right)
{
    free(t->cols[c].head);
    t->cols[c] = (struct table_col){xstrdup(head), right, false};
}

void table_col_wrap(struct report_table *t, size_t c)
{
    t->cols[c].wrap = true;
}

size_t table_row(struct report_table *t, bool summary)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->cells = xrealloc(t->cells, t->cap * t->ncols * sizeof *t->cells);
        t->summary = xrealloc(t->summary, t->cap * sizeof *t->summary);
    }
    memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof *t->cells);
    t->summary[t->nrows] = summary;
    return t->nrows++;
}

static struct table_cell *cell(struct report_table *t, size_t r, size_t c)
{
    struct table_cell *x = &t->cells[r * t->ncols + c];
    free(x->text);
    memset(x, 0, sizeof *x);
    return x;
}

void table_text(struct report_table *t, size_t r, size_t c, const char *text)
{
    struct table_cell *x = cell(t, r, c);
    if (text) {
        x->kind = CELL_TEXT;
        x->text = xstrdup(text);
    }
}

void table_code(struct report_table *t, size_t r, size_t c, const char *text)
{
    struct table_cell *x = cell(t, r, c);
    if (text && *text) {
        x->kind = CELL_CODE;
        x->text = xstrdup(text);
    }
}

void table_num(struct report_table *t, size_t r, size_t c, double v, int prec)
{
    struct table_cell *x = cell(t, r, c);
    if (isfinite(v))
        *x = (struct table_cell){CELL_NUM, v, prec, NULL};
}

void table_ratio(struct report_table *t, size_t r, size_t c, double v, int prec)
{
    struct table_cell *x = cell(t, r, c);
    if (isfinite(v))
        *x = (struct table_cell){CELL_RATIO, v, prec, NULL};
}

void table_int(struct report_table *t, size_t r, size_t c, long v)
{
    *cell(t, r, c) = (struct table_cell){CELL_INT, (double)v, 0, NULL};
}

const struct table_cell *table_at(const struct report_table *t, size_t r, size_t c)
{
    return &t->cells[r * t->ncols + c];
}

void table_release(struct report_table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i].text);
    for (size_t c = 0; c < t->ncols; c++)
        free(t->cols[c].head);
    free(t->cells);
    free(t->cols);
    free(t->summary);
    free(t->caption);
    memset(t, 0, sizeof *t);
}
