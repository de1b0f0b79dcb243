/* runner/ours.h — our kernel module as a measurement subject (ours.c) and the
 * vendor baselines (vendor_cusparselt.c, vendor_cublas.c), all measured by
 * subject_measure on the same operands against the same reference. */
#ifndef CROQ_RUNNER_OURS_H
#define CROQ_RUNNER_OURS_H

#include "subject.h"

struct ours {
    struct kl_module m; /* loaded by the caller (module_load) */
    struct launch l;
    CUdeviceptr d_c;   /* f16 C [M][N] */
    /* cold L2 (made by ours_measure when env->cold_l2): copies of A's values, metadata,
     * B and C (buffers 0..3), and a launch prepared on each */
    struct cold_rot rot;
    struct launch rl[COLD_MAX_COPIES];
};

/* Allocate C, build tensor maps and geometry. The module must be loaded. */
int ours_prepare(const struct gpu *g, struct ours *k, const struct operands *o);
/* Fills s ("ours", extra = {"abi": ...}). 0 if ok. Cold L2 (env->cold_l2, an unscaled
 * operand set): the rotation is made first. */
int ours_measure(const struct bench_env *env, struct ours *k, struct subject *s);
void ours_release(struct ours *k);

/* cuSPARSELt (plan built once, A compressed by cusparseLtSpMMACompress from the
 * same pruned A): def = default algorithm, search = after cusparseLtMatmulSearch.
 * Without CROQ_HAVE_CUSPARSELT both come back unavailable. Needs o->d_a_dense. */
void vendor_cusparselt(const struct bench_env *env, struct subject *def, struct subject *search);
/* Dense cuBLAS on the decompressed A: f16 cublasGemmEx, e4m3 cublasLtMatmul. Needs
 * o->d_a_dense. */
void vendor_cublas(const struct bench_env *env, struct subject *s);

#endif
