/* src/artifacts/paths.c — building paths and timestamps. A path too long for the buffer
 * is an error, never a silently truncated (and so different) path. */
#include "artifacts/paths.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

int path_fmt(char out[ENGINE_PATH_MAX], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, ENGINE_PATH_MAX, fmt, ap);
    va_end(ap);
    return (n < 0 || n >= ENGINE_PATH_MAX) ? -1 : 0;
}

int path_published_best(char out[ENGINE_PATH_MAX], const char *dtype, const char *key)
{
    return path_fmt(out, "kernels/gemm_sp_%s/%s_best.cu", dtype, key);
}

