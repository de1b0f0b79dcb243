/* src/search/random.c — the random strategy: a configuration drawn uniformly from the
 * valid configurations of the knob space not tried yet, seeded; the baseline every
 * strategy is compared with (replay-bench --strategy, docs/search.md).
 *
 * Draws: points of the knob space (grid.h: every early knob over its value list, the
 * late ones kept at the best's) uniformly, the first valid untried one is the idea:
 * rejection sampling, so each valid untried configuration is equally likely. Under
 * replay the points are the configurations the backend can measure (ctx->measurable, a
 * few thousand, their late knobs their own): every eligible one is counted and one drawn
 * uniformly, which costs one pass where rejection sampling would spin through its draws
 * once the list is nearly tried. The
 * generator is splitmix64 seeded from (ctx->seed, ctx->iteration, ctx->n_history):
 * equal context, equal draw; another seed, other draws. After RANDOM_DRAWS rejected
 * draws (the space nearly exhausted for the shape) the space is walked from a drawn start
 * for the first valid untried point, and 1 when there is none. */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "format/rng.h"
#include "grid.h"
#include "util/log.h"

/* About 2% of the space is valid for a large shape (f16 4096x8192x8192: 1.76 M of 83.9 M
 * points; a draw costs about 0.5 us), so a draw succeeds after about 50, and 2^20 failing
 * draws (about 0.5 s) mean nearly every valid configuration was tried. */
#define RANDOM_DRAWS (1L << 20)
/* the opening of every idea this strategy makes (search_strategy.idea_prefix: the audit reads it) */
#define RANDOM_IDEA "random sample"

static int random_next(const struct proposer_ctx *ctx, struct idea *out)
{
    char why[CROQ_WHY_MAX];
    if (!ctx || !out || !shape_validate(ctx->best.dtype, &ctx->shape, why, sizeof why))
        return -1;
    struct search_tried t;
    search_tried_init(&t, ctx);
    uint64_t st = ctx->seed * 0x9E3779B97F4A7C15ull ^ (uint64_t)ctx->iteration * 0xBF58476D1CE4E5B9ull ^
                  (uint64_t)ctx->n_history;
    struct croq_config c;
    long found = -1;
    if (ctx->measurable) {
        /* a few thousand points: every eligible one counted, then one drawn */
        size_t *ok = xmalloc((ctx->n_measurable + 1) * sizeof *ok), n_ok = 0;
        for (size_t i = 0; i < ctx->n_measurable; i++)
            if (search_candidate_ok(ctx, &t, &ctx->measurable[i]))
                ok[n_ok++] = i;
        if (n_ok)
            c = ctx->measurable[found = (long)ok[rng_splitmix64(&st) % (uint64_t)n_ok]];
        free(ok);
    } else {
        uint64_t np = (uint64_t)grid_space_points(ctx->space);
        /* np is about 2^25: the modulo's bias, below 2^-38, is no concern */
        for (long i = 0; i < RANDOM_DRAWS && found < 0; i++) {
            long x = (long)(rng_splitmix64(&st) % np);
            grid_space_point(ctx->space, x, &ctx->best, &c);
            if (search_candidate_ok(ctx, &t, &c))
                found = x;
        }
        uint64_t x0 = rng_splitmix64(&st) % np;
        for (uint64_t j = 0; j < np && found < 0; j++) {
            long x = (long)((x0 + j) % np);
            grid_space_point(ctx->space, x, &ctx->best, &c);
            if (search_candidate_ok(ctx, &t, &c))
                found = x;
        }
    }
    search_tried_release(&t);
    if (found < 0)
        return 1;
    search_idea_of(ctx, &c, KIND_RANDOM, RANDOM_IDEA " (uniform over the untried valid configurations)",
                   "random: a seeded uniform draw; no profile or measurement used", out);
    return 0;
}

const struct search_strategy search_random = {
    .idea_prefix = RANDOM_IDEA " (",
    .name = "random",
    .summary = "seeded uniform draws over the valid untried configurations (what other strategies are compared with)",
    .next = random_next,
};
