/* src/search/search.h — search strategies: how IDEATE chooses the next configuration to
 * try. One interface, strategies opened by name (as backend_open opens a backend), the
 * table of them in strategies.def (docs/search.md).
 *
 * A strategy is asked for one configuration at a time with the proposer's context
 * (src/proposer/proposer.h, struct proposer_ctx): the shape, the current best, the
 * history of every configuration tried on the shape (oldest first, the start included),
 * the iteration and budget, the best's profile, the other shapes' bests and measurements,
 * and the shape's seed; the knob space is ctx->space, the knobs and values the shape's
 * generator implements (src/knobs/space.h; NULL: the table's, src/knobs/knobs.def), and no
 * strategy proposes outside it, nor outside ctx->measurable when the backend names what it
 * can measure (a replay's dataset; internal.h's search_candidate_ok checks both). Each uses
 * what it needs of it. The engine's compile-ahead asks the same function with the
 * history it would have after the pending candidate was discarded (the next
 * configurations), so next must be a pure function of the context: no I/O, no clock, no
 * global state; randomness only from ctx->seed, ctx->iteration and ctx->n_history. Equal
 * context, equal idea: a resumed run re-derives the idea the interrupted one chose.
 *
 * Strategies (strategies.def, in this order):
 *   heuristic  the profile-guided proposer (src/proposer, docs/proposer.md); the default
 *   grid       every point of the knob space in table order (grid.h, grid_space_point)
 *   random     uniform over the untried valid configurations, seeded: the baseline every
 *              strategy is compared with (replay-bench --strategy)
 *   agent      external: an agent's ideas ('croqtuner propose', src/engine/propose.c)
 *
 * Thread-safety: the table is constant; next keeps no state, so it may run in any thread.
 */
#ifndef CROQ_SEARCH_H
#define CROQ_SEARCH_H
#include <stddef.h>

#include "proposer/proposer.h"

#define SEARCH_DEFAULT "heuristic" /* a new shape's strategy, and a checkpoint's without one */
#define SEARCH_NAME_MAX 24         /* longest name + 1 (artifacts/checkpoint.h holds one) */

struct search_strategy {
    const char *name;    /* what --strategy and the checkpoint's "strategy" say */
    const char *summary; /* one line, for usage messages */
    /* 0 with *out (a configuration valid for ctx->shape whose signature is neither in
     * ctx->history nor the best's, dtype that of ctx->best); 1 when there is none left
     * (every valid configuration of the strategy's space was tried); -1 on a NULL
     * argument or a shape shape_validate rejects. NULL for an external strategy (the
     * agent): its ideas come from outside the engine, and IDEATE waits for them. */
    int (*next)(const struct proposer_ctx *ctx, struct idea *out);
    /* what every idea text of this strategy begins with (the audit tells a row's strategy by
     * it); NULL: no fixed opening (the heuristic's ideas are many kinds; the agent's are
     * an agent's) */
    const char *idea_prefix;
};

/* The strategy called name, NULL if there is none. */
const struct search_strategy *search_open(const char *name);
/* The table: i in [0, search_count()), in strategies.def's order. */
size_t search_count(void);
const struct search_strategy *search_at(size_t i);
/* "heuristic, grid, random, agent": every name, table order, for messages. */
void search_names(char *out, size_t len);
/* The engine strategy whose idea this text is: the one whose idea_prefix opens it, else
 * SEARCH_DEFAULT (the heuristic's texts have no fixed opening). */
const char *search_idea_strategy(const char *idea);
#endif
