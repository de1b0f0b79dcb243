/* src/engine/ladder.c — the final ladder's two rules as pure functions (decide.h): which
 * configurations it times, and which one wins. The engine's LADDER step and the audit
 * both call them, so the audit can say whether a ladder timed what the rule picks.
 */
#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static bool picked(const int *out, int n, int iter)
{
    for (int i = 0; i < n; i++)
        if (out[i] == iter)
            return true;
    return false;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Why these: the last kept configurations are the chain the shape climbed (each KEEP
 * claimed to beat the one before, which the ladder tests side by side), and the highest
 * recorded TFLOPS are the candidates a noisy or clock-favoured measurement may have
 * misjudged either way. Only a kept row or a plain DISCARD qualifies: a row discarded as
 * incorrect (it failed a verification on a new operand set) or measured above the physical
 * peak (twice, or once: a DISCARD's recorded numbers are its re-measurement) was found
 * broken. A discarded agent candidate is left out too: it was verified on the shape's own
 * operands only, and only a kept one was verified on a set never used before (a
 * hand-written kernel could reproduce outputs it has seen). */
int ladder_pick(const struct result_log *res, const bool *agent, int best_iter, int dtype, int out[LADDER_MAX])
{
    int n = 0;
    if (best_iter >= 0 && (size_t)best_iter < res->n)
        out[n++] = best_iter;
    for (size_t i = res->n; i-- > 0 && n < 1 + LADDER_KEEPS;) {
        const struct result_row *row = &res->rows[i];
        if (decision_kept(row->decision) && row->measured && !picked(out, n, row->iter))
            out[n++] = row->iter;
    }
    for (int t = 0; t < LADDER_TOPS && n < LADDER_MAX; t++) {
        int top = -1;
        for (size_t i = 0; i < res->n; i++) {
            const struct result_row *row = &res->rows[i];
            /* a DISCARD only: a row discarded as incorrect (a failed verification on a new
             * operand set) or above the physical peak twice was found broken */
            bool broken = row->decision == DEC_DISCARD && decide_above_peak(dtype, &(struct perf_numbers){
                              row->tflops, row->median_ms, row->spread_pct, row->sm_clock_mhz, NAN, NAN, NAN});
            bool eligible = row->measured && isfinite(row->tflops) && !broken &&
                            (decision_kept(row->decision) || (row->decision == DEC_DISCARD && !(agent && agent[i]))) &&
                            !picked(out, n, row->iter);
            if (eligible && (top < 0 || row->tflops > res->rows[top].tflops))
                top = (int)i;
        }
        if (top < 0)
            break;
        out[n++] = res->rows[top].iter;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_int);
    return n;
}

/* Why rel and not the median time: the power cap moves the clock by a few percent from one
 * round to the next, and every kernel of a round runs at that round's clock, so dividing by
 * the round's mean takes the drift out of the comparison; the medians themselves still
 * carry it (each median may come from another round). */
int ladder_winner(const double *rel, int n)
{
    int w = -1;
    for (int i = 0; i < n; i++)
        if (isfinite(rel[i]) && rel[i] > 0 && (w < 0 || rel[i] < rel[w]))
            w = i;
    return w;
}

bool *ladder_agent_rows(const struct result_log *res, const struct idea_log *ideas)
{
    bool *agent = xmalloc((res->n + 1) * sizeof *agent);
    for (size_t i = 0; i < res->n; i++)
        agent[i] = i < ideas->n && !strcmp(ideas->recs[i].origin, "agent");
    return agent;
}
