/* src/report/read_results.c — logs/<key>/results.tsv (docs/artifacts.md, schema 1).
 *
 * Columns are found by header name, not position, so a column added by a later
 * schema does not break the report; only iter and decision are required.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "artifacts/results.h"
#include "report/read.h"
#include "util/atomicio.h"
#include "util/log.h"

enum col {
    C_ITER, C_KERNEL, C_CONFIG, C_TFLOPS, C_MEDIAN, C_SPREAD, C_HWEFF, C_CLOCK, C_DECISION,
    C_BEST, C_BOTTLENECK, C_CATEGORY, C_IDEA, C_MAXERR, C_TS, C_CMD, C_NOTE, C_N
};

/* The report's columns in results.tsv's own names (src/artifacts, results_columns). */
static const enum results_col col_rc[C_N] = {
    RC_ITER, RC_KERNEL, RC_CONFIG, RC_TFLOPS, RC_MEDIAN_MS, RC_SPREAD_PCT, RC_HW_EFF_PCT, RC_SM_CLOCK_MHZ,
    RC_DECISION, RC_BEST_TFLOPS, RC_BOTTLENECK, RC_CATEGORY, RC_IDEA, RC_MAX_ERR_OVER_TOL, RC_TIMESTAMP,
    RC_COMMAND, RC_NOTE,
};
#define col_name(c) results_columns[col_rc[c]]

/* A row has at most this many fields; more is malformed. */
#define MAX_FIELDS 64

/* "" or "nan" -> NAN; a full decimal number -> its value; else -1. */
static int parse_num(const char *s, double *out)
{
    if (!*s || !strcasecmp(s, "nan")) {
        *out = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_iter(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

/* Column index per enum col from the header fields; -1 where absent. */
static void map_header(char **f, int nf, int idx[C_N])
{
    for (int c = 0; c < C_N; c++) {
        idx[c] = -1;
        for (int i = 0; i < nf; i++)
            if (!strcmp(f[i], col_name(c)))
                idx[c] = i;
    }
}

static const char *field(char **f, const int idx[C_N], enum col c)
{
    return idx[c] >= 0 ? f[idx[c]] : "";
}

static char *dup_field(char **f, const int idx[C_N], enum col c)
{
    return xstrdup(field(f, idx, c));
}

/* Fill r from the fields; NULL, or why the row is malformed. */
static const char *report_row_parse(struct report_row *r, char **f, const int idx[C_N])
{
    static const enum col numeric[] = {C_TFLOPS, C_MEDIAN, C_SPREAD, C_HWEFF, C_CLOCK, C_BEST, C_MAXERR};
    double *dst[] = {&r->tflops, &r->median_ms, &r->spread_pct, &r->hw_eff_pct,
                     &r->sm_clock_mhz, &r->best_tflops, &r->max_err};
    if (parse_iter(field(f, idx, C_ITER), &r->iter))
        return "iter is not a non-negative integer";
    if (!*field(f, idx, C_DECISION))
        return "empty decision";
    for (size_t i = 0; i < sizeof numeric / sizeof numeric[0]; i++)
        if (parse_num(field(f, idx, numeric[i]), dst[i]))
            return col_name(numeric[i]);
    r->decision = report_decision_parse(field(f, idx, C_DECISION));
    if ((r->decision == RD_KEEP) && isnan(r->tflops))
        return "KEEP without tflops";
    return NULL;
}

static void row_fill_text(struct report_row *r, char **f, const int idx[C_N])
{
    r->decision_text = dup_field(f, idx, C_DECISION);
    r->kernel = dup_field(f, idx, C_KERNEL);
    r->config = dup_field(f, idx, C_CONFIG);
    r->bottleneck = dup_field(f, idx, C_BOTTLENECK);
    r->category = dup_field(f, idx, C_CATEGORY);
    r->idea = dup_field(f, idx, C_IDEA);
    r->timestamp = dup_field(f, idx, C_TS);
    r->command = dup_field(f, idx, C_CMD);
    r->note = dup_field(f, idx, C_NOTE);
}

struct reader {
    struct report_shape *s;
    const char *rel;
    struct report_notes *nl;
    int idx[C_N];
    int n_header;
    bool have_header, warned_unknown;
    size_t cap;
};

/* "# croqtuner results schema=1 backend=gpu" */
static void parse_meta(struct reader *rd, const char *line)
{
    const char *sch = strstr(line, "schema=");
    if (!sch || atoi(sch + 7) != 1)
        notes_add(rd->nl, NOTE_INFO, rd->s->key, "%s:1: schema is not 1; columns read by name", rd->rel);
    rd->s->simulated = strstr(line, "backend=sim") != NULL;
    const char *dec = strstr(line, " decide=");
    rd->s->decide_rules = dec ? atoi(dec + 8) : 1; /* absent: before the rules were versioned */
}

static void take_header(struct reader *rd, char *line, int lineno)
{
    char *f[MAX_FIELDS];
    int nf = tsv_split(line, f, MAX_FIELDS);
    if (nf > MAX_FIELDS)
        nf = MAX_FIELDS;
    map_header(f, nf, rd->idx);
    rd->n_header = nf;
    rd->have_header = true;
}

static void take_row(struct reader *rd, char *line, int lineno)
{
    char *f[MAX_FIELDS];
    int nf = tsv_split(line, f, MAX_FIELDS);
    if (nf != rd->n_header) {
        notes_add(rd->nl, NOTE_MALFORMED, rd->s->key, "%s:%d: %d fields, the header has %d", rd->rel,
                  lineno, nf, rd->n_header);
        return;
    }
    for (int i = 0; i < nf; i++)
        tsv_unescape_lenient(f[i]);
    struct report_row r = {.line = lineno};
    const char *why = report_row_parse(&r, f, rd->idx);
    struct report_shape *s = rd->s;
    if (!why && s->n_rows && r.iter <= s->rows[s->n_rows - 1].iter)
        why = "iteration does not follow the previous row's";
    if (why) {
        notes_add(rd->nl, NOTE_MALFORMED, s->key, "%s:%d: bad %s", rd->rel, lineno, why);
        return;
    }
    if (r.decision == RD_OTHER && !rd->warned_unknown) {
        notes_add(rd->nl, NOTE_INFO, s->key, "%s:%d: unknown decision '%s' (drawn as a failure)",
                  rd->rel, lineno, field(f, rd->idx, C_DECISION));
        rd->warned_unknown = true;
    }
    row_fill_text(&r, f, rd->idx);
    if (s->n_rows == rd->cap) {
        rd->cap = rd->cap ? 2 * rd->cap : 64;
        s->rows = xrealloc(s->rows, rd->cap * sizeof *s->rows);
    }
    s->rows[s->n_rows++] = r;
}

static void take_line(struct reader *rd, char *line, int lineno)
{
    size_t len = strlen(line);
    if (len && line[len - 1] == '\r')
        line[len - 1] = '\0';
    bool meta = !strncmp(line, "# croqtuner results", 19);
    if (lineno == 1 && !meta)
        notes_add(rd->nl, NOTE_INFO, rd->s->key,
                  "%s:1: not a '# croqtuner results schema=1' line; reading on", rd->rel);
    if (lineno == 1 && meta)
        parse_meta(rd, line);
    else if (line[0] == '#' || line[0] == '\0')
        return;
    else if (!rd->have_header)
        take_header(rd, line, lineno);
    else
        take_row(rd, line, lineno);
}

int results_read(struct report_shape *s, const char *path, const char *rel, struct report_notes *nl)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text)
        return -1;
    struct reader rd = {.s = s, .rel = rel, .nl = nl};
    int lineno = 0;
    char *p = text;
    while (p < text + len) {
        char *nlp = memchr(p, '\n', (size_t)(text + len - p));
        lineno++;
        if (!nlp) {
            notes_add(nl, NOTE_INFO, s->key, "%s:%d: last line has no newline (still being written?); ignored",
                      rel, lineno);
            break;
        }
        *nlp = '\0';
        take_line(&rd, p, lineno);
        p = nlp + 1;
    }
    free(text);
    if (!rd.have_header || rd.idx[C_ITER] < 0 || rd.idx[C_DECISION] < 0) {
        notes_add(nl, NOTE_MALFORMED, s->key, "%s: no header line with 'iter' and 'decision' columns", rel);
        return -1;
    }
    s->have_results = true;
    return 0;
}
