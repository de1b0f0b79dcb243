/* src/engine/run.h — the engine's internals (private to src/engine): struct run, the
 * steps of the state machine and the helpers they share. Other modules use engine.h. */
#ifndef CROQ_ENGINE_RUN_H
#define CROQ_ENGINE_RUN_H
#include <stdbool.h>
#include <stddef.h>

#include "artifacts/artifacts.h"
#include "backend/backend.h"
#include "codegen/generator.h"
#include "engine.h"
#include "engine/decide.h"
#include "profile/profile.h"
#include "proposer/proposer.h"
#include "search/search.h"
#include "util/strbuf.h"

#define COMPILE_FAILURES_MAX 20 /* in a row for one iteration number: then the shape stops */

/* The table of legal moves between phases (phase.c). */
bool phase_allowed(enum engine_phase from, enum engine_phase to);
/* Move *cur to `to` if the table allows it; otherwise -1 and err names both states. */
int phase_transition(enum engine_phase *cur, enum engine_phase to, char *err, size_t errlen);

/* ---- internals shared by the engine's files (run.c and the step_*.c files) ---------- */

/* Where a tuner's wall time goes (progress file, 'croqtuner status'): verify and time are
 * the measurement worker's own account of each measurement; other is the rest of it
 * (worker start, operand sets, module loads) and the engine's own work. */
enum spent { SPENT_COMPILE = 0, SPENT_VERIFY, SPENT_TIME, SPENT_PROFILE, SPENT_OTHER, SPENT_COUNT };
/* "compile", "verify", "time", "profile", "other" */
extern const char *const spent_names[SPENT_COUNT];
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
    /* the cost model's other-shape measurements (prior.c), read at the first IDEATE */
    struct costmodel_sample *prior;
    size_t n_prior;
    bool prior_loaded;
    /* the generator the shape's candidates are written by when it is not this binary's
     * (generator_pin.c) */
    struct generator pinned_gen;
    bool has_pinned_gen;
    /* the knobs and values pinned_gen implements (its knobs.def, src/knobs/space.h): what
     * IDEATE and the start configuration keep to; meaningful when has_pinned_gen */
    struct knob_space space;
};
/* The knob space the shape's candidates must lie in: the pinned generator's, or NULL
 * (this binary's whole table). */
const struct knob_space *run_space(const struct run *r);

/* Choose the generator of the shape's candidates (generator_pin.c: its baseline's, else
 * the directory's, else this binary's); 0 or ENGINE_FAILED with the message. */
int run_pin_generator(struct run *r);
void run_unpin_generator(struct run *r);

/* Per-shape paths: <dir>/<sub>/<key><leaf>, e.g. ("logs", "/results.tsv"). */
int run_path(const struct run *r, char out[ENGINE_PATH_MAX], const char *sub, const char *leaf);
int run_goto(struct run *r, enum engine_phase to);
int run_save(struct run *r);
/* A cand_req for the pending candidate (or the best when best is true). */
void run_req(struct run *r, struct cand_req *q, const char *tag, bool best, const struct croq_config *cfg);
int run_fail(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The best's source as a whole file for the backend (a done shape reopened keeps it only
 * as a recipe: src/artifacts/srcstore.h). 0 or ENGINE_FAILED with the message. */
int run_best_source(struct run *r);

/* One shape's walk of engine_compact (compact.c), also run by SHAPE_COMPLETE (no gens:
 * only files with a recipe). keep: relative paths left whole; agent[it]: iteration it
 * was an agent's (its file is never adopted). Returns the number of I/O errors. */
struct compact_opts {
    const char *const *keep;
    size_t nkeep;
    const struct generator *gens;
    size_t ngens;
    const bool *agent;
    int n_agent;
    bool quiet_kept; /* print only errors, not each file kept whole */
};
struct compact_tally {
    size_t sources, recipes, agent, working, whole;
    size_t adopted[COMPACT_GENS_MAX];
};
int compact_shape(const char *dir, const char *key, const struct compact_opts *co, struct compact_tally *t, FILE *out);

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
int step_ladder(struct run *r);
int step_complete(struct run *r);
/* Where a shape whose loop is over goes: the final ladder when its rules have one
 * (DECIDE_RULES_LADDER) and there is a best, else SHAPE_COMPLETE. */
enum engine_phase run_finish_phase(const struct run *r);

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
/* The other shapes' measurements for the cost model (prior.c), loaded once per process:
 * the first ck.prior[i].rows rows of each source's results.tsv (verified ones with a
 * TFLOPS) and the ok records of o->prior_datasets (another dtype, or this shape, skipped).
 * 0, or ENGINE_FAILED with the message (a source that cannot be read). */
int prior_load(struct run *r);
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
/* The speedup of a raw file's "paired" block pj, computed from its trials as the backends
 * did (src/util/paired.h), never read from the file's own summary: p->ratio, ratio_lo,
 * ratio_hi set when pj holds a usable pairing, else left as they are (audit.c). */
void paired_from_raw(json_t *pj, struct perf_numbers *p);
/* Run one shape from its checkpoint until done, waiting (agent) or stopped. */
int run_loop(struct run *r);
/* Open (lock, load or create the checkpoint, reconcile) / close a shape. */
int run_open(struct run *r, const struct engine_opts *o, const struct shape_params *p);
void run_close(struct run *r);
#endif
