/* src/proposer/history.c — what the proposer derives from the context before it
 * generates anything: the set of used signatures, the phase, the escalation step, the
 * knob families, and what the current discard streak already tried. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

uint64_t prop_cfg_hash(const struct croq_config *c)
{
    uint64_t h = (uint64_t)(unsigned)c->dtype * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < KNOB_COUNT; i++)
        if (!KNOB_OMITTED(c, i)) /* a late knob at its default: the hash (tie-breaks) of before it */
            h = (h ^ (uint64_t)(unsigned)c->v[i]) * 0x100000001B3ull + (uint64_t)i;
    h ^= h >> 33; /* murmur3's finaliser: every bit of h reaches the low (slot) bits */
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

static int cfgset_init(struct cfgset *s, size_t want)
{
    s->cap = 64;
    while (s->cap < 2 * want)
        s->cap *= 2;
    s->n = 0;
    s->cfg = malloc(s->cap * sizeof *s->cfg);
    s->state = calloc(s->cap, 1);
    return s->cfg && s->state ? 0 : -1;
}

static void cfgset_release(struct cfgset *s)
{
    free(s->cfg);
    free(s->state);
    memset(s, 0, sizeof *s);
}

/* The slot of c: its own, or the empty one where it would go. */
static size_t cfgset_slot(const struct cfgset *s, const struct croq_config *c)
{
    size_t i = (size_t)prop_cfg_hash(c) & (s->cap - 1);
    while (s->state[i] && memcmp(&s->cfg[i], c, sizeof *c))
        i = (i + 1) & (s->cap - 1);
    return i;
}

static void cfgset_put(struct cfgset *s, const struct croq_config *c, signed char v)
{
    size_t i = cfgset_slot(s, c);
    if (!s->state[i])
        s->n++;
    s->cfg[i] = *c;
    s->state[i] = v;
}

bool prop_sig_seen(const struct prop_state *st, const struct croq_config *cfg)
{
    return st->seen.state[cfgset_slot(&st->seen, cfg)] != 0;
}

bool prop_valid(const struct prop_state *st, const struct croq_config *cfg)
{
    struct cfgset *m = st->memo;
    size_t i = cfgset_slot(m, cfg);
    if (m->state[i])
        return m->state[i] == 1;
    /* outside the generator's knobs (ctx->space) is as unusable as invalid: its kernels
     * would ignore the #define (src/knobs/space.h); outside ctx->measurable it would
     * have no numbers */
    bool ok = knob_space_allows(st->ctx->space, cfg, NULL, 0) && knobs_validate(cfg, &st->ctx->shape, NULL, 0) &&
              proposer_measurable(st->ctx, cfg);
    if (4 * (m->n + 1) < 3 * m->cap) /* full enough: compute without remembering */
        cfgset_put(m, cfg, ok ? 1 : 2);
    return ok;
}

/* History signatures as configurations (an unparseable one cannot collide with a
 * candidate, which is always a valid table point). */
static int seen_init(struct cfgset *set, const struct proposer_ctx *ctx)
{
    if (cfgset_init(set, ctx->n_history + 1))
        return -1;
    cfgset_put(set, &ctx->best, 1);
    for (size_t i = 0; i < ctx->n_history; i++) {
        struct croq_config c;
        char err[128];
        if (!knobs_parse_signature(&c, ctx->history[i].signature, err, sizeof err))
            cfgset_put(set, &c, 1);
    }
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
    /* the diversity rule: two macro ideas in a row (iteration 0 is no idea) */
    st->force_structural = n >= 2 && !ctx->history[n - 1].start && !ctx->history[n - 2].start &&
                           ctx->history[n - 1].category == IDEA_MACRO && ctx->history[n - 2].category == IDEA_MACRO;
}

/* The cost model, fitted on every measured entry of the history and the other shapes'
 * samples (src/costmodel: the prior's weights are its costmodel_add_prior). */
static int fit_model(struct prop_state *st)
{
    const struct proposer_ctx *ctx = st->ctx;
    size_t n = 0;
    struct costmodel_row *rows = malloc((ctx->n_history + ctx->n_others + 1) * sizeof *rows);
    if (!rows)
        return -1;
    st->best_measured = ctx->best_tflops;
    for (size_t i = 0; i < ctx->n_history; i++) {
        char err[128];
        const struct idea_history_entry *e = &ctx->history[i];
        if (!e->measured || !(e->tflops > 0) || !isfinite(e->tflops) ||
            knobs_parse_signature(&rows[n].cfg, e->signature, err, sizeof err))
            continue;
        rows[n].shape = ctx->shape;
        rows[n].tflops = e->tflops;
        rows[n].weight = 1;
        rows[n++].group = 0;
    }
    size_t n_self = n;
    int rc = costmodel_fit(&st->own, rows, n_self);
    n = costmodel_add_prior(rows, n, ctx->others, ctx->n_others, ctx->best.dtype, &ctx->shape, (int)n);
    if (!rc)
        rc = costmodel_fit(&st->model, rows, n);
    if (!rc && st->model.n)
        st->best_pred = costmodel_predict(&st->model, &ctx->best, &ctx->shape, NULL);
    free(rows);
    return rc;
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
    st->kn = knob_space_table(ctx->space);
    if (seen_init(&st->seen, ctx))
        return -1;
    st->memo = calloc(1, sizeof *st->memo);
    if (!st->memo || cfgset_init(st->memo, 1 << 14)) {
        prop_state_release(st);
        return -1;
    }
    st->phase = proposer_phase_of(ctx->iteration, ctx->budget);
    st->level = level_of(ctx->consecutive_discards);
    st->event = prop_escalation_event(ctx->consecutive_discards);
    init_knob_tables(st);
    analyse_streak(st);
    init_metric_why(st);
    if (fit_model(st)) {
        prop_state_release(st);
        return -1;
    }
    return 0;
}

void prop_state_release(struct prop_state *st)
{
    cfgset_release(&st->seen);
    if (st->memo)
        cfgset_release(st->memo);
    free(st->memo);
    st->memo = NULL;
}
