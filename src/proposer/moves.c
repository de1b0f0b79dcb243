/* src/proposer/moves.c — candidate generation.
 *
 * Every candidate is a point of the knobs.def space that passes knobs_validate for the
 * shape, lies in the shape's generator's knob space (ctx->space: the rows walked are
 * its values, prop_state.kn) and whose signature was never used (prop_cand_usable);
 * generators only differ in which points they look at:
 *   neighbours  each knob to the next lower / higher value in its list; an invalid
 *               one is repaired (below) into a coupled move
 *   pairs       two knobs to neighbouring values at once (radius 2)
 *   random      uniform random points from the seeded generator
 *   radical     every assignment of the "structural" knobs changing >= 3 of them
 *   ports       other shapes' best configs, repaired if this shape rejects them
 *   recipes     multi-knob structural moves to measured good settings (recipes.c)
 *   walk        every point of the space, from a random start: the exhaustion proof
 *               (of ctx->measurable, when the backend names what it can measure)
 * Repair: the fewest extra knob changes that make a move valid (one other knob to any
 * value, then two, then a subset of knobs set to the baseline's or the default's
 * values), the highest-scoring repair winning, so e.g. tile_k 128 -> 256 under
 * occupancy pressure drops a stage rather than switching the epilogue.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The index slot of cfg in l: its own or the empty one where it goes. */
static size_t list_slot(const struct cand_list *l, const struct croq_config *cfg)
{
    size_t i = (size_t)prop_cfg_hash(cfg) & (l->slot_cap - 1);
    while (l->slot[i] && memcmp(&l->v[l->slot[i] - 1].cfg, cfg, sizeof *cfg))
        i = (i + 1) & (l->slot_cap - 1);
    return i;
}

/* Each configuration once (the first push of it stays). */
int prop_cand_push(struct cand_list *l, const struct cand *c)
{
    if (l->slot && l->slot[list_slot(l, &c->cfg)])
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct cand *v = realloc(l->v, cap * sizeof *v);
        size_t *slot = calloc(2 * cap, sizeof *slot);
        if (!v || !slot) {
            free(slot);
            if (v)
                l->v = v;
            return -1;
        }
        l->v = v;
        l->cap = cap;
        free(l->slot);
        l->slot = slot;
        l->slot_cap = 2 * cap;
        for (size_t i = 0; i < l->n; i++)
            l->slot[list_slot(l, &l->v[i].cfg)] = i + 1;
    }
    l->v[l->n++] = *c;
    l->slot[list_slot(l, &c->cfg)] = l->n;
    return 0;
}

void prop_cand_release(struct cand_list *l)
{
    free(l->v);
    free(l->slot);
    *l = (struct cand_list){0};
}

bool prop_cand_usable(const struct prop_state *st, const struct croq_config *cfg)
{
    return prop_valid(st, cfg) && !prop_sig_seen(st, cfg);
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* The tie-break: a hash of the configuration's bytes and the seed. */
static uint64_t hash_sig(const struct croq_config *cfg, uint64_t seed)
{
    return mix64(prop_cfg_hash(cfg) ^ mix64(seed));
}

/* Most changed knobs' category; ties go to the earlier category. */
static enum idea_category majority_category(const struct prop_state *st, uint32_t changed)
{
    int count[IDEA_CAT_COUNT] = {0};
    for (int k = 0; k < KNOB_COUNT; k++)
        if (changed & (1u << k))
            count[st->knob_cat[k]]++;
    int best = 0;
    for (int c = 1; c < IDEA_CAT_COUNT; c++)
        if (count[c] > count[best])
            best = c;
    return (enum idea_category)best;
}

void prop_cand_finish(const struct prop_state *st, struct cand *c)
{
    c->changed = prop_config_diff(&c->cfg, &st->ctx->best);
    if ((c->kind == KIND_SINGLE || c->kind == KIND_COUPLED) && c->primary >= 0)
        c->category = st->knob_cat[c->primary];
    else if (c->kind == KIND_RADICAL || c->kind == KIND_RECIPE)
        c->category = IDEA_STRUCTURAL;
    else
        c->category = majority_category(st, c->changed);
    c->pred = st->model.n ? costmodel_predict(&st->model, &c->cfg, &st->ctx->shape, &c->unseen) : 0;
    /* the exploration bonus is what this shape has not measured yet (other shapes'
     * measurements move the prediction, not the bonus) */
    c->sd = st->own.n ? costmodel_stddev(&st->own, &c->cfg, &st->ctx->shape)
            : st->model.n ? costmodel_stddev(&st->model, &c->cfg, &st->ctx->shape) : 0;
    c->score = prop_score_cand(st, c);
    c->tie = hash_sig(&c->cfg, st->ctx->seed);
}

static struct cand cand_make(const struct prop_state *st, const struct croq_config *cfg,
                             enum idea_kind kind, int primary)
{
    struct cand c = {.cfg = *cfg, .kind = kind, .primary = primary, .port_index = -1, .recipe = -1};
    prop_cand_finish(st, &c);
    return c;
}

static bool is_valid(const struct prop_state *st, const struct croq_config *cfg)
{
    return prop_valid(st, cfg);
}

/* ---- repair ---------------------------------------------------------------------- */

struct repair {
    const struct prop_state *st;
    struct cand base;   /* the move before repair (kind and primary carry over) */
    uint32_t frozen;    /* knobs the repair may not touch */
    struct cand best;
    int best_steps;
    bool found;         /* an unused valid repair: best */
    bool any_valid;     /* a valid repair at this size, used or not: stop growing */
    bool any_seen;      /* one of them was used already */
};

static int index_steps(const struct croq_config *a, const struct croq_config *b)
{
    int s = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        s += abs(prop_value_index(k, a->v[k]) - prop_value_index(k, b->v[k]));
    return s;
}

/* Only minimal repairs count: the search stops at the smallest size that has a valid
 * one even if all of that size were tried, so a used repair is never "freshened" by
 * changing one more, unrelated knob. */
static void repair_consider(struct repair *r, const struct croq_config *cfg)
{
    if (!is_valid(r->st, cfg))
        return;
    r->any_valid = true;
    if (prop_sig_seen(r->st, cfg)) {
        r->any_seen = true;
        return;
    }
    struct cand c = r->base;
    c.cfg = *cfg;
    prop_cand_finish(r->st, &c);
    int steps = index_steps(cfg, &r->base.cfg);
    bool better = !r->found || c.score > r->best.score ||
                  (c.score == r->best.score &&
                   (steps < r->best_steps || (steps == r->best_steps && c.tie < r->best.tie)));
    if (better) {
        r->best = c;
        r->best_steps = steps;
        r->found = true;
    }
}

/* One other knob, any value; then two. */
/* Late knobs (src/knobs/knobs.h) are not walked by the proposer's own moves: the
 * explore datasets replay-bench scores it against predate them (every move to one would
 * be a configuration no dataset measured, t0503), and `schedule` has no H200 measurement
 * yet (issue 14). A best, a port or a start configuration may carry one, and a repair
 * toward the baseline or the default may reset one. */
static bool walked(int k) { return k < KNOB_FIRST_LATE; }

static void repair_near(struct repair *r)
{
    const struct croq_config *base = &r->base.cfg;
    const struct croq_knob *kn = r->st->kn;
    for (int j = 0; j < KNOB_COUNT; j++) {
        if ((r->frozen & (1u << j)) || !walked(j))
            continue;
        for (int a = 0; a < kn[j].n_values; a++) {
            struct croq_config c = *base;
            c.v[j] = kn[j].values[a];
            if (c.v[j] != base->v[j])
                repair_consider(r, &c);
        }
    }
    if (r->any_valid)
        return;
    for (int j = 0; j < KNOB_COUNT; j++)
        for (int k = j + 1; k < KNOB_COUNT; k++) {
            if ((r->frozen >> j & 1) || (r->frozen >> k & 1) || !walked(j) || !walked(k))
                continue;
            for (int a = 0; a < kn[j].n_values; a++)
                for (int b = 0; b < kn[k].n_values; b++) {
                    struct croq_config c = *base;
                    c.v[j] = kn[j].values[a];
                    c.v[k] = kn[k].values[b];
                    if (c.v[j] != base->v[j] && c.v[k] != base->v[k])
                        repair_consider(r, &c);
                }
        }
}

static int popcount32(uint32_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

/* Three or more knobs: subsets of the knobs where the move differs from an anchor
 * (the baseline, the default), smallest subsets first, set to the anchor's values.
 * Only reached by moves far from both (e.g. kernel 1 -> 0 needs up to 7 changes). */
static void repair_toward(struct repair *r, const struct croq_config *anchor)
{
    int idx[KNOB_COUNT], n = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        if (!(r->frozen & (1u << k)) && r->base.cfg.v[k] != anchor->v[k])
            idx[n++] = k;
    for (int size = 3; size <= n && !r->any_valid; size++)
        for (uint32_t mask = 1; mask < (1u << n); mask++) {
            if (popcount32(mask) != size)
                continue;
            struct croq_config c = r->base.cfg;
            for (int i = 0; i < n; i++)
                if (mask & (1u << i))
                    c.v[idx[i]] = anchor->v[idx[i]];
            repair_consider(r, &c);
        }
}

/* A usable config near base that keeps the frozen knobs, or false. *seen (optional):
 * whether a minimal repair of base was used already. */
static bool repair_move(const struct prop_state *st, const struct cand *base, uint32_t frozen,
                        struct cand *out, bool *seen)
{
    struct repair r = {.st = st, .base = *base, .frozen = frozen};
    struct croq_config anchor;
    repair_near(&r);
    if (!r.any_valid) {
        knobs_baseline(&anchor, base->cfg.dtype);
        repair_toward(&r, &anchor);
    }
    if (!r.any_valid) {
        knobs_default(&anchor, base->cfg.dtype);
        repair_toward(&r, &anchor);
    }
    if (r.found)
        *out = r.best;
    if (seen)
        *seen = r.any_seen;
    return r.found;
}

/* ---- generators ------------------------------------------------------------------- */

/* Where value sits in the walked list of knob k (the shape's generator's values,
 * prop_state.kn), -1 if it is not there: neighbours are neighbours in that list. */
static int space_index(const struct prop_state *st, int k, int value)
{
    for (int i = 0; i < st->kn[k].n_values; i++)
        if (st->kn[k].values[i] == value)
            return i;
    return -1;
}

static int push_neighbour(const struct prop_state *st, struct cand_list *l, int k, int value)
{
    struct croq_config c = st->ctx->best;
    c.v[k] = value;
    if (prop_cand_usable(st, &c)) {
        struct cand cd = cand_make(st, &c, KIND_SINGLE, k);
        return prop_cand_push(l, &cd);
    }
    if (is_valid(st, &c))
        return 0; /* tried before: not a new idea */
    struct cand base = {.cfg = c, .kind = KIND_COUPLED, .primary = k, .port_index = -1}, fixed;
    if (repair_move(st, &base, 1u << k, &fixed, NULL))
        return prop_cand_push(l, &fixed);
    return 0;
}

int prop_gen_neighbours(const struct prop_state *st, struct cand_list *l)
{
    const struct croq_config *best = &st->ctx->best;
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (!walked(k))
            continue;
        int i = space_index(st, k, best->v[k]), n = st->kn[k].n_values;
        for (int j = 0; j < n; j++) {
            /* neighbours in the list; every value if the best's is not in it */
            if (i >= 0 && j != i - 1 && j != i + 1)
                continue;
            if (push_neighbour(st, l, k, st->kn[k].values[j]))
                return -1;
        }
    }
    return 0;
}

int prop_gen_pairs(const struct prop_state *st, struct cand_list *l)
{
    const struct croq_config *best = &st->ctx->best;
    for (int a = 0; a < KNOB_FIRST_LATE; a++) /* walked knobs only */
        for (int b = a + 1; b < KNOB_FIRST_LATE; b++) {
            int ia = space_index(st, a, best->v[a]), ib = space_index(st, b, best->v[b]);
            for (int da = -1; da <= 1; da += 2)
                for (int db = -1; db <= 1; db += 2) {
                    int ja = ia + da, jb = ib + db;
                    if (ja < 0 || jb < 0 || ja >= st->kn[a].n_values || jb >= st->kn[b].n_values)
                        continue;
                    struct croq_config c = *best;
                    c.v[a] = st->kn[a].values[ja];
                    c.v[b] = st->kn[b].values[jb];
                    if (!prop_cand_usable(st, &c))
                        continue;
                    struct cand cd = cand_make(st, &c, KIND_PAIR, -1);
                    if (prop_cand_push(l, &cd))
                        return -1;
                }
        }
    return 0;
}

static uint64_t rng_next(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ull;
    return mix64(*s);
}

static uint64_t rng_seed(const struct prop_state *st)
{
    const struct proposer_ctx *ctx = st->ctx;
    return mix64(ctx->seed ^ mix64((uint64_t)ctx->iteration) ^ mix64(ctx->n_history + 0x51ull));
}

static void random_config(const struct prop_state *st, uint64_t *rng, int dtype, struct croq_config *c)
{
    c->dtype = dtype;
    for (int k = 0; k < KNOB_COUNT; k++) /* a late knob takes its default and draws nothing */
        c->v[k] = walked(k) ? st->kn[k].values[rng_next(rng) % (uint64_t)st->kn[k].n_values]
                            : st->kn[k].default_value;
}

#define RANDOM_TRIES 4096
#define RANDOM_KEEP 32

/* Under replay (ctx->measurable): up to RANDOM_KEEP usable entries of the list drawn
 * without replacement (a partial Fisher-Yates shuffle of its indices), for the cost
 * model to rank as it ranks the space's draws; drawing knob-space points instead would
 * find about one usable entry in 30 calls (600 of 126 M points). */
static int gen_random_measurable(const struct prop_state *st, uint64_t rng, struct cand_list *l)
{
    size_t n = st->ctx->n_measurable;
    size_t *ix = malloc((n + 1) * sizeof *ix);
    if (!ix)
        return -1;
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    int rc = 0;
    for (size_t i = 0; i < n && l->n < RANDOM_KEEP && !rc; i++) {
        size_t j = i + (size_t)(rng_next(&rng) % (uint64_t)(n - i)), x = ix[j];
        ix[j] = ix[i], ix[i] = x;
        const struct croq_config *c = &st->ctx->measurable[x];
        if (c->dtype != st->ctx->best.dtype || !prop_cand_usable(st, c))
            continue;
        struct cand cd = cand_make(st, c, KIND_RANDOM, -1);
        rc = prop_cand_push(l, &cd);
    }
    free(ix);
    return rc;
}

int prop_gen_random(const struct prop_state *st, struct cand_list *l)
{
    uint64_t rng = rng_seed(st);
    if (st->ctx->measurable)
        return gen_random_measurable(st, rng, l);
    for (int t = 0; t < RANDOM_TRIES && l->n < RANDOM_KEEP; t++) {
        struct croq_config c;
        random_config(st, &rng, st->ctx->best.dtype, &c);
        if (!prop_cand_usable(st, &c))
            continue;
        struct cand cd = cand_make(st, &c, KIND_RANDOM, -1);
        if (prop_cand_push(l, &cd))
            return -1;
    }
    return 0;
}

/* Decode the mixed-radix number x into the structural knobs of c. */
static void assign_structural(const struct prop_state *st, uint64_t x, struct croq_config *c)
{
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (st->knob_cat[k] != IDEA_STRUCTURAL || !walked(k))
            continue;
        c->v[k] = st->kn[k].values[x % (uint64_t)st->kn[k].n_values];
        x /= (uint64_t)st->kn[k].n_values;
    }
}

int prop_gen_radical(const struct prop_state *st, struct cand_list *l)
{
    uint64_t combos = 1;
    uint32_t structural = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        if (st->knob_cat[k] == IDEA_STRUCTURAL && walked(k)) {
            combos *= (uint64_t)st->kn[k].n_values;
            structural |= 1u << k;
        }
    for (uint64_t x = 0; x < combos; x++) {
        struct croq_config c = st->ctx->best;
        assign_structural(st, x, &c);
        if (popcount32(prop_config_diff(&c, &st->ctx->best) & structural) < PROPOSER_RADICAL_MIN_KNOBS)
            continue;
        struct cand base = {.cfg = c, .kind = KIND_RADICAL, .primary = -1, .port_index = -1}, cd;
        if (prop_cand_usable(st, &c))
            cd = cand_make(st, &c, KIND_RADICAL, -1);
        else if (is_valid(st, &c) || !repair_move(st, &base, structural, &cd, NULL))
            continue;
        if (prop_cand_push(l, &cd))
            return -1;
    }
    return 0;
}

int prop_gen_ports(const struct prop_state *st, struct cand_list *l)
{
    const struct proposer_ctx *ctx = st->ctx;
    for (size_t i = 0; i < ctx->n_other_bests; i++) {
        const struct croq_config *o = &ctx->other_bests[i];
        if (o->dtype != ctx->best.dtype)
            continue;
        struct cand base = {.cfg = *o, .kind = KIND_PORT, .primary = -1, .port_index = (int)i}, cd;
        bool ported = false;
        if (prop_cand_usable(st, o))
            cd = cand_make(st, o, KIND_PORT, -1);
        else if (is_valid(st, o) || !repair_move(st, &base, 0, &cd, &ported) || ported)
            continue; /* tried already (as is or adapted), or nothing near it fits */
        cd.port_index = (int)i;
        /* Earlier entries first (the engine orders them by shape similarity): the
         * penalty outweighs any score difference between two ports. */
        cd.score -= 100.0 * (double)i;
        if (prop_cand_push(l, &cd))
            return -1;
    }
    return 0;
}

/* The walk over ctx->measurable (a few thousand signatures, where the table's space is
 * tens of millions of points with a few measurable among them): from a drawn start, the
 * first usable one. */
static bool walk_measurable(const struct prop_state *st, uint64_t rng, struct cand *out)
{
    size_t n = st->ctx->n_measurable;
    size_t start = n ? (size_t)(rng_next(&rng) % n) : 0;
    for (size_t t = 0; t < n; t++) {
        const struct croq_config *c = &st->ctx->measurable[(start + t) % n];
        if (c->dtype != st->ctx->best.dtype || !prop_cand_usable(st, c))
            continue;
        *out = cand_make(st, c, KIND_RANDOM, -1);
        return true;
    }
    return false;
}

bool prop_walk_space(const struct prop_state *st, struct cand *out)
{
    uint64_t total = 1, rng = rng_seed(st);
    if (st->ctx->measurable)
        return walk_measurable(st, rng, out);
    for (int k = 0; k < KNOB_COUNT; k++)
        total *= (uint64_t)st->kn[k].n_values;
    uint64_t start = rng_next(&rng) % total;
    for (uint64_t t = 0; t < total; t++) {
        uint64_t x = (start + t) % total;
        struct croq_config c = {.dtype = st->ctx->best.dtype};
        for (int k = 0; k < KNOB_COUNT; k++) {
            c.v[k] = st->kn[k].values[x % (uint64_t)st->kn[k].n_values];
            x /= (uint64_t)st->kn[k].n_values;
        }
        if (prop_cand_usable(st, &c)) {
            *out = cand_make(st, &c, KIND_RANDOM, -1);
            return true;
        }
    }
    return false;
}
