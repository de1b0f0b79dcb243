/* src/proposer/history.c — what the proposer derives from the context before it
 * generates anything: the set of used signatures, the phase, the escalation step, the
 * knob families, and what the current discard streak already tried. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void sig_insert(struct sigset *set, const char *sig)
{
    size_t i = (size_t)fnv1a(sig) & (set->cap - 1);
    while (set->slot[i]) {
        if (!strcmp(set->slot[i], sig))
            return;
        i = (i + 1) & (set->cap - 1);
    }
    set->slot[i] = sig;
}

static bool sig_contains(const struct sigset *set, const char *sig)
{
    size_t i = (size_t)fnv1a(sig) & (set->cap - 1);
    for (; set->slot[i]; i = (i + 1) & (set->cap - 1))
        if (!strcmp(set->slot[i], sig))
            return true;
    return false;
}

bool prop_sig_seen(const struct prop_state *st, const struct croq_config *cfg)
{
    char sig[CROQ_SIG_MAX];
    knobs_signature(cfg, sig);
    return sig_contains(&st->seen, sig);
}

static int seen_init(struct sigset *set, const struct proposer_ctx *ctx)
{
    set->cap = 16;
    while (set->cap < 2 * (ctx->n_history + 1))
        set->cap *= 2;
    set->slot = calloc(set->cap, sizeof *set->slot);
    if (!set->slot)
        return -1;
    knobs_signature(&ctx->best, set->best_sig);
    sig_insert(set, set->best_sig);
    for (size_t i = 0; i < ctx->n_history; i++)
        sig_insert(set, ctx->history[i].signature);
    return 0;
}

uint32_t prop_config_diff(const struct croq_config *a, const struct croq_config *b)
{
    uint32_t m = 0;
    for (int i = 0; i < KNOB_COUNT; i++)
        if (a->v[i] != b->v[i])
            m |= 1u << i;
    return m;
}

int prop_value_index(int knob, int value)
{
    for (int i = 0; i < croq_knobs[knob].n_values; i++)
        if (croq_knobs[knob].values[i] == value)
            return i;
    return -1;
}

static size_t family_len(int knob)
{
    const char *name = croq_knobs[knob].name;
    const char *us = strchr(name, '_');
    return us ? (size_t)(us - name) : strlen(name);
}

bool proposer_same_family(int a, int b)
{
    size_t la = family_len(a);
    return la == family_len(b) && !strncmp(croq_knobs[a].name, croq_knobs[b].name, la);
}

static void init_knob_tables(struct prop_state *st)
{
    for (int i = 0; i < KNOB_COUNT; i++) {
        st->family_of[i] = 0;
        for (int j = 0; j < KNOB_COUNT; j++)
            if (proposer_same_family(i, j))
                st->family_of[i] |= 1u << j;
        int c = idea_category_parse(croq_knobs[i].category);
        st->knob_cat[i] = c < 0 ? IDEA_STRUCTURAL : (enum idea_category)c;
    }
}

/* The standing constraint of a discard streak (select.c applies it). */
static int level_of(int discards)
{
    if (discards >= PROPOSER_SWITCH_FAMILY)
        return PROPOSER_SWITCH_FAMILY;
    if (discards >= PROPOSER_SWITCH_CATEGORY)
        return PROPOSER_SWITCH_CATEGORY;
    return 0;
}

/* Jumps are events, not standing levels: a radical jump at 10 discards, a port at 15,
 * then alternately every PROPOSER_ESCALATION_PERIOD (radical at 20, port at 25, ...).
 * As standing levels they would make every idea after the 10th discard a jump, and a
 * hill climb that only jumps stops climbing. */
int prop_escalation_event(int discards)
{
    int d = discards - PROPOSER_RADICAL;
    if (d < 0 || d % PROPOSER_ESCALATION_PERIOD)
        return 0;
    return (d / PROPOSER_ESCALATION_PERIOD) % 2 ? PROPOSER_PORT : PROPOSER_RADICAL;
}

/* The discard streak: trailing history entries that were not kept. They were all
 * proposed from the current best (the best changes only on a keep), so their diff
 * against it is exactly what each of them changed. */
static void analyse_streak(struct prop_state *st)
{
    const struct proposer_ctx *ctx = st->ctx;
    size_t n = ctx->n_history;
    for (size_t k = 0; k < n && k < PROPOSER_SWITCH_FAMILY && !ctx->history[n - 1 - k].kept; k++) {
        struct croq_config c;
        char err[128];
        if (!knobs_parse_signature(&c, ctx->history[n - 1 - k].signature, err, sizeof err))
            st->recent_knobs |= prop_config_diff(&c, &ctx->best);
    }
    for (size_t k = 0; k < n && k < PROPOSER_SWITCH_CATEGORY; k++) {
        unsigned c = (unsigned)ctx->history[n - 1 - k].category;
        if (c < IDEA_CAT_COUNT)
            st->recent_cats |= 1u << c;
    }
    st->blocked_cat = -1;
    if (n >= 2 && ctx->history[n - 1].category == ctx->history[n - 2].category)
        st->blocked_cat = (int)ctx->history[n - 1].category;
}

static void init_metric_why(struct prop_state *st)
{
    const struct proposer_ctx *ctx = st->ctx;
    struct profile_result r;
    st->metric_why[0] = '\0';
    if (!ctx->metrics || ctx->bottleneck == BN_UNKNOWN)
        return;
    profile_classify(ctx->metrics, &r);
    /* The engine may have classified differently (e.g. an override); then the metric
     * text would argue for another category, so it is left out. */
    if (r.category == ctx->bottleneck)
        memcpy(st->metric_why, r.justification, sizeof st->metric_why);
}

int prop_state_init(struct prop_state *st, const struct proposer_ctx *ctx)
{
    memset(st, 0, sizeof *st);
    st->ctx = ctx;
    if (seen_init(&st->seen, ctx))
        return -1;
    st->phase = proposer_phase_of(ctx->iteration, ctx->budget);
    st->level = level_of(ctx->consecutive_discards);
    st->event = prop_escalation_event(ctx->consecutive_discards);
    st->anticipate_cat = -1;
    init_knob_tables(st);
    analyse_streak(st);
    init_metric_why(st);
    return 0;
}

void prop_state_release(struct prop_state *st)
{
    free(st->seen.slot);
    st->seen.slot = NULL;
}
