/* src/launch/error.c — the module's error record and CUDA error text. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

const char *kl_cu_text(CUresult rc, char *buf, size_t len)
{
    const char *name = NULL, *text = NULL;
    if (!kl_driver()) { /* a CUresult from elsewhere: no driver to name it */
        snprintf(buf, len, "CUresult %d (no CUDA driver loaded)", (int)rc);
        return buf;
    }
    if (KL_DRV(cuGetErrorName)(rc, &name) != CUDA_SUCCESS) {
        /* A stub libcuda (no driver installed) names nothing: give the number. */
        snprintf(buf, len, "CUresult %d (%s)", (int)rc,
                 rc == CUDA_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY: no driver, only the toolkit's stub"
                                               : "unknown to this driver");
        return buf;
    }
    if (KL_DRV(cuGetErrorString)(rc, &text) != CUDA_SUCCESS)
        text = "no description";
    snprintf(buf, len, "%s (%s)", name, text);
    return buf;
}

int kl_fail(struct kl_error *e, enum kl_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->status = s;
    return -1;
}

int kl_need_driver(struct kl_error *e)
{
    return kl_driver() ? 0 : kl_fail(e, KL_NO_DRIVER, "%s", kl_driver_error());
}

int kl_fail_cu(struct kl_error *e, enum kl_status s, CUresult rc, const char *call, const char *file,
               int line)
{
    char text[256];
    return kl_fail(e, s, "%s:%d: %s: %s", file, line, call, kl_cu_text(rc, text, sizeof text));
}
