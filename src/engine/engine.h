/* src/engine/engine.h — the tuning engine: a crash-safe state machine that owns the
 * loop INIT -> BASELINE -> PROFILE -> IDEATE -> IMPLEMENT -> MEASURE -> DECIDE -> STORE
 * -> (PROFILE | SHAPE_COMPLETE) -> NEXT_SHAPE for one shape at a time, and the
 * artifacts it leaves (docs/artifacts.md). docs/engine.md explains the design: the
 * transition table, the guards (facts the engine established itself, kept as evidence
 * in the checkpoint), the write order of STORE and how resume reconciles a crash.
 *
 * Sections: phases, keys and modes, decisions, results rows, logs, idea log, checkpoint,
 * state, seeds, the run API used by the CLI, paths, and the internals the step files
 * share (struct run). Shape sets of shapes.json: src/shapes/shapes.h.
 */
#ifndef CROQ_ENGINE_H
#define CROQ_ENGINE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "backend/backend.h"
#include "knobs/knobs.h"
#include "profile/profile.h"
#include "proposer/proposer.h"
#include "util/strbuf.h"

#define ENGINE_SCHEMA 1
#define ENGINE_PATH_MAX 4096
#define KEY_MAX 64
#define NOTE_MAX 512
#define COMPILE_FAILURES_MAX 20 /* in a row for one iteration number: then the shape stops */

/* ---- phases (phase.c) --------------------------------------------------------- */

enum engine_phase {
    PH_INIT = 0, PH_BASELINE, PH_PROFILE, PH_IDEATE, PH_IMPLEMENT, PH_MEASURE,
    PH_DECIDE, PH_STORE, PH_SHAPE_COMPLETE, PH_NEXT_SHAPE, PH_COUNT
};
const char *phase_name(enum engine_phase p); /* "INIT", ... */
int phase_parse(const char *s);              /* -1 if unknown */
bool phase_allowed(enum engine_phase from, enum engine_phase to);
/* Move *cur to `to` if the table allows it; otherwise -1 and err names both states. */
int phase_transition(enum engine_phase *cur, enum engine_phase to, char *err, size_t errlen);

/* ---- keys, modes, decisions (key.c) --------------------------------------------- */

enum tune_mode { MODE_FROM_SCRATCH = 0, MODE_FROM_CURRENT_BEST = 1 };
const char *mode_name(enum tune_mode m);  /* "from_scratch" / "from_current_best" */
int mode_parse(const char *s);            /* scratch|best|from_scratch|from_current_best; -1 */
struct scenario_set;
/* s's iteration_budgets (shapes.json) for m: the budget of a new shape without --iters */
int mode_budget(const struct scenario_set *s, enum tune_mode m);

struct shape_key {
    int dtype;
    struct croq_shape shape;
    enum tune_mode mode;
};
/* "<dtype>_<M>x<N>x<K>[_fs]" from integers. */
void key_format(const struct shape_key *k, char out[KEY_MAX]);
/* Strict parse: the text must be exactly what key_format would write for a valid shape
 * (so '/', "..", signs, leading zeros, spaces are all refused). 0 or -1 with err. */
int key_parse(const char *s, struct shape_key *k, char *err, size_t errlen);

enum decision {
    DEC_BASELINE = 0, DEC_KEEP, DEC_DISCARD, DEC_DISCARD_INCORRECT,
    DEC_DISCARD_RUNTIME_CRASH, DEC_DISCARD_TIMEOUT,
    DEC_COMPILE_ERROR, /* attempts.tsv only */
    DEC_COUNT
};
const char *decision_name(enum decision d);
int decision_parse(const char *s); /* -1 if unknown */
bool decision_kept(enum decision d); /* BASELINE or KEEP */

/* ---- deciding (decide.c): pure functions, docs/engine.md "Noise and sanity" ------ */

struct perf_numbers {
    double tflops, median_ms, spread_pct, sm_clock_mhz;
};
/* Why a first measurement must be repeated (candidate AND best re-measured), or NULL:
 * above 1.5x or below 0.5x the best, or above the physical peak at its clock. best may
 * be NULL (baseline: only the peak rule). */
const char *decide_suspect(int dtype, const struct perf_numbers *cand, const struct perf_numbers *best);
bool decide_above_peak(int dtype, const struct perf_numbers *p);
/* The noise rule: KEEP iff cand > best * (1 + max(spread_cand, spread_best, floor_pct %)).
 * The engine's floor is DECIDE_NOISE_FLOOR_PCT (its source is in decide.c); the audit
 * may replay a run decided under an older one. */
#define DECIDE_NOISE_FLOOR_PCT 2.0
bool decide_keep_floor(const struct perf_numbers *cand, const struct perf_numbers *best, double floor_pct,
                       double *threshold);
/* The decision rules, versioned: a shape is decided under the version it started with
 * (its checkpoint and results.tsv header record it), so a resumed or audited run is
 * decided as it was. 1: the noise rule alone. 2: a first measurement whose gain is above
 * the floor but within the spread is confirmed: candidate and best measured again, and
 * KEEP iff the second pair also shows a gain above the floor (decide.c says why). */
#define DECIDE_RULES 2
/* rules >= 2, cand not suspect, and floor < gain <= the noise rule's margin. */
bool decide_confirming(int rules, int dtype, double floor_pct, const struct perf_numbers *cand,
                       const struct perf_numbers *best);
/* Why the first measurement must be repeated: decide_suspect's reasons, or (rules >= 2)
 * a gain within the spread; NULL if it stands. */
const char *decide_recheck(int rules, int dtype, double floor_pct, const struct perf_numbers *cand,
                           const struct perf_numbers *best);
/* The best's numbers the recorded candidate is compared with: best, or its re-measurement
 * best_re (NULL: none, or it failed). Rules 1: the re-measurement. Rules 2: the higher of
 * the two, so a best re-measured low never makes a KEEP easier. */
const struct perf_numbers *decide_reference(int rules, const struct perf_numbers *best,
                                            const struct perf_numbers *best_re);
/* Whether a DISCARD makes the best's re-measurement its recorded numbers (rules 1); under
 * rules 2 the best's numbers change only when a candidate is kept. */
bool decide_rebase_on_discard(int rules);
/* KEEP rule for the recorded candidate against ref (decide_reference): the floor alone
 * when confirming, else the noise rule. *threshold = the TFLOPS it had to beat. */
bool decide_keep_as(bool confirming, const struct perf_numbers *cand, const struct perf_numbers *ref,
                    double floor_pct, double *threshold);
/* DECIDE for a verified candidate, the one composition of the rules above that MEASURE/
 * DECIDE and the audit both use. first: the first measurement; cand: the recorded one
 * (the re-measurement when remeasured); best: the best the first was compared with;
 * best_re: its re-measurement, NULL if none or failed. */
struct decide_case {
    int rules, dtype;
    double floor_pct;
    const struct perf_numbers *first, *cand, *best, *best_re;
    bool remeasured;
};
struct decide_verdict {
    bool keep, confirming;
    const struct perf_numbers *ref; /* what cand was compared with */
    double threshold;
};
struct decide_verdict decide_candidate(const struct decide_case *c);
enum decision decide_failure(enum cand_status s); /* DISCARD_* for a failed candidate */
/* Round to the precision the artifacts print, so a value read back equals the one the
 * uninterrupted run used (resume must decide exactly alike). */
void perf_quantize(struct perf_numbers *p);
double decide_round(double x, int decimals);

/* ---- results.tsv / attempts.tsv rows (tsv.c) ------------------------------------ */

#define RESULTS_COLUMNS 18
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
/* Escape \ tab newline CR as \\ \t \n \r and other control bytes as \xHH. */
void tsv_escape(struct strbuf *out, const char *s);
/* Inverse; -1 on a bad escape or if the result does not fit outlen. */
int tsv_unescape(const char *s, char *out, size_t outlen);
/* One line with its '\n'. */
char *row_format(const struct result_row *r);
/* Parse one line (without '\n'); 0 or -1 with err. */
int row_parse(const char *line, struct result_row *r, char *err, size_t errlen);

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

/* ---- idea-log.jsonl (ideas.c) ---------------------------------------------------- */

struct idea_record {
    int iter;
    char idea[IDEA_TEXT_MAX];
    char category[16];
    char bottleneck[32];
    char justification[256];
    char config[CROQ_SIG_MAX];
    char source_hash[BACKEND_HASH_MAX];
    char origin[8];        /* "engine" / "agent" */
    enum decision decision;
    double tflops, best_tflops; /* NAN when not measured / no best */
    char timestamp[32];
    char backend[8];
};
char *idea_format(const struct idea_record *r); /* one JSON line with '\n' */
int idea_parse(const char *line, struct idea_record *r, char *err, size_t errlen);
/* Read every record; torn tail apart like result_log_read. */
struct idea_log {
    struct idea_record *recs;
    size_t n;
    char *torn;
    size_t complete_len;
};
int idea_log_read(const char *path, struct idea_log *out, char *err, size_t errlen);
void idea_log_release(struct idea_log *l);

/* Make text safe for one line of an artifact: valid UTF-8 (else -1 with err), at most
 * IDEA_TEXT_MAX-1 bytes. Tabs, newlines, quotes stay; the writers escape them. */
int idea_text_check(const char *s, size_t max, char *err, size_t errlen);
/* Replace every byte that is not part of valid UTF-8 with '?' (text from tools, e.g. a
 * compiler message, must never make a JSON line unwritable). */
void idea_text_sanitize(char *s);

/* ---- the checkpoint (checkpoint.c) ---------------------------------------------- */

struct measure_rec {
    enum cand_status status;
    char reason[BACKEND_REASON_MAX];
    struct perf_numbers p;
    double hw_eff_pct, max_err_over_tol;
    char raw_rel[BACKEND_REL_MAX];
    char raw_hash[BACKEND_HASH_MAX];
    char command[BACKEND_CMD_MAX];
    char health[BACKEND_REASON_MAX]; /* the health check that preceded it */
};

struct best_rec {
    int iter;
    char config[CROQ_SIG_MAX];
    char kernel[BACKEND_REL_MAX];
    char source_hash[BACKEND_HASH_MAX];
    struct perf_numbers p;
};

/* The candidate between IDEATE and its STORE. */
struct pending {
    bool active;
    int iter;
    bool agent;                       /* submitted by 'croqtuner propose' */
    char idea[IDEA_TEXT_MAX];
    char justification[256];
    char category[16];
    char bottleneck[32];
    char config[CROQ_SIG_MAX];
    char src_rel[BACKEND_REL_MAX];
    char src_hash[BACKEND_HASH_MAX];
    bool measured;                    /* cand holds the numbers to record */
    struct measure_rec cand;
    bool remeasured;                  /* sanity rule fired: first run kept in cand_first */
    struct measure_rec cand_first;
    bool best_remeasured;
    struct measure_rec best_re;
    enum decision decision;           /* valid when measured */
    char note[NOTE_MAX];
};

struct profile_evidence {
    bool done;
    char config[CROQ_SIG_MAX];        /* the best it profiled */
    bool ok;
    char reason[256];
    enum croq_bottleneck category;
    char justification[256];
    struct profile_metrics m;
    char raw_rel[BACKEND_REL_MAX];
    char raw_hash[BACKEND_HASH_MAX];
};

struct checkpoint {
    char key[KEY_MAX];
    struct shape_key sk;
    char backend[8];
    unsigned long long seed;
    int budget;
    bool agent;                       /* agent-driven: stop at IDEATE, wait for propose */
    enum engine_phase phase;
    int iteration;                    /* last committed iteration; -1 before the baseline */
    size_t n_attempts;                /* records committed to attempts.tsv */
    int compile_failures;             /* in a row since the last STORE (or reopen) */
    char seed_config[CROQ_SIG_MAX];   /* the starting configuration */
    char seed_from[KEY_MAX];          /* key it came from, "" for the mode default */
    char (*other_bests)[CROQ_SIG_MAX];/* same-dtype bests at INIT (for the proposer) */
    size_t n_other_bests;
    bool have_best;
    struct best_rec best;
    double baseline_tflops;           /* NAN until measured */
    bool health_checked;              /* a health check preceded the baseline */
    char health[BACKEND_REASON_MAX];
    struct profile_evidence profile;
    struct pending pending;
    char stop_reason[256];            /* why SHAPE_COMPLETE was reached */
    int decide_rules;                 /* DECIDE_RULES of the version that started the shape */
};
void checkpoint_init(struct checkpoint *c);
void checkpoint_release(struct checkpoint *c);
json_t *checkpoint_to_json(const struct checkpoint *c);
int checkpoint_from_json(json_t *j, struct checkpoint *c, char *err, size_t errlen);
/* Atomic save / validated load (missing file: returns 1). */
int checkpoint_save(const char *dir, const struct checkpoint *c, char *err, size_t errlen);
int checkpoint_load(const char *dir, const char *key, struct checkpoint *c, char *err, size_t errlen);
/* Keys (sorted) of checkpoints/<key>.json files with no entry in shapes (state.json's
 * "shapes": a deleted or older state.json). Only names key_parse accepts count. *keys
 * malloc'd (NULL when 0); returns how many. */
size_t checkpoint_orphans(const char *dir, json_t *shapes, char (**keys)[KEY_MAX]);

/* ---- state.json (state.c) ------------------------------------------------------- */

/* Read-modify-write of state.json under an exclusive flock on <dir>/.lock, then
 * RESUME.md. fn edits root in place; returning -1 aborts without writing; returning 1
 * (nothing changed) writes nothing and state_update returns 1. */
typedef int (*state_edit_fn)(json_t *root, void *arg, char *err, size_t errlen);
int state_update(const char *dir, state_edit_fn fn, void *arg, char *err, size_t errlen);
/* Validated load; a missing file gives an empty state. NULL with err. */
json_t *state_load(const char *dir, char *err, size_t errlen);
/* Validate a parsed state (schema, every key strict, fields typed). */
int state_validate(json_t *root, char *err, size_t errlen);
/* The shape's entry from its checkpoint (status from its phase). */
json_t *state_entry(const struct checkpoint *c, const char *status);
/* Put the checkpoint's entry into state.json. */
int state_put(const char *dir, const struct checkpoint *c, const char *status, char *err, size_t errlen);
/* The keys of a JSON object in strcmp order (NULL-terminated; free() the array, not the
 * keys, which belong to obj): state.json is walked in this order everywhere, so no result
 * depends on the order of a file. */
const char **json_sorted_keys(json_t *obj, size_t *n);
/* Render RESUME.md from a state. */
char *resume_md_render(json_t *state);

/* ---- nearest tuned shape and fitting a config to a shape (seed.c) --------------- */

double shape_log_distance(const struct croq_shape *a, const struct croq_shape *b);
/* Make cfg valid for shape with the smallest change: the nearest values of split_k,
 * tile_k and swizzle, in that order of preference to keep. 0 if cfg (possibly changed)
 * is valid, -1 if nothing fits. */
int config_fit(struct croq_config *cfg, const struct croq_shape *shape);
/* The starting configuration of a shape: from_current_best takes the nearest done
 * shape's best (fitted), else the mode's default (from_scratch: knobs_baseline,
 * from_current_best: knobs_default), fitted. from = the key it came from or "". */
int seed_choose(json_t *state, const struct shape_key *k, char cfg_sig[CROQ_SIG_MAX], char from[KEY_MAX]);
/* Bests of the other done shapes of k's dtype, in key order. *out malloc'd. */
size_t seed_other_bests(json_t *state, const struct shape_key *k, const char *self, char (**out)[CROQ_SIG_MAX]);

/* ---- running (run.c, tune.c, status.c, propose.c) -------------------------------- */

struct engine_opts {
    const char *dir;            /* tuning directory */
    const char *backend;        /* "sim" / "gpu" */
    unsigned long long seed;
    bool seed_given;            /* --seed was given (else a shape keeps its recorded seed, new: 1) */
    int iters;                  /* 0: the mode's budget */
    bool git;
    bool agent;
    bool quiet;
    const char *sim_faults;
    const char *inject_faults;  /* tests, gpu backend: "trap@3,hang@5,oob@7": the candidate of
                                   that iteration is generated with that fault (codegen.h) */
    int sim_delay_ms;
    double busy_limit_s;        /* stop after the GPU was busy this long (default 30 min) */
    double backoff_s;           /* first wait when busy (default 5 s), doubles to 300 s */
    const char *runner;
    const char *shapes;         /* shapes.json: sweeps' plan, new shapes' budgets */
    const char *dataset;        /* replay backend: the explore dataset it serves */
    const char *start_config;   /* from_current_best: start from this signature instead of the
                                   nearest tuned shape's best (replay-bench); NULL: the rule */
    const char *start_from;     /* what start_config is named as (seed_from), e.g. the dataset */
};
void engine_opts_default(struct engine_opts *o);

/* Outcome of running a shape or a sweep. */
enum engine_rc {
    ENGINE_DONE = 0,      /* the shape (or every shape) is complete */
    ENGINE_FAILED = 1,    /* an error; the message was printed */
    ENGINE_WAITING = 3,   /* agent mode: stopped at IDEATE, waiting for propose */
    ENGINE_GPU_BUSY = 4,  /* the GPU stayed busy past the limit */
    ENGINE_GPU_GONE = 5,  /* the GPU is unusable */
};

/* Tune one shape (a new one, or continue / reopen it). */
int engine_tune(const struct engine_opts *o, const struct shape_key *k);
/* Continue every unfinished shape of state (state_load of o->dir): active ones, done
 * below their budget (reopened), checkpoints without an entry. *ran counts the shapes
 * run, *worst becomes ENGINE_FAILED when one failed; rc is the outcome so far (returned
 * when nothing runs). Returns the last outcome: ENGINE_GPU_* when the GPU stopped it.
 * The resume command (src/scale) continues the recorded sweep around this. */
int engine_resume_shapes(const struct engine_opts *o, json_t *state, int *ran, int *worst, int rc);
int engine_status(const char *dir, bool json, FILE *out);
/* Re-derive every recorded iteration of every shape in state.json (only: one key, or
 * NULL) from its evidence (audit.c; docs/engine.md "Audit"), replaying DECIDE with
 * noise_floor_pct (DECIDE_NOISE_FLOOR_PCT, or the floor an older run used): one line per problem and
 * one summary line per shape to out. Returns the number of problems (0: the artifacts
 * are what an honest run writes), -1 when state.json cannot be read. */
int engine_audit(const char *dir, const char *only, double noise_floor_pct, FILE *out);
/* The audit's per-row checks (idea line, source hash, config, raw measurements, the
 * replayed decision and best) on the rows 0..last_iter of one shape, with the engine's
 * noise floor: what resume verifies before it continues a shape. Returns the number of
 * problems, with the first ones in err ("<key> iter N: what; ..."). */
int audit_committed(const char *dir, const struct shape_key *k, const char *key, int last_iter, char *err,
                    size_t errlen);

struct proposal {
    const char *key;
    const char *idea;
    const char *category;
    const char *src_path;
    const char *const *sets; /* "knob=value", n_sets of them */
    int n_sets;
    bool json;
};
int engine_propose(const struct engine_opts *o, const struct proposal *p);

/* ---- paths (paths.c) --------------------------------------------------------------- */

/* snprintf into out (ENGINE_PATH_MAX); -1 when it does not fit: a truncated path would
 * name another file. */
int path_fmt(char out[ENGINE_PATH_MAX], const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* UTC "2026-11-29T11:23:45Z" */
void utc_now(char out[32]);

/* ---- internals shared by the engine's files (run.c and the step_*.c files) ---------- */

/* Where a tuner's wall time goes (progress file, 'croqtuner status'). measure = one runner
 * process: verification and timing. */
enum spent { SPENT_COMPILE = 0, SPENT_MEASURE, SPENT_PROFILE, SPENT_COUNT };
/* Monotonic seconds (progress.c). */
double engine_mono_s(void);

struct run {
    const struct engine_opts *o;
    const char *dir;
    struct backend *be;
    struct checkpoint ck;
    int lock_fd;
    struct croq_config best_cfg;       /* ck.best.config, parsed */
    /* this process's pace, for the ETA and the time split in the progress file */
    double started_s;
    int stored_here;
    double spent_s[SPENT_COUNT]; /* wall seconds in each backend operation (enum spent) */
    char last_decision[32];
    char waiting[BACKEND_REASON_MAX];  /* "GPU busy: ..." while backing off */
};

/* Per-shape paths: <dir>/<sub>/<key><leaf>, e.g. ("logs", "/results.tsv"). */
int run_path(const struct run *r, char out[ENGINE_PATH_MAX], const char *sub, const char *leaf);
int run_goto(struct run *r, enum engine_phase to);
int run_save(struct run *r);
/* A cand_req for the pending candidate (or the best when best is true). */
void run_req(struct run *r, struct cand_req *q, const char *tag, bool best, const struct croq_config *cfg);
int run_fail(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The guards of IDEATE (a best, profiled): 0 or ENGINE_FAILED with the message. */
int ideate_guard(struct run *r);
int step_init(struct run *r);
int step_baseline(struct run *r);
int step_profile(struct run *r);
int step_ideate(struct run *r);
int step_implement(struct run *r);
int step_measure(struct run *r);
int step_decide(struct run *r);
int step_store(struct run *r);
int step_complete(struct run *r);

/* IMPLEMENT's pieces: write the pending source (codegen, or check the agent's copy) and
 * build it: 0 with b->status CAND_OK or CAND_COMPILE_ERROR, else an engine_rc. A
 * compile failure is committed to attempts.tsv (row_present: it already is, resume
 * adopting it). */
int implement_build(struct run *r, struct cand_result *b);
int implement_commit_failure(struct run *r, const struct cand_result *b, bool row_present);
/* MEASURE's pieces, shared with the baseline: health check with backoff, then one
 * measurement with the sanity rule's re-measurements. */
int health_wait(struct run *r, int iter);
int measure_pending(struct run *r, bool baseline);
/* STORE: append the row (unless present), the idea line (unless present), then the
 * checkpoint, state.json, progress, git. */
int store_commit(struct run *r, bool row_present, bool idea_present);
/* Check the evidence files behind the pending measurement still hash as recorded. */
int evidence_check(struct run *r);
/* DECIDE's rule on the pending measurement: sets decision and appends to the note. */
void decide_pending(struct run *r);
/* Reconcile logs and checkpoint after a crash (docs/engine.md); read-only checks first. */
int reconcile(struct run *r);
void progress_write(struct run *r);
void git_commit_shape(struct run *r, const char *message);
/* History (results + attempts, iteration order) for the proposer. */
struct run_history {
    struct idea_history_entry *e;
    size_t n;
    int consecutive_discards;
    char (*hashes)[BACKEND_HASH_MAX]; /* source hashes of every candidate */
};
int history_load(struct run *r, struct run_history *h);
/* The proposer's idea for `iteration` after the given history (step_ideate.c): IDEATE
 * and the compile-ahead guesses share it. 0, 1 (the valid space is exhausted) or -1. */
int ideate_next(struct run *r, const struct idea_history_entry *hist, size_t n, int iteration, int discards,
                struct idea *idea);
/* The source IMPLEMENT writes for cfg at iteration iter (step_implement.c): byte for byte
 * what the compile-ahead predicts. 0 with *src malloc'd, or -1 with err. */
int implement_source(struct run *r, const struct croq_config *cfg, int iter, char **src, char *err,
                     size_t errlen);
/* Compile ahead (speculate.c): while the candidate just built is measured, build the
 * next candidates the proposer would pick if it and they were discarded. Best effort:
 * it never fails the run. gpu backend only. */
void speculate_ahead(struct run *r);
void history_release(struct run_history *h);
/* Token hash (util/srcnorm.h: comments and whitespace ignored) of the source file at
 * path, hex (source_tokens.c). 0, or -1 with out "" (missing, not a regular file, over
 * 8 MiB). */
int source_token_hash_file(const char *path, char out[BACKEND_HASH_MAX]);
/* The token hash of the source each row of log names (row->kernel, relative to dir),
 * "" where there is none or it cannot be read: log->n entries, malloc'd (free it). */
char (*source_token_hashes(const char *dir, const struct result_log *log))[BACKEND_HASH_MAX];
/* Test hook (crashpoint.c): CROQ_CRASHPOINT=NAME[@N] -> SIGKILL at the N-th pass. */
void crashpoint(const char *name);
/* ... after appending the first half of line to path (a torn record). */
void crashpoint_torn(const char *name, const char *path, const char *line);
/* Run one shape from its checkpoint until done, waiting (agent) or stopped. */
int run_loop(struct run *r);
/* Open (lock, load or create the checkpoint, reconcile) / close a shape. params: the
 * shape's identity; budget 0 keeps the recorded one. */
struct shape_params {
    struct shape_key k;
    const char *backend;
    unsigned long long seed;
    int budget;            /* > 0: the shape's budget (a started shape's is changed to it); 0: keep it */
    int new_budget;        /* budget 0 and the shape is new: this one (mode_budget of shapes.json) */
    const char *no_budget; /* new_budget 0: why there is none (creating the shape fails with it) */
    bool agent;
    bool keep_agent; /* leave the recorded agent flag as it is (propose) */
    bool reopen;     /* a done shape below its budget continues */
    bool must_exist; /* refuse to create the shape (propose) */
};
int run_open(struct run *r, const struct engine_opts *o, const struct shape_params *p);
void run_close(struct run *r);
/* open + loop + close */
int engine_run_shape(const struct engine_opts *o, const struct shape_params *p);
/* A from_current_best state entry whose run should be redone from scratch: it made no
 * KEEP from a far seed or none (seed.c; status shows it, sweeps run it again). */
bool shape_needs_scratch(json_t *entry);
/* Open a shape and run INIT only (a wave of workers is INITed whole before any of it is
 * tuned: src/scale); */
int engine_init_shape(const struct engine_opts *o, const struct shape_params *p);
/* open and close a shape: its logs reconciled and its state.json entry level with the
 * checkpoint (the Slurm merge step, for shapes a killed task left behind). */
int engine_level_shape(const struct engine_opts *o, const struct shape_params *p);
#endif
