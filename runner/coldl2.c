/* runner/coldl2.c — copies of a launch's buffers for cold-L2 timing (coldl2.h). */
#include "coldl2.h"

#include <string.h>

int cold_copies(const struct gpu *g, size_t bytes_per_copy, int *n, size_t *l2_bytes)
{
    int l2 = 0;
    CU_CHECK(RS_INTERNAL_ERROR, cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, g->dev));
    *l2_bytes = (size_t)l2;
    size_t want = 2 * *l2_bytes, per = bytes_per_copy ? bytes_per_copy : 1;
    size_t c = (want + per - 1) / per;
    *n = c < 1 ? 1 : c > COLD_MAX_COPIES ? COLD_MAX_COPIES : (int)c;
    return 0;
}

int cold_dup(CUdeviceptr *dst, CUdeviceptr src, size_t bytes, const char *what)
{
    TRY(gpu_alloc(dst, bytes, what));
    if (src)
        CU_CHECK(RS_INTERNAL_ERROR, cuMemcpyDtoD(*dst, src, bytes));
    return 0;
}

int cold_rot_make(const struct gpu *g, const struct cold_buf *bufs, int nbuf, struct cold_rot *r)
{
    size_t per = 0;
    int n = 0;
    memset(r, 0, sizeof *r);
    if (nbuf < 1 || nbuf > COLD_MAX_BUFS) {
        runner_fail(RS_INTERNAL_ERROR, "cold L2: %d buffers per copy (1..%d)", nbuf, COLD_MAX_BUFS);
        return -1;
    }
    for (int j = 0; j < nbuf; j++)
        per += bufs[j].bytes;
    TRY(cold_copies(g, per, &n, &r->l2_bytes));
    r->nbuf = nbuf;
    for (int i = 0; i < n; i++) {
        r->n = i + 1; /* what is allocated so far, for the release */
        for (int j = 0; j < nbuf; j++)
            if (cold_dup(&r->b[i][j], bufs[j].src, bufs[j].bytes, bufs[j].what)) {
                cold_rot_release(r);
                return -1;
            }
    }
    return 0;
}

int cold_rot_next(struct cold_rot *r)
{
    int i = r->next;
    r->next = (r->next + 1) % (r->n ? r->n : 1);
    return i;
}

void cold_rot_release(struct cold_rot *r)
{
    for (int i = 0; i < r->n; i++)
        for (int j = 0; j < r->nbuf; j++)
            gpu_free(&r->b[i][j]);
    memset(r, 0, sizeof *r);
}

json_t *cold_rot_json(const struct cold_rot *r)
{
    return json_pack("{s:i, s:I}", "copies", r->n, "l2_bytes", (json_int_t)r->l2_bytes);
}
