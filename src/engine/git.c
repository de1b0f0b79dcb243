/* src/engine/git.c — --git: commit a shape's artifacts after each STORE and at
 * SHAPE_COMPLETE. git is run with an argv (src/util/spawn.h), never a shell, so idea
 * text in the message is only ever data. Only the tuning directory's files of this
 * shape (plus state.json and RESUME.md) are named, so nothing else a user staged is
 * committed. Serialized with other croqtuner processes by the tuning directory's
 * lock. A failing git is a warning: the artifacts are already safe on disk.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/atomicio.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/regfile.h"

static int git(const char *dir, const char *const *argv, bool quiet_fail)
{
    static const char *const ident[] = {"GIT_AUTHOR_NAME=croqtuner", "GIT_AUTHOR_EMAIL=croqtuner@localhost",
                                        "GIT_COMMITTER_NAME=croqtuner",
                                        "GIT_COMMITTER_EMAIL=croqtuner@localhost", NULL};
    struct spawn_opts o = {.argv = argv, .cwd = dir, .timeout_s = 120};
    struct spawn_result res;
    const char *cfg[] = {"git", "config", "user.email", NULL};
    struct spawn_opts q = {.argv = cfg, .cwd = dir, .timeout_s = 30};
    /* keep the user's identity when there is one; otherwise name the tool */
    if (spawn_run(&q, &res) == 0 && res.exit_code != 0)
        o.env_add = ident;
    spawn_result_release(&res);
    if (spawn_run(&o, &res)) {
        log_warn("git: cannot start: %m");
        return -1;
    }
    int rc = res.exit_code == 0 ? 0 : -1;
    if (rc && !quiet_fail) {
        char why[128];
        spawn_describe(&res, why, sizeof why);
        log_warn("git %s failed (%s): %.300s", argv[1], why, res.err && *res.err ? res.err : res.out);
    }
    spawn_result_release(&res);
    return rc;
}

/* A repository of the tuning directory's own, ignoring what is not an artifact (locks,
 * live progress, build outputs). 0 or -1. */
static int own_repo(const char *dir, const char *const *init_argv)
{
    char path[ENGINE_PATH_MAX];
    if (git(dir, init_argv, false))
        return -1;
    if (!path_fmt(path, "%s/.gitignore", dir) && access(path, F_OK))
        atomic_write_str(path, "# written by croqtuner --git: not artifacts\n*.lock\n/.lock\n/progress/\n/build/\n");
    return 0;
}

void git_commit_shape(struct run *r, const char *message)
{
    const char *key = r->ck.key;
    char lock[ENGINE_PATH_MAX], paths[9][ENGINE_PATH_MAX], probe[ENGINE_PATH_MAX];
    const char *argv[20];
    int n = 0, np = 0;
    snprintf(paths[np++], ENGINE_PATH_MAX, "logs/%s", key);
    snprintf(paths[np++], ENGINE_PATH_MAX, "srcs/%s", key);
    snprintf(paths[np++], ENGINE_PATH_MAX, "generators"); /* the snapshots the recipes name */
    snprintf(paths[np++], ENGINE_PATH_MAX, "perf/%s", key);
    snprintf(paths[np++], ENGINE_PATH_MAX, "checkpoints/%s.json", key);
    snprintf(paths[np++], ENGINE_PATH_MAX, "state.json");
    snprintf(paths[np++], ENGINE_PATH_MAX, "RESUME.md");
    snprintf(paths[np++], ENGINE_PATH_MAX, "kernels/gemm_sp_%s/%s_best.cu", croq_dtype_name(r->ck.sk.dtype), key);
    snprintf(paths[np++], ENGINE_PATH_MAX, ".gitignore");
    if (path_fmt(lock, "%s/.lock", r->dir))
        return;
    int fd = regfile_open(lock, O_RDWR | O_CREAT, REGFILE_NOFOLLOW, 0);
    if (fd < 0 || flock(fd, LOCK_EX)) {
        log_warn("git: cannot lock '%s': %s", lock, regfile_strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    /* Commit into the enclosing repository if it tracks the tuning directory; if there is
     * none, or it ignores the directory (./tuning is in croqtuner's .gitignore), the
     * tuning directory gets a repository of its own. */
    const char *probe_argv[] = {"git", "rev-parse", "--is-inside-work-tree", NULL};
    const char *ignored_argv[] = {"git", "check-ignore", "-q", "state.json", NULL};
    const char *init_argv[] = {"git", "init", "-q", ".", NULL};
    if ((git(r->dir, probe_argv, true) || !git(r->dir, ignored_argv, true)) && own_repo(r->dir, init_argv))
        goto out;
    argv[n++] = "git", argv[n++] = "add", argv[n++] = "--";
    int first = n;
    for (int i = 0; i < np; i++)
        if (!path_fmt(probe, "%s/%s", r->dir, paths[i]) && access(probe, F_OK) == 0)
            argv[n++] = paths[i];
    argv[n] = NULL;
    if (git(r->dir, argv, false))
        goto out;
    /* commit exactly those paths (--only is implied by a pathspec) */
    const char *commit[20] = {"git", "commit", "-q", "-m", message, "--"};
    int m = 6;
    for (int i = first; i < n; i++)
        commit[m++] = argv[i];
    commit[m] = NULL;
    git(r->dir, commit, false);
out:
    close(fd);
}
