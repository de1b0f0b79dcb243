/* src/artifacts/state.h — state.json (docs/artifacts.md): every shape's entry, shared by every
 * croqtuner process on a tuning directory (read-modify-write under a flock), and
 * RESUME.md rendered from it. */
#ifndef CROQ_ARTIFACTS_STATE_H
#define CROQ_ARTIFACTS_STATE_H
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "artifacts/checkpoint.h"
#include "artifacts/names.h"
#include "artifacts/paths.h"
#include "backend/backend.h"
#include "knobs/knobs.h"

/* ---- state.json (state.c) ------------------------------------------------------- */

/* Read-modify-write of state.json under an exclusive flock on <dir>/.lock, then
 * RESUME.md. fn edits root in place; returning -1 aborts without writing; returning 1
 * (nothing changed) writes nothing and state_update returns 1. */
typedef int (*state_edit_fn)(json_t *root, void *arg, char *err, size_t errlen);
int state_update(const char *dir, state_edit_fn fn, void *arg, char *err, size_t errlen);
/* Remove the temp files of state.json, RESUME.md and .gitignore that a writer killed between
 * creating and renaming them left (".state.json.tmp.<pid>", atomicio.h), whatever their
 * age: every writer holds <dir>/.lock, taken here (blocking), so a dead writer's temp is
 * never one being written. state_update does it too. Returns how many were removed; a
 * directory without .lock (nothing ever written there) is 0. */
int state_clean_temps(const char *dir);
/* Validated load; a missing file gives an empty state. NULL with err when the file is
 * refused (not JSON, a duplicated member, the schema, 'shapes' not an object, a key that is
 * not a shape key, the sweep record). An entry the strict reader refuses makes only that
 * shape unreadable: state_shape_keys and state_shape_get leave it out, state_shape_refused
 * says why, and state_update writes it back as it was read. */
json_t *state_load(const char *dir, char *err, size_t errlen);
/* Parsed but not validated beyond "shapes" being an object, for the audit, which names
 * each problem of each entry itself. NULL with err ("state.json: no 'shapes' object", or
 * why the file cannot be read). */
json_t *state_load_unchecked(const char *dir, char *err, size_t errlen);
/* Validate a parsed state: -1 (err) for what refuses the file (above), else 0 with each
 * refused entry recorded in root under STATE_REFUSED_MEMBER (removed before any write). */
int state_validate(json_t *root, char *err, size_t errlen);
#define STATE_REFUSED_MEMBER ".refused"
/* Whether state_load refused key's entry: true with why ("shape 'K': 'best.tflops' is not
 * a positive number"). */
bool state_shape_refused(json_t *state, const char *key, char *why, size_t len);
/* The refused keys in strcmp order (as json_sorted_keys). */
const char **state_refused_keys(json_t *state, size_t *n);
/* For one shape's process: 1 when dir's state.json refuses key's entry (why set), 0 when it
 * does not or the file has none, -1 when the file itself cannot be read (why set). */
int state_entry_refused(const char *dir, const char *key, char *why, size_t len);
/* The shape's entry from its checkpoint (status from its phase). */
json_t *state_entry(const struct checkpoint *c, const char *status);
/* Put the checkpoint's entry into state.json. */
int state_put(const char *dir, const struct checkpoint *c, const char *status, char *err, size_t errlen);
/* state_put for a shape new to the directory: refused (-1, err naming a shape of the
 * other backend and what to do) when state.json holds a shape of another backend, in
 * the same read-modify-write: results of different backends are never mixed in one
 * tuning directory. */
int state_put_new(const char *dir, const struct checkpoint *c, const char *status, char *err, size_t errlen);
/* ---- typed entries and the sweep record (state_model.c) ---------------------------
 * state.json is edited as a jansson tree (state_update hands the root to an edit
 * function) but read only through these: no other module reads one of its members by
 * name. An entry is read leniently: a member absent or of another type keeps the value
 * of state_shape_init ("" / -1 / NaN / false), so the same reader serves a state that
 * state_load validated (dtype, m, n, k, mode, status, iteration, budget, backend, phase,
 * seed are then always there) and the report's and audit's reading of whatever is on
 * disk. An entry state_load refused is not among them: state_shape_get answers false and
 * state_shape_keys leaves it out. */

struct state_best {
    int iter;                       /* the best's iteration, -1 when absent */
    double tflops;                  /* NaN when absent */
    char config[CROQ_SIG_MAX];      /* knob signature, "" when absent */
    char kernel[BACKEND_REL_MAX];   /* srcs/<key>/iterNNN.cu */
    bool from_ladder;               /* "measured": "ladder": the final ladder's winner and numbers */
    double sm_clock_mhz;            /* the ladder's clock for it; NaN when absent */
};

/* The final ladder as state.json summarizes it (the checkpoint holds the record). */
struct state_ladder {
    bool ok, steady;
    int rounds;
    int winner_iter;                /* -1 when it did not time its entries */
    int tuning_best_iter;           /* the tuning's own best, which the ladder re-timed */
    double tuning_best_tflops;
    int n;
    struct { int iter; double tflops, median_ms, spread_pct, sm_clock_mhz, rel; } e[LADDER_MAX];
    char note[NOTE_MAX];
};

struct state_shape {
    char key[KEY_MAX];              /* as it stands in the file (cut to fit) */
    bool key_ok;                    /* key_parse accepted it; sk is then its parts */
    struct shape_key sk;
    char status[32];                /* "active" or "done" (validated by state_load) */
    char mode[48], phase[32], backend[16];
    char seed[24];                  /* decimal text, as written */
    bool agent;
    int iteration, budget;          /* -1 when absent */
    char stop_reason[256];
    char seed_from[KEY_MAX];        /* the key its seed came from, "" for none */
    char baseline_config[CROQ_SIG_MAX];
    double baseline_tflops;         /* NaN: not measured, or failed */
    bool have_best;                 /* "best" is an object (null: the baseline failed) */
    struct state_best best;         /* best.tflops may be set without have_best (STATE_OLD_FORMS) */
    bool cold_l2;                   /* "l2": "cold" (absent: warm) */
    char strategy[24];              /* "strategy" (absent, "": the default, heuristic) */
    bool have_ladder;               /* the final ladder ran */
    struct state_ladder ladder;
    char updated_at[32];            /* UTC ISO 8601, "" when absent */
};

/* STATE_OLD_FORMS (the report): also accept the forms of early state files, "baseline" and
 * "best" as bare TFLOPS numbers and "baseline_tflops" / "best_tflops" members. */
enum { STATE_OLD_FORMS = 1 };

void state_shape_init(struct state_shape *s);
/* The registered best's speed-up over the baseline kernel: 1 when the best is the baseline
 * kernel (a later timing of the same kernel is noise, not a gain); for a final ladder's
 * winner whose ladder timed the baseline too, the ladder's own ratio rel(baseline) /
 * rel(winner) (one rotation, so the clock drift between the baseline's first measurement
 * and the ladder cancels: a winner timed at a lower clock than the baseline's row is not
 * shown as a slowdown); else best_tflops / baseline_tflops. NaN when not known.
 * best_iter -1: no best; l NULL: no ladder. */
double state_best_speedup(int best_iter, double best_tflops, double baseline_tflops, bool from_ladder,
                          const struct state_ladder *l);
/* Read entry e (any JSON value; a non-object gives the init values) stored under key. */
void state_shape_from_json(json_t *e, const char *key, unsigned flags, struct state_shape *out);
/* The entry of key in state: false (out as state_shape_init) when there is none. */
bool state_shape_get(json_t *state, const char *key, struct state_shape *out);
bool state_shape_done(const struct state_shape *s);
/* How many shapes state lists (refused entries aside), and their keys in strcmp order (as
 * json_sorted_keys). */
size_t state_shape_count(json_t *state);
const char **state_shape_keys(json_t *state, size_t *n);

/* `status --json` shows the entry and the sweep as they stand in the file: a copy of the
 * entry (an empty object when there is none) and a new reference to the sweep (JSON null
 * when there is none). */
json_t *state_entry_copy(json_t *state, const char *key);
json_t *state_sweep_copy(json_t *state);

/* The sweep member ("sweep", absent until a sweep runs): what `resume` and `merge`
 * need to run it again. */
/* The sweep plan's waves per dtype (docs/engine.md, "Sweeps", where they are its steps):
 * 1 typical, 2 other far, 3 near, 4 needs_scratch. */
#define STATE_SWEEP_WAVES 4
struct state_sweep {
    char dtype[8];                  /* "f16", "e4m3" or "all" */
    char plan[16];                  /* "default", "scratch" or "best" */
    char backend[16];
    char seed[24];                  /* decimal text */
    int iters;                      /* --iters it ran with, 0 for the shapes' budgets */
    char shapes[4096];              /* the shapes.json it follows: STATE_PLAN_FILE, relative to the
                                       tuning directory (state_plan_path); older records hold an
                                       absolute path */
    char status[128];               /* "running", "done", "stopped: ..." */
    bool waves;                     /* run in waves by workers (src/scale) */
    int last_wave;                  /* the plan's waves 1..last_wave run (sweep --waves), 0 all;
                                       absent in state.json: all */
    bool last_wave_bad;             /* last_wave present but not 1..STATE_SWEEP_WAVES (read as 0) */
    bool complete;                  /* dtype, plan, shapes, backend and seed present, iters in range */
};
/* false (out zeroed) when state has no sweep object. */
bool state_sweep_get(json_t *state, struct state_sweep *out);
void state_sweep_put(json_t *state, const struct state_sweep *sw);
/* A sweep that was running, or stopped by the GPU: `resume` goes on with it. */
bool state_sweep_unfinished(const struct state_sweep *sw);
/* The dtype of sw's plan (enum croq_dtype), -1 for "all"; its tune mode (enum tune_mode),
 * -1 for the default plan. */
int state_sweep_dtype(const struct state_sweep *sw);
int state_sweep_mode(const struct state_sweep *sw);
/* The waves of sw's plan: STATE_SWEEP_WAVES for the default plan, one fewer for a --mode
 * plan (it has no needs_scratch wave). */
int state_sweep_plan_waves(const struct state_sweep *sw);
/* The last wave sw runs: its last_wave, or all of its plan's. */
int state_sweep_last_wave(const struct state_sweep *sw);

/* The sweep's plan input, kept in the tuning directory so that the directory alone says
 * what its sweep is (status, resume, merge read it on any machine or checkout): a copy of
 * the shapes.json the sweep was started with, written once, atomically, and never
 * replaced; the sweep record names it relative to the directory. */
#define STATE_PLAN_FILE "plan/shapes.json"
/* The file sw's plan is read from: <dir>/<sw->shapes> for a relative record (the
 * snapshot), the recorded path itself for an absolute one (written before snapshots).
 * 0, or -1 when the path does not fit out (ENGINE_PATH_MAX). */
int state_plan_path(const char *dir, const struct state_sweep *sw, char out[ENGINE_PATH_MAX]);
/* Keep src (a shapes.json, already validated by its reader) as dir's snapshot,
 * STATE_PLAN_FILE. When dir has none yet it is written atomically from src's bytes,
 * unless prev (the absolute path an older sweep record names, or NULL) is a readable file
 * whose bytes differ from src's. 0 when the snapshot now holds src's bytes (also when it
 * already did); 1 with err naming both files when the snapshot (or prev) holds other
 * bytes: one sweep follows one plan; -1 with err when a file cannot be read or written.
 * Call it under the directory's lock (inside a state_update edit), so that two sweeps
 * starting together cannot each write their own. */
int state_plan_keep(const char *dir, const char *src, const char *prev, char *err, size_t errlen);

/* ---- lenient reading (state_lenient.c): the report's ------------------------------
 * Whatever state.json holds, with nothing validated: "shapes" an object keyed by shape
 * key or (early files) an array of objects with a "key", entries read with
 * STATE_OLD_FORMS. Each entry goes to rd->shape in the file's order (with its key as
 * written; s->key_ok says whether it is one), each problem to rd->note (text starting
 * "state.json", e.g. "state.json: shapes[1] has no 'key'"), interleaved as they are met. */
enum state_note { STATE_NOTE_MALFORMED, STATE_NOTE_OTHER_SCHEMA };
struct state_reader {
    void (*shape)(void *arg, const char *key, const struct state_shape *s);
    void (*note)(void *arg, enum state_note kind, const char *text);
    void *arg;
};
/* 0 when read (*sweep filled, *have_sweep set), -1 when not: absent (no note) or
 * unreadable (a note). A path that is not a regular file is never opened (regfile.h). */
int state_read_lenient(const char *path, const struct state_reader *rd, struct state_sweep *sweep, bool *have_sweep);

/* ---- the "scale" member: a sweep run in waves by workers (state_scale.c, docs/scale.md)
 * "claims": shape key -> the claim record of the worker on it (its fields are src/scale's,
 * claim_to_json); "failed": shape key -> why a worker gave it up. */

/* 'scale', 'scale.claims' and 'scale.failed' are objects where present. 0, or -1 with err. */
int state_scale_check(json_t *state, char *err, size_t errlen);
/* The claims object, created when absent (for an edit under state_update). */
json_t *state_claims(json_t *state);
/* The claims object to read, or NULL when there is none. */
json_t *state_claims_get(json_t *state);
/* The claim on key (artifacts/claim.h): 0, 1 when there is none, -1 when its record is
 * damaged (err). */
struct claim;
int state_claim_get(json_t *state, const char *key, struct claim *c, char *err, size_t errlen);
void state_claim_put(json_t *state, const struct claim *c);
void state_claim_drop(json_t *state, const char *key);
/* The claimed keys in strcmp order (as json_sorted_keys: valid until the claims change). */
const char **state_claim_keys(json_t *state, size_t *n);

struct state_failed {
    char key[KEY_MAX];
    char why[1024];                 /* the worker's reason, "" when none */
    char at[32];                    /* UTC ISO 8601 */
    char host[256];
    long pid;
};
void state_failed_put(json_t *state, const struct state_failed *f);
bool state_failed_has(json_t *state, const char *key);
size_t state_failed_count(json_t *state);
/* Every failed shape, in the file's order (free() *out). Returns the count. */
size_t state_failed_list(json_t *state, struct state_failed **out);
void state_failed_clear(json_t *state);

/* The keys of a JSON object in strcmp order (NULL-terminated; free() the array, not the
 * keys, which belong to obj): state.json is walked in this order everywhere, so no result
 * depends on the order of a file. */
const char **json_sorted_keys(json_t *obj, size_t *n);
/* Render RESUME.md from a state. */
char *resume_md_render(json_t *state);
#endif
