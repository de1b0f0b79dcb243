/* runner/coldl2.h — cold L2 (docs/runner-protocol.md: serve's `"l2": "cold"`, compare's
 * `--l2 cold`): the timed launches of a kernel rotate over copies of its operands (and
 * outputs), enough copies that one pass over all of them moves more than twice the L2, so
 * each launch, taking the next copy, finds what it reads evicted by the launches before it.
 * serve's rotation (serve.h) and compare's subjects (subject.h) are sized by the one rule
 * here, so a cold number means the same in both.
 */
#ifndef CROQ_RUNNER_COLDL2_H
#define CROQ_RUNNER_COLDL2_H

#include "runner.h"

/* The cap binds only for sets smaller than 2 L2 / 32 (about 3.75 MiB on the H200's 60 MiB
 * L2): a pass over a tiny shape's copies then moves less than 2 L2 (its L2 is partly
 * warm). */
#define COLD_MAX_COPIES 32
#define COLD_MAX_BUFS 4

/* How many copies of a set of bytes_per_copy bytes (what one launch reads and writes)
 * one pass over all of them must move: ceil(2 L2 / bytes_per_copy), within
 * 1..COLD_MAX_COPIES. *l2_bytes: the device's L2 (CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE).
 * 0, or -1 (internal_error) when the driver does not say. */
int cold_copies(const struct gpu *g, size_t bytes_per_copy, int *n, size_t *l2_bytes);
/* A new device buffer of bytes holding src's bytes (src 0: allocated, not filled: an
 * output). 0 or -1 (out of memory: internal_error). */
int cold_dup(CUdeviceptr *dst, CUdeviceptr src, size_t bytes, const char *what);

/* Copies of up to COLD_MAX_BUFS buffers of one launch: b[i][j] is copy i of buffer j. */
struct cold_buf {
    CUdeviceptr src;  /* 0: an output (each copy gets its own, unfilled) */
    size_t bytes;
    const char *what; /* for an allocation failure's message */
};
struct cold_rot {
    int n, nbuf;      /* n 0: not made */
    int next;         /* the copy the next launch takes */
    size_t l2_bytes;
    CUdeviceptr b[COLD_MAX_COPIES][COLD_MAX_BUFS];
};
/* n = cold_copies(sum of the buffers' bytes) copies of bufs[0..nbuf-1]. 0 or -1 (r is
 * then released). */
int cold_rot_make(const struct gpu *g, const struct cold_buf *bufs, int nbuf, struct cold_rot *r);
/* The copy the next launch takes: 0, 1, ..., n-1, 0, ... */
int cold_rot_next(struct cold_rot *r);
void cold_rot_release(struct cold_rot *r);
/* {"copies", "l2_bytes"} */
json_t *cold_rot_json(const struct cold_rot *r);

#endif
