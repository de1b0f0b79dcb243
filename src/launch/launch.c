/* src/launch/launch.c — launch geometry from the ABI, binding buffers, the launch itself.
 *
 * tiles_m = ceil(M / tile_m), tiles_n = ceil(N / tile_n).
 * Non-persistent: grid = (ceil(tiles_m/cluster_m)*cluster_m * ceil(tiles_n/cluster_n)*cluster_n,
 *                 split_k, 1): one CTA per (tile, K partition); the tile count is
 *                 rounded up to whole clusters because a cluster launch needs
 *                 gridDim.x divisible by the cluster size (the kernel skips the extra
 *                 tiles, whose TMA boxes lie fully out of bounds anyway).
 * Persistent:     grid = (min(tiles_m * tiles_n, SM count), 1, 1); CTAs loop over tiles.
 *                 With a cluster the CTAs loop over units of cluster_m x cluster_n tiles, one
 *                 cluster per unit: grid = min(units, resident clusters) x cluster size,
 *                 resident clusters from cuOccupancyMaxActiveClusters (SM count / cluster
 *                 size if the driver will not say), so no cluster waits for a second wave.
 * Stream-K (ABI persistent=2, kernels/streamk.h): grid = (croq_sk_grid(SM count, tiles,
 *                 K / tile_k), 1, 1): one CTA per SM (fewer only when there are fewer
 *                 k-iterations in all), so every CTA is resident at once, which the
 *                 fixup's waits rely on (streamk.h, "Forward progress"; capped at the
 *                 resident CTAs the driver reports, should that ever be fewer); no cluster. Its
 *                 workspace is workspace_bytes_per_tile per CTA of the grid, not per tile.
 * Cluster dims (cluster_m * cluster_n, 1, 1) via CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION.
 *
 * The record also says how many CTAs can be resident at once: a cluster's CTAs must be
 * co-scheduled on one GPC, so with one CTA per SM a cluster launch can leave SMs idle
 * (CUDA Driver API, cuOccupancyMaxActiveClusters).
 */
#include "internal.h"

#include <string.h>

#include "streamk.h"

static long ceil_div(long a, long b) { return (a + b - 1) / b; }

static void geometry(int sm_count, const struct croq_kernel_abi *a, struct kl_launch *l)
{
    long cm = a->cluster_m, cn = a->cluster_n;
    l->cluster = (unsigned)(cm * cn);
    if (a->persistent == CROQ_ABI_PERSISTENT_STREAM_K) {
        l->grid[0] = (unsigned)croq_sk_grid(sm_count, l->tiles_m * l->tiles_n, l->k_iters);
        l->grid[1] = 1;
    } else if (a->persistent && cm * cn > 1) {
        l->grid[0] = (unsigned)(ceil_div(l->tiles_m, cm) * ceil_div(l->tiles_n, cn) * cm * cn); /* fit_clusters */
        l->grid[1] = 1;
    } else if (a->persistent) {
        long tiles = l->tiles_m * l->tiles_n;
        l->grid[0] = (unsigned)(tiles < sm_count ? tiles : sm_count);
        l->grid[1] = 1;
    } else {
        l->grid[0] = (unsigned)(ceil_div(l->tiles_m, cm) * cm * ceil_div(l->tiles_n, cn) * cn);
        l->grid[1] = a->split_k;
    }
    l->grid[2] = 1;
    l->block = a->threads;
    l->smem = a->smem_bytes;
}

/* The launch configuration of l on stream s; attr must hold one attribute and outlive cfg. */
static CUlaunchConfig launch_config(const struct kl_launch *l, CUstream s, CUlaunchAttribute *attr)
{
    CUlaunchConfig cfg = {
        .gridDimX = l->grid[0], .gridDimY = l->grid[1], .gridDimZ = l->grid[2],
        .blockDimX = l->block, .blockDimY = 1, .blockDimZ = 1,
        .sharedMemBytes = l->smem, .hStream = s, .attrs = attr, .numAttrs = 0,
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

/* Persistent with a cluster: at most as many clusters as can be resident at once. */
static void fit_clusters(int sm_count, struct kl_launch *l)
{
    CUlaunchAttribute attr[1];
    CUlaunchConfig cfg = launch_config(l, NULL, attr);
    int n = 0;
    if (KL_DRV(cuOccupancyMaxActiveClusters)(&n, l->fn, &cfg) != CUDA_SUCCESS || n <= 0)
        n = sm_count / (int)l->cluster;
    if (n < 1)
        n = 1;
    const unsigned units = l->grid[0] / l->cluster;
    if (units > (unsigned)n)
        l->grid[0] = (unsigned)n * l->cluster;
}

/* Informational only, so a driver that will not answer leaves -1 rather than failing. */
static int resident_ctas(int sm_count, const struct kl_launch *l)
{
    CUlaunchAttribute attr[1];
    CUlaunchConfig cfg = launch_config(l, NULL, attr);
    int n = 0;
    if (l->cluster > 1)
        return KL_DRV(cuOccupancyMaxActiveClusters)(&n, l->fn, &cfg) == CUDA_SUCCESS ? n * (int)l->cluster : -1;
    if (KL_DRV(cuOccupancyMaxActiveBlocksPerMultiprocessor)(&n, l->fn, (int)l->block, l->smem) != CUDA_SUCCESS)
        return -1;
    return n * sm_count;
}

static void set_pointers(const struct kl_operands *o, CUdeviceptr workspace, struct croq_gemm_args *args)
{
    args->meta = (const uint32_t *)o->meta;
    args->c = (void *)o->c;
    args->workspace = (void *)workspace;
    args->m = (int32_t)o->m;
    args->n = (int32_t)o->n;
    args->k = (int32_t)o->k;
    args->alpha = o->alpha;
    args->scale_a = (const float *)o->scale_a;
    args->scale_b = (const float *)o->scale_b;
}

int kl_prepare(const struct kl_module *m, int sm_count, const struct kl_operands *o, struct kl_launch *l,
               struct kl_error *e)
{
    const struct croq_kernel_abi *a = &m->abi;
    memset(l, 0, sizeof *l);
    l->fn = m->fn;
    l->abi = *a;
    l->tiles_m = ceil_div(o->m, a->tile_m);
    l->tiles_n = ceil_div(o->n, a->tile_n);
    l->k_iters = o->k / a->tile_k;
    geometry(sm_count, a, l);
    if (a->persistent && l->cluster > 1)
        fit_clusters(sm_count, l);
    if (l->grid[0] > 0x7fffffffu)
        return kl_fail(e, KL_UNSUPPORTED_SHAPE, "grid of %u CTAs is too large", l->grid[0]);
    l->resident_ctas = resident_ctas(sm_count, l);
    /* stream-K's waits need every CTA resident at once (kernels/streamk.h): never more
     * CTAs than the occupancy the driver reports (the kernel partitions for any grid) */
    if (a->persistent == CROQ_ABI_PERSISTENT_STREAM_K && l->resident_ctas > 0 &&
        l->grid[0] > (unsigned)l->resident_ctas)
        l->grid[0] = (unsigned)l->resident_ctas;
    KL_TRY(kl_tmaps_encode(a, o, &l->args, e));
    set_pointers(o, 0, &l->args);
    /* split-K: a slot per tile; stream-K: a slot per CTA of the grid */
    const size_t slots = a->persistent == CROQ_ABI_PERSISTENT_STREAM_K ? (size_t)l->grid[0]
                                                                         : (size_t)(l->tiles_m * l->tiles_n);
    l->workspace_bytes = (size_t)a->workspace_bytes_per_tile * slots;
    return 0;
}

int kl_bind(const struct kl_launch *l, const struct kl_operands *o, CUdeviceptr workspace,
            struct croq_gemm_args *args, struct kl_error *e)
{
    *args = l->args;
    KL_TRY(kl_tmaps_rebind(&l->abi, o, args, e));
    set_pointers(o, workspace, args);
    return 0;
}

int kl_launch(const struct kl_launch *l, const struct croq_gemm_args *args, CUstream s, struct kl_error *e)
{
    CUlaunchAttribute attr[1];
    CUlaunchConfig cfg = launch_config(l, s, attr);
    void *params[] = {(void *)args};
    KL_CU(e, KL_LAUNCH_ERROR, cuLaunchKernelEx, (&cfg, l->fn, params, NULL));
    return 0;
}
