/* examples/croqsparse_example.c — compress a weight once, plan, run, check.
 *
 * C[M,N] = A[M,K] . B[N,K]^T with A a 2:4-pruned f16 weight: A is pruned and compressed
 * on the GPU, a plan is made once for the shape, the product runs asynchronously on a
 * stream, and a few elements of C are checked against a host dot product.
 * The example's own device memory and stream come from the CUDA runtime, linked
 * statically (as nvcc links it), which loads the driver when first used, as the library
 * does: so the program starts on a machine without a GPU driver, and croqsparse_create
 * says so (NO_DEVICE, with the reason), where an application would take its other path.
 * Build against the installed library: examples/CMakeLists.txt (find_package) or
 *   cc croqsparse_example.c $(pkg-config --cflags --libs croqsparse) \
 *      -L"$(pkg-config --variable=cudalibdir croqsparse)" -lcudart_static -ldl -lrt -lpthread
 * Run: ./croqsparse_example (needs an H100/H200-class GPU). Exit 0 when C matches, 2 when
 * there is no usable device or driver (the message says which), 1 on any other failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <croqsparse.h>
#include <cuda_runtime.h>

#define M 1000 /* rows need not be a multiple of any tile */
#define N 1024
#define K 2048

#define CHECK(call)                                                                     \
    do {                                                                                \
        croqsparse_status_t s_ = (call);                                                \
        if (s_ != CROQSPARSE_STATUS_SUCCESS) {                                          \
            fprintf(stderr, "%s: %s\n", croqsparse_status_string(s_), croqsparse_last_error()); \
            return 1;                                                                   \
        }                                                                               \
    } while (0)
#define CUDART(call)                                                                    \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                 \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

/* IEEE binary16 <-> float for the host side of the example (normal numbers only). */
static uint16_t to_half(float f)
{
    if (f == 0.0f)
        return 0;
    uint32_t s = f < 0, e;
    float a = fabsf(f);
    int ex;
    float m = frexpf(a, &ex); /* a = m * 2^ex, m in [0.5, 1) */
    e = (uint32_t)(ex + 14);
    uint32_t mant = (uint32_t)lrintf((m * 2.0f - 1.0f) * 1024.0f);
    if (mant == 1024) {
        mant = 0;
        e++;
    }
    return (uint16_t)(s << 15 | e << 10 | mant);
}

static float from_half(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e ? ldexpf(1.0f + m / 1024.0f, e - 15) : ldexpf(m / 1024.0f, -14);
    return h >> 15 ? -v : v;
}

int main(void)
{
    croqsparse_handle_t h;
    croqsparse_plan_t plan;
    croqsparse_plan_info info;
    cudaStream_t stream; /* a CUstream */
    void *d_a, *d_vals, *d_meta, *d_b, *d_c;
    uint16_t *a = malloc((size_t)M * K * 2), *b = malloc((size_t)N * K * 2), *c = malloc((size_t)M * N * 2);
    for (long i = 0; i < (long)M * K; i++)
        a[i] = to_half((float)((i * 7919) % 17 - 8) / 8.0f);
    for (long i = 0; i < (long)N * K; i++)
        b[i] = to_half((float)((i * 104729) % 13 - 6) / 8.0f);

    /* Loads the driver and uses device 0's primary context, the one the runtime uses. */
    croqsparse_status_t s = croqsparse_create(&h, 0);
    if (s == CROQSPARSE_STATUS_NO_DEVICE) {
        /* No driver, no device 0, or not Hopper: an application falls back here. */
        fprintf(stderr, "%s: %s\n", croqsparse_status_string(s), croqsparse_last_error());
        return 2;
    }
    CHECK(s);
    CUDART(cudaSetDevice(0));
    CUDART(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDART(cudaMalloc(&d_a, (size_t)M * K * 2));
    CUDART(cudaMalloc(&d_vals, croqsparse_values_bytes(CROQSPARSE_F16, M, K)));
    CUDART(cudaMalloc(&d_meta, croqsparse_meta_bytes(M, K)));
    CUDART(cudaMalloc(&d_b, (size_t)N * K * 2));
    CUDART(cudaMalloc(&d_c, (size_t)M * N * 2));
    CUDART(cudaMemcpy(d_a, a, (size_t)M * K * 2, cudaMemcpyHostToDevice));
    CUDART(cudaMemcpy(d_b, b, (size_t)N * K * 2, cudaMemcpyHostToDevice));

    /* The five lines an application needs (README): prune + compress the weight once,
     * plan once per shape, then matmul as often as needed. */
    CHECK(croqsparse_prune(h, CROQSPARSE_F16, M, K, d_a, d_a, stream));
    CHECK(croqsparse_compress(h, CROQSPARSE_F16, M, K, d_a, d_vals, d_meta, stream));
    CHECK(croqsparse_plan_create(h, &plan, CROQSPARSE_F16, M, N, K, CROQSPARSE_EPILOGUE_ALPHA, 1.0f));
    CHECK(croqsparse_matmul(plan, d_vals, d_meta, d_b, d_c, NULL, NULL, stream));
    CUDART(cudaStreamSynchronize(stream));

    CHECK(croqsparse_plan_describe(plan, &info));
    printf("kernel %s (%s match), tuned to %.1f TFLOPS; %s\n", info.key, info.match, info.tuned_tflops, info.source);
    CUDART(cudaMemcpy(a, d_a, (size_t)M * K * 2, cudaMemcpyDeviceToHost)); /* the pruned weight */
    CUDART(cudaMemcpy(c, d_c, (size_t)M * N * 2, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int t = 0; t < 64; t++) {
        long i = (t * 331) % M, j = (t * 577) % N;
        double want = 0, mag = 0;
        for (long k = 0; k < K; k++) {
            double x = from_half(a[i * K + k]) * from_half(b[j * K + k]);
            want += x;
            mag += fabs(x);
        }
        double got = from_half(c[i * N + j]);
        if (fabs(got - want) > 1e-3 * mag + 1e-2 * fabs(want) + 1e-3)
            bad++, fprintf(stderr, "C[%ld][%ld] = %g, want %g\n", i, j, got, want);
    }
    printf("%s: %d of 64 sampled elements wrong\n", bad ? "FAIL" : "ok", bad);
    croqsparse_plan_destroy(plan);
    croqsparse_destroy(h);
    cudaFree(d_a), cudaFree(d_vals), cudaFree(d_meta), cudaFree(d_b), cudaFree(d_c);
    cudaStreamDestroy(stream);
    free(a), free(b), free(c);
    return bad ? 1 : 0;
}
