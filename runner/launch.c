/* runner/launch.c — launch geometry from the ABI and the launch itself.
 *
 * tiles_m = ceil(M / tile_m), tiles_n = ceil(N / tile_n).
 * Non-persistent: grid = (ceil(tiles_m/cluster_m)*cluster_m * ceil(tiles_n/cluster_n)*cluster_n,
 *                 split_k, 1): one CTA per (tile, K partition); the tile count is
 *                 rounded up to whole clusters because a cluster launch needs
 *                 gridDim.x divisible by the cluster size (the kernel skips the extra
 *                 tiles, whose TMA boxes lie fully out of bounds anyway).
 * Persistent:     grid = (min(tiles_m * tiles_n, SM count), 1, 1); CTAs loop over tiles.
 * Cluster dims (cluster_m * cluster_n, 1, 1) via CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION.
 *
 * The record also says how many CTAs can be resident at once: a cluster's CTAs must be
 * co-scheduled on one GPC, so with one CTA per SM a cluster launch can leave SMs idle
 * (CUDA Driver API, cuOccupancyMaxActiveClusters).
 */
#include "runner.h"

#include <string.h>

static long ceil_div(long a, long b) { return (a + b - 1) / b; }

static void geometry(const struct gpu *g, const struct croq_kernel_abi *a, struct launch *l)
{
    long cm = a->cluster_m, cn = a->cluster_n;
    l->cluster = (unsigned)(cm * cn);
    if (a->persistent) {
        long tiles = l->tiles_m * l->tiles_n;
        l->grid[0] = (unsigned)(tiles < g->sm_count ? tiles : g->sm_count);
        l->grid[1] = 1;
    } else {
        l->grid[0] = (unsigned)(ceil_div(l->tiles_m, cm) * cm * ceil_div(l->tiles_n, cn) * cn);
        l->grid[1] = a->split_k;
    }
    l->grid[2] = 1;
    l->block = a->threads;
    l->smem = a->smem_bytes;
}

/* The launch configuration of l; attr must hold one attribute and outlive cfg. */
static CUlaunchConfig launch_config(const struct launch *l, CUlaunchAttribute *attr)
{
    CUlaunchConfig cfg = {
        .gridDimX = l->grid[0], .gridDimY = l->grid[1], .gridDimZ = l->grid[2],
        .blockDimX = l->block, .blockDimY = 1, .blockDimZ = 1,
        .sharedMemBytes = l->smem, .hStream = l->stream, .attrs = attr, .numAttrs = 0,
    };
    if (l->cluster > 1) {
        attr[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr[0].value.clusterDim.x = l->cluster;
        attr[0].value.clusterDim.y = 1;
        attr[0].value.clusterDim.z = 1;
        cfg.numAttrs = 1;
    }
    return cfg;
}

/* Informational only, so a driver that will not answer leaves -1 rather than failing. */
static int resident_ctas(const struct gpu *g, struct launch *l)
{
    CUlaunchAttribute attr[1];
    CUlaunchConfig cfg = launch_config(l, attr);
    int n = 0;
    if (l->cluster > 1)
        return cuOccupancyMaxActiveClusters(&n, l->fn, &cfg) == CUDA_SUCCESS ? n * (int)l->cluster : -1;
    if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, l->fn, (int)l->block, l->smem) != CUDA_SUCCESS)
        return -1;
    return n * g->sm_count;
}

int launch_prepare(const struct gpu *g, const struct module *m, const struct operands *o,
                   CUdeviceptr d_c, struct launch *l)
{
    const struct croq_kernel_abi *a = &m->abi;
    memset(l, 0, sizeof *l);
    l->fn = m->fn;
    l->stream = g->stream;
    l->tiles_m = ceil_div(o->m, a->tile_m);
    l->tiles_n = ceil_div(o->n, a->tile_n);
    geometry(g, a, l);
    if (l->grid[0] > 0x7fffffffu) {
        runner_fail(RS_UNSUPPORTED_SHAPE, "grid of %u CTAs is too large", l->grid[0]);
        return -1;
    }
    l->resident_ctas = resident_ctas(g, l);
    TRY(tmaps_build(a, o, d_c, &l->args));
    l->args.meta = (const uint32_t *)o->d_meta;
    l->args.c = (void *)d_c;
    l->args.m = (int32_t)o->m;
    l->args.n = (int32_t)o->n;
    l->args.k = (int32_t)o->k;
    l->workspace_bytes = (size_t)a->workspace_bytes_per_tile * (size_t)(l->tiles_m * l->tiles_n);
    if (l->workspace_bytes) {
        TRY(gpu_alloc(&l->workspace, l->workspace_bytes, "split-K workspace"));
        /* Zeroed once: the kernel leaves its counters at zero for the next launch. */
        CU_CHECK(RS_LAUNCH_ERROR, cuMemsetD8(l->workspace, 0, l->workspace_bytes));
        l->args.workspace = (void *)l->workspace;
    }
    return 0;
}

int launch_once(struct launch *l)
{
    CUlaunchAttribute attr[1];
    CUlaunchConfig cfg = launch_config(l, attr);
    void *params[] = {&l->args};
    CU_CHECK(RS_LAUNCH_ERROR, cuLaunchKernelEx(&cfg, l->fn, params, NULL));
    return 0;
}

int launch_checked(struct launch *l)
{
    TRY(launch_once(l));
    /* A kernel fault surfaces at the next synchronising call; make that this one. */
    CU_CHECK(RS_LAUNCH_ERROR, cuCtxSynchronize());
    return 0;
}

void launch_release(struct launch *l) { gpu_free(&l->workspace); }

json_t *launch_abi_json(const struct module *m, const struct launch *l)
{
    const struct croq_kernel_abi *a = &m->abi;
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:[i,i,i], s:i, s:i, s:i, s:i, s:i}",
                     "threads", a->threads, "smem_bytes", a->smem_bytes, "tile_m", a->tile_m,
                     "tile_n", a->tile_n, "tile_k", a->tile_k, "split_k", a->split_k,
                     "persistent", a->persistent, "cluster_m", a->cluster_m, "cluster_n", a->cluster_n,
                     "cluster", l->cluster, "workspace_bytes", (json_int_t)l->workspace_bytes, "grid",
                     l->grid[0], l->grid[1], l->grid[2], "regs", m->regs, "local_bytes", m->local_bytes,
                     "tiles_m", (int)l->tiles_m, "tiles_n", (int)l->tiles_n, "resident_ctas", l->resident_ctas);
}
