/* kernels/module_id.h — the identity a compiled kernel module carries.
 *
 * Injected by croqtuner's build (src/build/nvcc.c), never written in a kernel source:
 * nvcc is given `-include croq_module_id.h`, a header the build writes into its private
 * directory beside the source, holding
 *   extern "C" __device__ const char croq_module_id[CROQ_MODULE_ID_BYTES] =
 *       "croq-module-id:<16 lowercase hex digits: the build's cache key>";
 * The key is FNV-1a 64 over the build schema, `nvcc --version`, the flags and the source
 * bytes (src/build/nvcc.h), so the id names exactly what was compiled. The runner reads it
 * with cuModuleGetGlobal and reports it; the tuner refuses a measurement of a module whose
 * id is not the one it built; the build cache refuses an entry whose cubin carries another
 * key. It is not a member of croq_kernel_abi, so CROQ_ABI_VERSION is unchanged: an agent's
 * kernel gets it from the build like a generated one, and a module built before the id
 * existed (a kernel pack exported earlier) has no such symbol and reports an empty id.
 * Plain C: included by host C11 and device CUDA C++.
 */
#ifndef CROQ_KERNELS_MODULE_ID_H
#define CROQ_KERNELS_MODULE_ID_H

#define CROQ_MODULE_ID_SYMBOL "croq_module_id"
#define CROQ_MODULE_ID_PREFIX "croq-module-id:"
#define CROQ_MODULE_ID_HEX 16    /* hex digits of the id (the cache key, util/hash.h) */
#define CROQ_MODULE_ID_BYTES 32  /* the symbol's size: prefix (15) + 16 hex digits + NUL */

#endif
