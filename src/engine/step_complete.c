/* src/engine/step_complete.c — SHAPE_COMPLETE: the best kernel is copied to
 * <tuning>/kernels/gemm_sp_<dtype>/<key>_best.cu, the shape is marked done in
 * state.json (with why it stopped), committed with --git; then NEXT_SHAPE. Every part is
 * idempotent, so a crash in the middle is finished by resume.
 */
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/atomicio.h"

static int copy_best(struct run *r)
{
    struct checkpoint *c = &r->ck;
    char dir[ENGINE_PATH_MAX], to[ENGINE_PATH_MAX], from[ENGINE_PATH_MAX];
    if (!c->have_best)
        return 0;
    if (path_fmt(dir, "%s/kernels/gemm_sp_%s", r->dir, croq_dtype_name(c->sk.dtype)) ||
        path_fmt(to, "%s/%s_best.cu", dir, c->key) || path_fmt(from, "%s/%s", r->dir, c->best.kernel))
        return run_fail(r, "tuning directory path too long");
    if (mkdir_p(dir) || atomic_copy(from, to))
        return run_fail(r, "cannot copy the best kernel '%s' to '%s': %s", from, to, strerror(errno));
    return 0;
}

int step_complete(struct run *r)
{
    struct checkpoint *c = &r->ck;
    char err[600], msg[400];
    if (copy_best(r))
        return ENGINE_FAILED;
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
    if (!r->o->quiet)
        printf("%s: done at iteration %d/%d: %s; best %.1f TFLOPS (iteration %d, %s)\n", c->key, c->iteration,
               c->budget, c->stop_reason, c->have_best ? c->best.p.tflops : 0.0, c->have_best ? c->best.iter : -1,
               c->have_best ? c->best.kernel : "no kernel");
    if (r->o->git) {
        snprintf(msg, sizeof msg, "%s complete: best %.3f TFLOPS at iter%03d (%.200s)", c->key,
                 c->have_best ? c->best.p.tflops : 0.0, c->have_best ? c->best.iter : 0, c->stop_reason);
        git_commit_shape(r, msg);
    }
    return 0;
}
