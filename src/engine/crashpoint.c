/* src/engine/crashpoint.c — a test hook that makes crash recovery testable point by
 * point: CROQ_CRASHPOINT=NAME[@N] kills this process with SIGKILL the N-th time (default
 * the first) the engine passes crash point NAME, so tests/cli/t0211 can stop a run
 * between any two writes of STORE (or in the middle of an append: the *.torn points
 * write half a record first) and check that resume ends where an uninterrupted run
 * does. Unset, a crash point costs one comparison.
 */
#include "run.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool hit(const char *name)
{
    static const char *spec;
    static bool read;
    static int seen;
    if (!read) {
        spec = getenv("CROQ_CRASHPOINT");
        read = true;
    }
    if (!spec || !*spec)
        return false;
    size_t n = strcspn(spec, "@");
    if (strlen(name) != n || strncmp(spec, name, n))
        return false;
    int want = spec[n] == '@' ? atoi(spec + n + 1) : 1;
    return ++seen == (want > 0 ? want : 1);
}

void crashpoint(const char *name)
{
    if (hit(name))
        raise(SIGKILL);
}

void crashpoint_torn(const char *name, const char *path, const char *line)
{
    if (!hit(name))
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, line, strlen(line) / 2); /* half a record, no newline */
        (void)w;
        fsync(fd);
    }
    raise(SIGKILL);
}
