/* runner/serve.h — the state `croq-runner serve` keeps between requests
 * (docs/runner-protocol.md, "serve"): the shape's operand sets, the L2 rotation, and
 * loaded kernels. Internal to the runner; one worker serves one (dtype, shape).
 */
#ifndef CROQ_RUNNER_SERVE_H
#define CROQ_RUNNER_SERVE_H

#include <limits.h>

#include "coldl2.h"
#include "runner.h"

/* ---- operand sets (serve_pool.c) ---- */

/* One seeded operand set on the device with its reference (data.c, reference.c). */
struct opset {
    bool ready;
    uint64_t seed;
    struct operands ops;
    struct reference ref;
};

/* The base set (the worker's --seed: every timing runs on it) is made on first use and
 * kept; any other seed (a verification set the engine asks for) takes the one other slot,
 * replacing the set there. Keeping one extra set bounds memory (a 4096x8192x8192 f16 set
 * is ~160 MiB on the device and ~256 MiB of reference on the host). */
#define POOL_SETS 2
struct pool {
    int dtype;
    struct croq_shape shape;
    enum ref_mode ref_mode;
    uint64_t base_seed;
    struct opset set[POOL_SETS]; /* [0]: base */
    int made;                    /* sets generated so far (reported by health) */
};
/* The set for seed, generated with its reference if not there. NULL with the failure
 * recorded (runner_fail). */
struct opset *pool_get(const struct gpu *g, struct pool *p, uint64_t seed);
void pool_release(struct pool *p);

/* Cold L2: device copies of the base set's A values, metadata and B, enough of them that
 * one pass over all copies (with a C each) moves more than twice the L2, so each launch
 * finds its operands evicted (the count: coldl2.h, the rule compare's subjects follow). */
#define ROT_MAX COLD_MAX_COPIES
struct rotation {
    int n;                       /* 0: not made */
    struct operands copy[ROT_MAX]; /* device pointers only; copy[i].d_* own their buffers */
    size_t l2_bytes;
};
int rotation_make(const struct gpu *g, const struct operands *base, struct rotation *r);
void rotation_release(struct rotation *r);

/* ---- a loaded kernel (cmd_serve.c) ---- */
struct slot {
    bool loaded;
    char path[PATH_MAX];
    struct kl_module m;
    bool prepared;               /* l is built for the base set with d_c */
    struct launch l;
    CUdeviceptr d_c;             /* its own C [M][N] f16 on the base set */
    int nrot;                    /* launches prepared over the rotation (cold L2) */
    struct launch rl[ROT_MAX];
    CUdeviceptr rc[ROT_MAX];
    bool cold;                   /* launch from rl[] in turn */
    int next;
};

#endif
