/* tests/unit/test_proposer.c — the IDEATE rules of src/proposer: bottleneck-driven
 * moves, dedup by signature (also as a property over random contexts), the diversity
 * rule, budget phases, each escalation threshold (3 / 5 / 10 / 15 discards), the port
 * of other shapes' bests, radius widening, determinism, and validity on the 14 typical
 * shapes of both dtypes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proposer/proposer.h"

/* /work/shared/data/shapes.json "typical_shapes_for_scratch" (the same for f16 and
 * e4m3); test_typical_shapes_match_shapes_json checks the copy when the file exists. */
static const struct croq_shape typical[14] = {
    {768, 768, 768},     {12288, 12288, 12288}, {512, 8192, 8192},   {16384, 8192, 8192},
    {4096, 1024, 8192},  {4096, 32768, 8192},   {4096, 8192, 512},   {4096, 8192, 32768},
    {1024, 1024, 4096},  {12288, 12288, 4096},  {1024, 8192, 1024},  {12288, 8192, 12288},
    {4096, 1024, 1024},  {12288, 4096, 4096},
};
static const struct croq_shape ref_shape = {4096, 8192, 8192};

/* ---- helpers ---------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = (*s += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static bool valid_for(const struct croq_config *c, const struct croq_shape *s)
{
    char why[CROQ_WHY_MAX];
    return knobs_validate(c, s, why, sizeof why);
}

static void assert_valid(const struct croq_config *c, const struct croq_shape *s)
{
    char why[CROQ_WHY_MAX], sig[CROQ_SIG_MAX];
    if (!knobs_validate(c, s, why, sizeof why)) {
        knobs_signature(c, sig);
        fail_msg("config %s invalid for %ldx%ldx%ld: %s", sig, s->m, s->n, s->k, why);
    }
}

/* The default config: 128x256x64, 4 stages, 2 consumers, warp-specialized. */
static struct croq_config default_best(int dtype)
{
    struct croq_config c;
    knobs_default(&c, dtype);
    assert_valid(&c, &ref_shape);
    return c;
}

struct history {
    struct idea_history_entry e[4096];
    size_t n;
};

static void history_add(struct history *h, const struct croq_config *c, enum idea_category cat, bool kept)
{
    assert_true(h->n < sizeof h->e / sizeof *h->e);
    knobs_signature(c, h->e[h->n].signature);
    h->e[h->n].category = cat;
    h->e[h->n].kept = kept;
    h->n++;
}

static bool history_has(const struct history *h, const struct croq_config *c)
{
    char sig[CROQ_SIG_MAX];
    knobs_signature(c, sig);
    for (size_t i = 0; i < h->n; i++)
        if (!strcmp(h->e[i].signature, sig))
            return true;
    return false;
}

/* best with one knob set */
static struct croq_config with(struct croq_config c, int knob, int value)
{
    c.v[knob] = value;
    return c;
}

static struct proposer_ctx base_ctx(const struct croq_config *best, enum croq_bottleneck bn,
                                    const struct history *h)
{
    struct proposer_ctx ctx = {0};
    ctx.shape = ref_shape;
    ctx.best = *best;
    ctx.best_tflops = 500;
    ctx.bottleneck = bn;
    ctx.history = h ? h->e : NULL;
    ctx.n_history = h ? h->n : 0;
    ctx.iteration = (int)(h ? h->n : 0) + 1;
    ctx.budget = 150;
    ctx.seed = 42;
    return ctx;
}

static struct idea next_ok(const struct proposer_ctx *ctx)
{
    struct idea id;
    int rc = proposer_next(ctx, &id);
    if (rc != 0)
        fail_msg("proposer_next returned %d", rc);
    return id;
}

static uint32_t changed_mask(const struct croq_config *a, const struct croq_config *b)
{
    uint32_t m = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        if (a->v[k] != b->v[k])
            m |= 1u << k;
    return m;
}

static int structural_changes(const struct croq_config *a, const struct croq_config *b)
{
    int n = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        if (a->v[k] != b->v[k] && !strcmp(croq_knobs[k].category, "structural"))
            n++;
    return n;
}

/* ---- names, phases, families ---------------------------------------------------------- */

static void test_names_round_trip(void **state)
{
    (void)state;
    for (int c = 0; c < IDEA_CAT_COUNT; c++)
        assert_int_equal(idea_category_parse(idea_category_name((enum idea_category)c)), c);
    assert_int_equal(idea_category_parse("radical"), -1);
    assert_string_equal(idea_category_name(IDEA_MICRO), "micro");
    /* every knob's category in knobs.def is one of the four */
    for (int k = 0; k < KNOB_COUNT; k++)
        assert_true(idea_category_parse(croq_knobs[k].category) >= 0);
}

static void test_phase_of_budget(void **state)
{
    (void)state;
    for (int it = 1; it <= 30; it++) {
        enum proposer_phase want = it <= 10 ? PHASE_EXPLORE : it <= 20 ? PHASE_VARIANT : PHASE_REFINE;
        assert_int_equal(proposer_phase_of(it, 30), want);
    }
    assert_int_equal(proposer_phase_of(50, 150), PHASE_EXPLORE);
    assert_int_equal(proposer_phase_of(51, 150), PHASE_VARIANT);
    assert_int_equal(proposer_phase_of(101, 150), PHASE_REFINE);
    assert_int_equal(proposer_phase_of(5, 0), PHASE_EXPLORE);
}

static void test_knob_families(void **state)
{
    (void)state;
    assert_true(proposer_same_family(KNOB_TILE_M, KNOB_TILE_K));
    assert_true(proposer_same_family(KNOB_CLUSTER_M, KNOB_CLUSTER_N));
    assert_true(proposer_same_family(KNOB_L2_A, KNOB_L2_B));
    assert_false(proposer_same_family(KNOB_TILE_M, KNOB_STAGES));
    assert_false(proposer_same_family(KNOB_SPLIT_K, KNOB_SWIZZLE));
    assert_true(proposer_same_family(KNOB_STAGES, KNOB_STAGES));
}

/* ---- bottleneck-driven moves --------------------------------------------------------------- */

static void test_latency_bound_raises_stages(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    struct profile_metrics m;
    profile_metrics_init(&m);
    m.tensor_pipe_pct = 33;
    m.sm_throughput_pct = 36;
    m.dram_throughput_pct = 40;
    m.l2_throughput_pct = 45;
    strcpy(m.top_stall, "barrier");
    m.top_stall_pct = 41;
    struct proposer_ctx ctx = base_ctx(&best, BN_LATENCY_BOUND, NULL);
    ctx.metrics = &m;
    struct idea id = next_ok(&ctx);
    assert_int_equal(changed_mask(&id.cfg, &best), 1u << KNOB_STAGES);
    assert_int_equal(id.cfg.v[KNOB_STAGES], best.v[KNOB_STAGES] + 1);
    assert_int_equal(id.category, IDEA_STRUCTURAL);
    assert_int_equal(id.kind, KIND_SINGLE);
    assert_int_equal(id.n_changed, 1);
    assert_non_null(strstr(id.text, "stages 4 -> 5"));
    assert_non_null(strstr(id.text, "latency_bound"));
    assert_non_null(strstr(id.text, "top stall barrier 41.0%")); /* the metric */
    assert_non_null(strstr(id.justification, "latency_bound"));
}

static void test_bottleneck_changes_the_move(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    /* In the refine phase with an L2 bottleneck, grouped rasterization scores highest
     * (table +3, micro preferred +3). */
    struct proposer_ctx ctx = base_ctx(&best, BN_L2_THROUGHPUT, NULL);
    ctx.iteration = 140;
    struct idea id = next_ok(&ctx);
    assert_int_equal(changed_mask(&id.cfg, &best), 1u << KNOB_GROUP);
    assert_int_equal(id.cfg.v[KNOB_GROUP], 2);
    assert_int_equal(id.category, IDEA_MICRO);
    /* occupancy_limited in the explore phase: fewer stages (table +3, structural +3) */
    ctx = base_ctx(&best, BN_OCCUPANCY_LIMITED, NULL);
    id = next_ok(&ctx);
    assert_int_equal(changed_mask(&id.cfg, &best), 1u << KNOB_STAGES);
    assert_int_equal(id.cfg.v[KNOB_STAGES], 3);
    /* smem_throughput with a 64-B swizzle: back to 128 */
    struct croq_config narrow = with(best, KNOB_SWIZZLE, 64);
    assert_valid(&narrow, &ref_shape);
    ctx = base_ctx(&narrow, BN_SMEM_THROUGHPUT, NULL);
    ctx.iteration = 70;
    id = next_ok(&ctx);
    assert_int_equal(changed_mask(&id.cfg, &narrow), 1u << KNOB_SWIZZLE);
}

/* Raising tile_k to 128 on an f16 128x256 tile with 4 stages overflows shared memory;
 * under smem pressure (tile_k up: table +2, macro in the explore phase +3) the move is
 * kept valid by the smallest repair, one other knob (here the narrower tile, which
 * costs less than halving the stages). */
static void test_coupled_move_keeps_config_valid(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    best.v[KNOB_TILE_K] = 64;
    best.v[KNOB_STAGES] = 4;
    assert_valid(&best, &ref_shape);
    struct croq_config up = with(best, KNOB_TILE_K, 128);
    assert_false(valid_for(&up, &ref_shape));
    struct proposer_ctx ctx = base_ctx(&best, BN_SMEM_THROUGHPUT, NULL);
    struct idea id = next_ok(&ctx);
    assert_int_equal(id.kind, KIND_COUPLED);
    assert_int_equal(changed_mask(&id.cfg, &best), (1u << KNOB_TILE_K) | (1u << KNOB_TILE_N));
    assert_int_equal(id.cfg.v[KNOB_TILE_K], 128);
    assert_int_equal(id.cfg.v[KNOB_TILE_N], 128);
    assert_int_equal(id.category, IDEA_MACRO); /* filed under its own knob */
    assert_int_equal(id.n_changed, 2);
    assert_valid(&id.cfg, &ref_shape);
    assert_non_null(strstr(id.text, "tile_k 64 -> 128 with tile_n 256 -> 128 to stay valid"));
    /* once that was tried, the next repair of the same move is another minimal one,
     * never the used one plus an unrelated knob */
    struct history h = {.n = 0};
    history_add(&h, &id.cfg, id.category, false);
    ctx = base_ctx(&best, BN_SMEM_THROUGHPUT, &h);
    ctx.consecutive_discards = 1;
    id = next_ok(&ctx);
    if (id.kind == KIND_COUPLED && id.cfg.v[KNOB_TILE_K] == 256)
        assert_int_equal(id.n_changed, 2);
}

/* ---- dedup ------------------------------------------------------------------------------- */

static void test_history_forces_a_different_idea(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    struct history h = {.n = 0};
    struct proposer_ctx ctx = base_ctx(&best, BN_LATENCY_BOUND, &h);
    struct idea first = next_ok(&ctx);
    history_add(&h, &first.cfg, first.category, false);
    ctx = base_ctx(&best, BN_LATENCY_BOUND, &h);
    ctx.consecutive_discards = 1;
    struct idea second = next_ok(&ctx);
    assert_memory_not_equal(&first.cfg, &second.cfg, sizeof first.cfg);
    assert_false(history_has(&h, &second.cfg));
    /* same wording would not matter: the signature decides. A history entry with the
     * second idea's signature but another category still excludes it. */
    history_add(&h, &second.cfg, IDEA_MICRO, false);
    ctx = base_ctx(&best, BN_LATENCY_BOUND, &h);
    ctx.consecutive_discards = 2;
    struct idea third = next_ok(&ctx);
    assert_false(history_has(&h, &third.cfg));
    /* the best itself is never proposed, in history or not */
    char best_sig[CROQ_SIG_MAX], sig[CROQ_SIG_MAX];
    knobs_signature(&best, best_sig);
    knobs_signature(&third.cfg, sig);
    assert_string_not_equal(best_sig, sig);
}

/* A random valid config for the shape (rejection sampling over the table). */
static struct croq_config random_valid(uint64_t *rng, int dtype, const struct croq_shape *s)
{
    struct croq_config c;
    for (;;) {
        c.dtype = dtype;
        for (int k = 0; k < KNOB_COUNT; k++)
            c.v[k] = croq_knobs[k].values[rng_next(rng) % (uint64_t)croq_knobs[k].n_values];
        if (valid_for(&c, s))
            return c;
    }
}

static void test_never_returns_history_signature_property(void **state)
{
    (void)state;
    uint64_t rng = 2024;
    static struct history h;
    for (int trial = 0; trial < 250; trial++) {
        const struct croq_shape *s = &typical[rng_next(&rng) % 14];
        int dtype = (int)(rng_next(&rng) % 2);
        struct croq_config best = random_valid(&rng, dtype, s);
        h.n = 0;
        size_t n = rng_next(&rng) % 60;
        for (size_t i = 0; i < n; i++) {
            struct croq_config c = best;
            if (rng_next(&rng) % 4) { /* mostly neighbours of the best: what it would propose */
                int k = (int)(rng_next(&rng) % KNOB_COUNT);
                c.v[k] = croq_knobs[k].values[rng_next(&rng) % (uint64_t)croq_knobs[k].n_values];
            } else {
                c = random_valid(&rng, dtype, s);
            }
            history_add(&h, &c, (enum idea_category)(rng_next(&rng) % IDEA_CAT_COUNT),
                        rng_next(&rng) % 5 == 0);
        }
        /* BN_UNKNOWN (-1) or one of the seven */
        int bn = (int)(rng_next(&rng) % (BN_COUNT + 1)) - 1;
        struct proposer_ctx ctx = base_ctx(&best, (enum croq_bottleneck)bn, &h);
        ctx.shape = *s;
        ctx.consecutive_discards = (int)(rng_next(&rng) % 22);
        ctx.budget = 1 + (int)(rng_next(&rng) % 150);
        ctx.iteration = 1 + (int)(rng_next(&rng) % (uint64_t)ctx.budget);
        ctx.seed = rng_next(&rng);
        struct croq_config others[2] = {random_valid(&rng, dtype, s), random_valid(&rng, 1 - dtype, s)};
        ctx.other_bests = others;
        ctx.n_other_bests = 2;
        struct idea id = next_ok(&ctx);
        assert_valid(&id.cfg, s);
        assert_int_equal(id.cfg.dtype, dtype);
        if (history_has(&h, &id.cfg))
            fail_msg("trial %d: proposed a config in history", trial);
        assert_memory_not_equal(&id.cfg, &best, sizeof best);
        assert_true(strlen(id.text) > 10);
    }
}

/* ---- diversity and phases ---------------------------------------------------------------------- */

/* The diversity rule, exactly: after two consecutive macro ideas the next is
 * structural; nothing else constrains the category. */
static void test_two_macro_ideas_force_a_structural_one(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    struct history h = {.n = 0};
    /* instruction_fetch on e4m3 (tile_k 128): tile_k down is the table's move (macro,
     * +3 +3 explore); after two macro ideas the rule asks for a structural one */
    struct croq_config e = default_best(CROQ_DTYPE_E4M3);
    struct croq_config a = with(e, KNOB_TILE_M, 64), b = with(e, KNOB_TILE_N, 128);
    history_add(&h, &a, IDEA_VARIANT, false);
    history_add(&h, &b, IDEA_VARIANT, false);
    struct proposer_ctx ctx = base_ctx(&e, BN_INSTRUCTION_FETCH, &h);
    struct idea id = next_ok(&ctx);
    assert_int_equal(id.category, IDEA_MACRO); /* control: no constraint after two variant ideas */
    assert_int_equal(changed_mask(&id.cfg, &e), 1u << KNOB_TILE_K);
    h.e[0].category = h.e[1].category = IDEA_MACRO;
    id = next_ok(&ctx);
    assert_int_equal(id.category, IDEA_STRUCTURAL);
    /* two structural ideas in a row: no constraint, a structural idea may follow */
    h.e[0].category = h.e[1].category = IDEA_STRUCTURAL;
    ctx = base_ctx(&best, BN_LATENCY_BOUND, &h);
    id = next_ok(&ctx);
    assert_int_equal(id.category, IDEA_STRUCTURAL);
    assert_int_equal(changed_mask(&id.cfg, &best), 1u << KNOB_STAGES);
    /* two variant, two micro: no constraint either; and macro ideas may come twice */
    for (int c = IDEA_VARIANT; c <= IDEA_MICRO; c++) {
        h.e[0].category = h.e[1].category = (enum idea_category)c;
        ctx = base_ctx(&best, BN_LATENCY_BOUND, &h);
        struct idea v = next_ok(&ctx);
        assert_int_equal(changed_mask(&v.cfg, &best), 1u << KNOB_STAGES);
    }
    /* iteration 0 (the baseline) is no idea: baseline + one macro idea does not count */
    h.e[0].category = h.e[1].category = IDEA_MACRO;
    h.e[0].start = true;
    ctx = base_ctx(&e, BN_INSTRUCTION_FETCH, &h);
    struct idea free_pick = next_ok(&ctx);
    assert_int_equal(free_pick.category, IDEA_MACRO);
    h.e[0].start = false;
    ctx = base_ctx(&e, BN_INSTRUCTION_FETCH, &h);
    assert_int_equal(next_ok(&ctx).category, IDEA_STRUCTURAL);
}

/* The committed f16 1024x1024x4096 run had three macro ideas in a row (tile_m 128 -> 192
 * repaired three ways): driven through the proposer, no streak has three. */
static void test_no_three_macro_ideas_in_a_row(void **state)
{
    (void)state;
    static struct history h;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    h.n = 0;
    for (int it = 0; it < 60; it++) {
        struct proposer_ctx ctx = base_ctx(&best, it % 2 ? BN_OCCUPANCY_LIMITED : BN_DRAM_THROUGHPUT, &h);
        ctx.consecutive_discards = it % 9; /* below 10: no escalation jump may break it */
        struct idea id = next_ok(&ctx);
        if (h.n >= 2 && h.e[h.n - 1].category == IDEA_MACRO && h.e[h.n - 2].category == IDEA_MACRO)
            assert_int_equal(id.category, IDEA_STRUCTURAL);
        history_add(&h, &id.cfg, id.category, false);
    }
}

static void test_phase_progression(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    struct proposer_ctx ctx = base_ctx(&best, BN_UNKNOWN, NULL);
    ctx.budget = 30;
    for (int it = 1; it <= 30; it++) {
        ctx.iteration = it;
        struct idea id = next_ok(&ctx);
        assert_int_equal(id.phase, proposer_phase_of(it, 30));
        if (it <= 10)
            assert_true(id.category == IDEA_MACRO || id.category == IDEA_STRUCTURAL);
        else if (it <= 20)
            assert_int_equal(id.category, IDEA_VARIANT);
        else
            assert_int_equal(id.category, IDEA_MICRO);
        assert_non_null(strstr(id.text, proposer_phase_name(id.phase)));
    }
}

/* ---- escalation ---------------------------------------------------------------------------- */

static void test_escalation_3_switches_category(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    struct history h = {.n = 0};
    struct croq_config a = with(best, KNOB_TILE_M, 64), b = with(best, KNOB_SWIZZLE, 64),
                       c = with(best, KNOB_PERSISTENT, 1);
    history_add(&h, &a, IDEA_MACRO, false);
    history_add(&h, &b, IDEA_VARIANT, false);
    history_add(&h, &c, IDEA_STRUCTURAL, false);
    struct proposer_ctx ctx = base_ctx(&best, BN_LATENCY_BOUND, &h);
    ctx.consecutive_discards = 2;
    struct idea id = next_ok(&ctx);
    assert_int_equal(id.category, IDEA_STRUCTURAL); /* stages 4 -> 5 */
    assert_int_equal(id.escalation, 0);
    ctx.consecutive_discards = 3;
    id = next_ok(&ctx);
    assert_int_equal(id.category, IDEA_MICRO); /* none of the last three's categories */
    assert_int_equal(id.escalation, PROPOSER_SWITCH_CATEGORY);
    assert_non_null(strstr(id.text, "3 consecutive discards"));
}

static void test_escalation_5_switches_knob_family(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    struct croq_config group = with(best, KNOB_GROUP, 2), stages = with(best, KNOB_STAGES, 3),
                       tile = with(best, KNOB_TILE_M, 64), swz = with(best, KNOB_SWIZZLE, 64),
                       l2 = with(best, KNOB_L2_A, 64);
    struct history h4 = {.n = 0}, h5 = {.n = 0};
    history_add(&h4, &stages, IDEA_STRUCTURAL, false);
    history_add(&h4, &tile, IDEA_MACRO, false);
    history_add(&h4, &swz, IDEA_VARIANT, false);
    history_add(&h4, &l2, IDEA_MICRO, false);
    struct proposer_ctx ctx = base_ctx(&best, BN_LATENCY_BOUND, &h4);
    ctx.consecutive_discards = 4;
    struct idea id = next_ok(&ctx);
    /* 4 discards: only the category rule; stages 4 -> 5 touches a family just tried */
    assert_int_equal(changed_mask(&id.cfg, &best), 1u << KNOB_STAGES);
    assert_int_equal(id.escalation, PROPOSER_SWITCH_CATEGORY);
    history_add(&h5, &group, IDEA_MICRO, false);
    for (size_t i = 0; i < h4.n; i++)
        h5.e[h5.n++] = h4.e[i];
    ctx = base_ctx(&best, BN_LATENCY_BOUND, &h5);
    ctx.consecutive_discards = 5;
    id = next_ok(&ctx);
    assert_int_equal(id.escalation, PROPOSER_SWITCH_FAMILY);
    uint32_t touched = changed_mask(&id.cfg, &best);
    const int tried[] = {KNOB_GROUP, KNOB_STAGES, KNOB_TILE_M, KNOB_SWIZZLE, KNOB_L2_A};
    for (int k = 0; k < KNOB_COUNT; k++)
        for (size_t t = 0; t < sizeof tried / sizeof *tried; t++)
            if ((touched >> k & 1) && proposer_same_family(k, tried[t]))
                fail_msg("5 discards: '%s' is in the family of '%s', tried in the streak",
                         croq_knobs[k].name, croq_knobs[tried[t]].name);
    /* latency: persistent 0 -> 1 is the best structural move outside those families */
    assert_int_equal(touched, 1u << KNOB_PERSISTENT);
}

/* The iteration before a radical jump (structural) must not be a second structural
 * idea in a row, or the diversity rule would block the jump. Built so that the
 * category rule cannot be met (every micro neighbour tried) and the family rule
 * leaves stages 4 -> 5 (structural) as the best move. */
/* Escalation jumps may break the alternation: after two macro ideas, a port event
 * ports a best whose category is macro. */
static void test_escalation_may_break_the_alternation(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    struct history h = {.n = 0};
    struct croq_config a = with(best, KNOB_TILE_M, 64), b = with(best, KNOB_TILE_N, 128);
    history_add(&h, &a, IDEA_MACRO, false);
    history_add(&h, &b, IDEA_MACRO, false);
    struct croq_config other = with(with(best, KNOB_TILE_M, 256), KNOB_TILE_N, 128); /* two macro knobs */
    assert_valid(&other, &ref_shape);
    struct proposer_ctx ctx = base_ctx(&best, BN_LATENCY_BOUND, &h);
    ctx.consecutive_discards = 15;
    ctx.other_bests = &other;
    ctx.n_other_bests = 1;
    struct idea id = next_ok(&ctx);
    assert_int_equal(id.kind, KIND_PORT);
    assert_int_equal(id.category, IDEA_MACRO);
    assert_memory_equal(&id.cfg, &other, sizeof other);
    /* one discard earlier, the rule holds */
    ctx.consecutive_discards = 14;
    struct idea held = next_ok(&ctx);
    assert_int_equal(held.category, IDEA_STRUCTURAL);
}

/* A streak of discards driven through the proposer itself, with two other bests. */
static void test_escalation_10_and_15_in_a_discard_streak(void **state)
{
    (void)state;
    static struct history h;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    struct croq_config others[2];
    others[0] = default_best(CROQ_DTYPE_F16);
    others[0].v[KNOB_TILE_M] = 256;
    others[0].v[KNOB_TILE_N] = 128;
    others[0].v[KNOB_STAGES] = 3;
    others[0].v[KNOB_GROUP] = 8;
    others[1] = others[0];
    others[1].v[KNOB_RASTER] = 1;
    others[1].v[KNOB_L2_B] = 128;
    assert_valid(&others[0], &ref_shape);
    assert_valid(&others[1], &ref_shape);
    h.n = 0;
    for (int d = 0; d <= 31; d++) {
        struct proposer_ctx ctx = base_ctx(&best, BN_DRAM_THROUGHPUT, &h);
        ctx.consecutive_discards = d;
        ctx.other_bests = others;
        ctx.n_other_bests = 2;
        struct idea id = next_ok(&ctx);
        int radical = structural_changes(&id.cfg, &best) >= PROPOSER_RADICAL_MIN_KNOBS;
        if (d == 10 || d == 20 || d == 30) {
            assert_int_equal(id.kind, KIND_RADICAL);
            assert_int_equal(id.escalation, PROPOSER_RADICAL);
            assert_int_equal(id.category, IDEA_STRUCTURAL);
            assert_true(radical);
        } else if (d == 15 || d == 25) {
            assert_int_equal(id.kind, KIND_PORT);
            assert_int_equal(id.escalation, PROPOSER_PORT);
            assert_memory_equal(&id.cfg, &others[d == 15 ? 0 : 1], sizeof id.cfg);
        } else {
            /* (a coupled move may still change 3 structural knobs: kernel 1 -> 0) */
            assert_int_not_equal(id.kind, KIND_RADICAL);
            assert_int_not_equal(id.kind, KIND_PORT);
            if (d >= 5)
                assert_true(id.escalation == PROPOSER_SWITCH_FAMILY ||
                            id.escalation == PROPOSER_SWITCH_CATEGORY || id.escalation == 0);
        }
        assert_false(history_has(&h, &id.cfg));
        history_add(&h, &id.cfg, id.category, false);
        /* the diversity rule held over the whole streak except at the jumps */
        if (h.n >= 3 && d != 15 && d != 25)
            assert_false(h.e[h.n - 1].category != IDEA_STRUCTURAL && h.e[h.n - 2].category == IDEA_MACRO &&
                         h.e[h.n - 3].category == IDEA_MACRO);
    }
}

static void test_port_uses_other_bests(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    struct croq_config others[3];
    others[0] = default_best(CROQ_DTYPE_E4M3); /* another dtype: ignored */
    others[0].v[KNOB_GROUP] = 4;
    others[1] = best;
    others[1].v[KNOB_TILE_K] = 512; /* K = 768 rejects tile_k 512: re-validated, repaired */
    others[1].v[KNOB_STAGES] = 2;
    others[1].v[KNOB_RASTER] = 1;
    others[2] = with(best, KNOB_GROUP, 16);
    struct croq_shape s = {768, 768, 768};
    assert_false(valid_for(&others[1], &s));
    struct history h = {.n = 0};
    /* a streak whose last two categories differ, so diversity does not interfere */
    for (int i = 0; i < 15; i++) {
        struct croq_config c = with(best, KNOB_L2_B, 64);
        c.v[KNOB_GROUP] = croq_knobs[KNOB_GROUP].values[i % 5];
        c.v[KNOB_L2_A] = croq_knobs[KNOB_L2_A].values[i / 5];
        history_add(&h, &c, i % 2 ? IDEA_MICRO : IDEA_MACRO, false);
    }
    struct proposer_ctx ctx = base_ctx(&best, BN_DRAM_THROUGHPUT, &h);
    ctx.shape = s;
    ctx.other_bests = others;
    ctx.n_other_bests = 3;
    ctx.consecutive_discards = 14;
    struct idea id = next_ok(&ctx);
    assert_int_not_equal(id.kind, KIND_PORT);
    ctx.consecutive_discards = 15;
    id = next_ok(&ctx);
    assert_int_equal(id.kind, KIND_PORT);
    assert_int_equal(id.escalation, PROPOSER_PORT);
    assert_int_equal(id.cfg.dtype, CROQ_DTYPE_F16);
    assert_valid(&id.cfg, &s);
    /* others[1] adapted to the shape: its raster and stages kept, tile_k made to fit */
    assert_int_equal(id.cfg.v[KNOB_RASTER], 1);
    assert_int_equal(id.cfg.v[KNOB_STAGES], 2);
    assert_true(s.k % ((long)id.cfg.v[KNOB_TILE_K] * id.cfg.v[KNOB_SPLIT_K]) == 0);
    assert_non_null(strstr(id.text, "port"));
    /* once it was tried, the next port is others[2], unchanged */
    history_add(&h, &id.cfg, id.category, false);
    ctx = base_ctx(&best, BN_DRAM_THROUGHPUT, &h);
    ctx.shape = s;
    ctx.other_bests = others;
    ctx.n_other_bests = 3;
    ctx.consecutive_discards = 25;
    id = next_ok(&ctx);
    assert_int_equal(id.kind, KIND_PORT);
    assert_memory_equal(&id.cfg, &others[2], sizeof id.cfg);
    /* with no port left, the event falls back to a radical jump */
    history_add(&h, &id.cfg, id.category, false);
    ctx.n_history = h.n;
    id = next_ok(&ctx);
    assert_int_equal(id.kind, KIND_RADICAL);
}

/* ---- radius widening, determinism, errors --------------------------------------------------- */

static void test_widens_radius_when_neighbours_are_tried(void **state)
{
    (void)state;
    static struct history h;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    int first_pair = -1, first_random = -1;
    h.n = 0;
    for (int it = 0; it < 700 && first_random < 0; it++) {
        struct proposer_ctx ctx = base_ctx(&best, BN_COMPUTE_BOUND, &h);
        ctx.iteration = 1; /* stay in one phase; no discard streak: no escalation */
        struct idea id = next_ok(&ctx);
        if (id.kind == KIND_PAIR && first_pair < 0) {
            first_pair = it;
            /* every valid one-knob neighbour was tried before the first two-knob move */
            for (int k = 0; k < KNOB_COUNT; k++)
                for (int j = 0; j < croq_knobs[k].n_values; j++) {
                    struct croq_config c = with(best, k, croq_knobs[k].values[j]);
                    int i = 0;
                    while (croq_knobs[k].values[i] != best.v[k])
                        i++;
                    if ((j == i - 1 || j == i + 1) && valid_for(&c, &ref_shape))
                        assert_true(history_has(&h, &c));
                }
        }
        if (id.kind == KIND_RANDOM)
            first_random = it;
        if (first_pair < 0) /* (recipes: multi-knob points, tried among the neighbours) */
            assert_true(id.kind == KIND_SINGLE || id.kind == KIND_COUPLED || id.kind == KIND_RECIPE);
        else if (first_random < 0)
            assert_int_equal(id.kind, KIND_PAIR);
        history_add(&h, &id.cfg, id.category, false);
    }
    assert_true(first_pair > 0);
    assert_true(first_random > first_pair);
}

static void test_deterministic(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_E4M3);
    struct history h = {.n = 0};
    history_add(&h, &best, IDEA_MACRO, true);
    struct proposer_ctx ctx = base_ctx(&best, BN_UNKNOWN, &h);
    ctx.consecutive_discards = 10;
    struct idea a = next_ok(&ctx), b = next_ok(&ctx);
    assert_memory_equal(&a.cfg, &b.cfg, sizeof a.cfg);
    assert_string_equal(a.text, b.text);
    assert_int_equal(a.kind, KIND_RADICAL);
}

static void test_errors(void **state)
{
    (void)state;
    struct croq_config best = default_best(CROQ_DTYPE_F16);
    struct proposer_ctx ctx = base_ctx(&best, BN_LATENCY_BOUND, NULL);
    struct idea id;
    assert_int_equal(proposer_next(NULL, &id), -1);
    assert_int_equal(proposer_next(&ctx, NULL), -1);
    ctx.shape.k = 100; /* not a multiple of 64 */
    assert_int_equal(proposer_next(&ctx, &id), -1);
    ctx.shape = ref_shape;
    ctx.n_history = 3; /* but no history array */
    assert_int_equal(proposer_next(&ctx, &id), -1);
}

/* ---- the 14 typical shapes ----------------------------------------------------------------------- */

static void test_valid_on_every_typical_shape(void **state)
{
    (void)state;
    static struct history h;
    for (int dtype = 0; dtype < 2; dtype++)
        for (int s = 0; s < 14; s++) {
            struct croq_config best;
            knobs_baseline(&best, dtype);
            assert_valid(&best, &typical[s]);
            h.n = 0;
            history_add(&h, &best, IDEA_STRUCTURAL, true);
            int discards = 0;
            for (int it = 1; it <= 36; it++) {
                struct proposer_ctx ctx = base_ctx(&best, (enum croq_bottleneck)(it % BN_COUNT), &h);
                ctx.shape = typical[s];
                ctx.iteration = it;
                ctx.budget = 36;
                ctx.consecutive_discards = discards;
                struct idea id = next_ok(&ctx);
                assert_valid(&id.cfg, &typical[s]);
                assert_false(history_has(&h, &id.cfg));
                bool keep = it % 7 == 0; /* a sparse sequence of improvements */
                history_add(&h, &id.cfg, id.category, keep);
                if (keep) {
                    best = id.cfg;
                    discards = 0;
                } else {
                    discards++;
                }
            }
        }
}

static void test_typical_shapes_match_shapes_json(void **state)
{
    (void)state;
    const char *path = getenv("CROQ_SHAPES_JSON");
    json_error_t je;
    json_t *j = json_load_file(path ? path : "/work/shared/data/shapes.json", 0, &je);
    if (!j)
        skip(); /* the shared data set is not on every machine */
    json_t *t = json_object_get(j, "typical_shapes_for_scratch");
    const char *dts[] = {"f16", "e4m3"};
    for (int d = 0; d < 2; d++) {
        json_t *list = json_object_get(t, dts[d]);
        assert_int_equal(json_array_size(list), 14);
        for (size_t i = 0; i < 14; i++) {
            json_t *sh = json_array_get(list, i);
            assert_int_equal(json_integer_value(json_array_get(sh, 0)), typical[i].m);
            assert_int_equal(json_integer_value(json_array_get(sh, 1)), typical[i].n);
            assert_int_equal(json_integer_value(json_array_get(sh, 2)), typical[i].k);
        }
    }
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_round_trip),
        cmocka_unit_test(test_phase_of_budget),
        cmocka_unit_test(test_knob_families),
        cmocka_unit_test(test_latency_bound_raises_stages),
        cmocka_unit_test(test_bottleneck_changes_the_move),
        cmocka_unit_test(test_coupled_move_keeps_config_valid),
        cmocka_unit_test(test_history_forces_a_different_idea),
        cmocka_unit_test(test_never_returns_history_signature_property),
        cmocka_unit_test(test_two_macro_ideas_force_a_structural_one),
        cmocka_unit_test(test_no_three_macro_ideas_in_a_row),
        cmocka_unit_test(test_phase_progression),
        cmocka_unit_test(test_escalation_3_switches_category),
        cmocka_unit_test(test_escalation_5_switches_knob_family),
        cmocka_unit_test(test_escalation_may_break_the_alternation),
        cmocka_unit_test(test_escalation_10_and_15_in_a_discard_streak),
        cmocka_unit_test(test_port_uses_other_bests),
        cmocka_unit_test(test_widens_radius_when_neighbours_are_tried),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_valid_on_every_typical_shape),
        cmocka_unit_test(test_typical_shapes_match_shapes_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
