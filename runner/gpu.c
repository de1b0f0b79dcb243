/* runner/gpu.c — the device, its primary context, one stream, allocations. */
#include "runner.h"

#include <stdio.h>
#include <string.h>

#include "health/nvml.h"
#include "util/version.h"

static int device_info(struct gpu *g)
{
    CU_CHECK(RS_NO_GPU, cuDeviceGetName(g->name, sizeof g->name, g->dev));
    CU_CHECK(RS_NO_GPU, cuDeviceGetAttribute(&g->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g->dev));
    CU_CHECK(RS_NO_GPU, cuDeviceGetAttribute(&g->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, g->dev));
    CU_CHECK(RS_NO_GPU, cuDeviceGetAttribute(&g->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, g->dev));
    CU_CHECK(RS_NO_GPU, cuDeviceGetPCIBusId(g->pci, sizeof g->pci, g->dev));
    /* CUDA and NVML may number devices differently; the PCI bus id is common. */
    g->nvml_index = nvml_index_by_pci(g->pci);
    return 0;
}

int gpu_open(int ordinal, struct gpu *g)
{
    int count = 0;
    memset(g, 0, sizeof *g);
    g->ordinal = ordinal;
    g->nvml_index = -1;
    CU_CHECK(RS_NO_GPU, cuInit(0));
    CU_CHECK(RS_NO_GPU, cuDeviceGetCount(&count));
    if (ordinal >= count) {
        runner_fail(RS_NO_GPU, "device %d does not exist (%d CUDA device(s))", ordinal, count);
        return -1;
    }
    CU_CHECK(RS_NO_GPU, cuDeviceGet(&g->dev, ordinal));
    TRY(device_info(g));
    CU_CHECK(RS_NO_GPU, cuDevicePrimaryCtxRetain(&g->ctx, g->dev));
    CU_CHECK(RS_NO_GPU, cuCtxSetCurrent(g->ctx));
    CU_CHECK(RS_NO_GPU, cuStreamCreate(&g->stream, CU_STREAM_DEFAULT));
    return 0;
}

int gpu_require_sm90(const struct gpu *g)
{
    if (g->cc_major == 9 && g->cc_minor == 0)
        return 0;
    runner_fail(RS_NO_GPU, "device '%s' is sm_%d%d; croqtuner kernels are built for sm_90a (Hopper)",
                g->name, g->cc_major, g->cc_minor);
    return -1;
}

void gpu_close(struct gpu *g)
{
    if (g->stream)
        cuStreamDestroy(g->stream);
    if (g->ctx)
        cuDevicePrimaryCtxRelease(g->dev);
    g->stream = NULL;
    g->ctx = NULL;
}

json_t *gpu_json_identity(const struct gpu *g, json_t *out)
{
    json_object_set_new(out, "gpu", g->name[0] ? json_string(g->name) : json_null());
    json_object_set_new(out, "device", json_integer(g->ordinal));
    if (g->name[0]) {
        json_object_set_new(out, "sm_count", json_integer(g->sm_count));
        json_object_set_new(out, "pci_bus_id", json_string(g->pci));
    }
    /* What the measurement ran on and with, for the report's environment section: the
     * driver found now, the CUDA version the driver supports, the toolkit and commit this
     * runner was built from. */
    char driver[96];
    int api = 0;
    json_object_set_new(out, "driver", nvml_driver_version(driver, sizeof driver) ? json_null() : json_string(driver));
    if (cuDriverGetVersion(&api) == CUDA_SUCCESS && api > 0)
        json_object_set_new(out, "driver_cuda", json_sprintf("%d.%d", api / 1000, api % 1000 / 10));
    json_object_set_new(out, "built_with_cuda", json_string(croq_cuda_version));
    json_object_set_new(out, "commit", json_string(croq_commit));
    return out;
}

int gpu_alloc(CUdeviceptr *p, size_t bytes, const char *what)
{
    char text[256];
    /* cuMemAlloc(0) fails; a 0-byte buffer is legitimately "none". */
    CUresult rc = cuMemAlloc(p, bytes ? bytes : 16);
    if (rc != CUDA_SUCCESS) {
        *p = 0;
        runner_fail(rc == CUDA_ERROR_OUT_OF_MEMORY ? RS_INTERNAL_ERROR : RS_LAUNCH_ERROR,
                    "cuMemAlloc for '%s' (%zu B): %s", what, bytes, cu_error_text(rc, text, sizeof text));
        return -1;
    }
    return 0;
}

void gpu_free(CUdeviceptr *p)
{
    if (*p)
        cuMemFree(*p);
    *p = 0;
}
