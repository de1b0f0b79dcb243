/* src/proposer/internal.h — what the proposer's files share: the candidate list, the
 * per-call state derived once from the context, and the functions of each file.
 * Module-internal (every function prop_-prefixed); the public interface is proposer.h. */
#ifndef CROQ_PROPOSER_INTERNAL_H
#define CROQ_PROPOSER_INTERNAL_H
#include <stdint.h>

#include "costmodel/costmodel.h"
#include "proposer.h"

_Static_assert(KNOB_COUNT <= 32, "knob masks are uint32_t");

struct cand {
    struct croq_config cfg;
    enum idea_kind kind;
    int recipe;           /* index into the recipe table for KIND_RECIPE, else -1 */
    double pred;          /* the cost model's TFLOPS for it (0: no model yet) */
    double sd;            /* its uncertainty, ln units */
    int unseen;           /* knob values no fitted measurement had */
    int primary;          /* the knob the idea is about; -1 for multi-knob moves */
    int port_index;       /* index into other_bests for KIND_PORT, else -1 */
    uint32_t changed;     /* knobs that differ from the best */
    enum idea_category category;
    double score;
    uint64_t tie;         /* seeded hash: deterministic tie-break */
};

struct cand_list {
    struct cand *v;
    size_t n, cap;
    size_t *slot;    /* hash index of v (index + 1; 0 empty), slot_cap = 2 x cap */
    size_t slot_cap;
};

/* Configurations already used (history + best), and a memo of prop_valid (knobs_validate
 * for the shape, the space, the measurable list): open addressing on a hash of the config's bytes (a proposer call looks at the
 * same points many times while repairing, and validation and signatures were most of
 * its time). */
struct cfgset {
    struct croq_config *cfg;
    signed char *state;   /* 0 empty; seen set: 1; memo: 1 valid, 2 invalid */
    size_t cap, n;
};

struct prop_state {
    const struct proposer_ctx *ctx;
    /* the rows every move walks: the shape's generator's knobs and values
     * (knob_space_table(ctx->space); croq_knobs without a space) */
    const struct croq_knob *kn;
    struct cfgset seen;
    struct cfgset *memo;        /* validity memo (mutable from const state) */
    enum proposer_phase phase;
    int level;                  /* standing escalation: 0, 3 (category) or 5 (family) */
    int event;                  /* this iteration's jump: 0, PROPOSER_RADICAL, PROPOSER_PORT */
    uint32_t family_of[KNOB_COUNT]; /* knob -> mask of the knobs of its family */
    enum idea_category knob_cat[KNOB_COUNT];
    /* streak analysis of the history */
    uint32_t recent_knobs;      /* knobs changed by the last PROPOSER_SWITCH_FAMILY discards */
    unsigned recent_cats;       /* categories of the last PROPOSER_SWITCH_CATEGORY ideas */
    bool force_structural;      /* the diversity rule: the last two ideas were macro */
    struct costmodel model;     /* fitted on the measured history and the other shapes' */
    struct costmodel own;       /* fitted on the measured history alone: the uncertainty */
    double best_pred;           /* the model's TFLOPS for the best (0: no model) */
    double best_measured;       /* ctx->best_tflops, or the history's best measurement */
    char metric_why[256];       /* the classifier's justification of ctx->bottleneck */
};

/* history.c */
int prop_state_init(struct prop_state *st, const struct proposer_ctx *ctx);
void prop_state_release(struct prop_state *st);
bool prop_sig_seen(const struct prop_state *st, const struct croq_config *cfg);
/* knobs_validate for the shape, ctx->space and ctx->measurable, memoised */
bool prop_valid(const struct prop_state *st, const struct croq_config *cfg);
uint64_t prop_cfg_hash(const struct croq_config *cfg);
uint32_t prop_config_diff(const struct croq_config *a, const struct croq_config *b);
int prop_value_index(int knob, int value);
int prop_escalation_event(int discards);

/* moves.c */
int prop_cand_push(struct cand_list *l, const struct cand *c);
void prop_cand_release(struct cand_list *l);
bool prop_cand_usable(const struct prop_state *st, const struct croq_config *cfg);
int prop_gen_neighbours(const struct prop_state *st, struct cand_list *l);
int prop_gen_pairs(const struct prop_state *st, struct cand_list *l);
int prop_gen_random(const struct prop_state *st, struct cand_list *l);
int prop_gen_radical(const struct prop_state *st, struct cand_list *l);
int prop_gen_ports(const struct prop_state *st, struct cand_list *l);
bool prop_walk_space(const struct prop_state *st, struct cand *out);
void prop_cand_finish(const struct prop_state *st, struct cand *c);

/* score.c */
double prop_score_cand(const struct prop_state *st, const struct cand *c);
const char *prop_score_reason(const struct prop_state *st, const struct cand *c, double *weight);
double prop_phase_bonus(enum proposer_phase p, enum idea_category c);
long prop_grid_ctas(const struct croq_config *cfg, const struct croq_shape *s);

/* recipes.c */
int prop_gen_recipes(const struct prop_state *st, struct cand_list *l);
const char *prop_recipe_name(int recipe);

/* score.c: the model's part of a score: PROP_MODEL_WEIGHT x (the predicted log-gain over
 * the best + PROP_MODEL_KAPPA x its uncertainty), clamped to +-PROP_MODEL_CLAMP: an
 * upper confidence bound, so a move the model knows little about is worth a look. */
#define PROP_MODEL_WEIGHT 20.0
#define PROP_MODEL_CLAMP 0.3
#define PROP_MODEL_KAPPA 1.0
/* A recipe's prior: PROP_RECIPE_PRIOR while the best is still the baseline kernel (no
 * single-knob move leads from it into the good region) or once the model can rank the
 * recipes; PROP_RECIPE_UNGUIDED otherwise: then the profile's one-knob move comes first. */
#define PROP_RECIPE_PRIOR 3.0
/* Grid fill (score.c): leaving persistent scheduling when the grid is at most one wave
 * (one tile per SM) scores this, entering it the negative. */
#define PROP_ONE_WAVE_PERSISTENT 2.0
#define PROP_RECIPE_UNGUIDED -0.5
double prop_model_term(const struct prop_state *st, const struct cand *c);

/* select.c */
const struct cand *prop_select_best(const struct prop_state *st, const struct cand_list *l, int *escalation);
#endif
