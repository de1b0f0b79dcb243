/* src/launch/launch.h — loading a kernel module, its tensor maps and its launch: the one
 * launch path that croq-runner and the croqsparse library share (kernels/abi.h is the
 * contract it implements).
 *
 * Flow: kl_module_load_{file,image} reads and checks `croq_abi`; kl_prepare derives the
 * grid from it and encodes the tensor maps it asks for; kl_bind copies the prepared
 * parameter block and points it at the caller's buffers (cuTensorMapReplaceAddress, so no
 * re-encoding); kl_launch enqueues one launch on a stream. Nothing here allocates device
 * memory, synchronizes, or touches the NULL stream: workspace (split-K) is the caller's.
 *
 * Errors: every function returns 0, or -1 after filling *e (status + one-line message
 * naming the ABI field, tensor map or driver call, "file:line: call: CUDA_ERROR_... (text)"
 * for driver failures). e may not be NULL.
 * Thread-safety: functions touch only their arguments; a prepared kl_launch may be bound
 * and launched from several threads at once (kl_bind writes only its output). The
 * current CUDA context must be the one the module was loaded in.
 * The driver: reached through driver.h's table, loaded at run time, so nothing that
 * links this module needs libcuda to link or start. kl_module_load_* and kl_cu_text load
 * it; the other functions take a module or launch that exists only once it is loaded.
 * Without a driver (no libcuda.so.1, or one without an entry) kl_module_load_* is
 * KL_NO_DRIVER with kl_driver_error()'s text. Not part of the tuner's host library (croq),
 * which never reaches the driver.
 */
#ifndef CROQ_LAUNCH_LAUNCH_H
#define CROQ_LAUNCH_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "abi.h"

enum kl_status {
    KL_OK = 0,
    KL_BAD_MODULE,        /* unloadable module, bad ABI record, impossible resources */
    KL_UNSUPPORTED_SHAPE, /* the shape breaks a rule of this module (K % tile_k*split_k) */
    KL_LAUNCH_ERROR,      /* the driver refused a launch or an occupancy query */
    KL_NO_DRIVER,         /* the CUDA driver could not be loaded (driver.h) */
};

struct kl_error {
    enum kl_status status;
    char msg[1024];
};

/* "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access ...)" into buf; returns buf.
 * Without a driver (or with the stub) the number, "CUresult 34 (...)". */
const char *kl_cu_text(CUresult rc, char *buf, size_t len);

/* A loaded kernel module. */
struct kl_module {
    CUmodule mod;
    CUfunction fn;
    struct croq_kernel_abi abi;
    int regs;        /* registers per thread (CU_FUNC_ATTRIBUTE_NUM_REGS) */
    int local_bytes; /* local memory per thread: spills (..._LOCAL_SIZE_BYTES) */
    int max_threads; /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (launch bounds) */
    /* The identity the build gave the module (kernels/module_id.h): 16 lowercase hex
     * digits, or "" when the module carries none (built before the id existed, or not by
     * croqtuner's build). A symbol of that name that is not a well-formed id makes the
     * module KL_BAD_MODULE: something other than the build wrote it. */
    char module_id[CROQ_MODULE_ID_HEX + 1];
};

/* Load a cubin file (path) or an in-memory cubin/fatbin image (image, named `name` in
 * messages), read croq_abi, check it against want_dtype (-1: any) and the ABI rules,
 * set the function's dynamic shared-memory limit. KL_BAD_MODULE on failure, with *m
 * unloaded. */
int kl_module_load_file(const char *path, int want_dtype, struct kl_module *m, struct kl_error *e);
int kl_module_load_image(const void *image, const char *name, int want_dtype, struct kl_module *m,
                         struct kl_error *e);
/* K must be a multiple of tile_k x split_k; KL_UNSUPPORTED_SHAPE otherwise. The
 * format's own shape rules (knobs/knobs.h shape_validate) are the caller's. */
int kl_module_check_k(const struct kl_module *m, long k, struct kl_error *e);
void kl_module_unload(struct kl_module *m); /* idempotent */

/* The operands of one product C[M,N] = A[M,K] . B[N,K]^T (layouts: kernels/abi.h).
 * Device pointers may be 0 at kl_prepare (a placeholder is encoded; kl_bind sets the
 * real ones). */
struct kl_operands {
    int dtype;                   /* enum croq_dtype */
    long m, n, k;
    CUdeviceptr a_values, meta, b, c;
    /* Epilogue (croq_gemm_args, ABI 2): alpha, and f32 scale vectors [M] and [N] or 0. */
    float alpha;
    CUdeviceptr scale_a, scale_b;
};

/* A prepared launch: geometry and encoded tensor maps, reusable for every launch of
 * this module at this shape. */
struct kl_launch {
    CUfunction fn;
    struct croq_kernel_abi abi;  /* the module's, so kl_bind knows which maps exist */
    unsigned grid[3], block, smem, cluster;
    /* CTAs that can be resident at once (cuOccupancyMaxActiveClusters x cluster size, or
     * blocks per SM x SM count without a cluster); -1 if the driver would not say. */
    int resident_ctas;
    long tiles_m, tiles_n;
    long k_iters; /* K / tile_k: the k tiles of one output tile (stream-K's grid) */
    /* workspace_bytes_per_tile x tiles (split-K) or x grid[0] (stream-K, ABI persistent=2):
     * what the caller must allocate, zero once, and pass to kl_bind (0: none needed). The
     * kernels leave it zeroed when a launch completes, so launches on one stream reuse it
     * with no memset between them; launches sharing it must not overlap, and after a launch
     * that faulted it must be zeroed again (kernels/parts/splitk_*.cuh). */
    size_t workspace_bytes;
    struct croq_gemm_args args;  /* maps encoded; pointers as given to kl_prepare */
};

/* Geometry from m's ABI on a device of sm_count SMs, and the tensor maps for o.
 * KL_UNSUPPORTED_SHAPE if the grid is too large, KL_BAD_MODULE if a map descriptor is
 * invalid or the driver will not encode it. */
int kl_prepare(const struct kl_module *m, int sm_count, const struct kl_operands *o,
               struct kl_launch *l, struct kl_error *e);
/* *args = l->args pointed at o's buffers and workspace (the shape must be l's). */
int kl_bind(const struct kl_launch *l, const struct kl_operands *o, CUdeviceptr workspace,
            struct croq_gemm_args *args, struct kl_error *e);
/* Enqueue one launch with args on stream s (asynchronous). KL_LAUNCH_ERROR if refused. */
int kl_launch(const struct kl_launch *l, const struct croq_gemm_args *args, CUstream s,
              struct kl_error *e);

#endif
