/* src/build/nvcc.h — compile one self-contained kernel source to a cubin for sm_90a and
 * check it statically: ptxas resource report (registers, spills, stack, static smem)
 * and the SASS (does it really issue sparse tensor-core MMA?).
 *
 * nvcc: path from opts.nvcc, else $CROQ_NVCC, else the CROQ_NVCC_DEFAULT compile
 * definition (CMake's CUDAToolkit_NVCC_EXECUTABLE), else "nvcc" on PATH. Command:
 *   nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -lineinfo
 *        -Xptxas -v,--warn-on-local-memory-usage,--warn-on-spills -include croq_module_id.h
 *        [-D...] -o kernel.cubin kernel.cu
 * (--warn-on-* are ptxas options, hence -Xptxas.) It runs in a private directory; every
 * check reads the private cubin, and the shared output <out_dir>/<name>.cubin is written
 * last, from those bytes, through a temp file renamed into place, so a reader never sees
 * half a cubin; like any compiler's output it is not fsynced (the build cache's copy is).
 * Two builds writing one output path still race for it (the last rename wins), so callers
 * that build concurrently give each source its own name (src/engine/speculate.c).
 *
 * Module identity (kernels/module_id.h): croq_module_id.h, written beside the source,
 * defines the device constant croq_module_id = "croq-module-id:<key>", so every cubin
 * carries the key of the bytes it was compiled from. A fresh cubin that does not carry
 * exactly its key (a compiler that ignored -include) fails the build (toolchain_failed)
 * and is never cached.
 *
 * Cache: key = FNV-1a 64 (src/util/hash.h) of a schema tag, `nvcc --version` output,
 * the flags and every byte of the source. A hit writes the cached cubin to the output
 * path and restores the recorded static check without running nvcc, once the cached
 * cubin is seen to carry exactly its key; an entry that carries another id or none
 * (another build's module filed under the key) is removed with a warning naming both
 * ids, and the source compiled afresh. The key does not cover files the source includes
 * with quotes: the source must be self-contained (codegen output is).
 *
 * SASS: `cuobjdump -sass` (path from $CROQ_CUOBJDUMP, else PATH, else the
 * CROQ_CUOBJDUMP_DEFAULT compile definition, else <exe>/../.deps or <exe>/../../.deps
 * pip copy; it needs nvdisasm next to it or on PATH). Sparse wgmma shows up as
 * `HGMMA.SP.<shape>.F32` (f16) and `QGMMA.SP.<shape>.F32.E4M3.E4M3` (e4m3) — checked
 * by compiling wgmma.mma_async.sp with nvcc 13.0 for sm_90a and disassembling with
 * cuobjdump 13.5 — so "sparse" = a *GMMA mnemonic with an `SP` dot-component. Dense
 * wgmma is the same mnemonic without `.SP`; HMMA is the legacy mma.sync path.
 */
#ifndef CROQ_BUILD_NVCC_H
#define CROQ_BUILD_NVCC_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define BUILD_DEFAULT_TIMEOUT_S 600.0 /* the largest family variants take ~1-2 min on 2 cores */
#define BUILD_SASS_TIMEOUT_S 120.0
#define BUILD_ERROR_MAX 2048
#define BUILD_MNEMONICS_MAX 512

struct build_opts {
    const char *out_dir;        /* where <name>.cubin goes; NULL: the source's directory */
    const char *cache_dir;      /* NULL: $CROQ_CACHE_DIR, else $XDG_CACHE_HOME/croqtuner, else
                                   $HOME/.cache/croqtuner; "" disables the cache */
    const char *const *defines; /* "NAME=VALUE" / "NAME" passed as -D, NULL-terminated, or NULL */
    double timeout_s;           /* nvcc wall-clock limit, s; <= 0: BUILD_DEFAULT_TIMEOUT_S */
    bool no_sass;               /* skip the cuobjdump check */
    const char *nvcc;           /* NULL: see above */
    int notify_fd;              /* > 0: one byte is written here once the build holds the lock
                                   of its cache key or found it held by another build (either
                                   way a later build of the source waits for that one;
                                   src/engine/speculate.c waits for the byte) */
};

/* From ptxas -v, for the entry function croq_gemm_sp (CROQ_KERNEL_ENTRY), or the first
 * entry function when there is no such one. -1: not reported. */
struct build_ptxas {
    bool parsed;
    char function[128];
    int registers;
    int spill_store_bytes, spill_load_bytes;
    int stack_frame_bytes;
    int smem_bytes;             /* static shared memory; the kernel's dynamic smem is in croq_abi */
    int barriers;
    bool local_memory_warning;  /* ptxas warned about local memory in some function */
    bool spills;                /* some function spills registers or uses local memory */
    bool wgmma_serialized;      /* ptxas C7515: it serialized the wgmmas (no overlap between
                                   them), e.g. because registers a wgmma reads were redefined
                                   while it could still be in flight */
};

struct build_sass {
    bool checked;               /* cuobjdump ran; when false, note says why */
    char note[512];
    bool has_gmma;              /* any *GMMA instruction (HGMMA, QGMMA, ...) */
    bool has_sparse_gmma;       /* a *GMMA with the .SP modifier */
    int gmma_count, sparse_gmma_count;
    bool has_hmma;              /* legacy mma.sync tensor-core path (HMMA) */
    char mnemonics[BUILD_MNEMONICS_MAX]; /* distinct *GMMA mnemonics, space-separated */
    bool meta_hazard;           /* an instruction rewrites the metadata register of a sparse
                                   wgmma still in flight (build_sass_meta_hazard) */
    char hazard[256];           /* where, when meta_hazard */
};

/* Scan cuobjdump -sass text for an instruction that writes the metadata register of a
 * sparse wgmma before the WARPGROUP.DEPBAR that retires it (sass_hazard.c: the model and
 * its limits). True with the instruction described in where. */
bool build_sass_meta_hazard(const char *sass, char *where, size_t len);

struct build_result {
    bool ok;                    /* the cubin is at cubin_path */
    bool cache_hit;
    char cubin_path[PATH_MAX];
    char key[17];               /* cache key, hex */
    char module_id[17];         /* the identity the cubin carries (= key) when ok, else "" */
    char source_hash[17];       /* FNV-1a 64 (hex) of the exact source bytes compiled: the hash
                                   backend_hash_file and the engine's src_hash give the file */
    double compile_s;           /* nvcc wall time (0 on a cache hit) */
    struct build_ptxas ptxas;
    struct build_sass sass;
    char *log;                  /* nvcc's output (the ptxas report), malloc'd, never NULL after build_compile */
    char error[BUILD_ERROR_MAX];/* why not ok: nvcc's own error lines, truncated */
    bool toolchain_failed;      /* not ok because nvcc could not run (missing, killed, timed
                                   out), not because the source is wrong */
};

/* Compile src_path. nvcc runs in a fresh private directory on a copy of the source named
 * kernel.cu, with bare file names: nvcc passes its arguments to a shell internally, so
 * no path the user chose (with spaces, quotes, $(...)) ever reaches it.
 * Not thread-safe (it remembers `nvcc --version` per process): run
 * parallel builds as separate processes. Returns 0 with r->ok, or -1 with r->error (cannot read the source,
 * nvcc missing / failed / timed out with its message, cannot write the output). Spills
 * and a missing sparse MMA do not fail the build: they are in r->ptxas and r->sass for
 * the caller to judge. Release r with build_result_release either way. */
int build_compile(const char *src_path, const struct build_opts *o, struct build_result *r);
void build_result_release(struct build_result *r);

/* The static-check record: {"ok", "cache_hit", "cubin", "key", "module_id", "source_hash",
 * "compile_s", "ptxas": {...}, "sass": {...}, "error"}; with_log adds "log". New reference. */
json_t *build_result_json(const struct build_result *r, bool with_log);

/* Remove the cache entry of key (its .cubin and .json) under the key's lock: a module that
 * turned out not to be the key's (a measurement reported another identity). The cache
 * directory is o's (build_opts.cache_dir rules); 0, also when there is no entry or no
 * cache. A failure to remove is logged, not returned: the next hit is checked anyway. */
int build_cache_purge(const struct build_opts *o, const char *key);

/* The module identity in cubin bytes (kernels/module_id.h): 1 with the 16 hex digits in out
 * when bytes hold exactly one CROQ_MODULE_ID_PREFIX followed by exactly 16 lowercase hex
 * digits; 0 (out "") when they hold none; -1 (out "") when the marker is malformed or occurs
 * more than once. Pure; thread-safe. */
int build_module_id_scan(const void *bytes, size_t len, char out[17]);

/* Parsers, exposed for tests. */
void build_parse_ptxas(const char *log, const char *entry, struct build_ptxas *p);
void build_scan_sass(const char *sass, struct build_sass *s);
#endif
