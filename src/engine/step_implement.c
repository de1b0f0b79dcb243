/* src/engine/step_implement.c — IMPLEMENT: the pending idea becomes
 * srcs/<key>/iterNNN.cu (the code generator's self-contained source, or the agent's
 * source copied there by 'propose'), and the backend builds it. A generated source is
 * also written as its recipe (src/artifacts/srcstore.h). A compile failure is
 * recorded in attempts.tsv with the failed source kept as iterNNN-attemptK.cu; it
 * consumes no iteration number, and the engine ideates again.
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "artifacts/srcstore.h"
#include "util/atomicio.h"
#include "util/hash.h"
#include "util/utctime.h"

/* The fault --inject-fault asks for at this iteration (codegen_fault; 0 none). The
 * list is "KIND@ITER" items separated by commas; a malformed item injects nothing. */
static int injected_fault(const char *list, int iter)
{
    char kind[16];
    int at, used;
    for (const char *p = list; p && *p; p += *p == ',') {
        if (sscanf(p, "%15[a-z]@%d%n", kind, &at, &used) != 2)
            return 0;
        p += used;
        if (at == iter && codegen_fault_parse(kind) > 0)
            return codegen_fault_parse(kind);
    }
    return 0;
}

/* How IMPLEMENT (and compile-ahead) generates iteration iter: the header note, and the
 * fault --inject-fault asks for. note holds NOTE_LEN bytes. */
#define NOTE_LEN 160
static struct codegen_opts implement_opts(struct run *r, int iter, char note[NOTE_LEN], char *err, size_t errlen)
{
    snprintf(note, NOTE_LEN, "croqtuner %s iteration %d (backend=%s)", r->ck.key, iter, r->ck.backend);
    return (struct codegen_opts){.note = note, .err = err, .errlen = errlen,
                                 .files = r->has_pinned_gen ? r->pinned_gen.files : NULL,
                                 .inject_fault = injected_fault(r->o->inject_faults, iter)};
}

int implement_source(struct run *r, const struct croq_config *cfg, int iter, char **src, char *err, size_t errlen)
{
    char note[NOTE_LEN];
    struct codegen_opts co = implement_opts(r, iter, note, err, errlen);
    return codegen_emit(cfg, &co, src);
}

/* The engine's own candidate: generated, hashed, written atomically, whole (for nvcc)
 * and as its recipe (src/artifacts/srcstore.h; STORE and SHAPE_COMPLETE drop the whole
 * file once the recipe reproduces it). */
static int write_generated(struct run *r, const struct croq_config *cfg, struct cand_result *b)
{
    struct pending *p = &r->ck.pending;
    char note[NOTE_LEN], err[512];
    struct codegen_opts co = implement_opts(r, p->iter, note, err, sizeof err);
    int rc = srcstore_generate(r->dir, p->src_rel, cfg, &co, p->src_hash);
    if (rc > 0) {
        /* the generator refused this configuration: the candidate does not build */
        b->status = CAND_COMPILE_ERROR;
        snprintf(b->reason, sizeof b->reason, "code generator: %.220s", err);
        p->src_hash[0] = '\0';
        return 0;
    }
    if (rc)
        return run_fail(r, "%s", err);
    crashpoint("implement.source");
    return 0;
}

/* An agent's source was copied by 'propose'; it must still be the bytes it hashed. */
static int check_agent_source(struct run *r, const char *path)
{
    char h[BACKEND_HASH_MAX];
    if (backend_hash_file(path, h))
        return run_fail(r, "cannot read '%s': %s", path, strerror(errno));
    if (strcmp(h, r->ck.pending.src_hash))
        return run_fail(r, "'%s' changed after it was proposed (hash %s, proposed %s); the candidate is not "
                        "built", path, h, r->ck.pending.src_hash);
    return 0;
}

/* Compile attempts already recorded for iteration iter (attempts.tsv is the record). */
static int attempts_for(struct run *r, int iter)
{
    struct result_log log;
    char path[ENGINE_PATH_MAX], err[600];
    int n = 0;
    if (run_path(r, path, "logs", "/attempts.tsv") || result_log_read(path, &log, err, sizeof err) < 0) {
        run_fail(r, "%s", err);
        return -1;
    }
    for (size_t i = 0; i < log.n; i++)
        n += log.rows[i].iter == iter;
    result_log_release(&log);
    return n;
}

int implement_build(struct run *r, struct cand_result *b)
{
    struct pending *p = &r->ck.pending;
    struct croq_config cfg;
    struct cand_req q;
    char path[ENGINE_PATH_MAX], err[256];
    memset(b, 0, sizeof *b);
    if (knobs_parse_signature(&cfg, p->config, err, sizeof err))
        return run_fail(r, "shape '%s' iteration %d: config: %s", r->ck.key, p->iter, err);
    if (path_fmt(path, "%s/%s", r->dir, p->src_rel))
        return run_fail(r, "tuning directory path too long");
    int rc = p->agent ? check_agent_source(r, path) : write_generated(r, &cfg, b);
    if (rc || b->status == CAND_COMPILE_ERROR)
        return rc;
    run_req(r, &q, "build", false, &cfg);
    if ((q.attempt = attempts_for(r, p->iter)) < 0)
        return ENGINE_FAILED;
    double t0 = engine_mono_s();
    int brc = r->be->build(r->be, &q, b);
    r->spent_s[SPENT_COMPILE] += engine_mono_s() - t0;
    if (brc)
        return run_fail(r, "shape '%s' iteration %d: %s", r->ck.key, p->iter, b->reason);
    if (b->status == CAND_UNUSABLE) { /* the toolchain, not the candidate: stop, resumable */
        run_fail(r, "%s; shape '%s' continues with 'croqtuner resume --tuning %s' once it is fixed", b->reason,
                 r->ck.key, r->dir);
        return ENGINE_GPU_GONE;
    }
    return 0;
}

/* Keep the failed source (and its recipe) under its own name: the next attempt reuses
 * iterNNN.cu. */
static int keep_failed_source(struct run *r, char rel[BACKEND_REL_MAX])
{
    struct pending *p = &r->ck.pending;
    char err[700];
    snprintf(rel, BACKEND_REL_MAX, "srcs/%s/iter%03d-attempt%zu.cu", r->ck.key, p->iter, r->ck.n_attempts + 1);
    if (!p->src_hash[0]) { /* nothing was generated */
        rel[0] = '\0';
        return 0;
    }
    if (srcstore_copy(r->dir, p->src_rel, rel, err, sizeof err))
        return run_fail(r, "%s", err);
    /* a recipe that reproduces it makes the copy's whole file redundant at once */
    if (srcstore_compact(r->dir, rel, err, sizeof err) < 0)
        return run_fail(r, "%s", err);
    return 0;
}

static void attempt_row(struct run *r, const struct cand_result *b, const char *kernel, struct result_row *row)
{
    struct pending *p = &r->ck.pending;
    memset(row, 0, sizeof *row);
    row->iter = p->iter;
    snprintf(row->kernel, sizeof row->kernel, "%s", kernel);
    snprintf(row->source_hash, sizeof row->source_hash, "%s", p->src_hash);
    snprintf(row->config, sizeof row->config, "%s", p->config);
    row->decision = DEC_COMPILE_ERROR;
    row->best_tflops = r->ck.have_best ? r->ck.best.p.tflops : NAN;
    snprintf(row->bottleneck, sizeof row->bottleneck, "%s", p->bottleneck);
    snprintf(row->category, sizeof row->category, "%s", p->category);
    snprintf(row->idea, sizeof row->idea, "%s", p->idea);
    row->max_err_over_tol = NAN;
    utc_now(row->timestamp);
    snprintf(row->command, sizeof row->command, "%s", b->command);
    snprintf(row->note, sizeof row->note, "%s", b->reason);
}

int implement_commit_failure(struct run *r, const struct cand_result *b, bool row_present)
{
    struct checkpoint *c = &r->ck;
    struct result_row row;
    char kernel[BACKEND_REL_MAX], path[ENGINE_PATH_MAX];
    bool baseline = c->phase == PH_BASELINE;
    if (keep_failed_source(r, kernel))
        return ENGINE_FAILED;
    attempt_row(r, b, kernel, &row);
    if (!row_present) {
        char *line = row_format(&row);
        int rc = -1;
        if (!run_path(r, path, "logs", "/attempts.tsv")) {
            crashpoint_torn("attempt.row.torn", path, line);
            rc = append_record(path, line, strlen(line));
        }
        free(line);
        if (rc)
            return run_fail(r, "cannot append to the attempts log of '%s': %s", c->key, strerror(errno));
        crashpoint("attempt.row");
    }
    c->n_attempts++;
    c->compile_failures++;
    snprintf(r->last_decision, sizeof r->last_decision, "COMPILE_ERROR");
    if (!r->o->quiet)
        printf("%s: iteration %d attempt failed to compile (%d in a row): %s\n", c->key, c->pending.iter,
               c->compile_failures, b->reason);
    memset(&c->pending, 0, sizeof c->pending);
    if (baseline)
        snprintf(c->stop_reason, sizeof c->stop_reason, "baseline does not compile: %.200s", b->reason);
    if (run_goto(r, baseline ? PH_SHAPE_COMPLETE : PH_IDEATE) || run_save(r))
        return ENGINE_FAILED;
    progress_write(r);
    return 0;
}

int step_implement(struct run *r)
{
    struct cand_result b;
    int rc = implement_build(r, &b);
    if (rc)
        return rc;
    if (b.status != CAND_OK)
        return implement_commit_failure(r, &b, false);
    speculate_ahead(r); /* compile the likely next candidates while this one is measured */
    return run_goto(r, PH_MEASURE);
}
