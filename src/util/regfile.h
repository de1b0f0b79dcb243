/* src/util/regfile.h — opening the files croqtuner reads (tuning-directory files,
 * shapes.json, sources, logs of the programs it runs) so that whatever was put in their
 * place cannot hang or exhaust the process: a FIFO would block open() and read(), a
 * symlink to /dev/zero or a device would be read forever. Every open here uses
 * O_NONBLOCK (a FIFO opens at once, and is then refused), fstat()s the descriptor it
 * got (no race with a rename in between) and accepts only a regular file of at most a
 * size limit. Thread-safe (no state).
 */
#ifndef CROQ_UTIL_REGFILE_H
#define CROQ_UTIL_REGFILE_H
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* read_file's size limit: 256 MiB, far above anything the tool writes or reads (a
 * state.json of 268 shapes is ~0.3 MB, a cubin a few MB). */
#define REGFILE_MAX ((size_t)256 << 20)

/* Flags of regfile_open. */
#define REGFILE_NOFOLLOW 1 /* a symlink as the last component is refused (ELOOP): files the
                            * tool itself creates in the tuning directory (locks) */

/* errno values of a refusal, with the message regfile_strerror gives for them:
 *   EINVAL  not a regular file (FIFO, device, socket); EISDIR  a directory;
 *   EFBIG   larger than the limit; ELOOP (REGFILE_NOFOLLOW)  a symbolic link. */

/* open(path, oflags | O_NONBLOCK | O_CLOEXEC [| O_NOFOLLOW]) and fstat: the fd (blocking
 * again, O_NONBLOCK cleared) of a regular file of at most max bytes (0: no limit), or -1
 * with errno (above, or open's). oflags may hold O_RDWR, O_CREAT (mode 0644). */
int regfile_open(const char *path, int oflags, int flags, size_t max);
/* The whole of a regular file of at most max bytes, NUL-terminated (free() it); *len
 * (bytes without the NUL) optional. NULL with errno as regfile_open's, ENOMEM, or EFBIG
 * when it grew past max while being read. */
char *regfile_read(const char *path, size_t max, size_t *len);
/* Parse a JSON file read by regfile_read (REGFILE_MAX). NULL on failure with err =
 * "cannot read 'PATH': why" (jansson's message and line for bad JSON) and errno ENOENT
 * when the file is absent, so a caller can tell "none yet" from damage. flags: jansson's
 * decoding flags (JSON_REJECT_DUPLICATES, ...). */
json_t *regfile_load_json(const char *path, size_t flags, char *err, size_t errlen);
/* The same read and parse for a lenient reader that words its own notes: NULL on failure
 * with *je saying why, its line -1 when the file was not read (its text regfile_strerror's,
 * errno ENOENT when it is absent: "none yet") and jansson's line and text for bad JSON
 * (errno EINVAL). */
json_t *regfile_load_json_je(const char *path, size_t flags, json_error_t *je);
/* True if path (following symlinks) is a regular file: the check before reading a file
 * that may legitimately be absent. */
bool regfile_is(const char *path);
/* strerror(err), with the refusals above said in words ("not a regular file (a FIFO,
 * device or socket)", "larger than its size limit"). Static text. */
const char *regfile_strerror(int err);
#endif
