/* src/engine/phase.c — the table of legal moves between the phases of one shape's
 * tuning (their names: src/artifacts/names.c).
 *
 * The loop is driven by this table, not by flags: a step can only hand control to a
 * phase the table lists for it, and a caller (the CLI, an agent through 'propose') can
 * only act in the phase that allows it. docs/engine.md draws the same table.
 */
#include "run.h"

#include <stdio.h>
#include <string.h>


#define T(p) (1u << (p))
/* allowed[from] = bit set of the phases `from` may hand over to. Each entry says why. */
static const unsigned allowed[PH_COUNT] = {
    /* directories, logs and checkpoint exist: measure the starting point */
    [PH_INIT] = T(PH_BASELINE),
    /* measured and stored as iteration 0; a baseline that cannot be built or verified
     * leaves nothing to tune from, so the shape completes with that reason */
    [PH_BASELINE] = T(PH_PROFILE) | T(PH_SHAPE_COMPLETE),
    /* ideas are grounded in the profile of the current best */
    [PH_PROFILE] = T(PH_IDEATE),
    /* the proposer gave an idea, or the knob space is exhausted / the compile-failure
     * cap was hit (then the final ladder, or done) */
    [PH_IDEATE] = T(PH_IMPLEMENT) | T(PH_LADDER) | T(PH_SHAPE_COMPLETE),
    /* built: measure it; a compile failure consumes no iteration: ideate again */
    [PH_IMPLEMENT] = T(PH_MEASURE) | T(PH_IDEATE),
    /* verified and timed: decide; failed to verify, crashed or timed out: store the
     * DISCARD_* outcome without deciding */
    [PH_MEASURE] = T(PH_DECIDE) | T(PH_STORE),
    [PH_DECIDE] = T(PH_STORE),
    /* profile the (maybe new) best again, or the budget is spent: the final ladder
     * (rules 4 on), or done */
    [PH_STORE] = T(PH_PROFILE) | T(PH_LADDER) | T(PH_SHAPE_COMPLETE),
    /* the top configurations timed again together: the registered best is the winner */
    [PH_LADDER] = T(PH_SHAPE_COMPLETE),
    [PH_SHAPE_COMPLETE] = T(PH_NEXT_SHAPE),
    /* a sweep starts the next shape; a shape found done below its budget (resume, or a
     * raised --iters) is reopened and continues from its best; a done shape without a
     * final ladder gets one ('croqtuner ladder') */
    [PH_NEXT_SHAPE] = T(PH_INIT) | T(PH_PROFILE) | T(PH_LADDER),
};

bool phase_allowed(enum engine_phase from, enum engine_phase to)
{
    if ((unsigned)from >= PH_COUNT || (unsigned)to >= PH_COUNT)
        return false;
    return (allowed[from] & T(to)) != 0;
}

int phase_transition(enum engine_phase *cur, enum engine_phase to, char *err, size_t errlen)
{
    if (!phase_allowed(*cur, to)) {
        snprintf(err, errlen, "illegal transition %s -> %s", phase_name(*cur), phase_name(to));
        return -1;
    }
    *cur = to;
    return 0;
}
