/* src/artifacts/checkpoint_best.c — a recorded best (a checkpoint's, a state.json entry's)
 * against the results.tsv rows it claims to come from (results.h results_check_best,
 * checkpoint.h checkpoint_check_best): the one check resume, the audit and export make,
 * so a best edited into a record decides and publishes nothing. */
#include "artifacts/checkpoint.h"
#include "artifacts/results.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int results_check_best(const struct result_log *res, int iteration, const struct best_claim *b, char *err,
                       size_t errlen)
{
    if (iteration < 0) {
        if (b->have)
            snprintf(err, errlen, "%s best (iteration %d) has no committed iteration", b->who, b->iter);
        return b->have ? -1 : 0;
    }
    if ((size_t)iteration >= res->n || res->rows[iteration].iter != iteration) {
        snprintf(err, errlen, "%s iteration %d has no results.tsv row", b->who, iteration);
        return -1;
    }
    const struct result_row *last = &res->rows[iteration];
    if (!b->have) {
        if (isnan(last->best_tflops))
            return 0;
        snprintf(err, errlen, "%s record has no best, results.tsv's iteration %d has best_tflops %.3f", b->who,
                 iteration, last->best_tflops);
        return -1;
    }
    const struct result_row *row = b->iter >= 0 && b->iter <= iteration ? &res->rows[b->iter] : NULL;
    if (!row || row->iter != b->iter || !decision_kept(row->decision)) {
        snprintf(err, errlen, "%s best is iteration %d, which results.tsv does not keep", b->who, b->iter);
        return -1;
    }
    if (strcmp(row->config, b->config) || strcmp(row->kernel, b->kernel) ||
        (b->source_hash && strcmp(row->source_hash, b->source_hash))) {
        snprintf(err, errlen, "%s best (config, source or hash) is not results.tsv's iteration %d", b->who, b->iter);
        return -1;
    }
    /* the row's own number is not it under rules 1, where a re-measured best becomes the
     * reference (step_store.c): the last committed row's best_tflops always is */
    if (!(b->tflops == last->best_tflops)) {
        snprintf(err, errlen, "%s best is %.6g TFLOPS, results.tsv's iteration %d says best_tflops %.6g", b->who,
                 b->tflops, iteration, last->best_tflops);
        return -1;
    }
    return 0;
}

int checkpoint_check_best(const struct checkpoint *c, const struct result_log *res, char *err, size_t errlen)
{
    struct best_claim b = {"the checkpoint's", c->have_best, c->best.iter, c->best.config, c->best.kernel,
                           c->best.source_hash, c->best.p.tflops};
    return results_check_best(res, c->iteration, &b, err, errlen);
}

void checkpoint_registered(const struct checkpoint *c, struct registered_best *out)
{
    const struct ladder_rec *l = &c->ladder;
    memset(out, 0, sizeof *out);
    out->have = c->have_best;
    if (!c->have_best)
        return;
    if (l->done && l->ok && l->winner >= 0 && l->winner < l->n) {
        const struct ladder_rec_entry *w = &l->e[l->winner];
        *out = (struct registered_best){true, true, w->iter, w->config, w->kernel, w->source_hash, w->tflops,
                                        w->sm_clock_mhz};
        return;
    }
    *out = (struct registered_best){true, false, c->best.iter, c->best.config, c->best.kernel, c->best.source_hash,
                                    c->best.p.tflops, c->best.p.sm_clock_mhz};
}

int checkpoint_check_ladder(const struct checkpoint *c, const struct result_log *res, char *err, size_t errlen)
{
    const struct ladder_rec *l = &c->ladder;
    char want[BACKEND_REL_MAX], raw1[BACKEND_REL_MAX], raw2[BACKEND_REL_MAX];
    if (!l->done)
        return 0;
    for (int i = 0; i < l->n; i++) {
        const struct ladder_rec_entry *e = &l->e[i];
        const struct result_row *row = e->iter >= 0 && (size_t)e->iter < res->n ? &res->rows[e->iter] : NULL;
        snprintf(want, sizeof want, "srcs/%s/iter%03d.cu", c->key, e->iter);
        if (!row || row->iter != e->iter || !row->measured || strcmp(row->config, e->config) ||
            strcmp(row->kernel, e->kernel) || strcmp(e->kernel, want) || strcmp(row->source_hash, e->source_hash)) {
            snprintf(err, errlen, "the final ladder's entry %d (iteration %d) is not a measured results.tsv row with "
                     "its config, source %s and hash", i, e->iter, want);
            return -1;
        }
    }
    snprintf(raw1, sizeof raw1, "perf/%s/ladder-final.json", c->key);
    snprintf(raw2, sizeof raw2, "perf/%s/ladder-final-2.json", c->key);
    if (l->raw_rel[0] && strcmp(l->raw_rel, raw1) && strcmp(l->raw_rel, raw2)) {
        snprintf(err, errlen, "the final ladder's raw file '%s' is not %s or %s", l->raw_rel, raw1, raw2);
        return -1;
    }
    if (l->ok && (l->winner < 0 || l->winner >= l->n)) {
        snprintf(err, errlen, "the final ladder's winner %d is not one of its %d entries", l->winner, l->n);
        return -1;
    }
    return 0;
}
