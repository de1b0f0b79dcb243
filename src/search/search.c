/* src/search/search.c — the table of strategies (strategies.def), opening one by name, and
 * the pieces the strategies share (internal.h). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

#define SEARCH_STRATEGY(name) extern const struct search_strategy search_##name;
#include "strategies.def"
#undef SEARCH_STRATEGY

static const struct search_strategy *const table[] = {
#define SEARCH_STRATEGY(name) &search_##name,
#include "strategies.def"
#undef SEARCH_STRATEGY
};

size_t search_count(void)
{
    return sizeof table / sizeof *table;
}

const struct search_strategy *search_at(size_t i)
{
    return i < search_count() ? table[i] : NULL;
}

const struct search_strategy *search_open(const char *name)
{
    for (size_t i = 0; name && i < search_count(); i++)
        if (!strcmp(table[i]->name, name))
            return table[i];
    return NULL;
}

void search_names(char *out, size_t len)
{
    size_t used = 0;
    if (len)
        out[0] = '\0';
    for (size_t i = 0; i < search_count() && used < len; i++) {
        int w = snprintf(out + used, len - used, "%s%s", i ? ", " : "", table[i]->name);
        used += w > 0 ? (size_t)w : 0;
    }
}

const char *search_idea_strategy(const char *idea)
{
    for (size_t i = 0; i < search_count(); i++) {
        const char *p = table[i]->idea_prefix;
        if (p && !strncmp(idea, p, strlen(p)))
            return table[i]->name;
    }
    return SEARCH_DEFAULT;
}

/* ---- shared by the strategies ---- */

static int cmp_sig(const void *a, const void *b)
{
    return strcmp(a, b);
}

void search_tried_init(struct search_tried *t, const struct proposer_ctx *ctx)
{
    t->n = 0;
    t->sig = xmalloc((ctx->n_history + 1) * sizeof *t->sig);
    for (size_t i = 0; i < ctx->n_history; i++)
        memcpy(t->sig[t->n++], ctx->history[i].signature, CROQ_SIG_MAX);
    knobs_signature(&ctx->best, t->sig[t->n++]);
    qsort(t->sig, t->n, sizeof *t->sig, cmp_sig);
}

bool search_tried_has(const struct search_tried *t, const struct croq_config *cfg)
{
    char sig[CROQ_SIG_MAX];
    knobs_signature(cfg, sig);
    return bsearch(sig, t->sig, t->n, sizeof *t->sig, cmp_sig) != NULL;
}

void search_tried_release(struct search_tried *t)
{
    free(t->sig);
    t->sig = NULL;
    t->n = 0;
}

bool search_candidate_ok(const struct proposer_ctx *ctx, const struct search_tried *t, const struct croq_config *cfg)
{
    char why[CROQ_WHY_MAX];
    return cfg->dtype == ctx->best.dtype && knob_space_allows(ctx->space, cfg, NULL, 0) &&
           knobs_validate(cfg, &ctx->shape, why, sizeof why) && proposer_measurable(ctx, cfg) &&
           !search_tried_has(t, cfg);
}

void search_idea_of(const struct proposer_ctx *ctx, const struct croq_config *cfg, enum idea_kind kind,
                    const char *what, const char *justification, struct idea *out)
{
    int count[IDEA_CAT_COUNT] = {0};
    memset(out, 0, sizeof *out);
    out->cfg = *cfg;
    out->kind = kind;
    out->phase = proposer_phase_of(ctx->iteration, ctx->budget);
    size_t used = (size_t)snprintf(out->text, sizeof out->text, "%s:", what);
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (cfg->v[k] == ctx->best.v[k])
            continue;
        int c = idea_category_parse(croq_knobs[k].category);
        count[c < 0 ? IDEA_STRUCTURAL : c]++;
        if (used < sizeof out->text)
            used += (size_t)snprintf(out->text + used, sizeof out->text - used, "%s %s %d -> %d",
                                     out->n_changed ? "," : "", croq_knobs[k].name, ctx->best.v[k], cfg->v[k]);
        out->n_changed++;
    }
    int best = 0;
    for (int c = 1; c < IDEA_CAT_COUNT; c++)
        if (count[c] > count[best])
            best = c;
    out->category = (enum idea_category)best;
    snprintf(out->justification, sizeof out->justification, "%s", justification);
}
