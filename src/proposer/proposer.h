/* src/proposer/proposer.h — IDEATE step: choose the next configuration to try from
 * the current best, grounded in the current bottleneck, never repeating a config
 * signature, with the protocol's category-diversity and escalation rules.
 *
 * The proposer is a pure function of its context (no I/O, no clock, no global
 * state), so the engine can re-derive an idea after a crash and tests can check every
 * rule. Randomness, if any, comes from ctx->seed and ctx->iteration.
 *
 * How it chooses (docs/proposer.md has the full rules and the move table):
 *   candidates  one-knob moves of the best to a neighbouring allowed value (repaired by
 *               the fewest extra knob changes when the move alone is invalid: a
 *               "coupled" move); when every neighbour was tried, two-knob moves, then
 *               random valid configs, then an exhaustive walk of the space;
 *               radical jumps and ports of other_bests at the escalation events;
 *               recipes (multi-knob moves to measured good settings) always, and
 *               two-knob moves once the cost model is fitted.
 *   hard rules  knobs_validate for the shape; inside ctx->space (the generator's knobs);
 *               signature not in history, not the best.
 *   soft rules  diversity (after two consecutive macro ideas the next is structural;
 *               only the escalation jumps may break it), then the escalation rule of
 *               the discard streak, each dropped only when no candidate satisfies it.
 *   score       bottleneck move table + phase preference + grid fill - complexity
 *               + recipe prior + the cost model's optimistic predicted gain (ridge
 *               regression on the history's measurements and, weighted down as this
 *               shape's own accumulate, those of other tuned shapes); ties broken by a
 *               seeded hash of the configuration.
 */
#ifndef CROQ_PROPOSER_H
#define CROQ_PROPOSER_H
#include <stdbool.h>
#include <stddef.h>

#include "costmodel/costmodel.h"
#include "knobs/knobs.h"
#include "knobs/space.h"
#include "profile/profile.h"

#define IDEA_TEXT_MAX 512

/* Idea categories (docs/proposer.md): a one-knob or coupled move is filed under the
 * category knobs.def gives its own knob; a radical jump under "structural"; any other
 * multi-knob move (two-knob, random, port) under the category most of its changed
 * knobs have (ties: macro, structural, variant, micro). */
enum idea_category { IDEA_MACRO = 0, IDEA_STRUCTURAL, IDEA_VARIANT, IDEA_MICRO, IDEA_CAT_COUNT };
const char *idea_category_name(enum idea_category c);
int idea_category_parse(const char *s); /* -1 if unknown */

/* Escalation on consecutive discards (the protocol's). From 3 and from 5 discards on,
 * standing constraints; at 10 and 15 one-off jumps, repeated every period (radical at
 * 10, 20, 30, ..., port at 15, 25, ...; a port with no untried other_best left falls
 * back to a radical jump). */
#define PROPOSER_SWITCH_CATEGORY 3 /* a category none of the last 3 ideas had */
#define PROPOSER_SWITCH_FAMILY 5   /* only knob families the last 5 ideas left alone */
#define PROPOSER_RADICAL 10        /* change >= 3 structural knobs at once */
#define PROPOSER_PORT 15           /* the best config of another tuned shape */
#define PROPOSER_ESCALATION_PERIOD 5
#define PROPOSER_RADICAL_MIN_KNOBS 3
/* SMs of the target (H200): a grid of fewer CTAs leaves SMs idle (docs/proposer.md). The
 * cost model's features count the same SMs: one constant (costmodel.h). */
#define PROPOSER_SM_COUNT COSTMODEL_SM_COUNT

/* Budget phases: first third explores macro/structural changes, the middle third
 * data-path variants, the last third micro refinement (scheduling, cache hints). */
enum proposer_phase { PHASE_EXPLORE = 0, PHASE_VARIANT, PHASE_REFINE };
enum proposer_phase proposer_phase_of(int iteration, int budget);
const char *proposer_phase_name(enum proposer_phase p);

/* Knob family: the knob's name up to its first '_' ("tile" for tile_m/tile_n/tile_k,
 * "cluster", "l2", ...), the whole name if it has none. Derived from knobs.def. */
bool proposer_same_family(int knob_a, int knob_b);

/* How an idea was built. */
enum idea_kind { KIND_SINGLE = 0, KIND_COUPLED, KIND_PAIR, KIND_RADICAL, KIND_PORT, KIND_RANDOM, KIND_RECIPE };

/* One past iteration, as the proposer needs it. */
struct idea_history_entry {
    char signature[CROQ_SIG_MAX];
    enum idea_category category;
    bool kept;            /* decision KEEP (or BASELINE) */
    /* appended for the cost model and the diversity rule */
    bool measured;        /* tflops below is a verified measurement */
    double tflops;
    bool start;           /* iteration 0 (the baseline or the seed): not an idea */
};

struct proposer_ctx {
    struct croq_shape shape;
    struct croq_config best;              /* current best configuration */
    double best_tflops;
    enum croq_bottleneck bottleneck;      /* of the current best; BN_UNKNOWN if not profiled */
    const struct profile_metrics *metrics;/* may be NULL */
    const struct idea_history_entry *history; /* every idea tried on this shape, oldest first */
    size_t n_history;
    int iteration;                        /* the iteration being proposed (1-based) */
    int budget;                           /* total iterations of this run */
    int consecutive_discards;
    /* best configs of other tuned shapes (for the 15-discard port); entries of another
     * dtype than best are ignored; earlier entries are preferred (engine: most similar
     * shape first) */
    const struct croq_config *other_bests;
    size_t n_other_bests;
    unsigned long long seed;
    /* appended: measurements of other tuned shapes for the cost model (may be NULL; order
     * only decides floating-point rounding, so pass them in a fixed order): the engine
     * gives the other shapes' verified rows of the tuning directory (and replay-bench the
     * other datasets), never this shape's own run; samples of another dtype than best, or
     * without a usable number, are ignored (docs/proposer.md "Cost model") */
    const struct costmodel_sample *others;
    size_t n_others;
    /* appended: the knobs and values the shape's code generator implements (its
     * knobs.def, src/knobs/space.h; the engine passes a pinned generator's). Every
     * strategy proposes inside it: a knob the generator lacks stays at its default, a
     * value it lacks is never taken. NULL: this binary's whole table. */
    const struct knob_space *space;
    /* appended: the configurations the backend can answer for, sorted by knobs_config_cmp
     * (the replay backend's: every configuration its dataset recorded, ok or failed), or
     * NULL: any (a GPU measures whatever builds). Every strategy proposes
     * inside it as inside space: a replayed configuration the dataset never measured has
     * no numbers, so a move to one would spend an iteration on nothing (issue 25). */
    const struct croq_config *measurable;
    size_t n_measurable;
};

/* True when ctx->measurable is NULL or holds cfg. */
bool proposer_measurable(const struct proposer_ctx *ctx, const struct croq_config *cfg);

struct idea {
    struct croq_config cfg;
    enum idea_category category;
    char text[IDEA_TEXT_MAX];       /* "stages 3 -> 4: latency_bound (top stall ...): ..." */
    char justification[256];        /* the metric that justifies it */
    /* added with the implementation (append-only) */
    enum idea_kind kind;
    enum proposer_phase phase;
    int escalation;                 /* 0, 3, 5, 10 or 15: the escalation rule it follows */
    int n_changed;                  /* knobs that differ from ctx->best */
};

/* 0 with *out filled; 1 when the reachable space is exhausted (every valid config of
 * the shape tried); -1 on error (NULL argument, shape that fails shape_validate).
 * Never returns a config whose signature is in history or equals the best's, that
 * fails knobs_validate for ctx->shape, or that lies outside ctx->space. Deterministic: equal ctx, equal idea. */
int proposer_next(const struct proposer_ctx *ctx, struct idea *out);
#endif
