/* src/util/spawn.h — run a child program: argv only (never a shell), optional
 * working directory and extra environment, stdout/stderr captured to memory or files,
 * a wall-clock limit after which the child's whole process group gets SIGTERM then
 * SIGKILL. The only way croqtuner starts programs (nvcc, ncu, git, croq-runner).
 */
#ifndef CROQ_UTIL_SPAWN_H
#define CROQ_UTIL_SPAWN_H
#include <stddef.h>
#include <stdbool.h>

#define SPAWN_KILL_GRACE_S 2.0
#define SPAWN_DEFAULT_CAP ((size_t)1 << 20)

struct spawn_opts {
    const char *const *argv;   /* argv[0] is looked up in PATH if it has no '/' */
    const char *cwd;           /* NULL: inherit */
    const char *const *env_add;/* "NAME=value" entries added to the environment, NULL-terminated, or NULL */
    double timeout_s;          /* <= 0: no limit */
    const char *stdout_path;   /* NULL: capture into result.out (truncated at out_cap) */
    const char *stderr_path;   /* NULL: capture into result.err (truncated at err_cap) */
    const char *stdin_path;    /* NULL: /dev/null */
    size_t out_cap, err_cap;   /* 0: 1 MiB each */
};

struct spawn_result {
    int exit_code;      /* exit status if exited normally, else -1 */
    int term_signal;    /* signal that ended it, else 0 */
    bool timed_out;     /* killed because timeout_s passed */
    bool exec_failed;   /* the program could not be started (errno in exec_errno) */
    int exec_errno;
    double wall_s;      /* seconds from start to reaping */
    double limit_s;     /* the timeout_s it ran under (0: none), for spawn_describe */
    char *out, *err;    /* captured, NUL-terminated (empty when redirected); free with spawn_result_release */
    bool out_truncated; /* more than out_cap bytes arrived; the rest was read and dropped */
    bool err_truncated;
};

/* Runs to completion. Returns 0 if the child was started and reaped (whatever its
 * status), also when it could not be started (exec_failed), -1 on a local failure
 * (fork/pipe, opening a redirect file) with errno set.
 * The child runs in a new process group; when it exits, or on timeout, whatever is left
 * of that group (grandchildren holding the pipes) is killed, so nothing outlives the
 * call. On timeout the group gets SIGTERM, then SIGKILL 2 s later
 * (SPAWN_KILL_GRACE_S). A relative argv[0] with a '/' is taken relative to cwd. */
int spawn_run(const struct spawn_opts *opts, struct spawn_result *res);
void spawn_result_release(struct spawn_result *res);
/* A long-lived child with pipes on its stdin, stdout and stderr (a worker the caller
 * talks to line by line: src/measure/service.c). It runs in its own process group, like
 * spawn_run's children; the caller polls out/err itself and ends it with spawn_close. */
struct spawn_child {
    int pid;           /* also its process group id; 0 when none */
    int in, out, err;  /* our ends (CLOEXEC, out/err non-blocking); -1 when closed */
};
/* Start o->argv (cwd, env_add as for spawn_run; the redirects and timeout are ignored).
 * 0 with c filled; 0 with c->pid 0 and *exec_errno set when the program could not be
 * started; -1 on a local failure (errno). */
int spawn_open(const struct spawn_opts *o, struct spawn_child *c, int *exec_errno);
/* Whether the child has exited (it is not reaped: spawn_close does that). */
bool spawn_child_exited(const struct spawn_child *c);
/* Close our end of its stdin (a well-behaved worker exits on EOF), wait up to grace_s for
 * it to exit, then SIGKILL its process group (whatever is left of it: our own child and
 * its children only) and reap it. res gets exit_code / term_signal (other fields zero;
 * out/err NULL). Closes the pipes. Safe on a child that is already gone. */
void spawn_close(struct spawn_child *c, double grace_s, struct spawn_result *res);

/* Fork a child that computes in-process and reports on a pipe (explore's builds,
 * replay-bench's runs). Returns 0 in the child, with *fd its write end (the child ends with
 * _exit); 1 in the parent, with *pid the child and *fd the read end; -1 on a local failure
 * (errno), nothing left open. own_group puts the child in a new process group so the parent
 * can end it together with whatever it starts (kill(-pid, ...)). stdio is flushed first so
 * the child does not repeat buffered output. */
int spawn_fork_piped(bool own_group, int *pid, int *fd);

/* "exit 3", "signal 11 (Segmentation fault)", "timed out after 30.0 s", "could not start: ..." */
void spawn_describe(const struct spawn_result *res, char *buf, size_t len);
#endif
