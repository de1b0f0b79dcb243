/* src/launch/driver.h — the CUDA driver, loaded at run time: the table of driver entry
 * points that src/launch and libcroqsparse (lib/) call, so that neither needs libcuda
 * when a program is linked or started. A program linked against libcroqsparse then
 * starts on a machine without an NVIDIA driver and croqsparse_create says NO_DEVICE
 * with the reason (issue 24, item 10), as the CUDA runtime does (cudaErrorInsufficientDriver).
 *
 * Facts this relies on:
 * - The driver's library is libcuda.so.1: the NVIDIA Linux driver installs it under that
 *   name, and the toolkit's link stub (<toolkit>/lib64/stubs/libcuda.so) records it as its
 *   SONAME (`readelf -d`), so it is also the name a direct link would make the loader look for.
 * - cuda.h #defines many calls to a versioned symbol (cuMemAlloc is cuMemAlloc_v2,
 *   cuCtxPushCurrent cuCtxPushCurrent_v2, ...; the driver keeps the older ABI under the
 *   plain name). The table's members are declared and looked up (dlsym) by the name as
 *   cuda.h expands it, so each entry is the very symbol a direct link against libcuda
 *   would bind, with the prototype cuda.h gives it (__typeof__): croq-runner, which links
 *   libcuda directly for its own calls (cuBLAS needs the driver anyway), and src/launch,
 *   which goes through this table in the runner too, reach the same functions of the same
 *   loaded library (dlopen of an already loaded soname returns that library).
 *   cuGetProcAddress (CUDA Driver API, "Driver Entry Point Access") is the other way; it
 *   is itself found with dlsym and picks each entry's ABI by a CUDA version argument,
 *   while dlsym of cuda.h's names gives the direct link's ABI by construction.
 * - The entries need a driver of CUDA 12.0 or newer (cuLaunchKernelEx and
 *   cuTensorMapEncodeTiled are 12.0 API, CUDA Driver API reference); an older driver
 *   lacks them and the load fails naming the first missing one.
 * - The toolkit's stub, when found as libcuda.so.1 (the unit tests put it on
 *   LD_LIBRARY_PATH), loads and resolves every entry; each call then returns
 *   CUDA_ERROR_STUB_LIBRARY (34).
 *
 * Thread-safety: kl_driver() loads the table once per process (pthread_once) and may be
 * called from any thread at any time; the table is read-only afterwards. The library is
 * never unloaded (contexts and modules live in it until the process ends).
 */
#ifndef CROQ_LAUNCH_DRIVER_H
#define CROQ_LAUNCH_DRIVER_H

#include <stddef.h>

#include <cuda.h>

/* The soname dlopen()ed (see above). */
#define KL_DRIVER_SONAME "libcuda.so.1"

/* Every driver call of src/launch and lib/, by its cuda.h name. A call added there
 * must be added here (the compiler says so: the member does not exist). */
#define KL_DRIVER_ENTRIES(X)                                                              \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)                 \
    X(cuDeviceGet) X(cuDeviceGetAttribute) X(cuDeviceGetName)                             \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                              \
    X(cuCtxGetCurrent) X(cuCtxPushCurrent) X(cuCtxPopCurrent)                             \
    X(cuMemAlloc) X(cuMemFree) X(cuMemcpyDtoH) X(cuMemsetD8)                              \
    X(cuModuleLoad) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction)          \
    X(cuModuleGetGlobal) X(cuFuncGetAttribute) X(cuFuncSetAttribute)                      \
    X(cuLaunchKernel) X(cuLaunchKernelEx)                                                 \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuOccupancyMaxActiveClusters)        \
    X(cuTensorMapEncodeTiled) X(cuTensorMapReplaceAddress)                            \
    X(cuStreamIsCapturing) X(cuStreamSynchronize)                                        \
    X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)        \
    X(cuEventDestroy)

/* One pointer per entry, named (and typed) as cuda.h expands the name: cuMemAlloc's
 * member is cuMemAlloc_v2, so KL_DRV(cuMemAlloc) below finds it by the usual name. */
struct kl_driver {
#define KL_DRIVER_MEMBER(name) __typeof__(name) *name;
    KL_DRIVER_ENTRIES(KL_DRIVER_MEMBER)
#undef KL_DRIVER_MEMBER
};

/* The process's table, loaded on the first call: NULL when KL_DRIVER_SONAME cannot be
 * loaded or lacks an entry, the reason then in kl_driver_error(). */
const struct kl_driver *kl_driver(void);
/* Why kl_driver() is NULL ("cannot load the CUDA driver: ..."); "" when it loaded. */
const char *kl_driver_error(void);

/* KL_DRV(cuFoo)(args): call the driver's cuFoo. Only after kl_driver() returned non-NULL
 * in this process (every path into src/launch and lib/ that reaches the driver checks
 * that first: kl_module_load_*, kl_cu_text, croqsparse_create). */
#define KL_DRV(name) (kl_driver()->name)

/* The loader kl_driver() runs with KL_DRIVER_SONAME: dlopen(soname) and every entry into
 * *d. 0, or -1 with "cannot load the CUDA driver: ..." in err (the dlopen error, or the
 * first entry the library lacks) and the library closed again. For tests. */
int kl_driver_open(const char *soname, struct kl_driver *d, char *err, size_t len);

#endif
