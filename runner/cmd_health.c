/* runner/cmd_health.c — `croq-runner health`: one NVML snapshot as JSON.
 *
 * --device is a CUDA ordinal, as for run; when the driver API answers, it is mapped
 * to NVML's index through the PCI bus id, otherwise taken as the NVML index. No CUDA
 * context is created, so this is cheap and safe while another process owns the GPU.
 */
#include "output.h"

#include <string.h>

#include "health/nvml.h"

static int nvml_index_for(int ordinal)
{
    CUdevice dev;
    char pci[32];
    if (cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, ordinal) == CUDA_SUCCESS &&
        cuDeviceGetPCIBusId(pci, sizeof pci, dev) == CUDA_SUCCESS) {
        int idx = nvml_index_by_pci(pci);
        if (idx >= 0)
            return idx;
    }
    return ordinal;
}

int runner_cmd_health(int argc, char **argv)
{
    struct runner_opts o;
    struct gpu_snapshot snap;
    json_t *out = output_new("health");
    if (args_parse(argc, argv, &o))
        return output_emit(out, runner_fail_status(), runner_fail_message());
    json_object_set_new(out, "device", json_integer(o.device));
    int rc = nvml_snapshot(nvml_index_for(o.device), &snap);
    json_object_set_new(out, "snapshot", nvml_snapshot_json(&snap));
    nvml_close();
    return output_emit(out, rc == 0 ? RS_OK : RS_NO_GPU, snap.status);
}
