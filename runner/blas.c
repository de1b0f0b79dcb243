/* runner/blas.c — cuBLAS handle, the row-major f16 GEMM, f16 conversion. */
#include "blas.h"

#include "format/numeric.h"

const char *blas_status_text(int status)
{
    return cublasGetStatusName((cublasStatus_t)status);
}

int blas_open(const struct gpu *g, cublasHandle_t *h)
{
    LIB_CHECK(RS_INTERNAL_ERROR, cublasCreate(h), blas_status_text);
    /* The runner's stream is CUstream; cudaStream_t is the same handle type. */
    LIB_CHECK(RS_INTERNAL_ERROR, cublasSetStream(*h, (cudaStream_t)g->stream), blas_status_text);
    return 0;
}

int blas_gemm_f16(cublasHandle_t h, long m, long n, long k, CUdeviceptr a, CUdeviceptr b,
                  CUdeviceptr c, cudaDataType c_type)
{
    const float one = 1.0f, zero = 0.0f;
    LIB_CHECK(RS_INTERNAL_ERROR,
              cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, (const void *)b,
                           CUDA_R_16F, (int)k, (const void *)a, CUDA_R_16F, (int)k, &zero, (void *)c,
                           c_type, (int)n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              blas_status_text);
    return 0;
}

void blas_to_f16(int dtype, const void *src, uint16_t *dst, size_t n, bool abs)
{
    const uint16_t mask = abs ? 0x7fff : 0xffff;
    if (dtype == CROQ_DTYPE_F16) {
        const uint16_t *s = src;
        for (size_t i = 0; i < n; i++)
            dst[i] = s[i] & mask;
        return;
    }
    uint16_t lut[256];
    for (int b = 0; b < 256; b++)
        lut[b] = numeric_f32_to_f16(numeric_e4m3_to_f32((uint8_t)b)) & mask;
    const uint8_t *s = src;
    for (size_t i = 0; i < n; i++)
        dst[i] = lut[s[i]];
}
