/* src/health/nvml.c — NVML via dlopen: a function table, one snapshot call, JSON. */
#include "nvml.h"

#include <dlfcn.h>
#include <sys/time.h>
#include <stdio.h>
#include <string.h>

#include <nvml.h>

/* The entry points used, by their exported (versioned) names. "optional" ones may be
 * missing in older drivers; the snapshot then leaves that field unknown. */
static struct {
    void *lib;
    int state; /* 0 not tried, 1 open, -1 failed */
    char why[160];
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*by_index)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*by_pci)(const char *, nvmlDevice_t *);
    nvmlReturn_t (*get_index)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*clock)(nvmlDevice_t, nvmlClockType_t, unsigned int *);
    nvmlReturn_t (*max_clock)(nvmlDevice_t, nvmlClockType_t, unsigned int *);
    nvmlReturn_t (*temp_v)(nvmlDevice_t, nvmlTemperature_t *);                        /* optional */
    nvmlReturn_t (*temp_old)(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int *); /* optional */
    nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long *);
    nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*util)(nvmlDevice_t, nvmlUtilization_t *);
    nvmlReturn_t (*mem)(nvmlDevice_t, nvmlMemory_t *);
    nvmlReturn_t (*procs)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);
    nvmlReturn_t (*driver)(char *, unsigned int); /* optional */
    nvmlReturn_t (*proc_util)(nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned int *,
                              unsigned long long); /* optional */
} nv;

static void *sym(const char *name)
{
    return nv.lib ? dlsym(nv.lib, name) : NULL;
}

/* Function pointers from dlsym: POSIX guarantees void* <-> function pointer works. */
#define LOAD(field, name) (*(void **)(&nv.field) = sym(name))

static int load_table(void)
{
    const char *missing = NULL;
    if (!LOAD(init, "nvmlInit_v2")) missing = "nvmlInit_v2";
    else if (!LOAD(shutdown, "nvmlShutdown")) missing = "nvmlShutdown";
    else if (!LOAD(error_string, "nvmlErrorString")) missing = "nvmlErrorString";
    else if (!LOAD(by_index, "nvmlDeviceGetHandleByIndex_v2")) missing = "nvmlDeviceGetHandleByIndex_v2";
    else if (!LOAD(name, "nvmlDeviceGetName")) missing = "nvmlDeviceGetName";
    else if (!LOAD(clock, "nvmlDeviceGetClockInfo")) missing = "nvmlDeviceGetClockInfo";
    else if (!LOAD(max_clock, "nvmlDeviceGetMaxClockInfo")) missing = "nvmlDeviceGetMaxClockInfo";
    else if (!LOAD(power, "nvmlDeviceGetPowerUsage")) missing = "nvmlDeviceGetPowerUsage";
    else if (!LOAD(util, "nvmlDeviceGetUtilizationRates")) missing = "nvmlDeviceGetUtilizationRates";
    else if (!LOAD(mem, "nvmlDeviceGetMemoryInfo")) missing = "nvmlDeviceGetMemoryInfo";
    if (missing) {
        snprintf(nv.why, sizeof nv.why, "libnvidia-ml.so.1 lacks '%s'", missing);
        return -1;
    }
    LOAD(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    LOAD(get_index, "nvmlDeviceGetIndex");
    LOAD(temp_v, "nvmlDeviceGetTemperatureV");
    LOAD(temp_old, "nvmlDeviceGetTemperature");
    LOAD(procs, "nvmlDeviceGetComputeRunningProcesses_v3");
    LOAD(driver, "nvmlSystemGetDriverVersion");
    LOAD(proc_util, "nvmlDeviceGetProcessUtilization");
    /* The event-reason call was renamed in NVML 12.x; old drivers have only the old name. */
    if (!LOAD(reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
        LOAD(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    return 0;
}

int nvml_open(char *err, size_t errlen)
{
    if (nv.state == 0) {
        nv.state = -1;
        nv.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!nv.lib) {
            snprintf(nv.why, sizeof nv.why, "libnvidia-ml.so.1 not loadable: %s", dlerror());
        } else if (load_table() == 0) {
            nvmlReturn_t rc = nv.init();
            if (rc == NVML_SUCCESS)
                nv.state = 1;
            else
                snprintf(nv.why, sizeof nv.why, "nvmlInit_v2 failed: %s", nv.error_string(rc));
        }
    }
    if (nv.state < 0 && err && errlen)
        snprintf(err, errlen, "%s", nv.why);
    return nv.state > 0 ? 0 : -1;
}

void nvml_close(void)
{
    if (nv.state > 0)
        nv.shutdown();
    if (nv.lib)
        dlclose(nv.lib);
    memset(&nv, 0, sizeof nv);
}

int nvml_driver_version(char *out, size_t outlen)
{
    char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    if (outlen)
        out[0] = '\0';
    if (nvml_open(NULL, 0) || !nv.driver || nv.driver(v, sizeof v) != NVML_SUCCESS)
        return -1;
    snprintf(out, outlen, "%s", v);
    return 0;
}

int nvml_index_by_pci(const char *bus_id)
{
    nvmlDevice_t d;
    unsigned int idx;
    if (nvml_open(NULL, 0) || !nv.by_pci || !nv.get_index)
        return -1;
    if (nv.by_pci(bus_id, &d) != NVML_SUCCESS || nv.get_index(d, &idx) != NVML_SUCCESS)
        return -1;
    return (int)idx;
}

static int read_temp(nvmlDevice_t d)
{
    if (nv.temp_v) {
        nvmlTemperature_t t = {.version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU};
        if (nv.temp_v(d, &t) == NVML_SUCCESS)
            return t.temperature;
    }
    unsigned int c;
    if (nv.temp_old && nv.temp_old(d, NVML_TEMPERATURE_GPU, &c) == NVML_SUCCESS)
        return (int)c;
    return -1;
}

static void read_procs(nvmlDevice_t d, struct gpu_snapshot *s)
{
    /* The list can grow between the size query and the read; ask for a roomy buffer
     * once instead of the query/allocate dance. */
    nvmlProcessInfo_t info[64];
    unsigned int n = 64;
    if (!nv.procs || nv.procs(d, &n, info) != NVML_SUCCESS)
        return;
    s->n_procs = (int)n;
    for (unsigned int i = 0; i < n && i < GPU_SNAPSHOT_MAX_PROCS; i++) {
        s->procs[i].pid = info[i].pid;
        /* NVML_VALUE_NOT_AVAILABLE (all ones) without the needed privileges. */
        s->procs[i].used_bytes = info[i].usedGpuMemory == (unsigned long long)NVML_VALUE_NOT_AVAILABLE
                                     ? -1 : (long long)info[i].usedGpuMemory;
    }
}

static void read_device(nvmlDevice_t d, struct gpu_snapshot *s)
{
    unsigned int u;
    unsigned long long r;
    nvmlUtilization_t ut;
    nvmlMemory_t m;
    if (nv.name(d, s->name, sizeof s->name) != NVML_SUCCESS)
        s->name[0] = '\0';
    if (nv.clock(d, NVML_CLOCK_SM, &u) == NVML_SUCCESS)
        s->sm_clock_mhz = (int)u;
    if (nv.max_clock(d, NVML_CLOCK_SM, &u) == NVML_SUCCESS)
        s->sm_clock_max_mhz = (int)u;
    s->temp_c = read_temp(d);
    if (nv.reasons && nv.reasons(d, &r) == NVML_SUCCESS)
        s->reasons = (long long)r;
    if (nv.power(d, &u) == NVML_SUCCESS)
        s->power_w = u / 1000.0;
    if (nv.util(d, &ut) == NVML_SUCCESS) {
        s->util_gpu_pct = (int)ut.gpu;
        s->util_mem_pct = (int)ut.memory;
    }
    if (nv.mem(d, &m) == NVML_SUCCESS) {
        s->mem_used_bytes = (long long)m.used;
        s->mem_total_bytes = (long long)m.total;
    }
    read_procs(d, s);
}

static void snapshot_clear(struct gpu_snapshot *s, int dev)
{
    memset(s, 0, sizeof *s);
    s->index = dev;
    s->sm_clock_mhz = s->sm_clock_max_mhz = s->temp_c = -1;
    s->util_gpu_pct = s->util_mem_pct = s->n_procs = -1;
    s->reasons = s->mem_used_bytes = s->mem_total_bytes = -1;
    s->power_w = -1;
}

int nvml_snapshot(int dev, struct gpu_snapshot *s)
{
    nvmlDevice_t d;
    snapshot_clear(s, dev);
    if (nvml_open(s->status, sizeof s->status))
        return -1;
    nvmlReturn_t rc = dev < 0 ? NVML_ERROR_INVALID_ARGUMENT : nv.by_index((unsigned int)dev, &d);
    if (rc != NVML_SUCCESS) {
        snprintf(s->status, sizeof s->status, "nvml device %d: %s", dev, nv.error_string(rc));
        return -1;
    }
    read_device(d, s);
    s->ok = true;
    snprintf(s->status, sizeof s->status, "ok");
    return 0;
}

int nvml_util_only_of(int dev, unsigned int pid, double window_s)
{
    nvmlDevice_t d;
    nvmlProcessUtilizationSample_t smp[128];
    unsigned int n = 128;
    struct timeval tv;
    if (nvml_open(NULL, 0) || !nv.proc_util || dev < 0 || nv.by_index((unsigned int)dev, &d) != NVML_SUCCESS)
        return -1;
    gettimeofday(&tv, NULL); /* NVML's sample timestamps are CPU wall-clock microseconds */
    unsigned long long now_us = (unsigned long long)tv.tv_sec * 1000000ull + (unsigned long long)tv.tv_usec;
    unsigned long long since = now_us - (unsigned long long)(window_s * 1e6);
    if (nv.proc_util(d, smp, &n, since) != NVML_SUCCESS)
        return -1;
    int ours = 0;
    for (unsigned int i = 0; i < n && i < 128; i++) {
        if (smp[i].smUtil == 0)
            continue;
        if (smp[i].pid != pid)
            return 0;
        ours++;
    }
    return ours ? 1 : -1;
}

/* Bit order of nvml.h's nvmlClocksEventReason* constants (0x1 << i). */
static const char *const reason_name[] = {
    "gpu_idle",     /* 0x001 nvmlClocksEventReasonGpuIdle */
    "applications_clocks", /* 0x002 ...ApplicationsClocksSetting */
    "sw_power_cap", /* 0x004 ...SwPowerCap */
    "hw_slowdown",  /* 0x008 nvmlClocksThrottleReasonHwSlowdown */
    "sync_boost",   /* 0x010 ...SyncBoost */
    "sw_thermal",   /* 0x020 ...SwThermalSlowdown */
    "hw_thermal",   /* 0x040 nvmlClocksThrottleReasonHwThermalSlowdown */
    "power_brake",  /* 0x080 nvmlClocksThrottleReasonHwPowerBrakeSlowdown */
    "display_clock", /* 0x100 ...DisplayClockSetting */
    "board_limit",  /* 0x200 nvmlClocksEventReasonBoardLimit */
    "reliability",  /* 0x400 nvmlClocksEventReasonReliability */
};
_Static_assert(nvmlClocksEventReasonSwPowerCap == 0x4 && nvmlClocksThrottleReasonHwPowerBrakeSlowdown == 0x80,
               "reason_name[] follows the bit order of nvml.h");

int nvml_reason_names(long long mask, char names[][GPU_REASON_NAME_MAX], int max)
{
    const int known = (int)(sizeof reason_name / sizeof reason_name[0]);
    int n = 0;
    for (int b = 0; b < 64 && n < max; b++) {
        unsigned long long bit = 1ULL << b;
        if (!((unsigned long long)mask & bit))
            continue;
        if (b < known)
            snprintf(names[n++], GPU_REASON_NAME_MAX, "%s", reason_name[b]);
        else /* a bit added by a later driver: reported with its value, not named */
            snprintf(names[n++], GPU_REASON_NAME_MAX, "other(0x%llx)", bit);
    }
    return n;
}

void nvml_reasons_text(long long mask, char *out, size_t cap)
{
    char names[GPU_REASONS_MAX][GPU_REASON_NAME_MAX];
    size_t len = 0;
    out[0] = '\0';
    int n = mask < 0 ? 0 : nvml_reason_names(mask, names, GPU_REASONS_MAX);
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "," : "", names[i]);
}

json_t *nvml_reasons_json(long long mask)
{
    char names[GPU_REASONS_MAX][GPU_REASON_NAME_MAX];
    if (mask < 0)
        return json_null();
    int n = nvml_reason_names(mask, names, GPU_REASONS_MAX);
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(names[i]));
    return a;
}

static json_t *int_or_null(long long v) { return v < 0 ? json_null() : json_integer(v); }

static json_t *procs_json(const struct gpu_snapshot *s)
{
    if (s->n_procs < 0)
        return json_null();
    json_t *a = json_array();
    for (int i = 0; i < s->n_procs && i < GPU_SNAPSHOT_MAX_PROCS; i++) {
        long long b = s->procs[i].used_bytes;
        json_array_append_new(a, json_pack("{s:I, s:o}", "pid", (json_int_t)s->procs[i].pid,
                                           "used_mib", int_or_null(b < 0 ? -1 : b >> 20)));
    }
    return a;
}

json_t *nvml_snapshot_json(const struct gpu_snapshot *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "nvml", json_string(s->status));
    json_object_set_new(o, "index", json_integer(s->index));
    json_object_set_new(o, "name", s->name[0] ? json_string(s->name) : json_null());
    json_object_set_new(o, "sm_clock_mhz", int_or_null(s->sm_clock_mhz));
    json_object_set_new(o, "sm_clock_max_mhz", int_or_null(s->sm_clock_max_mhz));
    json_object_set_new(o, "temp_c", int_or_null(s->temp_c));
    json_object_set_new(o, "throttle_reasons", nvml_reasons_json(s->reasons));
    json_object_set_new(o, "power_w", s->power_w < 0 ? json_null() : json_real(s->power_w));
    json_object_set_new(o, "util_gpu_pct", int_or_null(s->util_gpu_pct));
    json_object_set_new(o, "util_mem_pct", int_or_null(s->util_mem_pct));
    json_object_set_new(o, "mem_used_mib", int_or_null(s->mem_used_bytes < 0 ? -1 : s->mem_used_bytes >> 20));
    json_object_set_new(o, "mem_total_mib", int_or_null(s->mem_total_bytes < 0 ? -1 : s->mem_total_bytes >> 20));
    json_object_set_new(o, "processes", procs_json(s));
    return o;
}
