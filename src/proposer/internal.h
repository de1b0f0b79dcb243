/* src/proposer/internal.h — what the proposer's files share: the candidate list, the
 * per-call state derived once from the context, and the functions of each file.
 * Module-internal; the public interface is proposer.h. */
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
int state_init(struct prop_state *st, const struct proposer_ctx *ctx);
void state_release(struct prop_state *st);
bool sig_seen(const struct prop_state *st, const struct croq_config *cfg);
uint32_t config_diff(const struct croq_config *a, const struct croq_config *b);
int value_index(int knob, int value);
int escalation_event(int discards);

/* moves.c */
int cand_push(struct cand_list *l, const struct cand *c);
void cand_release(struct cand_list *l);
bool cand_usable(const struct prop_state *st, const struct croq_config *cfg);
int gen_neighbours(const struct prop_state *st, struct cand_list *l);
int gen_pairs(const struct prop_state *st, struct cand_list *l);
int gen_random(const struct prop_state *st, struct cand_list *l);
int gen_radical(const struct prop_state *st, struct cand_list *l);
int gen_ports(const struct prop_state *st, struct cand_list *l);
bool walk_space(const struct prop_state *st, struct cand *out);
void cand_finish(const struct prop_state *st, struct cand *c);

/* score.c */
double score_cand(const struct prop_state *st, const struct cand *c);
const char *score_reason(const struct prop_state *st, const struct cand *c, double *weight);
double phase_bonus(enum proposer_phase p, enum idea_category c);
long grid_ctas(const struct croq_config *cfg, const struct croq_shape *s);

/* select.c */
const struct cand *select_best(const struct prop_state *st, const struct cand_list *l, int *escalation);
#endif
