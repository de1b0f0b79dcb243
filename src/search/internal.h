/* src/search/internal.h — what the strategies of src/search share (private to the folder):
 * the set of configurations a context rules out, and an idea built from a configuration
 * alone (for strategies that choose without the proposer's moves). */
#ifndef CROQ_SEARCH_INTERNAL_H
#define CROQ_SEARCH_INTERNAL_H
#include <stdbool.h>

#include "search.h"

/* The signatures a strategy may not propose: every history entry's and the best's,
 * sorted for bsearch. */
struct search_tried {
    char (*sig)[CROQ_SIG_MAX];
    size_t n;
};
void search_tried_init(struct search_tried *t, const struct proposer_ctx *ctx);
bool search_tried_has(const struct search_tried *t, const struct croq_config *cfg);
void search_tried_release(struct search_tried *t);

/* True when cfg may be proposed: of ctx->best's dtype, in ctx->space (the shape's
 * generator's knobs), valid for ctx->shape, in ctx->measurable (proposer_measurable) and
 * not tried. */
bool search_candidate_ok(const struct proposer_ctx *ctx, const struct search_tried *t, const struct croq_config *cfg);

/* *out for cfg (kind: how it was chosen): category the one most of its changed knobs
 * have against ctx->best (ties: macro, structural, variant, micro, as the proposer files
 * a multi-knob idea: docs/proposer.md), the phase of ctx->iteration, no escalation, and
 * text "<what>: <knob a -> b, ...>" (each knob that differs from ctx->best, table
 * order). justification: why, as one line. */
void search_idea_of(const struct proposer_ctx *ctx, const struct croq_config *cfg, enum idea_kind kind,
                    const char *what, const char *justification, struct idea *out);
#endif
