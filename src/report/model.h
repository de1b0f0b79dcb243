/* src/report/model.h — what `croqtuner report` knows about a tuning directory: one
 * struct report_shape per shape key, read from the artifacts of docs/artifacts.md,
 * plus the notes that say what was missing or skipped.
 *
 * Everything is plain data owned by the sweep (sweep_release frees it), so the
 * renderers (tables, figures, HTML) are functions of this struct and nothing else.
 */
#ifndef CROQ_REPORT_MODEL_H
#define CROQ_REPORT_MODEL_H
#include "artifacts/state.h"
#include <stdbool.h>
#include <stddef.h>

#include "report/notes.h"

enum report_decision {
    RD_BASELINE = 0,
    RD_KEEP,
    RD_DISCARD,
    RD_INCORRECT,  /* DISCARD_INCORRECT */
    RD_CRASH,      /* DISCARD_RUNTIME_CRASH */
    RD_TIMEOUT,    /* DISCARD_TIMEOUT */
    RD_OTHER,      /* a decision this version does not know; kept, drawn as a failure */
    RD_COUNT
};

/* "KEEP", "DISCARD_INCORRECT", ...; RD_OTHER gives "OTHER". */
const char *report_decision_name(enum report_decision d);
enum report_decision report_decision_parse(const char *s); /* RD_OTHER if unknown */
/* true for decisions whose candidate has no valid TFLOPS (incorrect, crash, ...). */
bool report_decision_failed(enum report_decision d);

/* One results.tsv row. Numbers are NAN when the field was empty. */
struct report_row {
    int iter;
    int line;                     /* line number in results.tsv, for messages */
    enum report_decision decision;
    double tflops, median_ms, spread_pct, hw_eff_pct, sm_clock_mhz, best_tflops, max_err;
    char *decision_text;          /* as written, so an unknown one can be shown */
    char *kernel, *config, *bottleneck, *category, *idea, *timestamp, *command, *note;
};

/* One idea-log.jsonl record (only what the report shows). */
struct report_idea {
    int iter;
    char *justification;
    char *idea;
};

enum vendor_src { VSRC_NONE = 0, VSRC_MEASURED, VSRC_ANCHOR };

struct vendor_value {
    double tflops;                /* NAN with src VSRC_NONE */
    enum vendor_src src;
};

/* How the compare behind a vendor.json timed its subjects (its "protocol"). */
enum vendor_protocol {
    VPROTO_NONE = 0,      /* no vendor.json read */
    VPROTO_BLOCKS,        /* one after the other, each its own warm-up: files without "protocol" */
    VPROTO_INTERLEAVED,   /* in rounds of one trial of every subject, the clock shared */
};

struct report_vendor {
    struct vendor_value cublas, sl_default, sl_search;
    enum vendor_protocol protocol; /* of the vendor.json read (its measured values) */
    struct vendor_value ours;     /* our kernel, measured in the same compare run */
    char *ours_config;            /* its knob signature ("dtype=f16,kernel=1,..."), or NULL */
    char *path;                   /* the vendor.json read, relative to the tuning dir, or NULL */
};

/* Numbers derived from the rows (stats.c). */
struct report_stats {
    double baseline;              /* TFLOPS of the BASELINE row, else state.json's */
    double best;                  /* best TFLOPS after the last row */
    int best_iter;                /* iteration that produced best, -1 if none */
    double best_hw_eff;           /* hw_eff_pct of that row */
    int iters_done;               /* highest iteration recorded (0: only the baseline) */
    int budget;                   /* from state.json, -1 if unknown */
    double best_clock_mhz;        /* SM clock of best's measurement (the ladder's median for its winner) */
    int reach95_iter;             /* first iteration whose running best is >= 95 % of the last one, -1 */
    double busy_s;                /* seconds the run worked, first row to last (stats.c), NAN */
    int n_decision[RD_COUNT];
    double *best_so_far;          /* per row: best TFLOPS after that row's decision */
};

struct report_shape {
    char key[64];                 /* "f16_4096x8192x8192" or "..._fs" */
    char base_key[64];            /* key without "_fs" */
    char dtype[16];
    long m, n, k;
    bool from_scratch;

    bool have_results;            /* results.tsv read (possibly with skipped lines) */
    bool simulated;               /* results.tsv says backend=sim */
    struct report_row *rows;
    size_t n_rows;

    bool have_ideas;
    struct report_idea *ideas;
    size_t n_ideas;

    bool in_state;                /* listed in state.json */
    char status[32];              /* from state.json ("active", "done"), else derived */
    char mode[48];
    char phase[32];               /* engine phase when state.json was written */
    char stop_reason[160];        /* why the run ended before its budget, or "" */
    int state_iteration, state_budget;
    double state_baseline, state_best;
    /* the final ladder (state.json "ladder"): its entries re-timed together, and whether
     * the registered best is its winner (then st.best is the ladder's number for it) */
    bool have_ladder, best_from_ladder;
    int ladder_best_iter;
    double ladder_best_clock;
    int decide_rules;             /* results.tsv line 1's decide=N, 0 when unknown */
    struct state_ladder ladder;

    struct report_vendor vendor;
    struct report_stats st;
};

struct report_sweep {
    char *tuning_dir;             /* as given */
    bool have_state;
    bool have_sweep;              /* state.json has a "sweep": the last `croqtuner sweep` here */
    struct state_sweep sweep;     /* ... as artifacts reads it */
    struct report_shape *shapes;  /* sorted by dtype, M, N, K, from-scratch last */
    size_t n_shapes;
    struct report_notes notes;
};

/* true for a run that has ended ("done"/"complete"), one still going ("active"/"running"). */
bool shape_finished(const struct report_shape *s);
bool shape_running(const struct report_shape *s);

/* Parse a shape key (artifacts/names.h, key_parse) into s->key, base_key, dtype, m, n, k,
 * from_scratch. 0, or -1 if key_parse refuses it. */
int shape_key_parse(const char *key, struct report_shape *s);

/* The shape's idea-log justification for iteration iter, or NULL. */
const char *shape_idea_justification(const struct report_shape *s, int iter);

void shape_release(struct report_shape *s);
void sweep_release(struct report_sweep *sw);

#endif
