/* runner/check.h — every CUDA driver, cuBLAS, cuBLASLt, cuSPARSELt and NVML call of
 * the runner goes through a CHECK macro: on failure it records "file:line: call:
 * error text" with the runner status the failure maps to (the first failure wins, so
 * the JSON names the root cause), logs it to stderr, and makes the enclosing function
 * return -1. Callers propagate -1 up to the command, which emits the recorded status.
 */
#ifndef CROQ_RUNNER_CHECK_H
#define CROQ_RUNNER_CHECK_H

#include <cuda.h>
#include <stdbool.h>

/* Runner statuses (docs/runner-protocol.md). Values are indices, not exit codes. */
enum runner_status {
    RS_OK = 0,
    RS_INCORRECT,         /* verification failed */
    RS_LAUNCH_ERROR,      /* launch refused or kernel fault */
    RS_BAD_MODULE,        /* cubin missing/unloadable, bad ABI, dtype mismatch */
    RS_BAD_ARGS,          /* command line */
    RS_UNSUPPORTED_SHAPE, /* the shape breaks a format or kernel rule */
    RS_NO_GPU,            /* no usable device / driver */
    RS_INTERNAL_ERROR,    /* failure not caused by the kernel: out of memory, reference */
    RS_COUNT
};

const char *runner_status_name(enum runner_status s); /* "ok", "launch_error", ... */
int runner_status_exit(enum runner_status s);         /* process exit code */

/* Record a failure (printf-style message). Only the first one is kept. */
void runner_fail(enum runner_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool runner_failed(void);
/* Forget the recorded failure (compare measures several subjects in one process). */
void runner_fail_clear(void);
enum runner_status runner_fail_status(void); /* RS_OK when nothing failed */
const char *runner_fail_message(void);       /* "" when nothing failed */

/* Text for a CUresult: "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access ...)". */
const char *cu_error_text(CUresult rc, char *buf, size_t len);
void runner_fail_cu(enum runner_status s, CUresult rc, const char *call, const char *file, int line);

/* CU_CHECK(status, call): status is what a failure of this call means. */
#define CU_CHECK(status, call)                                          \
    do {                                                                \
        CUresult rc_ = (call);                                          \
        if (rc_ != CUDA_SUCCESS) {                                      \
            runner_fail_cu((status), rc_, #call, __FILE__, __LINE__);   \
            return -1;                                                  \
        }                                                               \
    } while (0)

/* For library calls whose status type is an int-like enum with 0 = success. The
 * name function turns the code into text (cublasGetStatusName, ...). */
#define LIB_CHECK(status, call, name_fn)                                            \
    do {                                                                            \
        int rc_ = (int)(call);                                                      \
        if (rc_ != 0) {                                                             \
            runner_fail((status), "%s:%d: %s: %s (%d)", __FILE__, __LINE__, #call,  \
                        name_fn(rc_), rc_);                                         \
            return -1;                                                              \
        }                                                                           \
    } while (0)

/* Propagate a -1 from a runner function. */
#define TRY(call)           \
    do {                    \
        if ((call) != 0)    \
            return -1;      \
    } while (0)

#endif
