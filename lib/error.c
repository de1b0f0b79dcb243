/* lib/error.c — status strings and the per-thread message of the last failed call. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_msg[1024];

const char *croqsparse_status_string(croqsparse_status_t s)
{
    static const char *const names[] = {
        [CROQSPARSE_STATUS_SUCCESS] = "success",
        [CROQSPARSE_STATUS_INVALID_VALUE] = "invalid value",
        [CROQSPARSE_STATUS_NOT_SUPPORTED] = "not supported",
        [CROQSPARSE_STATUS_NOT_SPARSE] = "input is not 2:4 sparse",
        [CROQSPARSE_STATUS_NO_DEVICE] = "no usable device",
        [CROQSPARSE_STATUS_CUDA_ERROR] = "CUDA driver error",
        [CROQSPARSE_STATUS_OUT_OF_MEMORY] = "out of memory",
        [CROQSPARSE_STATUS_INVALID_PACK] = "invalid kernel pack",
        [CROQSPARSE_STATUS_PACK_MISMATCH] = "kernel pack made for another GPU or CUDA version",
        [CROQSPARSE_STATUS_NO_KERNEL] = "no kernel for this shape",
        [CROQSPARSE_STATUS_NAN] = "input holds a NaN",
    };
    return (unsigned)s < sizeof names / sizeof names[0] && names[s] ? names[s] : "unknown status";
}

const char *croqsparse_last_error(void) { return last_msg; }

int croqsparse_version(void) { return CROQSPARSE_VERSION; }

void cs_clear(void) { last_msg[0] = '\0'; }

croqsparse_status_t cs_fail(croqsparse_status_t s, const char *fn, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(last_msg, sizeof last_msg, "%s: ", fn);
    va_start(ap, fmt);
    vsnprintf(last_msg + n, sizeof last_msg - (size_t)n, fmt, ap);
    va_end(ap);
    return s;
}

croqsparse_status_t cs_fail_cu(const char *fn, CUresult rc, const char *call)
{
    char text[256];
    croqsparse_status_t s = rc == CUDA_ERROR_OUT_OF_MEMORY ? CROQSPARSE_STATUS_OUT_OF_MEMORY
                          : rc == CUDA_ERROR_NO_DEVICE || rc == CUDA_ERROR_INVALID_DEVICE ||
                                    rc == CUDA_ERROR_NOT_INITIALIZED || rc == CUDA_ERROR_STUB_LIBRARY
                              ? CROQSPARSE_STATUS_NO_DEVICE
                              : CROQSPARSE_STATUS_CUDA_ERROR;
    return cs_fail(s, fn, "%s: %s", call, kl_cu_text(rc, text, sizeof text));
}
