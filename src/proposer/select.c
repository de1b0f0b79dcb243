/* src/proposer/select.c — the soft rules: which candidates may win this iteration.
 *
 * Steps are tried in order; the first step that leaves any candidate decides, and the
 * highest score among those wins (ties: smaller seeded hash). The diversity rule,
 * exactly: after two consecutive macro ideas the next idea is structural. Every step
 * applies it except the escalation jumps (radical, port), which may break the
 * alternation; nothing else does. Only when no step finds a structural candidate at all
 * (none is valid and untried) is it dropped, since the proposer never stops early.
 *
 *   port event (15, 25, ...):    port, radical, then as for >= 5
 *   radical event (10, 20, ...): radical, then as for >= 5
 *   discards >= 5:  family+category, family, category, none
 *   discards >= 3:  category, none
 *   otherwise:      none
 * port = a port of another shape's best; radical = a radical jump; family = changes
 * only knob families the last 5 discarded ideas did not touch; category = a category
 * none of the last 3 ideas had.
 */
#include "internal.h"

enum { F_PORT = 1, F_RADICAL = 2, F_FAMILY = 4, F_CATEGORY = 8, F_END = -1 };

static const int steps_port[] = {F_PORT, F_RADICAL, F_FAMILY | F_CATEGORY, F_FAMILY, F_CATEGORY, 0, F_END};
static const int steps_radical[] = {F_RADICAL, F_FAMILY | F_CATEGORY, F_FAMILY, F_CATEGORY, 0, F_END};
static const int steps_family[] = {F_FAMILY | F_CATEGORY, F_FAMILY, F_CATEGORY, 0, F_END};
static const int steps_category[] = {F_CATEGORY, 0, F_END};
static const int steps_none[] = {0, F_END};

static const int *steps_for(const struct prop_state *st)
{
    if (st->event == PROPOSER_PORT)
        return steps_port;
    if (st->event == PROPOSER_RADICAL)
        return steps_radical;
    if (st->level == PROPOSER_SWITCH_FAMILY)
        return steps_family;
    if (st->level == PROPOSER_SWITCH_CATEGORY)
        return steps_category;
    return steps_none;
}

/* The escalation step a filter set stands for (reported in struct idea). */
static int escalation_of(int filters)
{
    if (filters & F_PORT)
        return PROPOSER_PORT;
    if (filters & F_RADICAL)
        return PROPOSER_RADICAL;
    if (filters & F_FAMILY)
        return PROPOSER_SWITCH_FAMILY;
    if (filters & F_CATEGORY)
        return PROPOSER_SWITCH_CATEGORY;
    return 0;
}

static uint32_t families(const struct prop_state *st, uint32_t knobs)
{
    uint32_t f = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        if (knobs & (1u << k))
            f |= st->family_of[k];
    return f;
}

/* soft: 1 = with the diversity rule, 0 = without */
static bool passes(const struct prop_state *st, const struct cand *c, int filters, int soft)
{
    if (soft && st->force_structural && !(filters & (F_PORT | F_RADICAL)) && c->category != IDEA_STRUCTURAL)
        return false;
    if ((filters & F_PORT) && c->kind != KIND_PORT)
        return false;
    if ((filters & F_RADICAL) && c->kind != KIND_RADICAL)
        return false;
    if ((filters & F_FAMILY) && (families(st, c->changed) & families(st, st->recent_knobs)))
        return false;
    if ((filters & F_CATEGORY) && (st->recent_cats & (1u << c->category)))
        return false;
    return true;
}

static bool better(const struct cand *a, const struct cand *b)
{
    return !b || a->score > b->score || (a->score == b->score && a->tie < b->tie);
}

const struct cand *prop_select_best(const struct prop_state *st, const struct cand_list *l, int *escalation)
{
    const int *steps = steps_for(st);
    for (int soft = 1; soft >= 0; soft--)
        for (const int *f = steps; *f != F_END; f++) {
            const struct cand *best = NULL;
            for (size_t i = 0; i < l->n; i++)
                if (passes(st, &l->v[i], *f, soft) && better(&l->v[i], best))
                    best = &l->v[i];
            if (best) {
                *escalation = escalation_of(*f);
                return best;
            }
        }
    return NULL;
}
