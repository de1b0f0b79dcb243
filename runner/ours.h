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
/* What ours_measure does before the procedure: s initialised as above, the cold rotation
 * made when env asks for it, and *sk what the subject launches (valid until ours_release).
 * 0, or -1 with the failure in s. */
int ours_open(const struct bench_env *env, struct ours *k, struct subject *s, struct subject_kernel *sk);
void ours_release(struct ours *k);

/* The vendor baselines, set up once for `compare`, which verifies and times them beside
 * ours (cmd_compare.c). Each open initialises its subjects and fills the kernel of each one
 * that can run (valid until the close); a subject that cannot comes back unavailable (with
 * its note: no library, a case the library rejects) or failed (status, error), its kernel
 * zeroed. Needs o->d_a_dense. The close takes NULL.
 *
 * cuSPARSELt: one handle and compressed A (cusparseLtSpMMACompress of the same pruned A),
 * two plans: def the default algorithm, search a plan of its own after
 * cusparseLtMatmulSearch, which runs inside the open (never inside a timing), or, with
 * pin_config >= 0, made with that algorithm configuration (and split-K pin_split_k when
 * >= 0) without a search (compare --slt-config). Without CROQ_HAVE_CUSPARSELT both come
 * back unavailable and the open returns NULL. */
struct slt;
struct slt *vendor_cusparselt_open(const struct bench_env *env, int pin_config, int pin_split_k, struct subject *def,
                                   struct subject *search, struct subject_kernel *kdef, struct subject_kernel *ksearch);
void vendor_cusparselt_close(struct slt *s);
/* Dense cuBLAS on the decompressed A: f16 cublasGemmEx, e4m3 cublasLtMatmul. */
struct dense;
struct dense *vendor_cublas_open(const struct bench_env *env, struct subject *s, struct subject_kernel *k);
void vendor_cublas_close(struct dense *d);

#endif
