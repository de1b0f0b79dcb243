/* src/util/log.h — one place that formats diagnostics: "croqtuner: <message>" on
 * stderr, lower-case, subject quoted by the caller ("cannot read 'x.json': ...").
 * The prefix is the program name, so croq-runner's messages say so.
 * Verbose messages are shown only when CROQ_VERBOSE is set to a non-zero number or
 * log_set_verbose() was called (the CLI's --verbose).
 */
#ifndef CROQ_UTIL_LOG_H
#define CROQ_UTIL_LOG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdnoreturn.h>

/* Program name put before every message; default "croqtuner". Not copied. */
void log_set_prefix(const char *prefix);
void log_set_verbose(bool on);
bool log_verbose(void);

/* "<prefix>: <message>\n" */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "<prefix>: warning: <message>\n" */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* log_error then exit(1): for failures the program cannot go on from (out of memory). */
noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* malloc/realloc/strdup that die on failure: an allocation failure of a few KB means
 * the machine is gone, and checking each one hides the real logic. */
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
#endif
