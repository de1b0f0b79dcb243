/* croqsparse.h — 2:4 structured-sparse GEMM on NVIDIA Hopper (sm_90a) with the kernels
 * croqtuner tuned. The one public header of libcroqsparse (static and shared).
 *
 * Operation: C[M,N] = alpha * (A[M,K] . B[N,K]^T), A 2:4 sparse along K; for e4m3 also
 * C[i][j] *= scale_a[i] * scale_b[j] (dequantization). Products accumulate in f32; C is
 * f16, rounded once after scaling.
 *
 * Layouts (row-major, innermost dimension contiguous, no padding between rows):
 *   dense A    [M][K]        dtype   f16 as IEEE binary16, e4m3 as OCP FP8 E4M3 bytes
 *   A values   [M][K/2]      dtype   the two kept elements of every group of 4 along K
 *   A metadata (croqsparse_meta_bytes) the kernels' "wgmma order"; opaque to callers
 *   B          [N][K]        dtype   ("K-major": the weight-stationary A times B^T)
 *   C          [M][N]        f16
 *   scale_a    [M], scale_b [N]  f32
 * Shape rules: 1 <= M, N, K <= 1048576, K % 64 == 0, N % 8 == 0 (M is free: a shape need
 * not be a multiple of any tile). Every device pointer must be 16-byte aligned.
 *
 * Errors: every function returns a croqsparse_status_t; on failure the calling thread's
 * croqsparse_last_error() says what and where ("croqsparse_plan_create: K=100 ...").
 * Every function checks its arguments in one order and reports the first that fails:
 *   1. a NULL handle, plan, output pointer or buffer           INVALID_VALUE
 *   2. a value out of range: a dtype or epilogue not in its enum, a non-finite alpha, a
 *      dimension below 1 (M = -1, K = 0)                         INVALID_VALUE
 *   3. a shape rule: a dimension above 1048576, K % 64, N % 8 (prune, validate: K % 4),
 *      ALPHA_SCALES with f16                                     NOT_SUPPORTED
 *   4. misaligned pointers (matmul)                              INVALID_VALUE
 *   5. the device, the driver, the pack, the data              the other statuses
 * so a NULL handle is INVALID_VALUE whatever the shape.
 * Lifetimes: the asynchronous calls (prune, compress, matmul) only enqueue work; every
 * buffer they are given (and the plan, and the handle) must stay allocated and unchanged
 * by the host until that work has completed on its stream (cuStreamSynchronize, an event):
 * nothing is copied at the call.
 * Thread-safety: a handle may be used from several threads at once. A plan may be used by
 * several threads, but its matmuls must not run concurrently on different streams when
 * its kernel uses a split-K workspace (croqsparse_plan_info.workspace_bytes > 0), and
 * croqsparse_plan_search changes it (nothing else may use it meanwhile; see there).
 * CUDA: the library uses the driver API on the device's primary context (the one the CUDA
 * runtime uses); device pointers from cudaMalloc or cuMemAlloc both work; a CUstream is a
 * cudaStream_t. Nothing is compiled at run time.
 * Without a driver: the library links no libcuda; it loads the driver (dlopen of
 * libcuda.so.1, the library the NVIDIA driver installs, as the CUDA runtime does) at the
 * first croqsparse_create, once per process. So a program linked to it (shared or static)
 * starts on a machine without a driver, croqsparse_create returns NO_DEVICE and
 * croqsparse_last_error() says why ("cannot load the CUDA driver: libcuda.so.1: cannot
 * open shared object file: ..."), and the program can take another path. The functions
 * that take no handle or plan (status strings, version, sizes, *_host) never reach the
 * driver and work without one.
 */
#ifndef CROQSPARSE_H
#define CROQSPARSE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CROQSPARSE_API __attribute__((visibility("default")))
/* The version of this header; croqsparse_version() gives the linked library's. Minor
 * versions add (1.1: CROQSPARSE_STATUS_NAN, croqsparse_version; 1.2:
 * croqsparse_plan_search, _candidates and _select, dispatch by the pack's cost model; 1.3:
 * CROQSPARSE_SEARCH_ROUNDS, the search interleaves its candidates; 1.4:
 * CROQSPARSE_SEARCH_WARMUP_MS, the search warms the GPU up to its steady clock first and
 * times 8 rounds in a balanced order; a configuration the pack holds for several shapes
 * is one candidate; 1.5: CROQSPARSE_SEARCH_FINALISTS, the search's near-ties race again
 * in longer trials); a major one would change the ABI (the shared library's soname,
 * libcroqsparse.so.1). */
#define CROQSPARSE_VERSION_MAJOR 1
#define CROQSPARSE_VERSION_MINOR 5
#define CROQSPARSE_VERSION (CROQSPARSE_VERSION_MAJOR * 1000 + CROQSPARSE_VERSION_MINOR)

typedef enum {
    CROQSPARSE_STATUS_SUCCESS = 0,
    CROQSPARSE_STATUS_INVALID_VALUE = 1,   /* a NULL, misaligned or out-of-range argument (M < 1) */
    CROQSPARSE_STATUS_NOT_SUPPORTED = 2,   /* a positive shape the rules exclude, or a dtype/epilogue combination */
    CROQSPARSE_STATUS_NOT_SPARSE = 3,      /* input breaks 2:4 (validate: the first group) */
    CROQSPARSE_STATUS_NO_DEVICE = 4,       /* no driver, no such device, or not sm_90 */
    CROQSPARSE_STATUS_CUDA_ERROR = 5,      /* a driver call failed (the message names it) */
    CROQSPARSE_STATUS_OUT_OF_MEMORY = 6,   /* host or device allocation failed */
    CROQSPARSE_STATUS_INVALID_PACK = 7,    /* a kernel pack that does not parse */
    CROQSPARSE_STATUS_PACK_MISMATCH = 8,   /* a pack made for another GPU model or CUDA major */
    CROQSPARSE_STATUS_NO_KERNEL = 9,       /* no kernel of the pack runs this shape */
    CROQSPARSE_STATUS_NAN = 10,            /* prune_host: the input holds a NaN (no magnitude to rank; 1.1) */
} croqsparse_status_t;

typedef enum { CROQSPARSE_F16 = 0, CROQSPARSE_E4M3 = 1 } croqsparse_dtype_t;

typedef enum {
    CROQSPARSE_EPILOGUE_ALPHA = 0,        /* C = alpha * (A B^T) */
    CROQSPARSE_EPILOGUE_ALPHA_SCALES = 1, /* e4m3 only: C[i][j] = alpha * scale_a[i] * scale_b[j] * (A B^T)[i][j] */
} croqsparse_epilogue_t;

typedef struct croqsparse_handle *croqsparse_handle_t;
typedef struct croqsparse_plan *croqsparse_plan_t;

/* "success", "invalid value", ...: a constant string for every status (unknown: "unknown status"). */
CROQSPARSE_API const char *croqsparse_status_string(croqsparse_status_t s);
/* The calling thread's message about its last failed call ("" if none). Valid until the
 * thread's next croqsparse call. */
CROQSPARSE_API const char *croqsparse_last_error(void);
/* The linked library's version, CROQSPARSE_VERSION_MAJOR * 1000 + CROQSPARSE_VERSION_MINOR
 * as it was built (1003 for 1.3): compare with the header's CROQSPARSE_VERSION to find an
 * application running on an older library than it was compiled with. Never fails. */
CROQSPARSE_API int croqsparse_version(void);

/* ---- handle ------------------------------------------------------------------------- */

/* A handle for CUDA device `device` (ordinal): loads the driver (once per process; see
 * "Without a driver" above), retains the device's primary context, loads the compression
 * kernels and the default kernel pack built into the library (tuned on the GPU it names;
 * on another GPU model its tuned kernels still run but are ranked as untuned ones, none
 * taken as an exact match, since their speeds and the shapes they were tuned for are that
 * GPU's; on another CUDA major version only its fallback kernels run; croqsparse_plan_describe
 * says which in `note`). NO_DEVICE if the driver
 * cannot be loaded (no libcuda.so.1, or one too old to have an entry the library calls:
 * the message names the library or the entry), is only the toolkit's stub
 * (CUDA_ERROR_STUB_LIBRARY), or the device is missing or not compute capability 9.0. */
CROQSPARSE_API croqsparse_status_t croqsparse_create(croqsparse_handle_t *handle, int device);
/* Replace the handle's pack with the file at path (written by `croqtuner export`). The
 * pack must name this GPU model and the driver's CUDA major version: PACK_MISMATCH
 * otherwise (the old pack stays). Plans made before keep their kernels. */
CROQSPARSE_API croqsparse_status_t croqsparse_load_pack(croqsparse_handle_t handle, const char *path);
/* Destroy after every plan of the handle is destroyed and its work is done. NULL is fine. */
CROQSPARSE_API croqsparse_status_t croqsparse_destroy(croqsparse_handle_t handle);

/* ---- the sparse format ---------------------------------------------------------------- */

/* Bytes of the packed values ([M][K/2] elements) and of the metadata of an M x K A.
 * 0 for arguments that break the shape rules (K % 64 != 0, M or K out of range). */
CROQSPARSE_API size_t croqsparse_values_bytes(croqsparse_dtype_t dtype, long m, long k);
CROQSPARSE_API size_t croqsparse_meta_bytes(long m, long k);

/* Host: dense [M][K] -> 2:4 dense [M][K] (out may equal dense): per group of 4 the two
 * largest magnitudes keep their bits (ties: lower index), the others become +0.
 * K % 4 == 0. NAN if the input holds a NaN (the message names its groups; out is not
 * written). */
CROQSPARSE_API croqsparse_status_t croqsparse_prune_host(croqsparse_dtype_t dtype, long m, long k,
                                                         const void *dense, void *out);
/* Host: 2:4 dense [M][K] -> values + metadata (sizes above). K % 64 == 0. NOT_SPARSE if a
 * group has more than two non-zeros (+0 is zero, -0 is not). */
CROQSPARSE_API croqsparse_status_t croqsparse_compress_host(croqsparse_dtype_t dtype, long m, long k,
                                                            const void *dense, void *values, void *meta);
/* Host: whether dense [M][K] is 2:4. SUCCESS, or NOT_SPARSE with *bad_row and *bad_group
 * (elements [4*group, 4*group+4) of that row) naming the first offending group in
 * row-major order; both may be NULL. K % 4 == 0. */
CROQSPARSE_API croqsparse_status_t croqsparse_validate_host(croqsparse_dtype_t dtype, long m, long k,
                                                            const void *dense, long *bad_row, long *bad_group);

/* Device, asynchronous on stream (nothing allocated, nothing synchronized): the same as
 * the host versions, bit for bit on valid input. They cannot report data errors: prune
 * keeps a NaN as the largest magnitude, compress of a group with more than two non-zeros
 * stores its pruned form. Prune: K % 4 == 0; compress: K % 64 == 0. */
CROQSPARSE_API croqsparse_status_t croqsparse_prune(croqsparse_handle_t handle, croqsparse_dtype_t dtype,
                                                    long m, long k, const void *dense, void *out,
                                                    CUstream stream);
CROQSPARSE_API croqsparse_status_t croqsparse_compress(croqsparse_handle_t handle, croqsparse_dtype_t dtype,
                                                       long m, long k, const void *dense, void *values,
                                                       void *meta, CUstream stream);

/* ---- plans and the product -------------------------------------------------------------- */

/* A plan for (dtype, M, N, K, epilogue, alpha): chooses the kernel, loads it, encodes its
 * tensor maps and allocates and zeroes its workspace, once. Synchronous. The choice ranks
 * the pack's kernels whose configuration is valid for this shape: the entry tuned at this
 * exact shape (only on the GPU model the pack was tuned on: see croqsparse_create); else,
 * when the pack carries a cost
 * model (`croqtuner export` fits one on the tuning rows), every valid kernel, the
 * fallbacks too, by its predicted TFLOPS (match "model"); else the nearest tuned shape
 * (sum over M, N, K of |log2 ratio|; match "nearest"), then the fallback. The model is
 * read from the pack once, at croqsparse_create / croqsparse_load_pack; a plan costs one
 * prediction per pack entry (microseconds). NOT_SUPPORTED for shapes that break the rules
 * above or ALPHA_SCALES with f16; NO_KERNEL if the pack has nothing for the shape. */
CROQSPARSE_API croqsparse_status_t croqsparse_plan_create(croqsparse_handle_t handle, croqsparse_plan_t *plan,
                                                          croqsparse_dtype_t dtype, long m, long n, long k,
                                                          croqsparse_epilogue_t epilogue, float alpha);
/* C = epilogue(A B^T) for the plan's shape, enqueued on stream: asynchronous, allocates
 * nothing, synchronizes nothing, enqueues nothing but the kernel (no host callback), so
 * it may be captured into a CUDA graph (stream capture; checked in the global mode by
 * tests/gpu/library.sh): the graph's kernel node holds the buffers given at capture, and
 * the plan must outlive the graph. Its host work is the argument checks, a context push
 * when the handle's is not current, and rewriting the addresses in a copy of the plan's
 * tensor maps. a_values and meta as croqsparse_compress wrote them; B,
 * C as above; scale_a [M] and scale_b [N] f32 device vectors with ALPHA_SCALES, NULL
 * otherwise. INVALID_VALUE for a NULL or misaligned pointer; CUDA_ERROR if the launch is
 * refused. A kernel fault surfaces at the caller's next synchronization. */
CROQSPARSE_API croqsparse_status_t croqsparse_matmul(croqsparse_plan_t plan, const void *a_values, const void *meta,
                                                     const void *b, void *c, const float *scale_a,
                                                     const float *scale_b, CUstream stream);

/* Every string is NUL-terminated. key and config always fit (the pack format limits
 * them to these sizes); source and note are cut to fit when a pack names a very long GPU
 * or driver (they are for people: nothing parses them). */
typedef struct {
    char key[96];          /* the tuned shape's key ("f16_4096x8192x8192"), or "fallback" */
    char config[512];      /* the kernel's knob signature (`croqtuner knobs`) */
    double tuned_tflops;   /* what it measured at its tuned shape (0 for a fallback); of the
                              source named in `source`, which may be older than this cubin's */
    long tuned_m, tuned_n, tuned_k;
    char match[16];        /* "exact", "model", "nearest", "fallback", "search" (after
                              croqsparse_plan_search timed it, or took it from its cache),
                              or "selected" (croqsparse_plan_select) */
    char source[256];      /* where the kernel came from: pack GPU, CUDA, driver, source hash,
                              and "tuned as <hash>" when the measured source was another
                              (export regenerated it with newer kernel sources) */
    char note[512];        /* why the pack's tuned kernels are not used or are ranked as
                              untuned (a pack of another GPU model or CUDA major), and/or
                              why its cost model is not used, else "" (cut at 511 bytes) */
    size_t workspace_bytes;
} croqsparse_plan_info;

/* ---- plan-time search (opt-in) ---------------------------------------------------------- */

/* At most this many candidates are timed, after a warm-up of this many milliseconds of
 * their launches, in this many interleaved rounds of one trial each; a trial lasts up to
 * this many milliseconds (1.2 timed each candidate in 3 trials of 10 ms one after the
 * other; 1.3 interleaved 5 rounds without a warm-up; see croqsparse_plan_search). The
 * warm-up is the time the SM clock takes to leave its boost under the power cap (~100 ms
 * of sustained load: the warm-up samples of results/h100/library/library-2.jsonl.gz, an
 * H100, 2026-12-07), with a margin. */
#define CROQSPARSE_SEARCH_MAX 8
#define CROQSPARSE_SEARCH_WARMUP_MS 150.0
#define CROQSPARSE_SEARCH_ROUNDS 8
#define CROQSPARSE_SEARCH_TRIAL_MS 6.0
/* The final: the candidates whose median is within this fraction of the fastest one's (at
 * most this many, the fastest first) race again in this many rounds of trials of this many
 * milliseconds, and the fastest of the final is kept. Why: under the power cap a kernel's
 * own draw sets its clock only over tens of milliseconds of its launches, so a 6 ms trial
 * runs partly at the clock its predecessor left; the 20 ms trial is the oracle's
 * condition. On the H100 (2026-12-07, results/h100/library/library-4*), e4m3
 * 12288x12288x8192: a kernel timed 0.7 % faster than the best in 6 ms trials (twice) was
 * 11-14 % slower in 20 ms ones, as in the oracle's rounds; the search kept it once
 * (0.87 of the oracle's best). */
#define CROQSPARSE_SEARCH_FINALISTS 3
#define CROQSPARSE_SEARCH_FINAL_WITHIN 0.05
#define CROQSPARSE_SEARCH_FINAL_ROUNDS 6
#define CROQSPARSE_SEARCH_FINAL_TRIAL_MS 20.0

/* What croqsparse_plan_search did. Strings NUL-terminated (cut to fit). */
typedef struct {
    int timed;             /* candidates timed (0: the choice came from the cache) */
    int from_cache;        /* 1: the plan cache's choice was taken, nothing was timed */
    double best_us;        /* the kept kernel's median microseconds per product (its final's
                              when there was one; the cache's number when from_cache) */
    struct {
        char key[96];      /* as croqsparse_plan_info.key */
        char config[512];
        double us;         /* median microseconds per product: a finalist's in the final's
                              longer trials, another's in the first rounds (the cache's
                              number when from_cache); 0: skipped (note says why) */
    } candidate[CROQSPARSE_SEARCH_MAX]; /* in the order tried: the plan's kernel, then its
                              ranking (see plan_create); key "" past the last */
    char note[512];        /* a warning ("plan cache '...' line 3: ... ignored"), or "" */
} croqsparse_search_info;

/* Opt-in plan-time search, as cusparseLtMatmulSearch: times the plan's top-ranked
 * candidates (at most 8: its current kernel first, then the ranking plan_create used) on
 * the caller's operands, in this process, and keeps the fastest in the plan
 * (croqsparse_plan_describe's match then reads "search"). Operands as croqsparse_matmul
 * takes them; C is never written: every candidate writes a scratch output the search
 * allocates (M x N f16) and frees.
 * Cost: synchronous. Per candidate: its module loaded (cuModuleLoadData), tensor maps
 * encoded, a split-K workspace allocated if it needs one (all candidates stay loaded
 * until the search ends) and launched once to size a trial (as many launches as fit in
 * CROQSPARSE_SEARCH_TRIAL_MS, at least one, at most 200); then a warm-up in which the
 * candidates run such trials in turn until CROQSPARSE_SEARCH_WARMUP_MS of them have run
 * (one pass at least: under the power cap the clock leaves its boost within the first
 * ~100 ms of load, and the kernel an application runs runs at the clock that follows);
 * then CROQSPARSE_SEARCH_ROUNDS rounds in which each candidate runs one trial, in the
 * Williams order (each candidate in each position, and after each other one, equally
 * often when 1, 2, 4 or 8 are timed; within one or two of that for other counts), and a
 * candidate's time is the median of its rounds; then the final: the candidates within
 * CROQSPARSE_SEARCH_FINAL_WITHIN of the fastest (at most CROQSPARSE_SEARCH_FINALISTS)
 * run CROQSPARSE_SEARCH_FINAL_ROUNDS more rounds in that order, each a trial of
 * CROQSPARSE_SEARCH_FINAL_TRIAL_MS (at least one launch, at most 1000), and the fastest by
 * its final median is kept (no final when one candidate is that close). About 150 ms +
 * 8 x 8 x 6 ms + 6 x 3 x 20 ms + a few ms of loading each = 0.9 s for a typical shape; a
 * kernel slower than a trial is launched once per trial. Allocates device memory and
 * synchronizes the stream.
 * cache_path (may be NULL: no cache): a plan cache file the caller names. A choice found
 * there for this GPU (cuDeviceGetName), driver (cuDriverGetVersion), pack (its checksum
 * and whether its kernels count as tuned on this GPU, croqsparse_create), dtype, shape,
 * epilogue and library version (CROQSPARSE_VERSION: another version's search is not
 * trusted) is taken without timing when the pack still has that kernel (an entry
 * of its configuration) for the shape; after a timed search the choice is written there (atomically: a process
 * killed while writing leaves the old file or the new, never a torn one). A damaged cache
 * file is not trusted at all: the search times, warns on stderr ("croqsparse: warning:
 * ...") and in info->note, and the write replaces the file; a path that names no plan cache
 * (a file whose first line is not the cache's, a FIFO, a device, a directory) is never
 * written (the note says why), and a symbolic link is written through. info may be NULL.
 * Errors (after those of the header's order and croqsparse_matmul's pointer checks):
 * NOT_SUPPORTED while the stream is being captured into a CUDA graph (cuStreamIsCapturing:
 * search before capturing; the plan then captures the chosen kernel); NO_DEVICE without a
 * usable driver or device (the stub, no libcuda.so.1); CUDA_ERROR if a launch fails (the
 * plan keeps its kernel); a candidate that cannot be loaded is skipped (info says why).
 * Thread-safety: the plan is changed: no other call may use it during the search, its
 * earlier matmuls (on any stream) must have completed, and a CUDA graph captured from it
 * before must not be launched after (its kernel's module is unloaded when another one is
 * kept). Other plans and the handle may
 * be used meanwhile; searches of several plans may share one cache file (threads of a
 * process write it one at a time). Two processes storing into one cache file at once
 * each leave a whole file; the later one's content wins. */
CROQSPARSE_API croqsparse_status_t croqsparse_plan_search(croqsparse_plan_t plan, const void *a_values,
                                                          const void *meta, const void *b, const float *scale_a,
                                                          const float *scale_b, CUstream stream,
                                                          const char *cache_path, croqsparse_search_info *info);

/* One kernel the plan may run (croqsparse_plan_candidates). */
typedef struct {
    char key[96];              /* as croqsparse_plan_info.key */
    char config[512];
    double tuned_tflops;       /* at its tuned shape (0 for a fallback) */
    long tuned_m, tuned_n, tuned_k;
    double predicted_tflops;   /* the pack's cost model's for the plan's shape; 0 without one */
} croqsparse_candidate_info;

/* The kernels of the handle's pack valid for the plan's shape, in the order plan_create
 * ranks them (its first is plan_create's pick), each configuration once (at its best
 * place: entries of one configuration tuned at several shapes are one kernel), as
 * cuBLASLt's heuristics list ranked algorithms: the first min(cap, count) into out, their number into *count (cap 0 and
 * out NULL: just the count). Host only, microseconds. NO_KERNEL if none. Thread-safe. */
CROQSPARSE_API croqsparse_status_t croqsparse_plan_candidates(croqsparse_plan_t plan, croqsparse_candidate_info *out,
                                                              int cap, int *count);
/* Make the plan run candidate `index` of croqsparse_plan_candidates (of the handle's pack
 * as it is now): loads its module, encodes its tensor maps, allocates its workspace; the
 * plan's match then reads "selected". For measuring every candidate (an oracle) or
 * keeping a choice made elsewhere. Synchronous. INVALID_VALUE for an index out of range;
 * NO_DEVICE, CUDA_ERROR, INVALID_PACK as plan_create. Thread-safety and graphs as
 * croqsparse_plan_search (the plan is changed). */
CROQSPARSE_API croqsparse_status_t croqsparse_plan_select(croqsparse_plan_t plan, int index);

/* What the plan runs. Never fails for a valid plan. */
CROQSPARSE_API croqsparse_status_t croqsparse_plan_describe(croqsparse_plan_t plan, croqsparse_plan_info *info);
/* Free the plan (its workspace too) once its matmuls are done. NULL is fine. */
CROQSPARSE_API croqsparse_status_t croqsparse_plan_destroy(croqsparse_plan_t plan);

#ifdef __cplusplus
}
#endif
#endif
