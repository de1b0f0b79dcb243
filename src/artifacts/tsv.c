/* src/artifacts/tsv.c — one row of results.tsv / attempts.tsv (docs/artifacts.md).
 *
 * Every text field is escaped, so idea text with tabs, newlines or any bytes an agent
 * sends stays inside its column and its row; numbers are printed at their kind's
 * precision (results.h; the same precision perf_quantize rounds to), empty when there is
 * no value.
 */
#include "artifacts/results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

const char *const results_columns[RESULTS_COLUMNS] = {
    "iter", "kernel", "source_hash", "config", "tflops", "median_ms", "spread_pct",
    "hw_eff_pct", "sm_clock_mhz", "decision", "best_tflops", "bottleneck", "category", "idea",
    "max_err_over_tol", "timestamp", "command", "note",
};

void tsv_escape(struct strbuf *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '\\': strbuf_adds(out, "\\\\"); break;
        case '\t': strbuf_adds(out, "\\t"); break;
        case '\n': strbuf_adds(out, "\\n"); break;
        case '\r': strbuf_adds(out, "\\r"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                strbuf_addf(out, "\\x%02x", *p);
            else
                strbuf_add(out, p, 1);
        }
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int tsv_unescape(const char *s, char *out, size_t outlen)
{
    size_t n = 0;
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (c == '\\') {
            switch (*++p) {
            case '\\': c = '\\'; break;
            case 't': c = '\t'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 'x': {
                int hi = p[1] ? hexval(p[1]) : -1, lo = hi >= 0 && p[2] ? hexval(p[2]) : -1;
                if (hi < 0 || lo < 0)
                    return -1;
                c = (char)(hi * 16 + lo);
                p += 2;
                break;
            }
            default:
                return -1;
            }
        }
        if (n + 1 >= outlen)
            return -1;
        out[n++] = c;
    }
    out[n] = '\0';
    return 0;
}

/* Lenient reading also takes the upper-case hex digits a hand-edited file may have. */
static char lower(char c) { return c >= 'A' && c <= 'F' ? (char)(c - 'A' + 'a') : c; }

void tsv_unescape_lenient(char *f)
{
    char *w = f;
    for (const char *r = f; *r; r++) {
        int hi, lo;
        if (*r != '\\') {
            *w++ = *r;
        } else if (r[1] == '\\' || r[1] == 't' || r[1] == 'n' || r[1] == 'r') {
            r++;
            *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r == 'r' ? '\r' : '\\';
        } else if (r[1] == 'x' && (hi = hexval(lower(r[2]))) >= 0 && (lo = hexval(lower(r[3]))) >= 0 && (hi || lo)) {
            *w++ = (char)(hi * 16 + lo);
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

int tsv_split(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;; n++) {
        char *tab = strchr(p, '\t');
        if (n < max)
            f[n] = p;
        if (!tab)
            return n + 1;
        *tab = '\0';
        p = tab + 1;
    }
}

static const struct {
    int decimals, sig; /* sig 0: fixed decimals */
} precision[RN_KINDS] = {
    [RN_TFLOPS] = {3, RESULTS_SIG_DIGITS},  [RN_MEDIAN_MS] = {6, RESULTS_SIG_DIGITS}, [RN_SPREAD_PCT] = {3, 0},
    [RN_HW_EFF_PCT] = {2, 0}, [RN_SM_CLOCK] = {0, 0}, [RN_RATIO] = {6, RESULTS_SIG_DIGITS},
};

/* Beyond this a value is below 1e-56 of its unit: nothing measured is that small, and the
 * text stays short; such a value is written as 0 (which the range checks then refuse). */
#define DECIMALS_MAX 60

int results_decimals(double x, enum results_num kind)
{
    int d = precision[kind].decimals, sig = precision[kind].sig;
    char buf[64];
    if (!sig || !isfinite(x) || x == 0)
        return d;
    /* the exponent after rounding to sig digits: 0.99996 is 1.000e+00, so it gets the
     * fixed decimals, and a value and its rounding always get the same decimals */
    snprintf(buf, sizeof buf, "%.*e", sig - 1, x);
    const char *e = strchr(buf, 'e');
    int want = e ? sig - 1 - atoi(e + 1) : d;
    return want > DECIMALS_MAX ? DECIMALS_MAX : want > d ? want : d;
}

char *results_num_text(char *buf, size_t len, double x, enum results_num kind)
{
    if (!isfinite(x))
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%.*f", results_decimals(x, kind), x);
    return buf;
}

double results_round(double x, enum results_num kind)
{
    char buf[DECIMALS_MAX + 340]; /* the integer digits of any double, the decimals, sign */
    if (!isfinite(x))
        return x;
    return strtod(results_num_text(buf, sizeof buf, x, kind), NULL);
}

char *results_tflops_show(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fabs(v) >= 1 || v == 0 ? "%.1f" : "%.4g", v);
    return buf;
}

/* A tab, then the number (nothing when there is no value). */
static void add_num(struct strbuf *sb, double v, enum results_num kind)
{
    char buf[DECIMALS_MAX + 340];
    strbuf_adds(sb, "\t");
    strbuf_adds(sb, results_num_text(buf, sizeof buf, v, kind));
}

static void add_fmt(struct strbuf *sb, double v, const char *fmt)
{
    strbuf_adds(sb, "\t");
    if (isfinite(v))
        strbuf_addf(sb, fmt, v);
}

static void add_text(struct strbuf *sb, const char *s)
{
    strbuf_adds(sb, "\t");
    tsv_escape(sb, s);
}

char *row_format(const struct result_row *r)
{
    struct strbuf sb = STRBUF_INIT;
    double none = NAN;
    bool m = r->measured;
    strbuf_addf(&sb, "%d", r->iter);
    add_text(&sb, r->kernel);
    add_text(&sb, r->source_hash);
    add_text(&sb, r->config);
    add_num(&sb, m ? r->tflops : none, RN_TFLOPS);
    add_num(&sb, m ? r->median_ms : none, RN_MEDIAN_MS);
    add_num(&sb, m ? r->spread_pct : none, RN_SPREAD_PCT);
    add_num(&sb, m ? r->hw_eff_pct : none, RN_HW_EFF_PCT);
    add_num(&sb, m ? r->sm_clock_mhz : none, RN_SM_CLOCK);
    add_text(&sb, decision_name(r->decision));
    add_num(&sb, r->best_tflops, RN_TFLOPS);
    add_text(&sb, r->bottleneck);
    add_text(&sb, r->category);
    add_text(&sb, r->idea);
    add_fmt(&sb, r->max_err_over_tol, "%.4g");
    add_text(&sb, r->timestamp);
    add_text(&sb, r->command);
    add_text(&sb, r->note);
    strbuf_adds(&sb, "\n");
    return strbuf_detach(&sb);
}

/* Split line at tabs into exactly RESULTS_COLUMNS fields (line is modified). */
static int split(char *line, char *f[RESULTS_COLUMNS], char *err, size_t errlen)
{
    int n = tsv_split(line, f, RESULTS_COLUMNS);
    if (n > RESULTS_COLUMNS) {
        snprintf(err, errlen, "more than %d fields", RESULTS_COLUMNS);
        return -1;
    }
    if (n != RESULTS_COLUMNS) {
        snprintf(err, errlen, "expected %d tab-separated fields, found %d", RESULTS_COLUMNS, n);
        return -1;
    }
    return 0;
}

static int get_num(const char *s, double *out, bool allow_empty)
{
    char *end;
    if (!*s) {
        *out = NAN;
        return allow_empty ? 0 : -1;
    }
    errno = 0;
    *out = strtod(s, &end);
    return (errno || *end || !isfinite(*out)) ? -1 : 0;
}

#define TEXT(field, idx)                                                                 \
    do {                                                                                 \
        if (tsv_unescape(f[idx], r->field, sizeof r->field)) {                           \
            snprintf(err, errlen, "column '%s': bad escape or too long", results_columns[idx]); \
            goto fail;                                                                   \
        }                                                                                \
    } while (0)
#define NUM(field, idx, empty_ok)                                                        \
    do {                                                                                 \
        if (get_num(f[idx], &r->field, empty_ok)) {                                      \
            snprintf(err, errlen, "column '%s': '%.40s' is not a number", results_columns[idx], f[idx]); \
            goto fail;                                                                   \
        }                                                                                \
    } while (0)

int row_parse(const char *line, struct result_row *r, char *err, size_t errlen)
{
    char *copy = strdup(line), *f[RESULTS_COLUMNS], dec[32], *end;
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memset(r, 0, sizeof *r);
    if (split(copy, f, err, errlen))
        goto fail;
    errno = 0;
    long it = strtol(f[0], &end, 10);
    if (errno || end == f[0] || *end || it < 0 || it > 1000000) {
        snprintf(err, errlen, "column 'iter': '%.40s' is not an iteration number", f[0]);
        goto fail;
    }
    r->iter = (int)it;
    TEXT(kernel, 1);
    TEXT(source_hash, 2);
    TEXT(config, 3);
    r->measured = *f[4] != '\0';
    NUM(tflops, 4, true);
    NUM(median_ms, 5, true);
    NUM(spread_pct, 6, true);
    NUM(hw_eff_pct, 7, true);
    NUM(sm_clock_mhz, 8, true);
    if (tsv_unescape(f[9], dec, sizeof dec) || decision_parse(dec) < 0) {
        snprintf(err, errlen, "column 'decision': '%.40s' is not a decision", f[9]);
        goto fail;
    }
    r->decision = (enum decision)decision_parse(dec);
    NUM(best_tflops, 10, true);
    TEXT(bottleneck, 11);
    TEXT(category, 12);
    TEXT(idea, 13);
    NUM(max_err_over_tol, 14, true);
    TEXT(timestamp, 15);
    TEXT(command, 16);
    TEXT(note, 17);
    free(copy);
    return 0;
fail:
    free(copy);
    return -1;
}
