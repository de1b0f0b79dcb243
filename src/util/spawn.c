/* src/util/spawn.c — run a child: fork + execve into a new process group, output
 * through pipes read with poll(2), time limit enforced on the whole group (spawn.h).
 *
 * fork/execve rather than posix_spawn: we need chdir and setpgid in the child and an
 * exact errno when exec fails, and posix_spawn's chdir action is a GNU extension. The
 * child does only async-signal-safe calls; PATH search and the environment are
 * prepared in the parent.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* After the child exits, how long to keep reading pipes that something outside its
 * process group (a grandchild that called setsid) still holds open. */
#define SPAWN_DRAIN_S 1.0
/* Poll interval: how quickly the child's exit and the deadline are noticed. */
#define SPAWN_TICK_MS 20

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int set_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFD);
    return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

static int pipe_cloexec(int fds[2])
{
    if (pipe(fds))
        return -1;
    if (set_cloexec(fds[0]) || set_cloexec(fds[1])) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        errno = saved;
        return -1;
    }
    return 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ---- preparing the child (parent side) -------------------------------------- */

static const char *env_lookup(const char *const *env_add, const char *name)
{
    size_t n = strlen(name);
    for (const char *const *e = env_add; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return getenv(name);
}

/* Resolve argv[0] like execvp, in the parent: 0 with the path in out, or an errno. */
static int find_program(const char *name, const char *path_env, char *out, size_t outlen)
{
    if (strchr(name, '/')) {
        snprintf(out, outlen, "%s", name);
        return 0;
    }
    if (!*name)
        return ENOENT;
    const char *p = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
    int err = ENOENT;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        struct stat st;
        /* An empty PATH entry means the current directory (POSIX). */
        if (dl)
            snprintf(out, outlen, "%.*s/%s", (int)dl, p, name);
        else
            snprintf(out, outlen, "./%s", name);
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(out, X_OK) == 0)
                return 0;
            err = EACCES;
        }
        if (!colon)
            return err;
        p = colon + 1;
    }
}

static bool env_overridden(const char *entry, const char *const *env_add)
{
    const char *eq = strchr(entry, '=');
    size_t n = eq ? (size_t)(eq - entry) : strlen(entry);
    for (const char *const *e = env_add; e && *e; e++)
        if (!strncmp(*e, entry, n) && (*e)[n] == '=')
            return true;
    return false;
}

/* environ minus the names env_add sets, plus env_add. The strings are not copied. */
static char **env_build(const char *const *env_add)
{
    size_t n = 0, k = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    for (const char *const *e = env_add; e && *e; e++)
        n++;
    char **envp = malloc((n + 1) * sizeof *envp);
    if (!envp)
        return NULL;
    for (char **e = environ; e && *e; e++)
        if (!env_overridden(*e, env_add))
            envp[k++] = *e;
    for (const char *const *e = env_add; e && *e; e++)
        envp[k++] = (char *)*e;
    envp[k] = NULL;
    return envp;
}

/* ---- the child ------------------------------------------------------------- */

/* dup2 that also works when fd is already the target (dup2 would then keep CLOEXEC). */
static int move_fd(int fd, int target)
{
    if (fd == target) {
        int fl = fcntl(fd, F_GETFD);
        return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
    }
    return dup2(fd, target) < 0 ? -1 : 0;
}

struct child_fds {
    int in, out, err; /* what becomes 0, 1, 2 */
    int report;       /* CLOEXEC pipe: receives errno if exec fails */
};

static void child_exec(const char *path, const char *const *argv, char **envp, const char *cwd,
                       const struct child_fds *f)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* The parent may ignore SIGPIPE; ignored dispositions survive exec. */
    signal(SIGPIPE, SIG_DFL);
    setpgid(0, 0);
    int err = 0;
    if (cwd && chdir(cwd))
        err = errno;
    if (!err && (move_fd(f->in, 0) || move_fd(f->out, 1) || move_fd(f->err, 2)))
        err = errno;
    if (!err) {
        execve(path, (char *const *)argv, envp);
        err = errno;
    }
    ssize_t w = write(f->report, &err, sizeof err);
    (void)w;
    _exit(127);
}

/* ---- reading output -------------------------------------------------------- */

struct sink {
    int fd;          /* read end, -1 when closed */
    char *buf;
    size_t len, cap, limit;
    bool truncated;
};

static void sink_read(struct sink *s)
{
    char chunk[65536];
    ssize_t r = read(s->fd, chunk, sizeof chunk);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (r <= 0) {
        close_fd(&s->fd);
        return;
    }
    size_t keep = (size_t)r;
    if (s->len + keep > s->limit) {
        keep = s->limit - s->len;
        s->truncated = true;
    }
    if (s->len + keep + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + keep + 1)
            cap *= 2;
        char *nb = realloc(s->buf, cap);
        if (!nb) { /* keep what we have; dropping output beats losing the child */
            s->truncated = true;
            return;
        }
        s->buf = nb;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, chunk, keep);
    s->len += keep;
    s->buf[s->len] = '\0';
}

static char *sink_take(struct sink *s)
{
    char *b = s->buf ? s->buf : calloc(1, 1);
    s->buf = NULL;
    return b;
}

/* One poll round over the open sinks, waiting at most ms. */
static void sinks_poll(struct sink *s, int n, int ms)
{
    struct pollfd p[2];
    int idx[2], np = 0;
    for (int i = 0; i < n; i++)
        if (s[i].fd >= 0) {
            p[np] = (struct pollfd){.fd = s[i].fd, .events = POLLIN};
            idx[np++] = i;
        }
    if (poll(p, (nfds_t)np, ms) <= 0)
        return;
    for (int i = 0; i < np; i++)
        if (p[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
            sink_read(&s[idx[i]]);
}

/* ---- supervising ------------------------------------------------------------ */

/* Has pid exited? Looks without reaping (WNOWAIT) so the zombie keeps its process-group
 * id reserved while we kill what is left of the group. */
static bool child_exited(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
        return errno != EINTR;
    return si.si_pid == pid;
}

static void supervise(pid_t pid, const struct spawn_opts *o, struct sink *s, struct spawn_result *res,
                      double start)
{
    double deadline = o->timeout_s > 0 ? start + o->timeout_s : 0, kill_at = 0, drain_until = 0;
    bool exited = false, term_sent = false, kill_sent = false;
    for (;;) {
        bool open = s[0].fd >= 0 || s[1].fd >= 0;
        if (exited && (!open || now_s() >= drain_until))
            break;
        sinks_poll(s, 2, open ? SPAWN_TICK_MS : SPAWN_TICK_MS / 4);
        double t = now_s();
        if (!exited && child_exited(pid)) {
            exited = true;
            drain_until = t + SPAWN_DRAIN_S;
            killpg(pid, SIGKILL); /* leftovers of the group: nothing outlives the call */
            continue;
        }
        if (!exited && deadline && t >= deadline && !term_sent) {
            res->timed_out = true;
            killpg(pid, SIGTERM);
            term_sent = true;
            kill_at = t + SPAWN_KILL_GRACE_S;
        }
        if (!exited && term_sent && !kill_sent && t >= kill_at) {
            killpg(pid, SIGKILL);
            kill_sent = true;
        }
    }
    int status = 0;
    pid_t r;
    while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    if (r != pid) /* someone else reaped it (SIGCHLD ignored): status unknown */
        return;
    if (WIFEXITED(status))
        res->exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        res->term_signal = WTERMSIG(status);
}

/* Opens the three files the child gets as 0/1/2; -1 in a slot means "use the pipe". */
static int open_redirects(const struct spawn_opts *o, int fd[3])
{
    fd[0] = open(o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY | O_CLOEXEC);
    fd[1] = o->stdout_path ? open(o->stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    fd[2] = o->stderr_path ? open(o->stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    if (fd[0] < 0 || (o->stdout_path && fd[1] < 0) || (o->stderr_path && fd[2] < 0)) {
        int saved = errno;
        for (int i = 0; i < 3; i++)
            close_fd(&fd[i]);
        errno = saved;
        return -1;
    }
    return 0;
}

struct spawn_pipes {
    int file[3];  /* redirect files, or -1 */
    int out[2], err[2], report[2];
};

static void pipes_close(struct spawn_pipes *p)
{
    for (int i = 0; i < 3; i++)
        close_fd(&p->file[i]);
    for (int i = 0; i < 2; i++) {
        close_fd(&p->out[i]);
        close_fd(&p->err[i]);
        close_fd(&p->report[i]);
    }
}

static int pipes_open(const struct spawn_opts *o, struct spawn_pipes *p)
{
    *p = (struct spawn_pipes){{-1, -1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};
    if (open_redirects(o, p->file))
        return -1;
    if ((p->file[1] < 0 && pipe_cloexec(p->out)) || (p->file[2] < 0 && pipe_cloexec(p->err)) ||
        pipe_cloexec(p->report)) {
        int saved = errno;
        pipes_close(p);
        errno = saved;
        return -1;
    }
    return 0;
}

/* Reads the exec report: 0 when exec succeeded (pipe closed by CLOEXEC), else errno. */
static int read_exec_report(int fd)
{
    int err = 0;
    ssize_t r;
    while ((r = read(fd, &err, sizeof err)) < 0 && errno == EINTR)
        ;
    return r == (ssize_t)sizeof err ? err : 0;
}

static int spawn_start(const struct spawn_opts *o, const char *path, struct spawn_pipes *p, pid_t *pid)
{
    char **envp = env_build(o->env_add);
    if (!envp)
        return -1;
    struct child_fds f = {p->file[0], p->file[1] >= 0 ? p->file[1] : p->out[1],
                          p->file[2] >= 0 ? p->file[2] : p->err[1], p->report[1]};
    *pid = fork();
    if (*pid == 0)
        child_exec(path, o->argv, envp, o->cwd, &f);
    int saved = errno;
    free(envp);
    if (*pid < 0) {
        errno = saved;
        return -1;
    }
    setpgid(*pid, *pid); /* also in the parent: no window where killpg misses the child */
    /* Close the child's ends so EOF arrives when the child (and its children) exit. */
    for (int i = 0; i < 3; i++)
        close_fd(&p->file[i]);
    close_fd(&p->out[1]);
    close_fd(&p->err[1]);
    close_fd(&p->report[1]);
    return 0;
}

static void result_init(struct spawn_result *res, const struct spawn_opts *o)
{
    memset(res, 0, sizeof *res);
    res->exit_code = -1;
    res->limit_s = o->timeout_s > 0 ? o->timeout_s : 0;
}

int spawn_run(const struct spawn_opts *o, struct spawn_result *res)
{
    char path[PATH_MAX];
    result_init(res, o);
    if (!o->argv || !o->argv[0]) {
        errno = EINVAL;
        return -1;
    }
    double start = now_s();
    int ferr = find_program(o->argv[0], env_lookup(o->env_add, "PATH"), path, sizeof path);
    struct spawn_pipes p;
    if (ferr) {
        res->exec_failed = true;
        res->exec_errno = ferr;
        res->out = calloc(1, 1);
        res->err = calloc(1, 1);
        return 0;
    }
    if (pipes_open(o, &p))
        return -1;
    pid_t pid;
    if (spawn_start(o, path, &p, &pid)) {
        int saved = errno;
        pipes_close(&p);
        errno = saved;
        return -1;
    }
    res->exec_errno = read_exec_report(p.report[0]);
    res->exec_failed = res->exec_errno != 0;
    struct sink s[2] = {
        {.fd = p.out[0], .limit = o->out_cap ? o->out_cap : SPAWN_DEFAULT_CAP},
        {.fd = p.err[0], .limit = o->err_cap ? o->err_cap : SPAWN_DEFAULT_CAP},
    };
    p.out[0] = p.err[0] = -1; /* owned by the sinks now */
    supervise(pid, o, s, res, start);
    pipes_close(&p);
    close_fd(&s[0].fd);
    close_fd(&s[1].fd);
    res->wall_s = now_s() - start;
    res->out = sink_take(&s[0]);
    res->err = sink_take(&s[1]);
    res->out_truncated = s[0].truncated;
    res->err_truncated = s[1].truncated;
    if (res->exec_failed) /* the 127 is ours, not the program's */
        res->exit_code = -1;
    return 0;
}

void spawn_result_release(struct spawn_result *res)
{
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
}

void spawn_describe(const struct spawn_result *res, char *buf, size_t len)
{
    if (res->exec_failed)
        snprintf(buf, len, "could not start: %s", strerror(res->exec_errno));
    else if (res->timed_out)
        snprintf(buf, len, "timed out after %.1f s", res->limit_s);
    else if (res->term_signal)
        snprintf(buf, len, "signal %d (%s)", res->term_signal, strsignal(res->term_signal));
    else
        snprintf(buf, len, "exit %d", res->exit_code);
}

/* ---- a long-lived child ------------------------------------------------------ */

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int spawn_open(const struct spawn_opts *o, struct spawn_child *c, int *exec_errno)
{
    char path[PATH_MAX];
    int in[2] = {-1, -1};
    struct spawn_pipes p;
    *c = (struct spawn_child){0, -1, -1, -1};
    *exec_errno = 0;
    if (!o->argv || !o->argv[0]) {
        errno = EINVAL;
        return -1;
    }
    int ferr = find_program(o->argv[0], env_lookup(o->env_add, "PATH"), path, sizeof path);
    if (ferr) {
        *exec_errno = ferr;
        return 0;
    }
    struct spawn_opts po = *o;
    po.stdout_path = po.stderr_path = po.stdin_path = NULL;
    if (pipe_cloexec(in))
        return -1;
    if (pipes_open(&po, &p)) {
        int saved = errno;
        close_fd(&in[0]);
        close_fd(&in[1]);
        errno = saved;
        return -1;
    }
    close_fd(&p.file[0]); /* /dev/null: the child reads our pipe instead */
    p.file[0] = in[0];
    pid_t pid;
    if (spawn_start(&po, path, &p, &pid)) {
        int saved = errno;
        pipes_close(&p);
        close_fd(&in[1]);
        errno = saved;
        return -1;
    }
    /* spawn_start closed the child's ends (in[0] among them, as p.file[0]) */
    *exec_errno = read_exec_report(p.report[0]);
    close_fd(&p.report[0]);
    c->in = in[1];
    c->out = p.out[0];
    c->err = p.err[0];
    if (*exec_errno) {
        struct spawn_result r;
        c->pid = pid;
        spawn_close(c, 0, &r);
        return 0;
    }
    set_nonblock(c->out);
    set_nonblock(c->err);
    signal(SIGPIPE, SIG_IGN); /* a worker that died must be an EPIPE, not our death */
    c->pid = pid;
    return 0;
}

bool spawn_child_exited(const struct spawn_child *c) { return c->pid <= 0 || child_exited(c->pid); }

void spawn_close(struct spawn_child *c, double grace_s, struct spawn_result *res)
{
    memset(res, 0, sizeof *res);
    res->exit_code = -1;
    close_fd(&c->in);
    if (c->pid > 0) {
        double until = now_s() + grace_s;
        while (!child_exited(c->pid) && now_s() < until) {
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        killpg(c->pid, SIGKILL); /* our own child's group: nothing of it outlives the call */
        int status = 0;
        pid_t r;
        while ((r = waitpid(c->pid, &status, 0)) < 0 && errno == EINTR)
            ;
        if (r == c->pid && WIFEXITED(status))
            res->exit_code = WEXITSTATUS(status);
        else if (r == c->pid && WIFSIGNALED(status))
            res->term_signal = WTERMSIG(status);
    }
    close_fd(&c->out);
    close_fd(&c->err);
    c->pid = 0;
}

int spawn_fork_piped(bool own_group, int *pid, int *fd)
{
    int fds[2];
    if (pipe(fds))
        return -1;
    fflush(NULL);
    pid_t p = fork();
    if (p < 0) {
        int e = errno;
        close(fds[0]), close(fds[1]);
        errno = e;
        return -1;
    }
    if (p == 0) {
        if (own_group)
            setpgid(0, 0);
        close(fds[0]);
        *fd = fds[1];
        return 0;
    }
    close(fds[1]);
    *pid = (int)p;
    *fd = fds[0];
    return 1;
}
