/* src/proposer/proposer.c — proposer_next: generate, select, describe.
 * The rules are documented in proposer.h and docs/proposer.md; each lives in one file:
 * history.c (what was tried), moves.c (candidates), score.c (bottleneck table, phase),
 * select.c (diversity and escalation). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const cat_names[IDEA_CAT_COUNT] = {"macro", "structural", "variant", "micro"};

const char *idea_category_name(enum idea_category c)
{
    return (c >= 0 && c < IDEA_CAT_COUNT) ? cat_names[c] : "?";
}

int idea_category_parse(const char *s)
{
    for (int i = 0; s && i < IDEA_CAT_COUNT; i++)
        if (!strcmp(s, cat_names[i]))
            return i;
    return -1;
}

enum proposer_phase proposer_phase_of(int iteration, int budget)
{
    if (budget <= 0 || 3L * iteration <= budget)
        return PHASE_EXPLORE;
    return 3L * iteration <= 2L * budget ? PHASE_VARIANT : PHASE_REFINE;
}

const char *proposer_phase_name(enum proposer_phase p)
{
    static const char *const names[] = {"explore", "variant", "refine"};
    return (p >= PHASE_EXPLORE && p <= PHASE_REFINE) ? names[p] : "?";
}

/* ---- text ------------------------------------------------------------------------ */

struct text {
    char *buf;
    size_t cap, n;
};

__attribute__((format(printf, 2, 3))) static void text_add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    if (t->n >= t->cap)
        return;
    va_start(ap, fmt);
    int w = vsnprintf(t->buf + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    if (w > 0)
        t->n = (size_t)w < t->cap - t->n ? t->n + (size_t)w : t->cap;
}

static void add_change(struct text *t, const struct prop_state *st, const struct cand *c, int k)
{
    text_add(t, "%s%s %d -> %d", t->n && t->buf[t->n - 1] != ' ' ? ", " : "", croq_knobs[k].name,
             st->ctx->best.v[k], c->cfg.v[k]);
}

/* "tile_k 128 -> 256 with stages 4 -> 3 to stay valid" / "a 1 -> 2, b 3 -> 4"; under replay
 * (ctx->measurable) "... to stay valid and measured" */
static void add_changes(struct text *t, const struct prop_state *st, const struct cand *c)
{
    if (c->primary >= 0)
        add_change(t, st, c, c->primary);
    uint32_t rest = c->changed & ~(c->primary >= 0 ? 1u << c->primary : 0u);
    if (c->primary >= 0 && rest)
        text_add(t, " with ");
    for (int k = 0; k < KNOB_COUNT; k++)
        if (rest & (1u << k))
            add_change(t, st, c, k);
    if (c->primary >= 0 && rest) /* under replay also: to stay in the dataset (prop_valid) */
        text_add(t, st->ctx->measurable ? " to stay valid and measured" : " to stay valid");
}

static const char *kind_prefix(const struct prop_state *st, enum idea_kind k)
{
    switch (k) {
    case KIND_RADICAL: return "radical jump: ";
    case KIND_PORT: return "port another shape's best: ";
    case KIND_RANDOM:
        return st->ctx->measurable ? "random measured config (every measured neighbour tried): "
                                   : "random valid config (every neighbour tried): ";
    case KIND_PAIR: return "two-knob move: ";
    case KIND_RECIPE: return "recipe: ";
    default: return "";
    }
}

static const char *escalation_action(int level)
{
    switch (level) {
    case PROPOSER_PORT: return "port";
    case PROPOSER_RADICAL: return "radical jump";
    case PROPOSER_SWITCH_FAMILY: return "another knob family";
    case PROPOSER_SWITCH_CATEGORY: return "another category";
    default: return "";
    }
}

static void add_reason(struct text *t, const struct prop_state *st, const struct cand *c)
{
    double w;
    const char *why = prop_score_reason(st, c, &w);
    const char *bn = bottleneck_name(st->ctx->bottleneck);
    const char *metric = st->metric_why[0] ? st->metric_why : "no metrics";
    if (st->ctx->bottleneck == BN_UNKNOWN)
        text_add(t, ": not profiled; %s phase favours %s", proposer_phase_name(st->phase),
                 idea_category_name(c->category));
    else if (why && w > 0)
        text_add(t, ": %s, %s; %s", bn, metric, why);
    else
        text_add(t, ": %s, %s; no %s move in the table scores higher, %s phase favours %s", bn,
                 metric, bn, proposer_phase_name(st->phase), idea_category_name(c->category));
}

/* What the cost model said, so the idea names it. */
static void add_model(struct text *t, const struct prop_state *st, const struct cand *c)
{
    if (!st->model.n) {
        text_add(t, "; model: not fitted yet (fewer than %d measurements)", COSTMODEL_MIN_SAMPLES);
        return;
    }
    /* which data it learnt from: this shape's measurements, and other shapes' if any */
    text_add(t, "; model (ridge, %d measurement%s of this shape", st->model.n_self, st->model.n_self > 1 ? "s" : "");
    if (st->model.n_groups)
        text_add(t, ", %d of %d other shape%s", st->model.n - st->model.n_self, st->model.n_groups,
                 st->model.n_groups > 1 ? "s" : "");
    text_add(t, "): %.0f TFLOPS predicted vs %.0f predicted for the best (%+.1f%%)", c->pred, st->best_pred,
             (c->pred / st->best_pred - 1) * 100);
    if (c->unseen)
        text_add(t, ", %d knob value%s never measured", c->unseen, c->unseen > 1 ? "s" : "");
}

static void idea_fill(const struct prop_state *st, const struct cand *c, int escalation,
                      struct idea *out)
{
    struct text t = {.buf = out->text, .cap = sizeof out->text};
    memset(out, 0, sizeof *out);
    out->cfg = c->cfg;
    out->category = c->category;
    out->kind = c->kind;
    out->phase = st->phase;
    out->escalation = escalation;
    for (uint32_t m = c->changed; m; m &= m - 1)
        out->n_changed++;
    text_add(&t, "%s", kind_prefix(st, c->kind));
    add_changes(&t, st, c);
    if (c->kind == KIND_RECIPE)
        text_add(&t, " (%s)", prop_recipe_name(c->recipe));
    add_reason(&t, st, c);
    add_model(&t, st, c);
    if (escalation)
        text_add(&t, " [%d consecutive discards: %s]", st->ctx->consecutive_discards,
                 escalation_action(escalation));
    if (st->metric_why[0])
        snprintf(out->justification, sizeof out->justification, "%s: %.200s",
                 bottleneck_name(st->ctx->bottleneck), st->metric_why);
    else
        snprintf(out->justification, sizeof out->justification, "%s (no metrics)",
                 bottleneck_name(st->ctx->bottleneck));
}

/* ---- proposer_next ---------------------------------------------------------------- */

static int gather(const struct prop_state *st, struct cand_list *l)
{
    if (prop_gen_neighbours(st, l) || prop_gen_recipes(st, l))
        return -1;
    /* multi-knob moves near the best once the model can rank them */
    if (st->model.n && prop_gen_pairs(st, l))
        return -1;
    if (st->event && prop_gen_radical(st, l)) /* a port event falls back to a radical jump */
        return -1;
    if (st->event == PROPOSER_PORT && prop_gen_ports(st, l))
        return -1;
    /* Widen the radius only when everything nearer was tried. */
    if (!l->n && prop_gen_pairs(st, l))
        return -1;
    if (!l->n && prop_gen_random(st, l))
        return -1;
    return 0;
}

static int propose(struct prop_state *st, struct cand_list *l, struct idea *out)
{
    int escalation = 0;
    struct cand walked;
    if (gather(st, l))
        return -1;
    const struct cand *c = prop_select_best(st, l, &escalation);
    if (!c) {
        if (!prop_walk_space(st, &walked))
            return 1;
        c = &walked;
    }
    idea_fill(st, c, escalation, out);
    return 0;
}

bool proposer_measurable(const struct proposer_ctx *ctx, const struct croq_config *cfg)
{
    return knobs_config_in(ctx->measurable, ctx->n_measurable, cfg);
}

int proposer_next(const struct proposer_ctx *ctx, struct idea *out)
{
    char why[CROQ_WHY_MAX];
    struct prop_state st;
    struct cand_list l = {0};
    if (!ctx || !out || (ctx->n_history && !ctx->history) || (ctx->n_other_bests && !ctx->other_bests) ||
        (ctx->n_others && !ctx->others) || (ctx->n_measurable && !ctx->measurable))
        return -1;
    if (!shape_validate(ctx->best.dtype, &ctx->shape, why, sizeof why))
        return -1;
    if (prop_state_init(&st, ctx))
        return -1;
    int rc = propose(&st, &l, out);
    prop_cand_release(&l);
    prop_state_release(&st);
    return rc;
}
