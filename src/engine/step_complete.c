/* src/engine/step_complete.c — SHAPE_COMPLETE: the best kernel is copied to
 * <tuning>/kernels/gemm_sp_<dtype>/<key>_best.cu, the shape's generated sources are kept
 * as recipes only (src/engine/compact.c), the shape is marked done in
 * state.json (with why it stopped), committed with --git; then NEXT_SHAPE. Every part is
 * idempotent, so a crash in the middle is finished by resume.
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "artifacts/srcstore.h"
#include "util/atomicio.h"
#include "util/log.h"

/* The registered best (the ladder's winner, or the tuning's best) published whole. */
static int copy_best(struct run *r)
{
    struct checkpoint *c = &r->ck;
    char dir[ENGINE_PATH_MAX], to[ENGINE_PATH_MAX], err[700];
    char *src;
    size_t len;
    struct registered_best rb;
    checkpoint_registered(c, &rb);
    if (!rb.have)
        return 0;
    if (path_fmt(dir, "%s/kernels/gemm_sp_%s", r->dir, croq_dtype_name(c->sk.dtype)) ||
        path_fmt(to, "%s/%s_best.cu", dir, c->key))
        return run_fail(r, "tuning directory path too long");
    char whole[ENGINE_PATH_MAX];
    struct stat st;
    if (path_fmt(whole, "%s/%s", r->dir, rb.kernel))
        return run_fail(r, "tuning directory path too long");
    if (lstat(whole, &st) == 0 && S_ISREG(st.st_mode)) /* kept whole (an agent's): its mode, no more readable */
        return mkdir_p(dir) || atomic_copy(whole, to)
                   ? run_fail(r, "cannot write the best kernel to '%s': %s", to, strerror(errno)) : 0;
    if (srcstore_read(r->dir, rb.kernel, &src, &len, err, sizeof err))
        return run_fail(r, "cannot publish the best kernel: %s", err);
    int rc = mkdir_p(dir) || atomic_write(to, src, len);
    free(src);
    if (rc)
        return run_fail(r, "cannot write the best kernel to '%s': %s", to, strerror(errno));
    return 0;
}

/* Every whole source of the shape that its recipe reproduces goes: the best is whole in
 * kernels/ now, an agent's source has no recipe and stays. Idempotent; a file that stays
 * whole is as valid, so this never stops the run. */
static void compact_sources(struct run *r)
{
    struct compact_tally t = {0};
    struct compact_opts co = {.quiet_kept = true};
    if (compact_shape(r->dir, r->ck.key, &co, &t, stderr))
        log_warn("%s: some sources stay whole (above)", r->ck.key);
}

int step_complete(struct run *r)
{
    struct checkpoint *c = &r->ck;
    char err[600], msg[400];
    if (copy_best(r))
        return ENGINE_FAILED;
    compact_sources(r);
    if (run_goto(r, PH_NEXT_SHAPE))
        return ENGINE_FAILED;
    /* checkpoint first, state.json last: until state.json says done, resume opens the
     * shape again, and run_open marks a checkpoint already at NEXT_SHAPE done. The other
     * order left a shape done in state.json with its checkpoint stuck at SHAPE_COMPLETE
     * when a crash fell between the two writes. */
    if (run_save(r))
        return ENGINE_FAILED;
    crashpoint("complete.state");
    if (state_put(r->dir, c, "done", err, sizeof err))
        return run_fail(r, "%s", err);
    progress_write(r);
    char pub[ENGINE_PATH_MAX], clock[48] = "";
    struct registered_best rb;
    checkpoint_registered(c, &rb);
    if (!rb.have || path_published_best(pub, croq_dtype_name(c->sk.dtype), c->key))
        snprintf(pub, sizeof pub, "no kernel");
    char bt[32], bt3[64];
    double best = rb.have ? rb.tflops : 0.0;
    if (rb.from_ladder && isfinite(rb.sm_clock_mhz))
        snprintf(clock, sizeof clock, ", final ladder at %.0f MHz", rb.sm_clock_mhz);
    else if (rb.from_ladder)
        snprintf(clock, sizeof clock, ", final ladder");
    if (!r->o->quiet)
        printf("%s: done at iteration %d/%d: %s; best %s TFLOPS (iteration %d%s, %s)\n", c->key, c->iteration,
               c->budget, c->stop_reason, results_tflops_show(bt, sizeof bt, best), rb.have ? rb.iter : -1, clock,
               pub);
    if (r->o->git) {
        snprintf(msg, sizeof msg, "%s complete: best %s TFLOPS at iter%03d (%.200s)", c->key,
                 results_num_text(bt3, sizeof bt3, best, RN_TFLOPS), rb.have ? rb.iter : 0, c->stop_reason);
        git_commit_shape(r, msg);
    }
    return 0;
}
