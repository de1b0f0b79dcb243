/* src/engine/retime.c — `croqtuner ladder`: the final ladder for done shapes that have
 * none (a shape tuned before the ladder existed), and `--retime`, which times the kept
 * configurations of a shape again side by side to check the gains its rows recorded.
 *
 * Why --retime exists (issue 22): a shape's KEEPs each claim a paired speedup over the
 * best before them; chained, they say how much faster the final best is than the first.
 * Whether that chain is right is a question about the measurements, answered by measuring
 * every link again under one clock history, several times, so the re-timing shows its own
 * spread. It reads the recorded gains from the raw files (recomputed from their paired
 * trials, never from a summary) and changes no record.
 */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts/srcstore.h"
#include "util/log.h"
#include "util/regfile.h"

int engine_ladder(const struct engine_opts *o, const char *only, int *ran)
{
    char err[600];
    int worst = ENGINE_DONE;
    json_t *state = state_load(o->dir, err, sizeof err);
    *ran = 0;
    if (!state) {
        log_error("%s", err);
        return ENGINE_FAILED;
    }
    size_t n;
    const char **keys = state_shape_keys(state, &n);
    for (size_t i = 0; i < n; i++) {
        struct state_shape e;
        state_shape_get(state, keys[i], &e);
        if ((only && strcmp(only, keys[i])) || !e.key_ok)
            continue;
        if (!state_shape_done(&e) || !e.have_best || e.have_ladder) {
            if (only)
                log_error("%s: %s", keys[i], !state_shape_done(&e) ? "not done: it gets its ladder when it finishes"
                                             : !e.have_best ? "no best (its baseline failed)"
                                                            : "already has its final ladder");
            if (only)
                worst = ENGINE_FAILED;
            continue;
        }
        struct shape_params p = {.k = e.sk, .backend = e.backend, .seed = strtoull(e.seed, NULL, 10),
                                 .budget = e.budget, .agent = e.agent, .ladder = true, .must_exist = true};
        int rc = engine_run_shape(o, &p);
        (*ran)++;
        if (rc == ENGINE_GPU_BUSY || rc == ENGINE_GPU_GONE) {
            worst = rc;
            break;
        }
        if (rc == ENGINE_FAILED)
            worst = rc;
    }
    if (only && !json_object_get(json_object_get(state, "shapes"), only)) {
        log_error("%s/state.json: no shape '%s'", o->dir, only);
        worst = ENGINE_FAILED;
    }
    free(keys);
    json_decref(state);
    return worst;
}

/* The median paired speedup of a raw measurement, recomputed from its trials; NaN when the
 * file is absent or holds no paired timing. */
static double recorded_ratio(const char *dir, const char *key, int iter, const char *tag)
{
    char path[ENGINE_PATH_MAX], err[300];
    struct perf_numbers p = {.ratio = NAN};
    if (path_fmt(path, "%s/perf/%s/iter%03d-%s.json", dir, key, iter, tag) || !regfile_is(path))
        return NAN;
    json_t *o = regfile_load_json(path, 0, err, sizeof err);
    paired_from_raw(json_object_get(o, "paired"), &p);
    json_decref(o);
    return p.ratio;
}

#define RETIME_MAX_REPEAT 8

struct retime_row {
    int iter;
    enum decision d;
    double tflops, best_tflops, screen, confirm;
};

/* A gain as the table prints it: 4 decimals, "-" when there is none. */
static const char *gain(double g, char buf[16])
{
    if (isfinite(g))
        snprintf(buf, 16, "%.4f", g);
    else
        snprintf(buf, 16, "-");
    return buf;
}

static void print_table(FILE *out, const char *key, const struct retime_row *k, int n, const struct ladder_result *lr,
                        int repeat)
{
    char b1[16], b2[16];
    fprintf(out, "%s: %d kept configurations timed together %d time(s)\n", key, n, repeat);
    fprintf(out, "| iter | decision | recorded TFLOPS | best_tflops | screen gain | confirmed gain |");
    for (int j = 0; j < repeat; j++)
        fprintf(out, " run %d TFLOPS | run %d gain |", j + 1, j + 1);
    fprintf(out, "\n|---|---|---|---|---|---|");
    for (int j = 0; j < repeat; j++)
        fprintf(out, "---|---|");
    fputc('\n', out);
    double chain_s = 1, chain_c = 1;
    for (int i = 0; i < n; i++) {
        fprintf(out, "| %d | %s | %.1f | %.1f | %s | %s |", k[i].iter, decision_name(k[i].d), k[i].tflops,
                k[i].best_tflops, gain(i ? k[i].screen : NAN, b1), gain(i ? k[i].confirm : NAN, b2));
        if (i) {
            chain_s *= isfinite(k[i].screen) ? k[i].screen : 1;
            chain_c *= isfinite(k[i].confirm) ? k[i].confirm : 1;
        }
        for (int j = 0; j < repeat; j++) {
            const struct ladder_entry_result *e = &lr[j].e[i], *p = i ? &lr[j].e[i - 1] : NULL;
            fprintf(out, " %.1f | %s |", e->tflops, gain(p ? p->rel / e->rel : NAN, b1));
        }
        fputc('\n', out);
    }
    fprintf(out, "chain of recorded gains, first to last kept: screen %.4f, confirmed %.4f;", chain_s, chain_c);
    for (int j = 0; j < repeat; j++)
        fprintf(out, " run %d %.4f (%.0f MHz)%s", j + 1, lr[j].e[0].rel / lr[j].e[n - 1].rel,
                lr[j].e[n - 1].sm_clock_mhz, j + 1 < repeat ? "," : "\n");
}

int engine_retime(const struct engine_opts *o, const char *key, int repeat, int rounds, FILE *out)
{
    struct shape_key sk;
    char err[700], path[ENGINE_PATH_MAX];
    struct checkpoint ck;
    if (key_parse(key, &sk, err, sizeof err)) {
        log_error("--key: %s", err);
        return ENGINE_FAILED;
    }
    if (repeat < 1 || repeat > RETIME_MAX_REPEAT || rounds < 1 || rounds > LADDER_MAX_ROUNDS) {
        log_error("--repeat 1..%d and --rounds 1..%d", RETIME_MAX_REPEAT, LADDER_MAX_ROUNDS);
        return ENGINE_FAILED;
    }
    int lrc = checkpoint_load(o->dir, key, &ck, err, sizeof err);
    if (lrc) {
        log_error("%s", lrc > 0 ? "no such shape in the tuning directory" : err);
        return ENGINE_FAILED;
    }
    struct shape_params p = {.k = sk, .backend = ck.backend, .seed = ck.seed, .budget = ck.budget, .agent = ck.agent,
                             .keep_agent = true, .must_exist = true};
    checkpoint_release(&ck);
    struct run r;
    int rc = run_open(&r, o, &p);
    struct result_log res = {0};
    if (!rc && (run_path(&r, path, "logs", "/results.tsv") || result_log_read(path, &res, err, sizeof err) < 0))
        rc = run_fail(&r, "cannot read the results of '%s': %s", key, err);
    if (!rc && !r.be->ladder)
        rc = run_fail(&r, "backend '%s' has no ladder", r.be->name);
    struct retime_row k[LADDER_MAX];
    struct croq_config cfgs[LADDER_MAX];
    struct ladder_req q = {.dir = r.dir, .key = key, .shape = sk.shape, .seed = r.ck.seed, .rounds = rounds,
                           .cold_l2 = r.ck.cold_l2};
    int n = 0, first = 0;
    for (size_t i = 0; !rc && i < res.n; i++)
        first += decision_kept(res.rows[i].decision) && res.rows[i].measured;
    first = first > LADDER_MAX ? first - LADDER_MAX : 0; /* the last LADDER_MAX kept rows */
    for (size_t i = 0, seen = 0; !rc && i < res.n; i++) {
        const struct result_row *row = &res.rows[i];
        if (!decision_kept(row->decision) || !row->measured || (int)seen++ < first)
            continue;
        k[n] = (struct retime_row){row->iter, row->decision, row->tflops, row->best_tflops,
                                   recorded_ratio(r.dir, key, row->iter, "cand"),
                                   recorded_ratio(r.dir, key, row->iter, "cand-confirm")};
        if (knobs_parse_signature(&cfgs[n], row->config, err, sizeof err) ||
            srcstore_materialize(r.dir, row->kernel, err, sizeof err))
            rc = run_fail(&r, "%s iteration %d: %s", key, row->iter, err);
        q.e[n] = (struct ladder_entry_req){row->iter, &cfgs[n], row->kernel};
        n++;
    }
    q.n = n;
    if (!rc && n < 2)
        rc = run_fail(&r, "%s has %d kept configuration(s): nothing to compare", key, n);
    struct ladder_result *lr = xmalloc(sizeof *lr * RETIME_MAX_REPEAT);
    char tag[32];
    for (int j = 0; !rc && j < repeat; j++) {
        snprintf(tag, sizeof tag, "retime-%d", j + 1);
        q.tag = tag;
        if ((rc = health_wait(&r, r.ck.iteration)))
            break;
        if (r.be->ladder(r.be, &q, &lr[j]))
            rc = run_fail(&r, "%s: %s", key, lr[j].reason);
        else if (lr[j].status != CAND_OK)
            rc = run_fail(&r, "%s: the re-timing failed: %s", key, lr[j].reason);
    }
    if (!rc)
        print_table(out, key, k, n, lr, repeat);
    for (int i = 0; i < n; i++) { /* the sources made whole for the build: recipes again */
        char e2[700];
        if (srcstore_compact(r.dir, q.e[i].src_rel, e2, sizeof e2) < 0)
            log_warn("%s stays whole: %s", q.e[i].src_rel, e2);
    }
    free(lr);
    result_log_release(&res);
    run_close(&r);
    return rc;
}
