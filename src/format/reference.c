/* src/format/reference.c — double-precision reference GEMM over K panels.
 *
 * The operands are converted to double one K panel at a time (all M rows of A, all N
 * rows of B, PANEL_K columns), so each element is converted once and the dot products
 * run over contiguous doubles; C accumulates across panels. */
#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/abi.h"
#include "numeric.h"
#include "target/dtype.h"

#define PANEL_K 256
#define BLOCK 16 /* rows of A and of B per cache block: 2 x 16 x 2 KiB */

/* dst[r][0..kw) = (|)src[r][k0..k0+kw)(|) as double, r < rows. */
static void panel_load(int dtype, const void *src, long rows, long k, long k0, long kw,
                       int absolute, double *dst)
{
    for (long r = 0; r < rows; r++)
        for (long kk = 0; kk < kw; kk++) {
            double v = numeric_load_f32(dtype, src, (size_t)r * (size_t)k + (size_t)(k0 + kk));
            dst[(size_t)r * PANEL_K + (size_t)kk] = absolute ? fabs(v) : v;
        }
}

/* Four independent partial sums: the compiler may vectorize them without -ffast-math.
 * The order differs from a sequential sum only by double roundings (see reference.h). */
static double dot(const double *a, const double *b, long n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    long i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; i++)
        s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

/* c[i][j] += dot over the panel, blocked so a BLOCK x BLOCK tile of rows stays in cache. */
static void panel_accumulate(const double *ap, const double *bp, long m, long n, long kw,
                             double *c)
{
    for (long i0 = 0; i0 < m; i0 += BLOCK)
        for (long j0 = 0; j0 < n; j0 += BLOCK)
            for (long i = i0; i < i0 + BLOCK && i < m; i++)
                for (long j = j0; j < j0 + BLOCK && j < n; j++)
                    c[(size_t)i * (size_t)n + (size_t)j] +=
                        dot(ap + (size_t)i * PANEL_K, bp + (size_t)j * PANEL_K, kw);
}

/* One pass (signed or absolute) of C = A . B^T over every K panel. */
static int gemm_pass(int dtype, long m, long n, long k, const void *a, const void *b,
                     int absolute, double *c)
{
    double *ap = malloc((size_t)(m ? m : 1) * PANEL_K * sizeof *ap);
    double *bp = malloc((size_t)(n ? n : 1) * PANEL_K * sizeof *bp);
    if (!ap || !bp) {
        free(ap);
        free(bp);
        return -1;
    }
    memset(c, 0, (size_t)m * (size_t)n * sizeof *c);
    for (long k0 = 0; k0 < k; k0 += PANEL_K) {
        long kw = k - k0 < PANEL_K ? k - k0 : PANEL_K;
        panel_load(dtype, a, m, k, k0, kw, absolute, ap);
        panel_load(dtype, b, n, k, k0, kw, absolute, bp);
        panel_accumulate(ap, bp, m, n, kw, c);
    }
    free(ap);
    free(bp);
    return 0;
}

int reference_gemm_both_f64(int dtype, long m, long n, long k, const void *a_dense,
                            const void *b, double *c, double *c_abs)
{
    if (!numeric_dtype_bytes(dtype) || m < 0 || n < 0 || k < 0)
        return -1;
    if (c && gemm_pass(dtype, m, n, k, a_dense, b, 0, c))
        return -1;
    if (c_abs && gemm_pass(dtype, m, n, k, a_dense, b, 1, c_abs))
        return -1;
    return 0;
}

int reference_gemm_f64(int dtype, long m, long n, long k, const void *a_dense, const void *b,
                       double *c)
{
    return reference_gemm_both_f64(dtype, m, n, k, a_dense, b, c, NULL);
}

int reference_gemm_abs_f64(int dtype, long m, long n, long k, const void *a_dense,
                           const void *b, double *c_abs)
{
    return reference_gemm_both_f64(dtype, m, n, k, a_dense, b, NULL, c_abs);
}

double reference_tolerance(int dtype, long k, double ref, double absref)
{
    (void)k; /* reserved for a K-dependent bound (reference.h) */
    double e_acc = croq_dtype_traits(dtype)->tol_acc;
    return REFERENCE_TOL_REL * fabs(ref) + e_acc * absref + REFERENCE_TOL_ABS;
}
