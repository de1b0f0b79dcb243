/* src/util/lockinfo.c — flock holders from /proc/locks (lockinfo.h).
 *
 * A /proc/locks line: "1: FLOCK  ADVISORY  WRITE 9017 fe:00:10953285 0 EOF" — id, kind,
 * mode, access, pid, then device major:minor (hex) and inode (decimal) of the file
 * (Documentation/filesystems/proc.rst). Lines with "->" are waiters, not holders. */
#include "lockinfo.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

long flock_holder_pid(int fd)
{
    struct stat st;
    char line[256];
    if (fstat(fd, &st))
        return -1;
    FILE *f = fopen("/proc/locks", "r");
    if (!f)
        return -1;
    long found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        char kind[16];
        long pid;
        unsigned maj, min;
        unsigned long long ino;
        if (strstr(line, "->"))
            continue;
        if (sscanf(line, "%*[^:]: %15s %*s %*s %ld %x:%x:%llu", kind, &pid, &maj, &min, &ino) != 5)
            continue;
        if (strcmp(kind, "FLOCK") || ino != (unsigned long long)st.st_ino || maj != major(st.st_dev) ||
            min != minor(st.st_dev) || pid == (long)getpid() || pid <= 0)
            continue;
        /* the pid is the one that placed the lock; a child that inherited the file may
         * hold it after that process exited */
        if (kill((pid_t)pid, 0) && errno == ESRCH)
            continue;
        found = pid;
    }
    fclose(f);
    return found;
}
