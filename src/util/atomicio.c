/* src/util/atomicio.c — crash-safe writes (see atomicio.h). */
#include "atomicio.h"

#include "regfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Split path into its directory ("." when none) and last component. */
static int path_split(const char *path, char *dir, size_t dirlen, const char **base)
{
    const char *slash = strrchr(path, '/');
    if (!*path || (slash && !slash[1])) {
        errno = EINVAL; /* "" or "dir/": no file name to write */
        return -1;
    }
    if (!slash) {
        snprintf(dir, dirlen, ".");
        *base = path;
        return 0;
    }
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= dirlen) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(dir, path, n);
    dir[n] = '\0';
    *base = slash + 1;
    return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* fsync a directory so a rename or a new entry in it survives a power cut. */
static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

static int write_temp(const char *tmp, const void *data, size_t len, unsigned mode, bool durable)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
    if (fd < 0)
        return -1;
    if (write_all(fd, data, len) || (durable && fsync(fd))) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return close(fd);
}

int atomic_write(const char *path, const void *data, size_t len) { return atomic_write_mode(path, data, len, 0644); }

static int replace(const char *path, const void *data, size_t len, unsigned mode, bool durable)
{
    char dir[PATH_MAX], tmp[PATH_MAX];
    const char *base;
    if (path_split(path, dir, sizeof dir, &base))
        return -1;
    /* Same directory as the target: rename(2) is atomic only within one file system.
     * The pid keeps two writers of the same file from sharing a temp file. */
    if (snprintf(tmp, sizeof tmp, "%s/.%s.tmp.%ld", dir, base, (long)getpid()) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    /* a temp file left by a crash may have the pid of ours: O_TRUNC reuses it, and its
     * mode would stay, so it goes first */
    unlink(tmp);
    if (write_temp(tmp, data, len, mode, durable) || rename(tmp, path)) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
        return -1;
    }
    return durable ? fsync_dir(dir) : 0;
}

int atomic_write_mode(const char *path, const void *data, size_t len, unsigned mode)
{
    return replace(path, data, len, mode, true);
}

int atomic_write_volatile(const char *path, const void *data, size_t len)
{
    return replace(path, data, len, 0644, false);
}

/* Is leaf ".<name>.tmp.<pid>" (name not empty, pid all digits) with name starting with
 * prefix? Then *pid. */
static bool temp_name(const char *leaf, const char *prefix, long *pid)
{
    const char *dot = strrchr(leaf, '.'), *digits = dot ? dot + 1 : "";
    if (leaf[0] != '.' || !*digits || strspn(digits, "0123456789") != strlen(digits))
        return false;
    size_t at = (size_t)(dot - leaf); /* ".tmp" before the pid, after at least one byte of name */
    if (at < 6 || strncmp(dot - 4, ".tmp", 4))
        return false;
    if (prefix && strncmp(leaf + 1, prefix, strlen(prefix)))
        return false;
    *pid = strtol(digits, NULL, 10);
    return *pid > 0;
}

static int clean_temps(const char *dir, const char *prefix, int depth, double stale_s)
{
    DIR *d = opendir(dir);
    int removed = 0;
    time_t now = time(NULL);
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[PATH_MAX];
        struct stat st;
        long pid;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path || lstat(path, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth > 0)
                removed += clean_temps(path, prefix, depth - 1, stale_s);
            continue;
        }
        if (!S_ISREG(st.st_mode) || !temp_name(e->d_name, prefix, &pid))
            continue;
        double age = difftime(now, st.st_mtime);
        bool dead = kill((pid_t)pid, 0) && errno == ESRCH;
        if (((dead && age >= stale_s) || age > ATOMIC_TEMP_ABANDONED_S) && !unlink(path))
            removed++;
    }
    if (d)
        closedir(d);
    return removed;
}

int atomic_clean_temps(const char *dir, const char *prefix, int depth)
{
    return clean_temps(dir, prefix, depth, ATOMIC_TEMP_STALE_S + 1);
}

int atomic_clean_temps_locked(const char *dir, const char *prefix, int depth)
{
    return clean_temps(dir, prefix, depth, 0);
}

int atomic_write_str(const char *path, const char *s) { return atomic_write(path, s, strlen(s)); }

int atomic_write_out(const char *path, const void *data, size_t len)
{
    char dir[PATH_MAX], prefix[PATH_MAX];
    const char *base;
    /* "<name>.tmp.": this file's temps alone, not those of a longer name beside it */
    if (!path_split(path, dir, sizeof dir, &base) && snprintf(prefix, sizeof prefix, "%s.tmp.", base) < (int)sizeof prefix)
        atomic_clean_temps(dir, prefix, 0);
    return atomic_write(path, data, len);
}

int append_record(const char *path, const char *line, size_t len)
{
    char dir[PATH_MAX];
    const char *base;
    if (path_split(path, dir, sizeof dir, &base))
        return -1;
    bool created = false;
    /* regfile_open: a FIFO in the log's place must not block the append (nor take it) */
    int fd = regfile_open(path, O_WRONLY | O_APPEND, 0, 0);
    if (fd < 0 && errno == ENOENT) {
        fd = regfile_open(path, O_WRONLY | O_APPEND | O_CREAT, 0, 0);
        created = true;
    }
    if (fd < 0)
        return -1;
    /* One write of the whole record: O_APPEND makes each write land at the end as a
     * unit, so concurrent appenders do not interleave inside a record. The newline
     * is added here when missing so a record can never run into the next one. */
    bool need_nl = !len || line[len - 1] != '\n';
    char *rec = malloc(len + 1);
    if (!rec) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    memcpy(rec, line, len);
    if (need_nl)
        rec[len] = '\n';
    int rc = write_all(fd, rec, len + need_nl);
    if (!rc)
        rc = fsync(fd);
    int saved = errno;
    free(rec);
    close(fd);
    errno = saved;
    if (!rc && created)
        rc = fsync_dir(dir);
    return rc;
}

static int mkdir_one(const char *path)
{
    struct stat st;
    if (mkdir(path, 0755) == 0)
        return 0;
    if (errno != EEXIST)
        return -1;
    if (stat(path, &st))
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int mkdir_p(const char *path)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (!n) {
        errno = ENOENT;
        return -1;
    }
    if (n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/' || p[-1] == '/')
            continue;
        *p = '\0';
        int rc = mkdir_one(buf);
        *p = '/';
        if (rc)
            return -1;
    }
    return mkdir_one(buf);
}

char *read_file(const char *path, size_t *len) { return regfile_read(path, REGFILE_MAX, len); }

static int copy(const char *src, const char *dst, bool durable)
{
    size_t len;
    struct stat st;
    char *data = read_file(src, &len);
    if (!data)
        return -1;
    int rc = stat(src, &st) ? -1 : replace(dst, data, len, (unsigned)st.st_mode & 0644, durable);
    int saved = errno;
    free(data);
    errno = saved;
    return rc;
}

int atomic_copy(const char *src, const char *dst) { return copy(src, dst, true); }
int atomic_copy_volatile(const char *src, const char *dst) { return copy(src, dst, false); }

bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
