/* lib/internal.h — what the files of libcroqsparse share (not installed).
 * handle.c: handle, context, pack identity; format.c: sizes, host and device 2:4;
 * plan.c: plans and matmul; search.c: the plan-time search, the candidates, selecting one;
 * plancache.c: the search's cache file;
 * model.c: the pack's cost model as the ranking's predictor; error.c: status strings and
 * the per-thread message.
 * The launch path is src/launch (shared with croq-runner), the pack format src/pack. */
#ifndef CROQSPARSE_INTERNAL_H
#define CROQSPARSE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "croqsparse.h"
#include "launch/driver.h"
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
    int driver_version;       /* cuDriverGetVersion (13000 for CUDA 13.0) */
    CUdeviceptr placeholder;  /* 256 B: the address plans encode their tensor maps at
                                 before matmul points them at real buffers */
    CUmodule compress;        /* lib/compress.cu */
    CUfunction fn_groups, fn_meta; /* lib/compress.cu */
    pthread_mutex_t lock;     /* guards the pack fields below */
    struct pack pack;
    unsigned char *pack_bytes;/* the file's bytes (croqsparse_load_pack), NULL: embedded */
    enum pack_trust trust;    /* HERE: the pack names this GPU and CUDA major (handle.c) */
    char pack_note[512];      /* why its tuned kernels are not used or not trusted as
                                 tuned here, else "" */
    struct cs_model *model;   /* the pack's cost model (model.c), NULL: none */
    char model_note[512];     /* why the pack's model is not used, else "" */
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

/* The pointer checks croqsparse_matmul and croqsparse_plan_search share (after the NULL
 * ones): alignment, and scale vectors exactly when the plan's epilogue takes them. */
croqsparse_status_t cs_check_operands(const char *fn, croqsparse_plan_t p, const void *a_values, const void *meta,
                                      const void *b, const float *scale_a, const float *scale_b);
/* The kernels of h's pack for (dtype, s), best first, as pack_rank (with the pack's model
 * when it has one) into out[0..cap); the count, or -1 with why. Under h->lock. */
long cs_rank(croqsparse_handle_t h, croqsparse_dtype_t dtype, const struct croq_shape *s, long *out, size_t cap,
             enum pack_match *match, char *why, size_t whylen);
/* The plan search's finalists (lib/search.c; include/croqsparse.h says why): of n
 * candidates with first-round medians us[i] (> 0; 0 or less: not timed), those within
 * CROQSPARSE_SEARCH_FINAL_WITHIN of the fastest (us[i] <= fastest x (1 + within)), at most
 * CROQSPARSE_SEARCH_FINALISTS, fastest first (ties: the lower index first, the plan's
 * ranking), as indices into out; their count (0 when none was timed). Pure. */
int cs_search_finalists(const double *us, int n, int *out);
/* plan_info of p for entry e of pack pk, found as match ("exact", "search", ...), its note
 * the handle's (cs_handle_note). Caller holds p->h->lock. */
void cs_describe(struct croqsparse_plan *p, const struct pack *pk, const struct pack_entry *e, const char *match);

/* The pack's model section parsed (model.c): NULL and a reason in why when it does not
 * parse (the pack is then used without it). cs_model_predict is a pack_predict_fn. */
struct cs_model;
struct cs_model *cs_model_load(const struct pack *p, char *why, size_t whylen);
void cs_model_free(struct cs_model *m);
double cs_model_predict(const void *model, const struct croq_config *cfg, const struct croq_shape *s);

/* The plan cache (plancache.c owns its format). */
struct cs_cache_choice {
    char key[PACK_KEY_MAX];   /* the pack entry's key ("-": a fallback) */
    char config[CROQ_SIG_MAX];
    double us;                /* the search's median microseconds */
};
enum cs_cache_result { CS_CACHE_HIT, CS_CACHE_MISS, CS_CACHE_DAMAGED };
#define CS_CACHE_KEY_MAX 512
void cs_plancache_key(char *out, size_t len, const char *gpu, int driver, const char *pack_sum,
                      enum pack_trust trust, croqsparse_dtype_t dtype, long m, long n, long k,
                      croqsparse_epilogue_t epi);
/* HIT with *out, MISS (no file, or no line of key), or DAMAGED with note (the whole file
 * is then ignored). */
enum cs_cache_result cs_plancache_lookup(const char *path, const char *key, struct cs_cache_choice *out, char *note,
                                         size_t len);
/* Store choices ch[i] under keys[i] (replacing lines of those keys, keeping the others;
 * a damaged file is replaced), atomically. 0, or -1 with err. */
int cs_plancache_store(const char *path, const char *const *keys, const struct cs_cache_choice *ch, size_t n,
                       char *err, size_t len);

/* Record the calling thread's message ("<fn>: ...") and return s. */
croqsparse_status_t cs_fail(croqsparse_status_t s, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
croqsparse_status_t cs_fail_cu(const char *fn, CUresult rc, const char *call);
void cs_clear(void);

/* Make h's context current for the duration of a call; leave restores the caller's. */
croqsparse_status_t cs_enter(croqsparse_handle_t h, const char *fn, bool *pushed);
void cs_leave(bool pushed);

/* How far a device named gpu, whose driver supports CUDA cuda_major, trusts pack p's
 * tuned kernels (src/pack/pack.h enum pack_trust): HERE when p names both; ELSEWHERE when
 * only the GPU model differs (every kernel is sm_90a, which croqsparse_create requires of
 * the device); NONE for another CUDA major. note says why (the reason only: the refusal of
 * croqsparse_load_pack and the plans' note add what follows from it), "" for HERE
 * (handle.c). */
enum pack_trust cs_pack_trust(const struct pack *p, const char *gpu, int cuda_major, char *note, size_t len);

/* The note a plan of h describes (croqsparse_plan_info.note): why the pack's tuned kernels
 * are not used or not trusted as tuned here, and why its model is not used; "" when
 * neither. Caller holds h->lock. */
void cs_handle_note(croqsparse_handle_t h, char *note, size_t len);

/* The header's order of checks after the NULL pointers: cs_check_values is the dtype
 * and every dimension >= 1 (INVALID_VALUE); cs_check_shape is that, then the shape rules
 * (knobs/knobs.h shape_validate) as NOT_SUPPORTED for fn. */
croqsparse_status_t cs_check_values(const char *fn, croqsparse_dtype_t dtype, long m, long n, long k);
croqsparse_status_t cs_check_shape(const char *fn, croqsparse_dtype_t dtype, long m, long n, long k);

/* CS_CU(fn, cuFoo, (args)): call the driver's cuFoo (launch/driver.h: loaded at run
 * time, by croqsparse_create first); a failure is recorded for fn as "cuFoo(args): ...". */
#define CS_CU(fn, name, args)                                \
    do {                                                     \
        CUresult rc_ = KL_DRV(name) args;                    \
        if (rc_ != CUDA_SUCCESS)                             \
            return cs_fail_cu((fn), rc_, #name #args);       \
    } while (0)

#endif
