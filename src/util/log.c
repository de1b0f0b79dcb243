/* src/util/log.c — diagnostics on stderr (see log.h). */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *log_prefix = "croqtuner";
static int log_verbose_state = -1; /* -1: not decided yet, read CROQ_VERBOSE once */

void log_set_prefix(const char *prefix) { log_prefix = prefix ? prefix : "croqtuner"; }

void log_set_verbose(bool on) { log_verbose_state = on; }

bool log_verbose(void)
{
    if (log_verbose_state < 0) {
        const char *v = getenv("CROQ_VERBOSE");
        log_verbose_state = v && atoi(v) != 0;
    }
    return log_verbose_state > 0;
}

static void log_vprint(const char *kind, const char *fmt, va_list ap)
{
    /* One fprintf per piece is fine: stderr is unbuffered, and messages from the
     * tuner's children arrive through pipes, not interleaved here. */
    fprintf(stderr, "%s: %s", log_prefix, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vprint("", fmt, ap);
    va_end(ap);
}

void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vprint("warning: ", fmt, ap);
    va_end(ap);
}

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vprint("", fmt, ap);
    va_end(ap);
    exit(1);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory (%zu bytes)", n);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        die("out of memory (%zu bytes)", n);
    return q;
}

char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d)
        die("out of memory (%zu bytes)", strlen(s) + 1);
    return d;
}
