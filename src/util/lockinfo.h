/* src/util/lockinfo.h — who holds a flock: the pid the kernel lists in /proc/locks for
 * the file, so a refusal can say "locked by pid N" instead of a bare failure.
 *
 * Linux only (/proc/locks); elsewhere, or when the holder is in another pid namespace,
 * the answer is "unknown". The pid is a fact of the moment it is read: the holder may
 * exit right after.
 */
#ifndef CROQ_UTIL_LOCKINFO_H
#define CROQ_UTIL_LOCKINFO_H

/* The pid of a live process other than this one that placed a FLOCK lock on the file
 * open as fd, or -1 (none found, that process has exited while a child that inherited
 * the file keeps the lock, /proc/locks unreadable). Thread-safe (reads /proc/locks). */
long flock_holder_pid(int fd);

#endif
