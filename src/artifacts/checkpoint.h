/* src/artifacts/checkpoint.h — checkpoints/<key>.json (docs/artifacts.md): a shape's whole
 * engine state between two steps, with the evidence of what it measured. */
#ifndef CROQ_ARTIFACTS_CHECKPOINT_H
#define CROQ_ARTIFACTS_CHECKPOINT_H
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "artifacts/names.h"
#include "artifacts/results.h"
#include "backend/backend.h"
#include "profile/profile.h"
#include "proposer/proposer.h"

/* The numbers of one measurement, as recorded. */
struct perf_numbers {
    double tflops, median_ms, spread_pct, sm_clock_mhz;
    /* paired timing (rules 3): speedup over the incumbent, median and 95% interval
     * (src/util/paired.h); NAN when the measurement was not paired */
    double ratio, ratio_lo, ratio_hi;
};

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
    bool confirm_checked;             /* rules 4: the screen's KEEP paired with the best again */
    struct measure_rec confirm;
    bool fresh_checked;               /* rules 3: a KEEP verified again on a new operand set */
    struct measure_rec fresh;
    enum decision decision;           /* valid when measured */
    char note[NOTE_MAX];
    int in_flight;                    /* measurements of it started and never returned (the
                                       * tuner died meanwhile); 2: recorded as a crash */
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

/* One other shape whose measurements the proposer's cost model reads (docs/proposer.md
 * "Cost model"): its key and how many results.tsv rows it had when this shape was INITed
 * (only those are read, so a resumed run fits what the first one fitted). */
struct prior_src {
    char key[KEY_MAX];
    int rows;
};

/* The final ladder (engine/step_ladder.c, docs/engine.md "Final ladder"): a finished
 * shape's top configurations timed again together in one worker; the registered best is
 * its winner, shown with the ladder's TFLOPS and clock. */
struct ladder_rec_entry {
    int iter;                         /* the results.tsv row the configuration was measured in */
    char config[CROQ_SIG_MAX];
    char kernel[BACKEND_REL_MAX];     /* srcs/<key>/iterNNN.cu */
    char source_hash[BACKEND_HASH_MAX];
    double median_ms, tflops, spread_pct, sm_clock_mhz; /* the ladder's, of this entry */
    double rel;                       /* its trials relative to their rounds' (backend.h): the rank */
};
struct ladder_rec {
    bool done;                        /* the ladder of the shape's current budget ran */
    bool ok;                          /* ... and timed its entries: winner is valid */
    int n;
    struct ladder_rec_entry e[LADDER_MAX];
    int winner;                       /* index into e of the lowest median, -1 when !ok */
    int rounds;
    bool steady;                      /* its warm-up settled */
    char raw_rel[BACKEND_REL_MAX];    /* perf/<key>/ladder-<tag>.json */
    char raw_hash[BACKEND_HASH_MAX];
    char note[NOTE_MAX];              /* entries left out and why, or why it failed */
};

/* The ranges a checkpoint's and a state.json entry's numbers are read in (--iters takes
 * the same 1..CHECKPOINT_ITER_MAX): anything outside is an edit, refused before any cast. */
enum { CHECKPOINT_ITER_MAX = 100000 };
enum { CHECKPOINT_PATH_MAX = 1024 };
/* The strategy a checkpoint without "strategy" names: the engine's default search strategy
 * (SEARCH_DEFAULT, src/search/search.h; tests/unit/test_search.c checks they agree). */
#define CHECKPOINT_STRATEGY_DEFAULT "heuristic"

struct checkpoint {
    char key[KEY_MAX];
    struct shape_key sk;
    char backend[8];
    unsigned long long seed;
    int budget;
    bool agent;                       /* agent-driven: stop at IDEATE, wait for propose */
    /* the search strategy IDEATE asks when no agent drives it (src/search/search.h: the
     * engine checks the name): fixed when the shape starts; "strategy" in the file, absent
     * for the default, "heuristic" (and in every checkpoint older than strategies) */
    char strategy[24];
    enum engine_phase phase;
    int iteration;                    /* last committed iteration; -1 before the baseline */
    size_t n_attempts;                /* records committed to attempts.tsv */
    int compile_failures;             /* in a row since the last STORE (or reopen) */
    char seed_config[CROQ_SIG_MAX];   /* the starting configuration */
    char seed_from[KEY_MAX];          /* key it came from, "" for the mode default */
    char (*other_bests)[CROQ_SIG_MAX];/* same-dtype bests at INIT (for the proposer) */
    size_t n_other_bests;
    struct prior_src *prior;          /* other shapes' measurements at INIT (for the cost model) */
    size_t n_prior;
    bool have_best;
    struct best_rec best;
    double baseline_tflops;           /* NAN until measured */
    bool health_checked;              /* a health check preceded the baseline */
    char health[BACKEND_REASON_MAX];
    struct profile_evidence profile;
    struct pending pending;
    char stop_reason[256];            /* why SHAPE_COMPLETE was reached */
    int decide_rules;                 /* DECIDE_RULES of the version that started the shape */
    bool cold_l2;                     /* timed with operands rotated through buffers larger
                                         than the L2 (--l2 cold), fixed when the shape starts */
    struct ladder_rec ladder;
    char gpu[BACKEND_GPU_MAX];        /* the GPU model its measurements ran on, "" unknown (sim) */
    /* replay: the explore dataset the shape started on, its absolute path and the hash of
     * its records (backend.dataset_hash; "dataset" in the file; "" in checkpoints written
     * before it was recorded): resume reopens that file, refuses one whose records changed
     * (engine/run.c) */
    char dataset[CHECKPOINT_PATH_MAX];
    char dataset_hash[BACKEND_HASH_MAX];
};
void checkpoint_init(struct checkpoint *c);
void checkpoint_release(struct checkpoint *c);
json_t *checkpoint_to_json(const struct checkpoint *c);
int checkpoint_from_json(json_t *j, struct checkpoint *c, char *err, size_t errlen);
/* The shape's identity members (dtype, m, n, k, mode, backend, seed as decimal text), in
 * that order, into o: a checkpoint and a state.json entry name their shape alike. */
void checkpoint_identity_put(json_t *o, const struct checkpoint *c);
/* A seed as the artifacts write it: decimal digits of an unsigned 64-bit value. */
bool checkpoint_seed_parse(const char *text, unsigned long long *out);
/* Atomic save / validated load (missing file: returns 1). A save checks the record first
 * with the loader (checkpoint_from_json): what it would refuse is not written (-1, err). */
int checkpoint_save(const char *dir, const struct checkpoint *c, char *err, size_t errlen);
int checkpoint_load(const char *dir, const char *key, struct checkpoint *c, char *err, size_t errlen);
/* The best a shape registers (kernels/<key>_best.cu, state.json's best, status, the
 * report, export): the final ladder's winner with the ladder's numbers when the ladder
 * timed its entries, else the tuning's best with its recorded numbers. Pointers into c. */
struct registered_best {
    bool have;
    bool from_ladder;
    int iter;
    const char *config, *kernel, *source_hash;
    double tflops, sm_clock_mhz;      /* sm_clock_mhz NaN when not known */
};
void checkpoint_registered(const struct checkpoint *c, struct registered_best *out);
/* The checkpoint's final ladder against res: every entry is a measured row with that
 * iteration's config, kernel (srcs/<key>/iterNNN.cu) and source hash, and its raw file
 * is perf/<key>/ladder-final.json or ladder-final-2.json. 0 (also when there is no
 * ladder), or -1 with err. What resume, the audit and export check before a ladder's
 * winner is published. Pure; thread-safe. */
int checkpoint_check_ladder(const struct checkpoint *c, const struct result_log *res, char *err, size_t errlen);
/* The checkpoint's best against res, the shape's results.tsv: results_check_best
 * (results.h) of its iteration and best, source hash included. */
int checkpoint_check_best(const struct checkpoint *c, const struct result_log *res, char *err, size_t errlen);
/* The decision rules checkpoints/<key>.json says, read alone (the audit compares them
 * even when the rest would not load): *rules = 1 when the member is absent (written
 * before the rules were versioned), -1 when it is not an integer. 0, 1 when there is no
 * checkpoint, -1 when it cannot be read (err). */
int checkpoint_decide_rules(const char *dir, const char *key, long long *rules, char *err, size_t errlen);
/* Keys (sorted) of checkpoints/<key>.json files with no entry in state (a loaded
 * state.json: a deleted or older one). Only names key_parse accepts count. *keys
 * malloc'd (NULL when 0); returns how many. */
size_t checkpoint_orphans(const char *dir, json_t *state, char (**keys)[KEY_MAX]);
#endif
