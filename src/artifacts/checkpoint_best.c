/* src/artifacts/checkpoint_best.c — a checkpoint's best against the results.tsv rows it
 * committed (checkpoint.h, checkpoint_check_best): the one check resume and the audit
 * both make, so a best edited into the checkpoint decides nothing. */
#include "artifacts/checkpoint.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int checkpoint_check_best(const struct checkpoint *c, const struct result_log *res, char *err, size_t errlen)
{
    if (c->iteration < 0) {
        if (c->have_best)
            snprintf(err, errlen, "the checkpoint has a best (iteration %d) but no iteration committed", c->best.iter);
        return c->have_best ? -1 : 0;
    }
    if ((size_t)c->iteration >= res->n || res->rows[c->iteration].iter != c->iteration) {
        snprintf(err, errlen, "the checkpoint committed iteration %d, results.tsv has no such row", c->iteration);
        return -1;
    }
    const struct result_row *last = &res->rows[c->iteration];
    if (!c->have_best) {
        if (isnan(last->best_tflops))
            return 0;
        snprintf(err, errlen, "the checkpoint has no best, results.tsv's iteration %d has best_tflops %.3f",
                 c->iteration, last->best_tflops);
        return -1;
    }
    const struct best_rec *b = &c->best;
    const struct result_row *row = b->iter >= 0 && b->iter <= c->iteration ? &res->rows[b->iter] : NULL;
    if (!row || row->iter != b->iter || !decision_kept(row->decision)) {
        snprintf(err, errlen, "the checkpoint's best is iteration %d, which results.tsv does not keep", b->iter);
        return -1;
    }
    if (strcmp(row->config, b->config) || strcmp(row->source_hash, b->source_hash) || strcmp(row->kernel, b->kernel)) {
        snprintf(err, errlen, "the checkpoint's best (config, source or hash) is not results.tsv's iteration %d",
                 b->iter);
        return -1;
    }
    /* the row's own number is not it under rules 1, where a re-measured best becomes the
     * reference (step_store.c): the last committed row's best_tflops always is */
    if (!(b->p.tflops == last->best_tflops)) {
        snprintf(err, errlen, "the checkpoint's best is %.6g TFLOPS, results.tsv's iteration %d says best_tflops %.6g",
                 b->p.tflops, c->iteration, last->best_tflops);
        return -1;
    }
    return 0;
}
