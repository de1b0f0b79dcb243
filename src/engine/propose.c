/* src/engine/propose.c — agent mode: 'croqtuner propose' hands the engine one idea with
 * its own kernel source at IDEATE. From there it is the engine's candidate like any
 * other: IMPLEMENT (the source copied to srcs/, built), MEASURE (health check, child
 * process, sanity rule), DECIDE (noise rule), STORE — an agent cannot record a number,
 * set a decision or skip a step. Refused: a call when the shape is not waiting at
 * IDEATE in agent mode, a source already tried (byte- or token-identical to any earlier
 * candidate or failed compile), invalid knobs, text that is not UTF-8. The configuration
 * may repeat: it is the launch contract the source claims, which the gpu backend checks
 * against the module's croq_abi.
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/atomicio.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/srcnorm.h"

#define SOURCE_MAX (8u << 20)

struct submission {
    char *src;
    size_t len;
    char hash[BACKEND_HASH_MAX];   /* of the bytes: what results.tsv records */
    char tokens[BACKEND_HASH_MAX]; /* of the tokens (util/srcnorm.h): what makes it new */
    int category;
    unsigned mode; /* of the copy in srcs/: owner rw, group r as the source's, others never */
};

static int check_inputs(const struct proposal *p, struct submission *s)
{
    char err[200];
    if (!*p->idea) {
        log_error("--idea: empty; say what the candidate changes and why");
        return -1;
    }
    if (idea_text_check(p->idea, IDEA_TEXT_MAX, err, sizeof err)) {
        log_error("--idea: %s", err);
        return -1;
    }
    if ((s->category = idea_category_parse(p->category)) < 0) {
        log_error("--category '%s': expected macro, structural, variant or micro", p->category);
        return -1;
    }
    /* A regular file of bounded size before reading: /dev/zero or a huge file must not be
     * slurped into memory. */
    struct stat st;
    if (stat(p->src_path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size > SOURCE_MAX)) {
        log_error("'%s' is not a kernel source (not a regular file, or over 8 MiB)", p->src_path);
        return -1;
    }
    s->mode = 0600 | ((unsigned)st.st_mode & 0040);
    s->src = read_file(p->src_path, &s->len);
    if (!s->src) {
        log_error("cannot read '%s': %s", p->src_path, strerror(errno));
        return -1;
    }
    if (s->len == 0 || s->len > SOURCE_MAX || memchr(s->src, '\0', s->len)) {
        log_error("'%s' is not a kernel source (empty, binary or over 8 MiB)", p->src_path);
        return -1;
    }
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, s->src, s->len), s->hash);
    srcnorm_hash_hex(s->src, s->len, s->tokens);
    return 0;
}

static int phase_ok(struct run *r)
{
    struct checkpoint *c = &r->ck;
    if (!c->agent)
        return run_fail(r, "shape '%s' is driven by the engine; 'croqtuner tune ... --agent' hands its IDEATE step "
                        "to an agent", c->key);
    if (r->o->dataset && strcmp(c->backend, "replay")) /* it would be ignored, as tune refuses it */
        return run_fail(r, "--dataset is the replay backend's; shape '%s' is measured by the %s backend", c->key,
                        c->backend);
    if (c->phase != PH_IDEATE)
        return run_fail(r, "out of order: shape '%s' is in phase %s; propose is accepted only in IDEATE%s", c->key,
                        phase_name(c->phase), c->phase == PH_NEXT_SHAPE ? " (the shape is done)" : "");
    return ideate_guard(r);
}

static int config_of(struct run *r, const struct proposal *p, struct croq_config *cfg)
{
    char err[256], why[CROQ_WHY_MAX];
    *cfg = r->best_cfg;
    for (int i = 0; i < p->n_sets; i++)
        if (knobs_set_list(cfg, p->sets[i], err, sizeof err))
            return run_fail(r, "--set: %s", err);
    if (!knobs_validate(cfg, &r->ck.sk.shape, why, sizeof why))
        return run_fail(r, "refused: configuration invalid for %s: %s", r->ck.key, why);
    return 0;
}

/* An agent's idea is its code: a submission is new when its tokens are (comments and
 * whitespace do not make a new kernel), whatever its configuration, which is only the
 * launch contract it claims. So a fixed kernel may keep the --set of the one that failed
 * to compile, and a code change needs no knob change. */
static int repeat_in(struct run *r, const struct result_log *log, const struct submission *s, bool attempts)
{
    char (*tok)[BACKEND_HASH_MAX] = source_token_hashes(r->dir, log);
    int rc = 0;
    for (size_t i = 0; i < log->n && !rc; i++) {
        const struct result_row *row = &log->rows[i];
        if (!strcmp(row->source_hash, s->hash))
            rc = run_fail(r, "refused: repeat: this source (hash %s) was already tried on %s (iteration %d%s)", s->hash,
                          r->ck.key, row->iter, attempts ? ", a failed compile" : "");
        else if (tok[i][0] && !strcmp(tok[i], s->tokens))
            rc = run_fail(r, "refused: repeat: this source has the same tokens as %s (iteration %d%s): comments and "
                          "whitespace do not make a new kernel", row->kernel, row->iter,
                          attempts ? ", a failed compile" : "");
    }
    free(tok);
    return rc;
}

static int not_repeat(struct run *r, const struct submission *s)
{
    struct result_log res, att;
    char path[ENGINE_PATH_MAX], err[600];
    if (run_path(r, path, "logs", "/results.tsv") || result_log_read(path, &res, err, sizeof err) < 0)
        return run_fail(r, "%s", err);
    if (run_path(r, path, "logs", "/attempts.tsv") || result_log_read(path, &att, err, sizeof err) < 0) {
        result_log_release(&res);
        return run_fail(r, "%s", err);
    }
    int rc = repeat_in(r, &res, s, false);
    if (!rc)
        rc = repeat_in(r, &att, s, true);
    result_log_release(&res);
    result_log_release(&att);
    return rc;
}

static int stage(struct run *r, const struct proposal *p, const struct submission *s, const char *sig)
{
    struct checkpoint *c = &r->ck;
    struct pending *pd = &c->pending;
    char path[ENGINE_PATH_MAX];
    memset(pd, 0, sizeof *pd);
    pd->active = true;
    pd->agent = true;
    pd->iter = c->iteration + 1;
    snprintf(pd->idea, sizeof pd->idea, "%s", p->idea);
    snprintf(pd->justification, sizeof pd->justification, "agent: %.240s",
             c->profile.justification[0] ? c->profile.justification : "no profile metrics");
    snprintf(pd->category, sizeof pd->category, "%s", idea_category_name((enum idea_category)s->category));
    snprintf(pd->bottleneck, sizeof pd->bottleneck, "%s",
             c->profile.category == BN_UNKNOWN ? "unknown" : bottleneck_name(c->profile.category));
    snprintf(pd->config, sizeof pd->config, "%s", sig);
    snprintf(pd->src_rel, sizeof pd->src_rel, "srcs/%s/iter%03d.cu", c->key, pd->iter);
    snprintf(pd->src_hash, sizeof pd->src_hash, "%s", s->hash);
    if (path_fmt(path, "%s/%s", r->dir, pd->src_rel))
        return run_fail(r, "tuning directory path too long");
    if (atomic_write_mode(path, s->src, s->len, s->mode))
        return run_fail(r, "cannot write '%s': %s", path, strerror(errno));
    if (run_goto(r, PH_IMPLEMENT))
        return ENGINE_FAILED;
    return run_save(r);
}

/* What happened to the submission: its results row, or its compile attempt. */
static void report(struct run *r, int iter, bool json)
{
    char path[ENGINE_PATH_MAX], err[600];
    struct result_log log;
    bool stored = r->ck.iteration >= iter;
    if (run_path(r, path, "logs", stored ? "/results.tsv" : "/attempts.tsv") ||
        result_log_read(path, &log, err, sizeof err) || log.n == 0)
        return;
    const struct result_row *row = &log.rows[log.n - 1];
    if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "key", json_string(r->ck.key));
        json_object_set_new(o, "iteration", json_integer(row->iter));
        json_object_set_new(o, "decision", json_string(decision_name(row->decision)));
        json_object_set_new(o, "tflops", row->measured ? json_real(row->tflops) : json_null());
        json_object_set_new(o, "best_tflops", isfinite(row->best_tflops) ? json_real(row->best_tflops) : json_null());
        json_object_set_new(o, "kernel", json_string(row->kernel));
        json_object_set_new(o, "note", json_string(row->note));
        json_object_set_new(o, "phase", json_string(phase_name(r->ck.phase)));
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        printf("%s\n", s ? s : "{}");
        free(s);
        json_decref(o);
    } else {
        printf("%s iteration %d: %s%s%s\n", r->ck.key, row->iter, decision_name(row->decision),
               row->note[0] ? ": " : "", row->note);
    }
    result_log_release(&log);
}

int engine_propose(const struct engine_opts *o, const struct proposal *p)
{
    struct submission s = {0};
    struct shape_params sp = {.keep_agent = true, .must_exist = true};
    struct engine_opts quiet = *o;
    struct croq_config cfg;
    struct run r;
    char err[256], sig[CROQ_SIG_MAX];
    if (key_parse(p->key, &sp.k, err, sizeof err)) {
        log_error("--key: %s", err);
        return ENGINE_FAILED;
    }
    if (check_inputs(p, &s)) {
        free(s.src);
        return ENGINE_FAILED;
    }
    quiet.quiet = quiet.quiet || p->json;
    int rc = run_open(&r, &quiet, &sp);
    if (!rc && !(rc = phase_ok(&r)) && !(rc = config_of(&r, p, &cfg))) {
        knobs_signature(&cfg, sig);
        if (!(rc = not_repeat(&r, &s)) && !(rc = stage(&r, p, &s, sig))) {
            int iter = r.ck.pending.iter;
            rc = run_loop(&r);
            if (rc == ENGINE_WAITING || rc == ENGINE_DONE) {
                report(&r, iter, p->json);
                rc = ENGINE_DONE;
            }
        }
    }
    run_close(&r);
    free(s.src);
    return rc;
}
