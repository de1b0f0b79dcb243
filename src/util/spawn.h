/* src/util/spawn.h — run a child program: argv only (never a shell), optional
 * working directory and extra environment, stdout/stderr captured to memory or files,
 * a wall-clock limit after which the child's whole process group gets SIGTERM then
 * SIGKILL. The only way croqtuner starts programs (nvcc, ncu, git, croq-runner).
 */
#ifndef CROQ_UTIL_SPAWN_H
#define CROQ_UTIL_SPAWN_H
#include <stddef.h>
#include <stdbool.h>

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
    double wall_s;
    char *out, *err;    /* captured, NUL-terminated (empty when redirected); free with spawn_result_release */
};

/* Runs to completion. Returns 0 if the child was started and reaped (whatever its
 * status), -1 on a local failure (fork/pipe) with errno set. */
int spawn_run(const struct spawn_opts *opts, struct spawn_result *res);
void spawn_result_release(struct spawn_result *res);
/* "exit 3", "signal 11 (Segmentation fault)", "timed out after 30.0 s", "could not start: ..." */
void spawn_describe(const struct spawn_result *res, char *buf, size_t len);
#endif
