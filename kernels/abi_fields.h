/* kernels/abi_fields.h — the scalar fields of struct croq_kernel_abi (kernels/abi.h),
 * declared once as X-macros so the struct, the runner's JSON ("abi" object,
 * docs/runner-protocol.md) and the tuner's parser of that JSON (src/measure) cannot
 * drift apart. X(name, what) is expanded in this order, which is also the order of
 * the positional initializers in the kernels' `croq_abi`.
 *
 * CROQ_ABI_ID_FIELDS:     what the module is; checked, not reported.
 * CROQ_ABI_LAUNCH_FIELDS: the launch geometry; each is reported as abi.<name> by
 *                         `croq-runner run` and read back by the tuner.
 * CROQ_ABI_TAIL_FIELDS:   reported in derived form only (abi.workspace_bytes).
 * All fields are uint32_t. Plain C: included by host C11 and device CUDA C++.
 */
#ifndef CROQ_KERNELS_ABI_FIELDS_H
#define CROQ_KERNELS_ABI_FIELDS_H

#define CROQ_ABI_ID_FIELDS(X)                                                      \
    X(version, "CROQ_ABI_VERSION")                                                 \
    X(dtype, "enum croq_dtype of A and B")

#define CROQ_ABI_LAUNCH_FIELDS(X)                                                  \
    X(threads, "threads per CTA")                                                  \
    X(smem_bytes, "dynamic shared memory per CTA, bytes")                          \
    X(tile_m, "output rows per CTA tile")                                          \
    X(tile_n, "output columns per CTA tile")                                       \
    X(tile_k, "dense K per pipeline stage; the kernel needs K % tile_k == 0")      \
    X(split_k, "K partitions per output tile (1: none)")                           \
    X(persistent, "1: grid = SM count x ctas_per_sm, CTAs loop over tiles; 2: stream-K") \
    X(cluster_m, "CTA cluster extent along M (1: no cluster)")                     \
    X(cluster_n, "CTA cluster extent along N")

#define CROQ_ABI_TAIL_FIELDS(X)                                                    \
    X(workspace_bytes_per_tile, "f32 split-K partials + counters per tile (stream-K: per CTA), 0 if none")

#endif
