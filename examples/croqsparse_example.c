/* examples/croqsparse_example.c — compress a weight once, plan, run, check.
 *
 * C[M,N] = A[M,K] . B[N,K]^T with A a 2:4-pruned f16 weight: A is pruned and compressed
 * on the GPU, a plan is made once for the shape, the product runs asynchronously on a
 * stream, and a few elements of C are checked against a host dot product.
 * Build against the installed library: examples/CMakeLists.txt (find_package) or
 *   cc croqsparse_example.c $(pkg-config --cflags --libs croqsparse)
 * Run: ./croqsparse_example (needs an H100/H200-class GPU). Exit 0 when C matches.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <croqsparse.h>

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
#define CU(call)                                                                        \
    do {                                                                                \
        if ((call) != CUDA_SUCCESS) {                                                   \
            fprintf(stderr, "%s failed\n", #call);                                      \
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
    CUstream stream;
    CUdeviceptr d_a, d_vals, d_meta, d_b, d_c;
    uint16_t *a = malloc((size_t)M * K * 2), *b = malloc((size_t)N * K * 2), *c = malloc((size_t)M * N * 2);
    for (long i = 0; i < (long)M * K; i++)
        a[i] = to_half((float)((i * 7919) % 17 - 8) / 8.0f);
    for (long i = 0; i < (long)N * K; i++)
        b[i] = to_half((float)((i * 104729) % 13 - 6) / 8.0f);

    CHECK(croqsparse_create(&h, 0)); /* initializes the driver; uses device 0's primary context */
    CUcontext ctx;                   /* the same context for our own allocations (cudaMalloc would do) */
    CUdevice dev;
    CU(cuDeviceGet(&dev, 0));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CU(cuMemAlloc(&d_a, (size_t)M * K * 2));
    CU(cuMemAlloc(&d_vals, croqsparse_values_bytes(CROQSPARSE_F16, M, K)));
    CU(cuMemAlloc(&d_meta, croqsparse_meta_bytes(M, K)));
    CU(cuMemAlloc(&d_b, (size_t)N * K * 2));
    CU(cuMemAlloc(&d_c, (size_t)M * N * 2));
    CU(cuMemcpyHtoD(d_a, a, (size_t)M * K * 2));
    CU(cuMemcpyHtoD(d_b, b, (size_t)N * K * 2));

    /* The five lines an application needs (README): prune + compress the weight once,
     * plan once per shape, then matmul as often as needed. */
    CHECK(croqsparse_prune(h, CROQSPARSE_F16, M, K, (void *)d_a, (void *)d_a, stream));
    CHECK(croqsparse_compress(h, CROQSPARSE_F16, M, K, (void *)d_a, (void *)d_vals, (void *)d_meta, stream));
    CHECK(croqsparse_plan_create(h, &plan, CROQSPARSE_F16, M, N, K, CROQSPARSE_EPILOGUE_ALPHA, 1.0f));
    CHECK(croqsparse_matmul(plan, (void *)d_vals, (void *)d_meta, (void *)d_b, (void *)d_c, NULL, NULL, stream));
    CU(cuStreamSynchronize(stream));

    CHECK(croqsparse_plan_describe(plan, &info));
    printf("kernel %s (%s match), tuned to %.1f TFLOPS; %s\n", info.key, info.match, info.tuned_tflops, info.source);
    CU(cuMemcpyDtoH(a, d_a, (size_t)M * K * 2)); /* the pruned weight */
    CU(cuMemcpyDtoH(c, d_c, (size_t)M * N * 2));
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
    return bad ? 1 : 0;
}
