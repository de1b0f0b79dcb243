/* src/engine/history.c — what the proposer knows of a shape's past: every candidate of
 * results.tsv and attempts.tsv in the order they happened (an iteration's failed
 * compile attempts before its stored row), read from the logs each time so a resumed
 * run hands the proposer exactly what an uninterrupted one would.
 */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

static void add(struct run_history *h, const struct result_row *row)
{
    struct idea_history_entry *e = &h->e[h->n];
    int cat = idea_category_parse(row->category);
    snprintf(e->signature, sizeof e->signature, "%s", row->config);
    /* the baseline has no idea category; file it under "macro", the category of the
     * work decomposition it fixes */
    e->category = cat >= 0 ? (enum idea_category)cat : IDEA_MACRO;
    e->kept = decision_kept(row->decision);
    /* the numbers feed the proposer's cost model; an attempts.tsv row has none */
    e->measured = row->measured && isfinite(row->tflops) && row->tflops > 0;
    e->tflops = e->measured ? row->tflops : 0;
    e->start = row->iter == 0;
    snprintf(h->hashes[h->n], BACKEND_HASH_MAX, "%s", row->source_hash);
    h->n++;
}

int history_load(struct run *r, struct run_history *h)
{
    struct result_log res, att;
    char path[ENGINE_PATH_MAX], err[600];
    memset(h, 0, sizeof *h);
    if (run_path(r, path, "logs", "/results.tsv") || result_log_read(path, &res, err, sizeof err) < 0)
        return run_fail(r, "%s", err);
    if (run_path(r, path, "logs", "/attempts.tsv") || result_log_read(path, &att, err, sizeof err) < 0) {
        result_log_release(&res);
        return run_fail(r, "%s", err);
    }
    h->e = xmalloc((res.n + att.n + 1) * sizeof *h->e);
    h->hashes = xmalloc((res.n + att.n + 1) * sizeof *h->hashes);
    size_t a = 0;
    for (size_t i = 0; i < res.n; i++) {
        while (a < att.n && att.rows[a].iter <= res.rows[i].iter)
            add(h, &att.rows[a++]);
        add(h, &res.rows[i]);
    }
    while (a < att.n)
        add(h, &att.rows[a++]);
    for (size_t i = res.n; i > 1 && !decision_kept(res.rows[i - 1].decision); i--)
        h->consecutive_discards++;
    result_log_release(&res);
    result_log_release(&att);
    return 0;
}

void history_release(struct run_history *h)
{
    free(h->e);
    free(h->hashes);
    memset(h, 0, sizeof *h);
}
