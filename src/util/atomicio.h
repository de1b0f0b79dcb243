/* src/util/atomicio.h — crash-safe file writes: write a temp file in the same
 * directory, fsync it, rename over the target, fsync the directory. A reader (or a
 * process restarted after kill -9) sees the old content or the new, never a torn file.
 */
#ifndef CROQ_UTIL_ATOMICIO_H
#define CROQ_UTIL_ATOMICIO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Replace path with data[0..len), mode 0644 (less by the umask). 0, or -1 with errno
 * (and the target untouched). */
int atomic_write(const char *path, const void *data, size_t len);
/* atomic_write with the new file's mode (less by the umask): a copy of someone else's
 * file is made no more readable than the original. */
int atomic_write_mode(const char *path, const void *data, size_t len, unsigned mode);
/* Temp files of atomic_write are ".<name>.tmp.<pid>" next to the target; one is left
 * behind only when its writer was killed between creating and renaming it. */
#define ATOMIC_TEMP_STALE_S 60       /* a dead writer's temp file older than this is stale */
#define ATOMIC_TEMP_ABANDONED_S 86400 /* any temp file older than this is (another host's) */
/* Remove the stale temp files of atomic_write in dir: names of exactly that form whose
 * <name> starts with prefix (NULL: any), and of those only a file whose pid is no live
 * process here and that is older than ATOMIC_TEMP_STALE_S, or one older than
 * ATOMIC_TEMP_ABANDONED_S (a directory shared between hosts: another host's pid says
 * nothing here, but no write takes a day). depth > 0 looks as many levels of
 * subdirectories deep (symlinks are not followed). Returns how many were removed; a
 * missing dir is 0. Not for a directory another program owns. */
int atomic_clean_temps(const char *dir, const char *prefix, int depth);
/* atomic_clean_temps, but a dead writer's temp file goes at once, whatever its age: for
 * files whose every writer holds a lock that the caller holds now (state.json and
 * RESUME.md under the tuning directory's .lock), so none of them is being written. */
int atomic_clean_temps_locked(const char *dir, const char *prefix, int depth);
/* atomic_write of a file a user named (an --out FILE): first removes what a writer of that
 * same file killed between its temp file and its rename left beside it (its
 * ".<name>.tmp.<pid>", by atomic_clean_temps' rule: a dead pid and over a minute old, or
 * over a day), which nothing else would ever sweep there. 0, or -1 with errno. */
int atomic_write_out(const char *path, const void *data, size_t len);
/* atomic_write without its fsyncs: a reader, or a process restarted after kill -9, still
 * sees the old content or the new, never a torn file, but a power cut may lose the new
 * content (or leave the file empty). Only for files nothing needs after a power cut,
 * because they are rebuilt from durable ones or are read at once and thrown away: the
 * progress file, copies out of the build cache, build outputs, scratch files. (They were
 * a third of an iteration's fsyncs: bench/overhead.sh.) */
int atomic_write_volatile(const char *path, const void *data, size_t len);
/* atomic_write of a NUL-terminated string (without the NUL). */
int atomic_write_str(const char *path, const char *s);
/* Append one record (a line ending in '\n'; one is added when missing) durably:
 * O_APPEND write + fsync (+ fsync of the directory when the file was created). A crash
 * can leave a partial last line only if the record exceeds PIPE_BUF; readers must treat a
 * final line without '\n' as torn and ignore it (see engine/storage.c). 0 or -1/errno. */
int append_record(const char *path, const char *line, size_t len);
/* True if path names an existing directory. */
bool is_dir(const char *path);
/* mkdir -p with mode 0755. 0 (also when it exists) or -1 with errno (ENOTDIR when a
 * component is a file). */
int mkdir_p(const char *path);
/* Read a whole regular file of at most REGFILE_MAX bytes (NUL-terminated; free() it):
 * regfile_read (src/util/regfile.h), so a FIFO or a device in its place is refused, never
 * waited on or read forever. NULL with errno on failure (EISDIR for a directory, EINVAL
 * for another non-regular file: regfile_strerror says it in words); *len (bytes, without
 * the NUL) optional. */
char *read_file(const char *path, size_t *len);
/* Copy a regular file atomically (whole file in memory: meant for sources and cubins, a
 * few MB), with the source's permission bits within 0644 (a 0640 or 0600 file stays
 * as private). 0 or -1 with errno. */
int atomic_copy(const char *src, const char *dst);
/* atomic_copy without its fsyncs (atomic_write_volatile says when that is right). */
int atomic_copy_volatile(const char *src, const char *dst);
#endif
