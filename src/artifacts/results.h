/* src/artifacts/results.h — results.tsv and attempts.tsv (docs/artifacts.md): rows, escaping,
 * and reading an append-only log exactly (a torn final line kept apart). */
#ifndef CROQ_ARTIFACTS_RESULTS_H
#define CROQ_ARTIFACTS_RESULTS_H
#include <stdbool.h>
#include <stddef.h>

#include "artifacts/names.h"
#include "backend/backend.h"
#include "proposer/proposer.h"
#include "util/strbuf.h"

/* ---- results.tsv / attempts.tsv rows (tsv.c) ------------------------------------ */

#define RESULTS_COLUMNS 18
/* The columns in file order; results_columns[RC_x] is the name of column RC_x. */
enum results_col {
    RC_ITER, RC_KERNEL, RC_SOURCE_HASH, RC_CONFIG, RC_TFLOPS, RC_MEDIAN_MS, RC_SPREAD_PCT, RC_HW_EFF_PCT,
    RC_SM_CLOCK_MHZ, RC_DECISION, RC_BEST_TFLOPS, RC_BOTTLENECK, RC_CATEGORY, RC_IDEA, RC_MAX_ERR_OVER_TOL,
    RC_TIMESTAMP, RC_COMMAND, RC_NOTE
};
extern const char *const results_columns[RESULTS_COLUMNS];

struct result_row {
    int iter;
    char kernel[BACKEND_REL_MAX];      /* srcs/<key>/iterNNN.cu */
    char source_hash[BACKEND_HASH_MAX];
    char config[CROQ_SIG_MAX];         /* knobs_signature */
    bool measured;                     /* the numbers below are present */
    double tflops, median_ms, spread_pct, hw_eff_pct, sm_clock_mhz;
    enum decision decision;
    double best_tflops;                /* NAN: no best yet (failed baseline) */
    char bottleneck[32];
    char category[16];
    char idea[IDEA_TEXT_MAX];
    double max_err_over_tol;           /* NAN: not verified */
    char timestamp[32];
    char command[BACKEND_CMD_MAX];
    char note[NOTE_MAX];
};
/* The precision of each measured number in the records: results.tsv prints it so, and the
 * engine rounds a measurement to it before using it (perf_quantize, src/engine/decide.c),
 * so a value read back is exactly the value decided on. A number has its kind's decimals;
 * a positive quantity (TFLOPS, ms, speedups) also keeps at least RESULTS_SIG_DIGITS
 * significant digits, with more decimals where its decimals would give fewer: a 1x8x64
 * shape's 0.0002567 TFLOPS stays positive. Every value at least 1 TFLOPS, 0.001 ms or a
 * 0.001 speedup is written exactly as fixed decimals write it, so no recorded run changes.
 * Percentages (spread, hw_eff) and the clock keep fixed decimals: 0 is in their range.
 * The text is always plain decimal ("%.*f", never an exponent), so every reader parses
 * it as it did. */
#define RESULTS_SIG_DIGITS 4
enum results_num {
    RN_TFLOPS,      /* 3 decimals, >= 4 significant digits */
    RN_MEDIAN_MS,   /* 6 decimals, >= 4 significant digits */
    RN_SPREAD_PCT,  /* 3 decimals */
    RN_HW_EFF_PCT,  /* 2 decimals */
    RN_SM_CLOCK,    /* whole MHz */
    RN_RATIO,       /* 6 decimals, >= 4 significant digits (checkpoint, notes' inputs) */
    RN_KINDS
};
/* x rounded to its kind's precision (NaN and infinities unchanged). Pure. */
double results_round(double x, enum results_num kind);
/* x as the records write it ("" for NaN or an infinity); the text reads back (strtod) as
 * results_round(x, kind). Returns buf. */
char *results_num_text(char *buf, size_t len, double x, enum results_num kind);
/* The decimals x is written with under kind's precision. */
int results_decimals(double x, enum results_num kind);
/* TFLOPS for a person (progress lines, status, RESUME.md): one decimal, or 4 significant
 * digits below 1 TFLOPS, so a tiny shape does not read 0.0; "-" for NaN. Returns buf. */
char *results_tflops_show(char *buf, size_t len, double tflops);
/* Escape \ tab newline CR as \\ \t \n \r and other control bytes as \xHH. */
void tsv_escape(struct strbuf *out, const char *s);
/* Inverse; -1 on a bad escape or if the result does not fit outlen. */
int tsv_unescape(const char *s, char *out, size_t outlen);
/* Lenient reading (the report's, which reads columns by header name so that a later
 * schema's extra column does not stop it): tsv_split cuts line at tabs in place, up to
 * max fields into f, and returns the field count (more than max: the caller's to call
 * malformed); tsv_unescape_lenient undoes the escaping in place, keeping any sequence
 * tsv_escape never writes ("\\q", "\\x00") as it stands. */
int tsv_split(char *line, char **f, int max);
void tsv_unescape_lenient(char *field);
/* One line with its '\n'. */
char *row_format(const struct result_row *r);
/* Parse one line (without '\n'); 0 or -1 with err. */
int row_parse(const char *line, struct result_row *r, char *err, size_t errlen);

/* ---- a recorded best against the rows (checkpoint_best.c) ----------------------- */

/* A best as a record states it (a checkpoint, a state.json entry). */
struct best_claim {
    const char *who;                   /* for messages: "the checkpoint's", "state.json's" */
    bool have;                         /* a best is recorded */
    int iter;
    const char *config, *kernel;
    const char *source_hash;           /* NULL when the record has none (state.json) */
    double tflops;
};
struct result_log;
/* res (a shape's results.tsv) against a record at iteration `iteration` (its last
 * committed row) with best b: with iteration -1 there is no best; otherwise row
 * `iteration` exists, b->iter is a kept row (BASELINE / KEEP) at or before it with b's
 * config, kernel (and source hash), and b->tflops is exactly row `iteration`'s
 * best_tflops (NaN there: no best). Rows after `iteration` (a STORE cut short by a
 * crash, a state.json one write behind) are not looked at. 0, or -1 with err (one
 * sentence, no file name). Pure; thread-safe. */
int results_check_best(const struct result_log *res, int iteration, const struct best_claim *b, char *err,
                       size_t errlen);

/* ---- logs (logs.c): reading an append-only log exactly -------------------------- */

/* Lines of a log: the complete ones, and a final fragment without '\n' (a torn append)
 * kept apart. */
struct logs_lines {
    char *text;      /* the file, owned */
    char **line;     /* n complete lines (NUL-terminated in text) */
    size_t n;
    const char *torn;/* the fragment after the last '\n', or NULL */
    size_t complete_len; /* bytes of the complete lines (a truncation point) */
};
/* 0; 1 when the file does not exist; -1 with err. */
int logs_read_lines(const char *path, struct logs_lines *out, char *err, size_t errlen);
void logs_lines_release(struct logs_lines *l);

struct result_log {
    struct result_row *rows;
    size_t n;
    char backend[8];
    int decide_rules; /* line 1's "decide=N"; 1 when absent (written before it existed) */
    char *torn;      /* torn final fragment, or NULL */
    size_t complete_len;
};
/* Read results.tsv or attempts.tsv: schema line, header, rows (each fully parsed). A
 * missing file gives 0 rows (returns 1). Any malformed complete line is an error. */
int result_log_read(const char *path, struct result_log *out, char *err, size_t errlen);
void result_log_release(struct result_log *l);
/* kind: "results" or "attempts" (line 1 says which). Create the file with its schema
 * line (which also names the decision rules, DECIDE_RULES) and header if it does not exist. */
int result_log_create(const char *path, const char *kind, const char *backend, int decide_rules, char *err,
                      size_t errlen);
char *result_log_header(const char *kind, const char *backend, int decide_rules);
#endif
