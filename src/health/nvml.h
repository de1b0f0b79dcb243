/* src/health/nvml.h — GPU state through NVML, loaded at run time.
 *
 * NVML is opened with dlopen("libnvidia-ml.so.1") and a table of the few entry points
 * used here, so nothing links against it: croqtuner runs on a machine with no NVIDIA
 * driver, and there every call reports "unavailable" instead of failing to start.
 * Types and constants come from nvml.h (PyPI nvidia-nvml-dev / the CUDA toolkit);
 * the versioned symbol names looked up (nvmlInit_v2, ..._v3) are the ones that
 * header maps the plain names to for NVML_API_VERSION 13.
 *
 * Device indices are NVML's. They need not match CUDA's (CUDA orders devices
 * fastest-first by default); map a CUDA device with nvml_index_by_pci().
 */
#ifndef CROQ_HEALTH_NVML_H
#define CROQ_HEALTH_NVML_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define GPU_SNAPSHOT_MAX_PROCS 16
#define GPU_REASONS_MAX 16

struct gpu_process {
    unsigned int pid;             /* as NVML reports it (host pid namespace) */
    long long used_bytes;         /* GPU memory of the process, bytes; -1 unknown */
};

/* One sample of one device. Every numeric field is -1 when NVML could not give it
 * (not supported on this board, or NVML unavailable). */
struct gpu_snapshot {
    bool ok;                      /* NVML loaded, initialised and the device found */
    char status[160];             /* "ok", or why not ("libnvidia-ml.so.1 not found: ...") */
    int index;                    /* NVML device index */
    char name[96];                /* "NVIDIA H200" */
    int sm_clock_mhz;             /* current SM clock, MHz */
    int sm_clock_max_mhz;         /* max (boost) SM clock, MHz */
    int temp_c;                   /* GPU core temperature, degrees C */
    long long reasons;            /* clocks-event ("throttle") reason bit mask; -1 unknown */
    double power_w;               /* board power draw, W (NVML reports mW) */
    int util_gpu_pct;             /* % of the last sample period a kernel ran */
    int util_mem_pct;             /* % of the period device memory was read/written */
    long long mem_used_bytes, mem_total_bytes;
    int n_procs;                  /* compute processes on the device (-1 unknown) */
    struct gpu_process procs[GPU_SNAPSHOT_MAX_PROCS]; /* the first n_procs (capped) */
};

/* Load and initialise NVML once per process (later calls return the first result).
 * 0, or -1 with the reason in err. Thread-unsafe: call from one thread. */
int nvml_open(char *err, size_t errlen);
/* nvmlShutdown + dlclose, if open. */
void nvml_close(void);

/* The NVIDIA driver version this machine runs ("580.95.05"), found at run time. 0, or
 * -1 with out "" (no driver, NVML unavailable or too old). Opens NVML on first use. */
int nvml_driver_version(char *out, size_t outlen);

/* NVML index of the device at PCI bus id "0000:3b:00.0" (cuDeviceGetPCIBusId's
 * form), or -1 (NVML unavailable, not found). */
int nvml_index_by_pci(const char *bus_id);

/* Sample device dev (NVML index). Opens NVML on first use. Always fills *out (with
 * out->ok false and out->status saying why when NVML or the device is unavailable);
 * returns 0 if out->ok, else -1. */
int nvml_snapshot(int dev, struct gpu_snapshot *out);

/* Whether the GPU time NVML saw in the last window_s seconds was all pid's: 1 when every
 * per-process sample (nvmlDeviceGetProcessUtilization) with SM utilization is pid's and
 * there is one; 0 when another process has one; -1 when NVML cannot say (no samples,
 * call missing or refused). Lets the health check tell our own measurement worker's
 * kernels from another user's without waiting for the utilization window to pass. */
int nvml_util_only_of(int dev, unsigned int pid, double window_s);

/* Names of the set bits of a clocks-event reason mask, in bit order, from the
 * nvmlClocksEventReason* / nvmlClocksThrottleReason* constants of nvml.h:
 * gpu_idle, applications_clocks, sw_power_cap, hw_slowdown, sync_boost, sw_thermal,
 * hw_thermal, power_brake, display_clock, board_limit, reliability; each higher bit (one
 * a later driver added) as "other(0x<bit in hex>)", e.g. "other(0x800)", so a log says
 * which bit it was. Returns the number of names written (at most max) into names, each
 * at most GPU_REASON_NAME_MAX bytes with its NUL. */
#define GPU_REASON_NAME_MAX 32
int nvml_reason_names(long long mask, char names[][GPU_REASON_NAME_MAX], int max);
/* The names of mask joined by ',' into out (cap bytes; cut to fit); "" for none or an
 * unknown mask (< 0). */
void nvml_reasons_text(long long mask, char *out, size_t cap);

/* The snapshot as a JSON object (a new reference): {"nvml": status, "index", "name",
 * "sm_clock_mhz", "sm_clock_max_mhz", "temp_c", "throttle_reasons": [names],
 * "power_w", "util_gpu_pct", "util_mem_pct", "mem_used_mib", "mem_total_mib",
 * "processes": [{"pid", "used_mib"}]}; unknown values are null. */
json_t *nvml_snapshot_json(const struct gpu_snapshot *s);
/* JSON array of reason names (a new reference); null for an unknown mask. */
json_t *nvml_reasons_json(long long mask);

#endif
