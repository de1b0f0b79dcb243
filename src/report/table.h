/* src/report/table.h — a table built once and written in four formats: CSV (for
 * scripts), Markdown (for notes and issues), LaTeX booktabs (for the paper) and HTML
 * (for the report page). Cells are typed so every format shows the same number with
 * the same rounding, and a missing value is an empty cell rather than "nan".
 */
#ifndef CROQ_REPORT_TABLE_H
#define CROQ_REPORT_TABLE_H
#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

/* CELL_CODE: text a reader copies back into the tool (a configuration signature): Markdown
 * shows it as a code span, so its underscores are not escaped (the raw .md is what is
 * copied); LaTeX as \texttt, HTML as <code>, CSV as it is. */
enum cell_kind { CELL_EMPTY = 0, CELL_TEXT, CELL_NUM, CELL_RATIO, CELL_INT, CELL_CODE };

struct table_cell {
    enum cell_kind kind;
    double v;      /* CELL_NUM / CELL_RATIO / CELL_INT */
    int prec;      /* decimals for CELL_NUM / CELL_RATIO */
    char *text;    /* CELL_TEXT, CELL_CODE */
};

struct table_col {
    char *head;    /* with unit, e.g. "best (TFLOPS)" */
    bool right;    /* right-aligned (numbers) */
    bool wrap;     /* long text (idea, justification): may wrap in HTML */
};

struct report_table {
    char *caption;
    size_t ncols, nrows, cap;
    struct table_col *cols;
    struct table_cell *cells;  /* nrows * ncols */
    bool *summary;             /* per row: a summary line (geomean), set off by a rule */
};

void table_init(struct report_table *t, const char *caption, size_t ncols);
void table_col(struct report_table *t, size_t c, const char *head, bool right);
void table_col_wrap(struct report_table *t, size_t c);
size_t table_row(struct report_table *t, bool summary);   /* new row of empty cells */
void table_text(struct report_table *t, size_t r, size_t c, const char *text);
void table_code(struct report_table *t, size_t r, size_t c, const char *text); /* NULL or "": empty */
void table_num(struct report_table *t, size_t r, size_t c, double v, int prec);   /* NAN: empty */
void table_ratio(struct report_table *t, size_t r, size_t c, double v, int prec); /* shown as 1.23x */
void table_int(struct report_table *t, size_t r, size_t c, long v);
const struct table_cell *table_at(const struct report_table *t, size_t r, size_t c);
void table_release(struct report_table *t);

/* Renderers: append the whole table to sb. */
void table_csv(const struct report_table *t, struct strbuf *sb);
void table_md(const struct report_table *t, struct strbuf *sb);
void table_tex(const struct report_table *t, struct strbuf *sb);
/* id: the HTML id of the <table>. */
void table_html(const struct report_table *t, struct strbuf *sb, const char *id);

/* A cell's value as the one plain number CSV shows ("" when empty). */
void table_cell_plain(const struct table_cell *cell, struct strbuf *sb);
#endif
