/* src/util/regfile.c — safe opening of files to read (see regfile.h). */
#include "regfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int regfile_open(const char *path, int oflags, int flags, size_t max)
{
    int extra = O_NONBLOCK | O_CLOEXEC | ((flags & REGFILE_NOFOLLOW) ? O_NOFOLLOW : 0);
    int fd = open(path, oflags | extra, 0644);
    if (fd < 0)
        return -1;
    struct stat st;
    int why = 0;
    if (fstat(fd, &st))
        why = errno;
    else if (S_ISDIR(st.st_mode))
        why = EISDIR;
    else if (!S_ISREG(st.st_mode))
        why = EINVAL;
    else if (max && (unsigned long long)st.st_size > (unsigned long long)max)
        why = EFBIG;
    /* a regular file ignores O_NONBLOCK, but it must not leak into a lock or a write */
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
        why = errno;
    if (why) {
        close(fd);
        errno = why;
        return -1;
    }
    return fd;
}

char *regfile_read(const char *path, size_t max, size_t *len)
{
    int fd = regfile_open(path, O_RDONLY, 0, max);
    if (fd < 0)
        return NULL;
    struct stat st;
    /* Read to EOF rather than trusting st_size: /proc files report 0 and a file may
     * grow while we read (up to max). */
    size_t cap = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, used = 0;
    char *buf = malloc(cap);
    int why = buf ? 0 : ENOMEM;
    while (!why) {
        if (used + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                why = ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + used, cap - used - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            why = errno;
        if (r <= 0)
            break;
        used += (size_t)r;
        if (max && used > max) /* grew past the limit while read: cap stays below 2 x max */
            why = EFBIG;
    }
    close(fd);
    if (why) {
        free(buf);
        errno = why;
        return NULL;
    }
    buf[used] = '\0';
    if (len)
        *len = used;
    return buf;
}

bool regfile_is(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *regfile_strerror(int err)
{
    switch (err) {
    case EINVAL: return "not a regular file (a FIFO, device or socket is never read)";
    case EFBIG: return "larger than its size limit";
    case ELOOP: return "a symbolic link, where the tool keeps its own file";
    default: return strerror(err);
    }
}
