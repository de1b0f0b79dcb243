/* src/format/reference.h — CPU reference GEMM and the per-element tolerance.
 *
 * C[i][j] = sum_k A[i][k] * B[j][k], computed in double on the DECOMPRESSED A (so the
 * reference sees exactly the values the kernel multiplies). Layouts (row-major):
 *   a_dense [M][K] dtype (sparse24_decompress output), b [N][K] dtype, c [M][N] double.
 * Every f16 / e4m3 product is exact in double (at most 22 significant bits); only the
 * summation rounds, with relative error ~K * 2^-53, negligible against the bounds
 * below. Cost: M*N*K multiply-adds on one core (~1-2 GFLOP/s), so large shapes want
 * the cuBLAS reference in the runner.
 */
#ifndef CROQ_FORMAT_REFERENCE_H
#define CROQ_FORMAT_REFERENCE_H

#include <stddef.h>

/* Return 0, or -1 for an unknown dtype, a negative dimension, or no memory for the
 * two K panels ((M + N) x 256 doubles). */
int reference_gemm_f64(int dtype, long m, long n, long k, const void *a_dense, const void *b,
                       double *c);
/* The same with |A| and |B|: absref[i][j] = sum_k |A[i][k]| * |B[j][k]|, the scale of
 * the rounding error of any summation order (used by reference_tolerance). */
int reference_gemm_abs_f64(int dtype, long m, long n, long k, const void *a_dense,
                           const void *b, double *c_abs);
/* Both; c or c_abs may be NULL. */
int reference_gemm_both_f64(int dtype, long m, long n, long k, const void *a_dense,
                            const void *b, double *c, double *c_abs);

/* Allowed |kernel C - ref| for one element whose reference is ref and abs-reference
 * absref (both from above):
 *
 *   tol = 2^-10 * |ref| + e_acc(dtype) * absref + 2^-14
 *
 * 2^-10 * |ref|: the kernel rounds its f32 result to f16 C, an error of at most half
 *   an f16 ulp = 2^-11 relative; doubled for the rounding of the reference itself (the
 *   runner's cuBLAS reference path holds it in f32/f16) and for an f32 value that sits
 *   next to a rounding boundary of f16.
 * e_acc * absref: the kernel accumulates in f32 in its own order (tensor-core k-steps,
 *   split-K partials). A reordered f32 sum errs by at most about K * 2^-24 * absref
 *   in the worst case, but for independent random operands the errors are random and
 *   relative to absref stay O(2^-24) whatever K is; the bound allows a wide margin.
 *   f16: e_acc = 2^-18 (64x the f32 unit roundoff 2^-24).
 *   e4m3: e_acc = 2^-9, because Hopper fp8 tensor cores accumulate with reduced
 *   precision (about 14 mantissa bits retained in the MMA's internal sum: DeepSeek-V3
 *   Technical Report, arXiv:2412.19437, section 3.3.2 "Increasing accumulation
 *   precision"), and measured on an H200 (2026-11-29, operands uniform in [-2, 2]):
 *   at 4096x8192x8192 cuSPARSELt's own e4m3 result erred by up to ~2e-4 x absref
 *   (8205 of 33554432 elements beyond 2^-13 x absref; ours: 8212, the same hardware
 *   path), and our baseline by up to ~6e-4 x absref at K = 12288 and 32768
 *   (`croqtuner bench --dtype e4m3 --shapes typical`). 2^-9 (~2e-3) leaves a 3x margin.
 *   A kernel bug (wrong tile, stage, metadata row) errs by O(|ref|) on many elements,
 *   far above this bound; a single wrong 2:4 group can hide under it (documented limit).
 * 2^-14: an absolute floor, the smallest normal f16, so results in the f16 subnormal
 *   range (ulp 2^-24, but flushed or rounded differently) never fail on tiny |ref|.
 *
 * k is accepted so a K-dependent bound can be introduced without changing callers; the
 * present bound does not use it (see e_acc above). Inputs are not checked: an unknown
 * dtype gets the f16 bound. NaN ref or absref gives NaN (every comparison fails). */
#define REFERENCE_TOL_REL 0x1p-10
#define REFERENCE_TOL_ABS 0x1p-14
/* e_acc per dtype: the tol_acc column of src/target/dtype.def */
double reference_tolerance(int dtype, long k, double ref, double absref);

#endif
