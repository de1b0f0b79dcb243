/* tests/unit/test_streamk.c — the stream-K decomposition (kernels/streamk.h) on the CPU:
 * for many (tiles, k-iterations, CTAs), every (tile, k-iteration) is covered exactly once,
 * each tile has exactly one storing item (FULL or OWNER), an owner's contributors are
 * exactly the CTAs holding the rest of its tile, each of them as its first stream-K item,
 * and a step-by-step simulation of all CTAs (owners block until their contributors have
 * published) finishes, so the protocol cannot deadlock with all CTAs co-resident. Plus
 * hand-computed plans of the shapes the GPU script times (tests/gpu/streamk.sh). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamk.h"

/* Every item of a plan, CTA by CTA. */
struct items {
    int n_cta;
    int *count;              /* items per CTA */
    struct croq_sk_item **it; /* it[c][step] */
};

static void items_collect(const struct croq_sk_plan *p, struct items *s)
{
    s->n_cta = p->ctas;
    s->count = calloc((size_t)p->ctas, sizeof *s->count);
    s->it = calloc((size_t)p->ctas, sizeof *s->it);
    assert_non_null(s->count);
    assert_non_null(s->it);
    /* a CTA has dp_rounds items plus at most (its iterations / I + 2) pieces */
    const int cap = p->dp_rounds + p->per_cta / (p->k_iters > 0 ? p->k_iters : 1) + 3;
    for (int c = 0; c < p->ctas; c++) {
        s->it[c] = calloc((size_t)cap, sizeof **s->it);
        assert_non_null(s->it[c]);
        struct croq_sk_item w;
        int step = 0;
        while (croq_sk_item_get(p, c, step, &w)) {
            assert_true(step < cap);
            s->it[c][step++] = w;
        }
        s->count[c] = step;
        /* past the end it stays past the end */
        assert_false(croq_sk_item_get(p, c, step + 1, &w));
    }
}

static void items_free(struct items *s)
{
    for (int c = 0; c < s->n_cta; c++)
        free(s->it[c]);
    free(s->it);
    free(s->count);
}

/* Co-resident CTAs, each executing its items in order; an OWNER item completes only when
 * every contributor CTA has completed the item that writes its partial. Returns the number
 * of rounds until every CTA is done, or -1 on a round where nothing moved (deadlock). */
static int simulate(const struct croq_sk_plan *p, const struct items *s)
{
    int *pc = calloc((size_t)p->ctas, sizeof *pc);      /* next step of each CTA */
    int *published = calloc((size_t)p->ctas, sizeof *published); /* its partial is out */
    assert_non_null(pc);
    assert_non_null(published);
    int rounds = 0;
    for (;;) {
        int done = 0, moved = 0;
        for (int c = 0; c < p->ctas; c++) {
            if (pc[c] == s->count[c]) {
                done++;
                continue;
            }
            const struct croq_sk_item *w = &s->it[c][pc[c]];
            if (w->role == CROQ_SK_OWNER) {
                int ready = 1;
                for (int o = w->first; o <= w->last; o++)
                    ready &= published[o];
                if (!ready)
                    continue;
            }
            if (w->role == CROQ_SK_PARTIAL) {
                assert_int_equal(published[c], 0); /* one partial per CTA and launch */
                published[c] = 1;
            }
            pc[c]++;
            moved = 1;
        }
        if (done == p->ctas)
            break;
        if (!moved) {
            rounds = -1;
            break;
        }
        rounds++;
    }
    free(pc);
    free(published);
    return rounds;
}

/* Every property of the header's comment for one (tiles, k_iters, ctas). */
static void check_plan(int tiles, int k_iters, int ctas)
{
    char what[96];
    snprintf(what, sizeof what, "tiles=%d k_iters=%d ctas=%d", tiles, k_iters, ctas);
    const struct croq_sk_plan p = croq_sk_plan_make(tiles, k_iters, ctas);
    assert_int_equal(p.dp_tiles + p.sk_iters / k_iters, tiles);
    assert_true(p.dp_tiles % ctas == 0);
    assert_true(tiles - p.dp_tiles < ctas); /* at most a partial wave is stream-K */
    if (tiles % ctas == 0)
        assert_int_equal(p.sk_iters, 0);

    struct items s;
    items_collect(&p, &s);
    unsigned char *cover = calloc((size_t)tiles * (size_t)k_iters, 1);
    int *stores = calloc((size_t)tiles, sizeof *stores);
    int *partial_of = malloc((size_t)ctas * sizeof *partial_of); /* tile of CTA c's partial, -1 */
    assert_non_null(cover);
    assert_non_null(stores);
    assert_non_null(partial_of);
    for (int c = 0; c < ctas; c++)
        partial_of[c] = -1;

    long total = 0;
    int max_items = 0, min_items = 1 << 30;
    for (int c = 0; c < ctas; c++) {
        int sk_len = 0;
        for (int step = 0; step < s.count[c]; step++) {
            const struct croq_sk_item *w = &s.it[c][step];
            if (w->unit < 0 || w->unit >= tiles || w->k_begin < 0 || w->k_begin >= w->k_end || w->k_end > k_iters)
                fail_msg("%s: CTA %d step %d: unit %d k [%d, %d)", what, c, step, w->unit, w->k_begin, w->k_end);
            for (int k = w->k_begin; k < w->k_end; k++) {
                if (cover[(size_t)w->unit * k_iters + k]++)
                    fail_msg("%s: tile %d k %d covered twice (CTA %d step %d)", what, w->unit, k, c, step);
            }
            total += w->k_end - w->k_begin;
            if (step < p.dp_rounds) { /* data-parallel: tile c + step * G, whole */
                assert_int_equal(w->unit, c + step * ctas);
                assert_int_equal(w->role, CROQ_SK_FULL);
            } else {
                assert_true(w->unit >= p.dp_tiles);
                sk_len += w->k_end - w->k_begin;
                if (step > p.dp_rounds) /* only the first stream-K piece may start mid-tile */
                    assert_int_equal(w->k_begin, 0);
            }
            switch (w->role) {
            case CROQ_SK_FULL:
                assert_true(w->k_begin == 0 && w->k_end == k_iters);
                stores[w->unit]++;
                break;
            case CROQ_SK_OWNER:
                assert_true(w->k_begin == 0 && w->k_end < k_iters);
                assert_int_equal(w->first, c + 1);
                assert_true(w->last >= w->first && w->last < ctas);
                stores[w->unit]++;
                break;
            case CROQ_SK_PARTIAL:
                assert_true(w->k_begin > 0);
                assert_int_equal(step, p.dp_rounds);
                assert_int_equal(partial_of[c], -1);
                partial_of[c] = w->unit;
                break;
            default:
                fail_msg("%s: CTA %d step %d: role %d", what, c, step, w->role);
            }
            if (w->role != CROQ_SK_OWNER)
                assert_true(w->first == 0 && w->last == -1);
        }
        /* the balanced split: stream-K lengths per_cta or per_cta + 1 */
        assert_int_equal(sk_len, p.per_cta + (c < p.extra));
        max_items = s.count[c] > max_items ? s.count[c] : max_items;
        min_items = s.count[c] < min_items ? s.count[c] : min_items;
    }
    assert_int_equal(total, (long)tiles * k_iters);
    for (size_t i = 0; i < (size_t)tiles * k_iters; i++)
        if (cover[i] != 1)
            fail_msg("%s: tile %zu k %zu covered %d times", what, i / k_iters, i % k_iters, cover[i]);
    for (int t = 0; t < tiles; t++)
        if (stores[t] != 1)
            fail_msg("%s: tile %d has %d storing items", what, t, stores[t]);

    /* an owner's contributors: exactly the CTAs whose partial is of its tile, and their
     * pieces with the owner's cover the tile (checked above: each k once) */
    for (int c = 0; c < ctas; c++)
        for (int step = 0; step < s.count[c]; step++) {
            const struct croq_sk_item *w = &s.it[c][step];
            if (w->role != CROQ_SK_OWNER)
                continue;
            for (int o = w->first; o <= w->last; o++)
                if (partial_of[o] != w->unit)
                    fail_msg("%s: owner CTA %d of tile %d lists CTA %d, whose partial is of tile %d", what, c,
                             w->unit, o, partial_of[o]);
            int n = 0;
            for (int o = 0; o < ctas; o++)
                n += partial_of[o] == w->unit;
            assert_int_equal(n, w->last - w->first + 1);
        }
    /* every partial has an owner */
    for (int o = 0; o < ctas; o++)
        if (partial_of[o] >= 0 && stores[partial_of[o]] != 1)
            fail_msg("%s: CTA %d's partial of tile %d has no owner", what, o, partial_of[o]);

    const int rounds = simulate(&p, &s);
    if (rounds < 0)
        fail_msg("%s: the simulated launch deadlocks", what);
    (void)max_items;
    (void)min_items;
    free(cover);
    free(stores);
    free(partial_of);
    items_free(&s);
}

/* Many shapes: tiles below, at and above the CTA count, exact multiples, one k-iteration,
 * fewer stream-K iterations than CTAs, prime counts. */
static void test_coverage_grid(void **state)
{
    (void)state;
    static const int tiles[] = {1, 2, 3, 5, 7, 16, 63, 64, 65, 127, 131, 132, 133, 200, 256, 263, 264, 265, 1536};
    static const int kits[] = {1, 2, 3, 4, 7, 8, 16, 31, 64, 128};
    static const int ctas[] = {1, 2, 3, 7, 64, 113, 132, 133, 264};
    int n = 0;
    for (size_t a = 0; a < sizeof tiles / sizeof *tiles; a++)
        for (size_t b = 0; b < sizeof kits / sizeof *kits; b++)
            for (size_t c = 0; c < sizeof ctas / sizeof *ctas; c++) {
                check_plan(tiles[a], kits[b], ctas[c]);
                n++;
            }
    assert_int_equal(n, 19 * 10 * 9);
}

/* Seeded random triples, with the launch's grid rule deciding the CTAs half the time. */
static void test_coverage_random(void **state)
{
    (void)state;
    uint32_t x = 12345u;
    for (int i = 0; i < 3000; i++) {
        x = x * 1664525u + 1013904223u;
        const int tiles = 1 + (int)((x >> 8) % 700);
        x = x * 1664525u + 1013904223u;
        const int kits = 1 + (int)((x >> 8) % 96);
        x = x * 1664525u + 1013904223u;
        int ctas = 1 + (int)((x >> 8) % 140);
        if (i % 2)
            ctas = croq_sk_grid(132, tiles, kits);
        check_plan(tiles, kits, ctas);
    }
}

/* f16 12288x4096x4096, 128x256x64 tiles, 132 CTAs: 1536 tiles = 11 full waves + 84 tiles
 * (hand-computed: 84 * 64 = 5376 iterations = 132 * 40 + 96, so CTAs 0..95 get 41). */
static void test_plan_by_hand(void **state)
{
    (void)state;
    struct croq_sk_plan p = croq_sk_plan_make(1536, 64, 132);
    assert_int_equal(p.dp_rounds, 11);
    assert_int_equal(p.dp_tiles, 1452);
    assert_int_equal(p.sk_iters, 5376);
    assert_int_equal(p.per_cta, 40);
    assert_int_equal(p.extra, 96);
    struct croq_sk_item w;
    /* CTA 0: 11 DP tiles, then stream-K tile 0 (unit 1452) k [0, 41): owner, CTA 1 has the rest */
    assert_true(croq_sk_item_get(&p, 0, 10, &w));
    assert_int_equal(w.unit, 1320);
    assert_true(croq_sk_item_get(&p, 0, 11, &w));
    assert_int_equal(w.unit, 1452);
    assert_int_equal(w.k_begin, 0);
    assert_int_equal(w.k_end, 41);
    assert_int_equal(w.role, CROQ_SK_OWNER);
    assert_int_equal(w.first, 1);
    assert_int_equal(w.last, 1);
    assert_false(croq_sk_item_get(&p, 0, 12, &w));
    /* CTA 1: [41, 82): tile 0 k [41, 64) partial, then tile 1 k [0, 18), owner of CTAs 2-3 */
    assert_true(croq_sk_item_get(&p, 1, 11, &w));
    assert_int_equal(w.role, CROQ_SK_PARTIAL);
    assert_int_equal(w.k_begin, 41);
    assert_int_equal(w.k_end, 64);
    assert_true(croq_sk_item_get(&p, 1, 12, &w));
    assert_int_equal(w.unit, 1453);
    assert_int_equal(w.k_end, 18);
    assert_int_equal(w.role, CROQ_SK_OWNER);
    assert_int_equal(w.last, 3); /* CTA 2 has [82, 123), CTA 3 from 123 = tile 1 k 59 */
    /* the last CTA: [5336, 5376) = tile 83 k [24, 64), a partial of CTA 130's tile */
    assert_true(croq_sk_item_get(&p, 131, 11, &w));
    assert_int_equal(w.unit, 1535);
    assert_int_equal(w.k_begin, 24);
    assert_int_equal(w.role, CROQ_SK_PARTIAL);
    assert_false(croq_sk_item_get(&p, 131, 12, &w));

    /* an exact multiple: no stream-K part, 2 rounds each */
    p = croq_sk_plan_make(264, 64, 132);
    assert_int_equal(p.sk_iters, 0);
    assert_false(croq_sk_item_get(&p, 5, 2, &w));

    /* fewer tiles than CTAs: every tile split, 4 tiles x 8 iterations over 32 CTAs: one each */
    p = croq_sk_plan_make(4, 8, 32);
    assert_int_equal(p.dp_rounds, 0);
    assert_true(croq_sk_item_get(&p, 8, 0, &w));
    assert_int_equal(w.unit, 1);
    assert_int_equal(w.role, CROQ_SK_OWNER);
    assert_int_equal(w.first, 9);
    assert_int_equal(w.last, 15);

    /* fewer stream-K iterations than CTAs: 133 tiles x 1 over 132 CTAs: CTA 0 gets the
     * one left, whole; the rest have nothing after their round */
    p = croq_sk_plan_make(133, 1, 132);
    assert_true(croq_sk_item_get(&p, 0, 1, &w));
    assert_int_equal(w.unit, 132);
    assert_int_equal(w.role, CROQ_SK_FULL);
    assert_false(croq_sk_item_get(&p, 1, 1, &w));

    /* no work */
    p = croq_sk_plan_make(10, 0, 4);
    assert_false(croq_sk_item_get(&p, 0, 0, &w));
}

/* The launch's grid rule: one CTA per SM, never more than the k-iterations in all. */
static void test_grid(void **state)
{
    (void)state;
    assert_int_equal(croq_sk_grid(132, 1536, 64), 132);
    assert_int_equal(croq_sk_grid(132, 4, 8), 32);
    assert_int_equal(croq_sk_grid(132, 1, 1), 1);
    assert_int_equal(croq_sk_grid(132, 0, 64), 1);
    assert_int_equal(croq_sk_grid(132, 1L << 20, 1L << 14), 132); /* no overflow */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_by_hand),
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_coverage_grid),
        cmocka_unit_test(test_coverage_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
