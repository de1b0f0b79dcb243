/* src/engine/reconcile.c — after a crash: make the logs and the checkpoint agree again,
 * deterministically, so the finished artifacts equal an uninterrupted run's.
 *
 * The checkpoint says how many records each log had when it was saved (iteration + 1
 * rows and idea lines, n_attempts attempts) and what was pending. STORE writes the row
 * first, then the idea line, then the checkpoint, so beyond the checkpoint a log may
 * hold exactly the pending candidate's record, complete (adopted: STORE is finished
 * with the same function) or torn by the crash (the fragment is moved to <log>.torn and
 * the candidate redone). Anything else — fewer records than committed, a record the
 * checkpoint cannot account for, a torn line that is not the pending one, a malformed
 * line — is damage: resume refuses with the reason and changes nothing. All checks run
 * before the first write.
 */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicio.h"

struct logs {
    char res_path[ENGINE_PATH_MAX], idea_path[ENGINE_PATH_MAX], att_path[ENGINE_PATH_MAX];
    struct result_log res, att;
    struct idea_log ideas;
    bool res_missing, ideas_missing, att_missing;
};

struct plan {
    bool cut_res, cut_ideas, cut_att;
    bool adopt_row, idea_present, adopt_attempt;
};

static void logs_release(struct logs *l)
{
    result_log_release(&l->res);
    result_log_release(&l->att);
    idea_log_release(&l->ideas);
}

static int logs_read(struct run *r, struct logs *l, char *err, size_t errlen)
{
    int rc;
    memset(l, 0, sizeof *l);
    if (run_path(r, l->res_path, "logs", "/results.tsv") || run_path(r, l->idea_path, "logs", "/idea-log.jsonl") ||
        run_path(r, l->att_path, "logs", "/attempts.tsv")) {
        snprintf(err, errlen, "tuning directory path too long");
        return -1;
    }
    if ((rc = result_log_read(l->res_path, &l->res, err, errlen)) < 0)
        return -1;
    l->res_missing = rc == 1;
    if ((rc = idea_log_read(l->idea_path, &l->ideas, err, errlen)) < 0)
        return -1;
    l->ideas_missing = rc == 1;
    if ((rc = result_log_read(l->att_path, &l->att, err, errlen)) < 0)
        return -1;
    l->att_missing = rc == 1;
    return 0;
}

/* The torn text could be the start of the record we were appending. */
static bool could_be(const char *torn, const char *prefix)
{
    size_t a = strlen(torn), b = strlen(prefix);
    return strncmp(torn, prefix, a < b ? a : b) == 0;
}

#define BAD(...)                                       \
    do {                                               \
        snprintf(err, errlen, __VA_ARGS__);            \
        return -1;                                     \
    } while (0)

static int check_results(struct run *r, struct logs *l, struct plan *pl, char *err, size_t errlen)
{
    struct checkpoint *c = &r->ck;
    struct pending *p = &c->pending;
    size_t want = (size_t)(c->iteration + 1), n = l->res.n;
    bool measured = p->active && p->measured && p->iter == c->iteration + 1;
    char pre[32];
    if (!l->res_missing && strcmp(l->res.backend, c->backend))
        BAD("'%.300s' holds backend=%s results, the checkpoint says %s", l->res_path, l->res.backend, c->backend);
    if (!l->res_missing && l->res.decide_rules != c->decide_rules)
        BAD("'%.300s' was decided under rules %d, the checkpoint says %d", l->res_path, l->res.decide_rules,
            c->decide_rules);
    for (size_t i = 0; i < n; i++)
        if (l->res.rows[i].iter != (int)i)
            BAD("'%.300s': row %zu is iteration %d (iterations must be 0, 1, 2, ...)", l->res_path, i + 1,
                l->res.rows[i].iter);
    if (n == want + 1) {
        const struct result_row *row = &l->res.rows[n - 1];
        if (!measured || strcmp(row->config, p->config) || strcmp(row->source_hash, p->src_hash))
            BAD("'%.300s' has a row for iteration %d that the checkpoint does not account for", l->res_path, row->iter);
        pl->adopt_row = true;
    } else if (n != want) {
        BAD("'%.300s' has %zu iteration rows but the checkpoint committed %zu", l->res_path, n, want);
    }
    char why[400];
    if (!l->res_missing && (checkpoint_check_best(c, &l->res, why, sizeof why) ||
                            checkpoint_check_ladder(c, &l->res, why, sizeof why)))
        BAD("'%.300s': %s", l->res_path, why);
    snprintf(pre, sizeof pre, "%d\t", p->iter);
    if (l->res.torn && (pl->adopt_row || !measured || !could_be(l->res.torn, pre)))
        BAD("'%.300s' ends with an incomplete line that is not the row being stored", l->res_path);
    pl->cut_res = l->res.torn != NULL;
    return 0;
}

static int check_ideas(struct run *r, struct logs *l, struct plan *pl, char *err, size_t errlen)
{
    struct checkpoint *c = &r->ck;
    size_t want = (size_t)(c->iteration + 1), n = l->ideas.n;
    char pre[96];
    for (size_t i = 0; i < n; i++)
        if (l->ideas.recs[i].iter != (int)i)
            BAD("'%.300s': line %zu is iteration %d (iterations must be 0, 1, 2, ...)", l->idea_path, i + 1,
                l->ideas.recs[i].iter);
    if (n == want + 1 && pl->adopt_row)
        pl->idea_present = true;
    else if (n != want)
        BAD("'%.300s' has %zu lines but the checkpoint committed %zu iterations", l->idea_path, n, want);
    snprintf(pre, sizeof pre, "{\"schema\":%d,\"backend\":\"%s\",\"iter\":%d,", ENGINE_SCHEMA, c->backend,
             c->pending.iter);
    if (l->ideas.torn && (!pl->adopt_row || pl->idea_present || !could_be(l->ideas.torn, pre)))
        BAD("'%.300s' ends with an incomplete line that is not the idea being stored", l->idea_path);
    pl->cut_ideas = l->ideas.torn != NULL;
    return 0;
}

static int check_attempts(struct run *r, struct logs *l, struct plan *pl, char *err, size_t errlen)
{
    struct checkpoint *c = &r->ck;
    struct pending *p = &c->pending;
    size_t n = l->att.n;
    bool building = p->active && !p->measured && (c->phase == PH_IMPLEMENT || c->phase == PH_BASELINE);
    char pre[32];
    if (!l->att_missing && strcmp(l->att.backend, c->backend))
        BAD("'%.300s' holds backend=%s records, the checkpoint says %s", l->att_path, l->att.backend, c->backend);
    if (!l->att_missing && l->att.decide_rules != c->decide_rules)
        BAD("'%.300s' was written under decision rules %d, the checkpoint says %d", l->att_path,
            l->att.decide_rules, c->decide_rules);
    if (n == c->n_attempts + 1) {
        const struct result_row *row = &l->att.rows[n - 1];
        if (!building || row->iter != p->iter || strcmp(row->config, p->config))
            BAD("'%.300s' has a compile attempt the checkpoint does not account for", l->att_path);
        pl->adopt_attempt = true;
    } else if (n != c->n_attempts) {
        BAD("'%.300s' has %zu records but the checkpoint committed %zu", l->att_path, n, c->n_attempts);
    }
    snprintf(pre, sizeof pre, "%d\t", p->iter);
    if (l->att.torn && (pl->adopt_attempt || !building || !could_be(l->att.torn, pre)))
        BAD("'%.300s' ends with an incomplete line that is not the attempt being recorded", l->att_path);
    pl->cut_att = l->att.torn != NULL;
    return 0;
}

/* Keep the fragment in <path>.torn (nothing is lost), then cut it from the log. */
static int cut_torn(struct run *r, const char *path, const char *torn, size_t keep)
{
    char side[ENGINE_PATH_MAX];
    size_t len;
    if (path_fmt(side, "%s.torn", path))
        return run_fail(r, "tuning directory path too long");
    char *text = read_file(path, &len);
    if (!text || keep > len || append_record(side, torn, strlen(torn)) || atomic_write(path, text, keep)) {
        free(text);
        return run_fail(r, "cannot repair '%s': %s", path, strerror(errno));
    }
    free(text);
    fprintf(stderr, "croqtuner: '%s' ended with a line torn by a crash; it was moved to '%s' and the "
                    "iteration is redone\n", path, side);
    return 0;
}

static int adopt_attempt(struct run *r, const struct result_row *row)
{
    struct cand_result b;
    memset(&b, 0, sizeof b);
    b.status = CAND_COMPILE_ERROR;
    snprintf(b.reason, sizeof b.reason, "%.250s", row->note);
    memcpy(b.command, row->command, sizeof b.command);
    snprintf(r->ck.pending.src_hash, sizeof r->ck.pending.src_hash, "%s", row->source_hash);
    return implement_commit_failure(r, &b, true);
}

static int adopt_row(struct run *r, const struct result_row *row, bool idea_present)
{
    struct checkpoint *c = &r->ck;
    if (c->phase == PH_DECIDE) {
        if (step_decide(r))
            return ENGINE_FAILED;
    }
    if (row->decision != c->pending.decision)
        return run_fail(r, "cannot resume '%s': results.tsv says %s for iteration %d but its recorded measurement "
                        "decides %s; nothing was changed", c->key, decision_name(row->decision), row->iter,
                        decision_name(c->pending.decision));
    return store_commit(r, true, idea_present);
}

static int apply(struct run *r, struct logs *l, const struct plan *pl)
{
    if ((pl->cut_res && cut_torn(r, l->res_path, l->res.torn, l->res.complete_len)) ||
        (pl->cut_ideas && cut_torn(r, l->idea_path, l->ideas.torn, l->ideas.complete_len)) ||
        (pl->cut_att && cut_torn(r, l->att_path, l->att.torn, l->att.complete_len)))
        return ENGINE_FAILED;
    if (pl->adopt_attempt)
        return adopt_attempt(r, &l->att.rows[l->att.n - 1]);
    if (pl->adopt_row)
        return adopt_row(r, &l->res.rows[l->res.n - 1], pl->idea_present);
    return 0;
}

int reconcile(struct run *r)
{
    struct logs l;
    struct plan pl = {0};
    char err[900];
    int rc = ENGINE_FAILED;
    if (logs_read(r, &l, err, sizeof err) || check_results(r, &l, &pl, err, sizeof err) ||
        check_ideas(r, &l, &pl, err, sizeof err) || check_attempts(r, &l, &pl, err, sizeof err)) {
        run_fail(r, "cannot resume '%s': %s; nothing was changed", r->ck.key, err);
        goto out;
    }
    if (r->ck.iteration >= 0 && (l.res_missing || l.ideas_missing)) {
        run_fail(r, "cannot resume '%s': its logs are missing but the checkpoint committed %d iterations; "
                 "nothing was changed", r->ck.key, r->ck.iteration + 1);
        goto out;
    }
    /* the logs have the records the checkpoint committed: each must also follow from its
     * evidence (the audit's per-row checks) before anything is added to them, as an edited
     * row would skew every later decision */
    int bad = r->ck.iteration >= 0 ? audit_committed(r->dir, &r->ck.sk, r->ck.key, r->ck.iteration, err, sizeof err)
                                   : 0;
    if (bad) {
        run_fail(r, "cannot resume '%s': %d problem(s) in its committed rows: %s; nothing was changed ('croqtuner "
                 "audit --tuning %s --key %s' lists them; restore the edited files)", r->ck.key, bad, err, r->dir,
                 r->ck.key);
        goto out;
    }
    rc = apply(r, &l, &pl);
out:
    logs_release(&l);
    return rc;
}
