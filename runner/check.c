/* runner/check.c — the runner's one recorded failure and CUDA error text. */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>

#include "launch/launch.h"
#include "util/log.h"

static enum runner_status fail_status = RS_OK;
static char fail_msg[1024];

/* Names and exit codes as docs/runner-protocol.md lists them. */
static const struct {
    const char *name;
    int exit_code;
} status_table[RS_COUNT] = {
    [RS_OK] = {"ok", 0},
    [RS_INCORRECT] = {"incorrect", 2},
    [RS_LAUNCH_ERROR] = {"launch_error", 3},
    [RS_BAD_MODULE] = {"bad_module", 4},
    [RS_BAD_ARGS] = {"bad_args", 5},
    [RS_UNSUPPORTED_SHAPE] = {"unsupported_shape", 5},
    [RS_NO_GPU] = {"no_gpu", 6},
    [RS_INTERNAL_ERROR] = {"internal_error", 7},
};

const char *runner_status_name(enum runner_status s)
{
    return (unsigned)s < RS_COUNT ? status_table[s].name : "internal_error";
}

int runner_status_exit(enum runner_status s)
{
    return (unsigned)s < RS_COUNT ? status_table[s].exit_code : 7;
}

void runner_fail(enum runner_status s, const char *fmt, ...)
{
    char msg[sizeof fail_msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_error("%s", msg);
    if (fail_status != RS_OK)
        return;
    fail_status = s;
    snprintf(fail_msg, sizeof fail_msg, "%s", msg);
}

bool runner_failed(void) { return fail_status != RS_OK; }

void runner_fail_clear(void)
{
    fail_status = RS_OK;
    fail_msg[0] = '\0';
}
enum runner_status runner_fail_status(void) { return fail_status; }
const char *runner_fail_message(void) { return fail_msg; }

const char *cu_error_text(CUresult rc, char *buf, size_t len) { return kl_cu_text(rc, buf, len); }

void runner_fail_cu(enum runner_status s, CUresult rc, const char *call, const char *file, int line)
{
    char text[256];
    runner_fail(s, "%s:%d: %s: %s", file, line, call, cu_error_text(rc, text, sizeof text));
}
