/* src/engine/engine.h — the tuning engine's public interface: tune one shape (a
 * crash-safe state machine INIT -> BASELINE -> PROFILE -> IDEATE -> IMPLEMENT -> MEASURE
 * -> DECIDE -> STORE -> (PROFILE | SHAPE_COMPLETE) -> NEXT_SHAPE), continue unfinished
 * shapes, status, audit, agent proposals. docs/engine.md explains the design. The
 * artifacts it leaves are src/artifacts' formats; sweeps of many shapes run above it
 * (src/scale); the run's internals are engine/run.h, private to the engine's files.
 * Nothing here is thread-safe: one shape is run by one process at a time (a flock). */
#ifndef CROQ_ENGINE_H
#define CROQ_ENGINE_H
#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "artifacts/names.h"
#include "codegen/generator.h"
#include "knobs/knobs.h"

struct prior_src;

/* ---- nearest tuned shape (seed.c) ------------------------------------------------ */

/* The starting configuration of a shape: from_current_best takes the nearest done
 * shape's best (fitted), else the mode's default (from_scratch: knobs_baseline,
 * from_current_best: knobs_default), fitted. from = the key it came from or "". */
int seed_choose(json_t *state, const struct shape_key *k, char cfg_sig[CROQ_SIG_MAX], char from[KEY_MAX]);
/* Bests of the other done shapes of k's dtype, in key order. *out malloc'd. */
size_t seed_other_bests(json_t *state, const struct shape_key *k, const char *self, char (**out)[CROQ_SIG_MAX]);
/* The other done shapes of k's dtype tuned on backend (in key order) whose results.tsv in
 * dir has rows, with how many: what the cost model may read of them (struct prior_src,
 * frozen at INIT). *out malloc'd. An unreadable results.tsv is skipped (its shape is not
 * this one's to judge; audit names it). */
size_t seed_prior_sources(json_t *state, const char *dir, const struct shape_key *k, const char *self,
                          const char *backend, struct prior_src **out);

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
    int last_wave;              /* sweeps: the plan's waves 1..last_wave only (--waves), 0 all */
    const char *dataset;        /* replay backend: the explore dataset it serves */
    const char *start_config;   /* from_current_best: start from this signature instead of the
                                   nearest tuned shape's best (replay-bench); NULL: the rule */
    const char *start_from;     /* what start_config is named as (seed_from), e.g. the dataset */
    /* explore datasets whose measurements the cost model reads as other tuned shapes
     * (replay-bench: every dataset but the replayed one); records of another dtype or of
     * the shape being tuned are skipped */
    const char *const *prior_datasets;
    size_t n_prior_datasets;
    const char *l2;             /* "warm" / "cold": how a new shape is timed (--l2); NULL: warm,
                                   and a started shape keeps its own */
    const char *strategy;       /* search strategy of a new shape (src/search/search.h, --strategy);
                                   NULL: SEARCH_DEFAULT, and a started shape keeps its own (another
                                   name for a started shape is refused) */
};
void engine_opts_default(struct engine_opts *o);

/* Outcome of running a shape or a sweep. */
enum engine_rc {
    ENGINE_DONE = 0,      /* the shape (or every shape) is complete */
    ENGINE_FAILED = 1,    /* an error; the message was printed */
    ENGINE_USAGE = 2,     /* bad usage found before anything was created (message printed) */
    ENGINE_WAITING = 3,   /* agent mode: stopped at IDEATE, waiting for propose */
    ENGINE_GPU_BUSY = 4,  /* the GPU stayed busy past the limit */
    ENGINE_GPU_GONE = 5,  /* the GPU is unusable */
};

/* Tune one shape (a new one, or continue / reopen it). */
int engine_tune(const struct engine_opts *o, const struct shape_key *k);
/* Continue every unfinished shape of state (state_load of o->dir): active ones, done
 * below their budget (reopened), checkpoints without an entry. A refused entry
 * (state_shape_refused) is named on stderr and counted as a failed shape. *ran counts the
 * shapes run, *worst becomes ENGINE_FAILED when one failed; rc is the outcome so far
 * (returned when nothing runs). Returns the last outcome: ENGINE_GPU_* when the GPU stopped
 * it. The resume command (src/scale) continues the recorded sweep around this. */
int engine_resume_shapes(const struct engine_opts *o, json_t *state, int *ran, int *worst, int rc);
/* Every shape of dir's state.json, to out (a table, or --json's object with "refused":
 * [{"key", "why"}]). A refused entry is named on stderr (and in "refused"), the others
 * printed as always; then ENGINE_FAILED, else ENGINE_DONE (ENGINE_FAILED when the file
 * cannot be read, with nothing printed to out). */
int engine_status(const char *dir, bool json, FILE *out);
/* `croqtuner ladder` (retime.c): every done shape of o->dir (only: one key, or NULL) that
 * has a best and no final ladder gets one (docs/engine.md "Final ladder"), through its
 * state machine (NEXT_SHAPE -> LADDER -> SHAPE_COMPLETE), so the registered best becomes
 * the ladder's winner. *ran counts the shapes laddered. Returns the worst outcome. */
int engine_ladder(const struct engine_opts *o, const char *only, int *ran);
/* `croqtuner ladder --retime`: the configurations of every kept row (BASELINE, KEEP; the
 * last LADDER_MAX) of shape key timed again together `repeat` times (each a ladder of
 * `rounds` rounds, raw files perf/<key>/ladder-retime-<i>.json), printed to out beside
 * the gains the rows recorded (the screen's and, under rules 4, the confirmation's
 * paired speedups): how far the recorded chain and the kernels' differences agree. The
 * shape's records are not changed. Returns an engine_rc. */
int engine_retime(const struct engine_opts *o, const char *key, int repeat, int rounds, FILE *out);
/* Re-derive every recorded iteration of every shape in state.json (only: one key, or
 * NULL) from its evidence (audit.c; docs/engine.md "Audit"), replaying DECIDE with
 * noise_floor_pct (< 0: each shape's decide_floor_pct; else the floor an older run used): one line per problem and
 * one summary line per shape to out. Returns the number of problems (0: the artifacts
 * are what an honest run writes), -1 when state.json cannot be read. */
int engine_audit(const char *dir, const char *only, double noise_floor_pct, FILE *out);
/* The audit's per-row checks (idea line, source hash, config, raw measurements, the
 * replayed decision and best) on the rows 0..last_iter of one shape, with the engine's
 * noise floor: what resume verifies before it continues a shape. Returns the number of
 * problems, with the first ones in err ("<key> iter N: what; ..."). */
int audit_committed(const char *dir, const struct shape_key *k, const char *key, int last_iter, char *err,
                    size_t errlen);

/* `croqtuner compact` (compact.c): in every shape of srcs/ (one a tuner holds is skipped
 * and named), drop each whole source its recipe reproduces, and give a generated source
 * without one (written before recipes) a recipe from the first of gens[0..ngens) that
 * reproduces it (src/artifacts/srcstore.h). Agent sources and a tuning shape's best and
 * pending candidate stay whole. To out: a summary of all shapes (sources, recipes, whole
 * files and why), skipped shapes and I/O errors; with verbose also each shape's summary
 * and each file kept whole with why. Returns the number of I/O errors, -1 when srcs/
 * cannot be read. */
#define COMPACT_GENS_MAX 16 /* generators engine_compact takes */
int engine_compact(const char *dir, const struct generator *gens, size_t ngens, bool verbose, FILE *out);

/* The generator a shape of a tuning directory writes its candidates with, and the knobs
 * it implements (generator_pin.c's rule; reads, writes nothing): its baseline recipe's,
 * else the one generator the directory's other baselines name, else this croqtuner's.
 * 0 with *p: p->pinned when that is another generator than this croqtuner's (p->gen
 * read from its snapshot, p->space its knobs.def against this binary's table), p->rule
 * "its baseline's", "the directory's" or "this croqtuner's", p->warning set when a
 * snapshot of another codegen version was passed over for this croqtuner's; -1 with err
 * (the key named) when the recipe, the snapshot or its knobs.def cannot be read. Release
 * with engine_pin_release. Thread-safe for distinct *p (it reads files only). */
struct engine_pin {
    char id[GENERATOR_ID_MAX];
    const char *rule;
    bool pinned;
    struct generator gen;    /* when pinned */
    struct knob_space space; /* when pinned */
    char warning[400];
};
int engine_shape_generator(const char *dir, const char *key, struct engine_pin *p, char *err, size_t errlen);
void engine_pin_release(struct engine_pin *p);

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

/* A shape's identity and how to run it (budget 0 keeps the recorded budget). */
struct shape_params {
    struct shape_key k;
    const char *backend;
    unsigned long long seed;
    int budget;            /* > 0: the shape's budget (a started shape's is changed to it); 0: keep it */
    int new_budget;        /* budget 0 and the shape is new: this one (scenarios_budget of shapes.json) */
    const char *no_budget; /* new_budget 0: why there is none (creating the shape fails with it) */
    bool agent;
    bool keep_agent; /* leave the recorded agent flag as it is (propose) */
    const char *strategy; /* a new shape's search strategy (NULL: SEARCH_DEFAULT); a started
                             shape's must be it (NULL: whatever it recorded) */
    const char *l2;  /* a new shape's L2 mode ("warm"|"cold"; NULL: the command's --l2); a started
                        shape's must be it (NULL: the command's --l2 or whatever it recorded) */
    bool reopen;     /* a done shape below its budget continues */
    bool must_exist; /* refuse to create the shape (propose) */
    bool ladder;     /* a done shape without a final ladder gets one ('croqtuner ladder') */
};
/* open + loop + close */
int engine_run_shape(const struct engine_opts *o, const struct shape_params *p);
/* A from_current_best state entry whose run should be redone from scratch: it made no
 * KEEP from a far seed or none (seed.c; status shows it, sweeps run it again). */
struct state_shape; /* artifacts/state.h */
bool shape_needs_scratch(const struct state_shape *e);
/* Open a shape and run INIT only (a wave of workers is INITed whole before any of it is
 * tuned: src/scale); */
int engine_init_shape(const struct engine_opts *o, const struct shape_params *p);
/* open and close a shape: its logs reconciled and its state.json entry level with the
 * checkpoint (the Slurm merge step, for shapes a killed task left behind). */
int engine_level_shape(const struct engine_opts *o, const struct shape_params *p);
/* The cost model's rows of a tuning directory (prior.c): every measured row with a TFLOPS
 * of every shape in state.json whose backend is backend (NULL: any), in the file's key
 * order and each results.tsv's row order, as *out (malloc'd, *n_out entries; free it).
 * 0, or -1 with the file and the problem in err (an unreadable state.json or results.tsv;
 * a shape with no results.tsv has no rows). */
struct costmodel_sample;
int engine_tuning_samples(const char *dir, const char *backend, struct costmodel_sample **out, size_t *n_out,
                          char *err, size_t errlen);
#endif
