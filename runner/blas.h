/* runner/blas.h — cuBLAS helpers shared by the reference (reference.c) and the dense
 * vendor baseline (vendor_cublas.c). */
#ifndef CROQ_RUNNER_BLAS_H
#define CROQ_RUNNER_BLAS_H

#include <cublas_v2.h>

#include "runner.h"

/* "CUBLAS_STATUS_NOT_SUPPORTED" for a cublasStatus_t (as int, for LIB_CHECK). */
const char *blas_status_text(int status);

/* A handle bound to g->stream. internal_error on failure. */
int blas_open(const struct gpu *g, cublasHandle_t *h);

/* Row-major C[M][N] = A[M][K] . B[N][K]^T with f16 A, B and f32 accumulation,
 * through the column-major identity C^T = B . A^T:
 *   cublasGemmEx(h, OP_T, OP_N, N, M, K, 1, B, K, A, K, 0, C, N).
 * c_type is CUDA_R_32F (reference) or CUDA_R_16F (dense baseline). */
int blas_gemm_f16(cublasHandle_t h, long m, long n, long k, CUdeviceptr a, CUdeviceptr b,
                  CUdeviceptr c, cudaDataType c_type);

/* dtype elements -> f16 bit patterns (e4m3 -> f16 is exact: 3-bit mantissa, exponent
 * range inside f16's). abs: clear the sign bit too. dst has n elements. */
void blas_to_f16(int dtype, const void *src, uint16_t *dst, size_t n, bool abs);

#endif
