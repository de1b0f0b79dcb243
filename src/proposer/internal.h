/* src/proposer/internal.h — what the proposer's files share: the candidate list, the
 * per-call state derived once from the context, and the functions of each file.
 * Module-internal (every function prop_-prefixed); the public interface is proposer.h. */
#ifndef CROQ_PROPOSER_INTERNAL_H
#define CROQ_PROPOSER_INTERNAL_H
#include <stdint.h>

#include "proposer.h"

_Static_assert(KNOB_COUNT <= 32, "knob masks are uint32_t");

struct cand {
    struct croq_config cfg;
    enum idea_kind kind;
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
};

/* Signatures already used (history + best): open addressing on a string hash. */
struct sigset {
    const char **slot;
    size_t cap;
    char best_sig[CROQ_SIG_MAX];
};

struct prop_state {
    const struct proposer_ctx *ctx;
    struct sigset seen;
    enum proposer_phase phase;
    int level;                  /* standing escalation: 0, 3 (category) or 5 (family) */
    int event;                  /* this iteration's jump: 0, PROPOSER_RADICAL, PROPOSER_PORT */
    int anticipate_cat;         /* category kept free for the next iteration's jump, or -1 */
    uint32_t family_of[KNOB_COUNT]; /* knob -> mask of the knobs of its family */
    enum idea_category knob_cat[KNOB_COUNT];
    /* streak analysis of the history */
    uint32_t recent_knobs;      /* knobs changed by the last PROPOSER_SWITCH_FAMILY discards */
    unsigned recent_cats;       /* categories of the last PROPOSER_SWITCH_CATEGORY ideas */
    int blocked_cat;            /* category the diversity rule forbids, or -1 */
    char metric_why[256];       /* the classifier's justification of ctx->bottleneck */
};

/* history.c */
int prop_state_init(struct prop_state *st, const struct proposer_ctx *ctx);
void prop_state_release(struct prop_state *st);
bool prop_sig_seen(const struct prop_state *st, const struct croq_config *cfg);
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

/* select.c */
const struct cand *prop_select_best(const struct prop_state *st, const struct cand_list *l, int *escalation);
#endif
