/* runner/runner.h — types shared by the croq-runner files (one concern per file:
 * args, gpu, module, launch, data, reference, verify, timing, compare and the
 * vendor baselines). Every function returns 0, or -1 after recording the failure
 * with runner_fail (check.h). */
#ifndef CROQ_RUNNER_RUNNER_H
#define CROQ_RUNNER_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>
#include <jansson.h>

#include "abi.h"
#include "check.h"
#include "knobs/knobs.h"
#include "launch/launch.h"

enum ref_mode { REF_AUTO = 0, REF_CPU, REF_CUBLAS };

/* Command line (args.c). */
struct runner_opts {
    const char *cubin;        /* --cubin: kernel module file */
    const char *cubins;       /* --cubins: file listing one module path per line (suite) */
    struct croq_shape shape;  /* --shape MxNxK */
    bool have_shape;
    int dtype;                /* --dtype; -1 when not given (run takes the module's) */
    uint64_t seed;            /* --seed (default 1) */
    int warmup, iters, trials;/* --warmup 10 --iters 500 --trials 5 */
    int warmup_ms;            /* --warmup-ms 2000 (0 -> -1: no timed warm-up) */
    bool no_time;             /* --no-time: verify only */
    bool no_verify;           /* --no-verify (run): no reference, no verification (profiles) */
    bool scaled;              /* --scaled: epilogue with alpha and seeded scale vectors */
    enum ref_mode reference;  /* --reference auto|cpu|cublas */
    bool cold_l2;             /* --l2 cold (compare): timed over copies larger than the L2 (coldl2.h) */
    int device;               /* --device: CUDA ordinal */
    int slt_config;           /* --slt-config (compare): cuSPARSELt's "search" plan runs this algorithm
                                 configuration (CUSPARSELT_MATMUL_ALG_CONFIG_ID) instead of searching;
                                 -1 (default): cusparseLtMatmulSearch picks it */
    int slt_split_k;          /* --slt-split-k (compare, with --slt-config): its CUSPARSELT_MATMUL_SPLIT_K;
                                 -1: the library's value for that configuration */
};

/* Parse argv (argv[0] = the subcommand) into o. 0, or -1 with a bad_args failure. */
int args_parse(int argc, char **argv, struct runner_opts *o);

/* The device and its primary context (gpu.c). The primary context is the one the
 * CUDA runtime uses, so cuBLAS / cuSPARSELt see the same allocations as the driver
 * API calls here. */
struct gpu {
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;          /* every launch and library call goes here; a blocking
                                 stream, so it is ordered after the synchronous copies
                                 and memsets the runner issues on the NULL stream */
    int ordinal;              /* CUDA device ordinal */
    int sm_count;
    int cc_major, cc_minor;
    char name[128];
    char pci[32];             /* "0000:3b:00.0" */
    int nvml_index;           /* matching NVML device, -1 when NVML is unavailable */
};

int gpu_open(int ordinal, struct gpu *g);  /* no_gpu on failure */
/* Our kernels are sm_90a cubins: any other device is no_gpu with the reason. */
int gpu_require_sm90(const struct gpu *g);
void gpu_close(struct gpu *g);
/* Sets "gpu", "device" (and "sm_count", "pci_bus_id" when known), "driver" (NVML's
 * version string, null without NVML), "driver_cuda" (cuDriverGetVersion as "13.0"),
 * "built_with_cuda" and "commit" (src/util/version.h). */
json_t *gpu_json_identity(const struct gpu *g, json_t *out);
/* cuMemAlloc + record "out of memory for <what> (<bytes> B)" as internal_error. */
int gpu_alloc(CUdeviceptr *p, size_t bytes, const char *what);
void gpu_free(CUdeviceptr *p);

/* Kernel modules (module.c) over the shared launch module (src/launch/launch.h):
 * load path, read and check croq_abi against want_dtype (-1: any), set the dynamic
 * shared-memory limit; bad_module on failure. check_shape rejects shapes the module
 * cannot run (shape rules, K % (tile_k*split_k)). Unload with kl_module_unload. */
int module_load(const char *path, int want_dtype, struct kl_module *m);
int module_check_shape(const struct kl_module *m, const struct croq_shape *s);
/* Record a launch-module failure with the runner status it maps to; returns -1. */
int runner_fail_kl(const struct kl_error *e);

/* Host operands and their device copies (data.c). Sizes in elements unless noted. */
struct operands {
    int dtype;
    long m, n, k;
    size_t esz;               /* bytes per element */
    void *a_dense;            /* [M][K] dtype, pruned to 2:4 (what the product means) */
    void *a_values;           /* [M][K/2] dtype */
    uint32_t *meta_natural;   /* [M][K/32] */
    uint32_t *meta_wgmma;     /* [ceil(M/64)][K/64][128] */
    void *b;                  /* [N][K] dtype */
    CUdeviceptr d_values, d_meta, d_b; /* kernel inputs */
    CUdeviceptr d_a_dense;    /* vendor inputs (operands_upload_dense), else 0 */
    /* Epilogue (kernels/abi.h): C = alpha * scale_a[i] * scale_b[j] * (A B^T)[i][j].
     * alpha 1 and no vectors unless operands_scale ran. */
    float alpha;
    float *scale_a, *scale_b; /* [M], [N] f32, or NULL */
    CUdeviceptr d_scale_a, d_scale_b;
};

/* Seeded operands: A dense uniform in [-1,1] (f16) / [-2,2] (e4m3), pruned,
 * compressed, metadata reordered; B uniform in the same range. */
int operands_make(int dtype, const struct croq_shape *s, uint64_t seed, struct operands *o);
int operands_upload(const struct gpu *g, struct operands *o);       /* values, meta, B */
int operands_upload_dense(const struct gpu *g, struct operands *o); /* pruned dense A */
/* Give o a scaled epilogue: alpha 0.75, scale vectors uniform in [0.25, 2] from their own
 * stream (seed-derived, so A and B stay what the seed makes them); uploads them. */
int operands_scale(struct operands *o, uint64_t seed);
void operands_release(struct operands *o);

/* Reference C and |A||B| (reference.c), both [M][N] row-major, f64 (cpu) or
 * f32 (cublas, f32 accumulation on exact f16 products). */
struct reference {
    const char *method;       /* "cpu" or "cublas" */
    double *ref64, *abs64;    /* cpu */
    float *ref32, *abs32;     /* cublas */
};
int reference_compute(const struct gpu *g, const struct operands *o, enum ref_mode mode,
                      struct reference *r);
/* Apply o's epilogue factors to r (values and magnitudes alike). */
void reference_scale(const struct operands *o, struct reference *r);
void reference_release(struct reference *r);

/* Verification of one f16 C [M][N] on the device (verify.c). */
#define VERIFY_LIST 8
struct mismatch {
    long row, col;
    double got, want, tol;
};
struct verify_result {
    bool passed;
    long long checked, mismatches, nan_or_unwritten;
    double max_abs_err, max_err_over_tol;
    int listed;
    struct mismatch first[VERIFY_LIST];
};
/* Fill d_c (M*N f16) with the NaN pattern 0x7E00 so unwritten elements show. */
int verify_poison(const struct gpu *g, CUdeviceptr d_c, long m, long n);
/* Copy d_c back and compare every element with the reference. */
int verify_output(const struct gpu *g, CUdeviceptr d_c, const struct operands *o,
                  const struct reference *r, struct verify_result *v);
json_t *verify_json(const struct verify_result *v, const char *reference);

/* Our kernel's launch (launch.c): the shared module's prepared launch (geometry,
 * tensor maps at the operands' buffers), the runner's stream and the split-K workspace
 * it allocated and zeroed once. */
struct launch {
    struct kl_launch k;
    CUstream stream;
    CUdeviceptr workspace;
};
int launch_prepare(const struct gpu *g, const struct kl_module *m, const struct operands *o,
                   CUdeviceptr d_c, struct launch *l);
int launch_once(struct launch *l);  /* enqueue; launch_error if refused */
void launch_release(struct launch *l);
json_t *launch_abi_json(const struct kl_module *m, const struct launch *l);

#endif
