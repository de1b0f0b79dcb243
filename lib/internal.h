/* lib/internal.h — what the files of libcroqsparse share (not installed).
 * handle.c: handle, context, pack identity; format.c: sizes, host and device 2:4;
 * plan.c: plans and matmul; error.c: status strings and the per-thread message.
 * The launch path is src/launch (shared with croq-runner), the pack format src/pack. */
#ifndef CROQSPARSE_INTERNAL_H
#define CROQSPARSE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "croqsparse.h"
#include "launch/launch.h"
#include "pack/pack.h"

/* Built into the library by CMake (cmake/embed_binary.cmake). */
extern const unsigned char croqsparse_compress_cubin[];
extern const size_t croqsparse_compress_cubin_size;
extern const unsigned char croqsparse_default_pack[];
extern const size_t croqsparse_default_pack_size;

struct croqsparse_handle {
    int device;
    CUdevice dev;
    CUcontext ctx;            /* the primary context, retained */
    int sm_count;
    char gpu[128];            /* cuDeviceGetName */
    int cuda_major;           /* CUDA major version the driver supports */
    CUdeviceptr placeholder;  /* 256 B: the address plans encode their tensor maps at
                                 before matmul points them at real buffers */
    CUmodule compress;        /* lib/compress.cu */
    CUfunction fn_groups, fn_meta; /* lib/compress.cu */
    pthread_mutex_t lock;     /* guards the pack fields below */
    struct pack pack;
    unsigned char *pack_bytes;/* the file's bytes (croqsparse_load_pack), NULL: embedded */
    bool use_tuned;           /* the pack names this GPU and CUDA major */
    char pack_note[512];      /* why its tuned kernels are not used, else "" */
};

struct croqsparse_plan {
    croqsparse_handle_t h;
    croqsparse_dtype_t dtype;
    long m, n, k;
    croqsparse_epilogue_t epilogue;
    float alpha;
    struct kl_module mod;
    struct kl_launch launch;
    CUdeviceptr workspace;
    croqsparse_plan_info info;
};

/* Record the calling thread's message ("<fn>: ...") and return s. */
croqsparse_status_t cs_fail(croqsparse_status_t s, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
croqsparse_status_t cs_fail_cu(const char *fn, CUresult rc, const char *call);
void cs_clear(void);

/* Make h's context current for the duration of a call; leave restores the caller's. */
croqsparse_status_t cs_enter(croqsparse_handle_t h, const char *fn, bool *pushed);
void cs_leave(bool pushed);

/* Whether pack p was made for another GPU model (cuDeviceGetName) or CUDA major version
 * than the driver's; note says which (handle.c). */
bool cs_pack_mismatch(const struct pack *p, const char *gpu, int cuda_major, char *note, size_t len);

/* The header's order of checks after the NULL pointers: cs_check_values is the dtype
 * and every dimension >= 1 (INVALID_VALUE); cs_check_shape is that, then the shape rules
 * (knobs/knobs.h shape_validate) as NOT_SUPPORTED for fn. */
croqsparse_status_t cs_check_values(const char *fn, croqsparse_dtype_t dtype, long m, long n, long k);
croqsparse_status_t cs_check_shape(const char *fn, croqsparse_dtype_t dtype, long m, long n, long k);

#define CS_CU(fn, call)                                      \
    do {                                                     \
        CUresult rc_ = (call);                               \
        if (rc_ != CUDA_SUCCESS)                             \
            return cs_fail_cu((fn), rc_, #call);             \
    } while (0)

#endif
