/* tests/unit/test_util.c — spawn (exit codes, signals, time limits on a process
 * group, literal argv, big output), atomic file I/O, strbuf and hash, the option table
 * parser (opts.h), gzip inflation (gunzip.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "util/atomicio.h"
#include "util/decimal.h"
#include "util/gunzip.h"
#include "util/hash.h"
#include "util/jsonget.h"
#include "util/lockinfo.h"
#include "util/opts.h"
#include "util/regfile.h"
#include "util/srcnorm.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/utctime.h"

static char tmpdir[256];

static int make_tmpdir(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/croq-test-util.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    const char *argv[] = {"rm", "-rf", tmpdir, NULL};
    struct spawn_opts o = {.argv = argv};
    struct spawn_result r;
    int rc = spawn_run(&o, &r);
    spawn_result_release(&r);
    return rc;
}

static void run(const char *const *argv, double timeout, struct spawn_result *r)
{
    struct spawn_opts o = {.argv = argv, .timeout_s = timeout};
    assert_int_equal(spawn_run(&o, r), 0);
}

/* ---- spawn ---- */

static void test_spawn_exit_codes(void **state)
{
    struct spawn_result r;
    const char *t[] = {"true", NULL};
    run(t, 10, &r);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.term_signal, 0);
    assert_false(r.timed_out);
    assert_false(r.exec_failed);
    spawn_result_release(&r);

    const char *e3[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    run(e3, 10, &r);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.out, "out\n");
    assert_string_equal(r.err, "err\n");
    char d[128];
    spawn_describe(&r, d, sizeof d);
    assert_string_equal(d, "exit 3");
    spawn_result_release(&r);
}

static void test_spawn_signal(void **state)
{
    struct spawn_result r;
    const char *argv[] = {"sh", "-c", "kill -SEGV $$", NULL};
    run(argv, 10, &r);
    assert_int_equal(r.exit_code, -1);
    assert_int_equal(r.term_signal, SIGSEGV);
    assert_false(r.timed_out);
    char d[128];
    spawn_describe(&r, d, sizeof d);
    assert_non_null(strstr(d, "signal 11"));
    spawn_result_release(&r);
}

static void test_spawn_exec_failure(void **state)
{
    struct spawn_result r;
    const char *missing[] = {"/nonexistent/croq-no-such-program", NULL};
    run(missing, 10, &r);
    assert_true(r.exec_failed);
    assert_int_equal(r.exec_errno, ENOENT);
    assert_int_equal(r.exit_code, -1);
    char d[128];
    spawn_describe(&r, d, sizeof d);
    assert_string_equal(d, "could not start: No such file or directory");
    spawn_result_release(&r);

    const char *unpathed[] = {"croq-no-such-program-in-path", NULL};
    run(unpathed, 10, &r);
    assert_true(r.exec_failed);
    assert_int_equal(r.exec_errno, ENOENT);
    spawn_result_release(&r);

    /* A directory is not executable: the failure comes from execve in the child. */
    const char *dir[] = {"/tmp", NULL};
    run(dir, 10, &r);
    assert_true(r.exec_failed);
    assert_int_equal(r.exec_errno, EACCES);
    spawn_result_release(&r);
}

static bool process_gone(long pid)
{
    /* Killed processes may linger as zombies until their new parent reaps them. */
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

static void test_spawn_timeout_kills_group(void **state)
{
    char pidfile[300], script[400];
    snprintf(pidfile, sizeof pidfile, "%s/grandchild.pid", tmpdir);
    /* Test only: a shell that starts a grandchild holding our pipes, then waits. */
    snprintf(script, sizeof script, "sleep 100 & echo $! > '%s'; wait", pidfile);
    const char *argv[] = {"sh", "-c", script, NULL};
    struct spawn_result r;
    run(argv, 0.5, &r);
    assert_true(r.timed_out);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_true(r.wall_s >= 0.5 && r.wall_s < 2.0);
    char d[128];
    spawn_describe(&r, d, sizeof d);
    assert_string_equal(d, "timed out after 0.5 s");
    spawn_result_release(&r);

    char *txt = read_file(pidfile, NULL);
    assert_non_null(txt);
    long gpid = atol(txt);
    free(txt);
    assert_true(gpid > 1);
    for (int i = 0; i < 50 && !process_gone(gpid); i++)
        usleep(20000);
    assert_true(process_gone(gpid));
}

static void test_spawn_timeout_escalates_to_kill(void **state)
{
    /* Ignores SIGTERM: must be killed by SIGKILL after the grace period. */
    const char *argv[] = {"sh", "-c", "trap '' TERM; sleep 100 & wait; wait", NULL};
    struct spawn_result r;
    run(argv, 0.3, &r);
    assert_true(r.timed_out);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_true(r.wall_s >= 0.3 + SPAWN_KILL_GRACE_S - 0.1);
    assert_true(r.wall_s < 0.3 + SPAWN_KILL_GRACE_S + 2.0);
    spawn_result_release(&r);
}

static void test_spawn_argv_is_literal(void **state)
{
    char marker[300];
    snprintf(marker, sizeof marker, "%s/pwned", tmpdir);
    char sub[400];
    snprintf(sub, sizeof sub, "$(touch %s)", marker);
    const char *quoted = "he said \"hi\" and 'bye'; `touch x` $HOME";
    const char *newline = "line1\nline2";
    const char *argv[] = {"printf", "[%s]", quoted, sub, newline, "", NULL};
    struct spawn_result r;
    run(argv, 10, &r);
    assert_int_equal(r.exit_code, 0);
    char expect[1200];
    snprintf(expect, sizeof expect, "[%s][%s][%s][]", quoted, sub, newline);
    assert_string_equal(r.out, expect);
    spawn_result_release(&r);
    struct stat st;
    assert_int_equal(stat(marker, &st), -1);
    assert_int_equal(errno, ENOENT);
}

static size_t seq_len(int n)
{
    size_t len = 0;
    char b[16];
    for (int i = 1; i <= n; i++)
        len += (size_t)snprintf(b, sizeof b, "%d\n", i);
    return len;
}

static void test_spawn_big_output(void **state)
{
    /* ~2.6 MB on each stream at once: a reader that drains one pipe at a time deadlocks. */
    const char *argv[] = {"sh", "-c", "seq 1 400000; seq 1 400000 >&2; echo done", NULL};
    struct spawn_opts o = {.argv = argv, .timeout_s = 30, .out_cap = 8 << 20, .err_cap = 8 << 20};
    struct spawn_result r;
    assert_int_equal(spawn_run(&o, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_false(r.timed_out);
    assert_int_equal(strlen(r.out), seq_len(400000) + 5);
    assert_int_equal(strlen(r.err), seq_len(400000));
    assert_false(r.out_truncated);
    assert_string_equal(r.out + strlen(r.out) - 12, "400000\ndone\n");
    spawn_result_release(&r);

    /* Over the cap: kept up to the cap, the rest read and dropped, no hang. */
    struct spawn_opts small = {.argv = argv, .timeout_s = 30};
    assert_int_equal(spawn_run(&small, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_true(r.out_truncated);
    assert_true(r.err_truncated);
    assert_int_equal(strlen(r.out), SPAWN_DEFAULT_CAP);
    assert_memory_equal(r.out, "1\n2\n3\n", 6);
    spawn_result_release(&r);
}

static void test_spawn_cwd_env_redirect(void **state)
{
    char outp[300], inp[300];
    snprintf(outp, sizeof outp, "%s/out.txt", tmpdir);
    snprintf(inp, sizeof inp, "%s/in.txt", tmpdir);
    assert_int_equal(atomic_write_str(inp, "from stdin\n"), 0);
    const char *env[] = {"CROQ_TEST_VAR=va lue", NULL};
    const char *argv[] = {"sh", "-c", "pwd; echo \"$CROQ_TEST_VAR\"; cat", NULL};
    struct spawn_opts o = {.argv = argv, .cwd = tmpdir, .env_add = env, .stdout_path = outp,
                           .stdin_path = inp, .timeout_s = 10};
    struct spawn_result r;
    assert_int_equal(spawn_run(&o, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "");
    spawn_result_release(&r);
    char *txt = read_file(outp, NULL);
    assert_non_null(txt);
    char expect[400];
    snprintf(expect, sizeof expect, "%s\nva lue\nfrom stdin\n", tmpdir);
    assert_string_equal(txt, expect);
    free(txt);

    /* stdin defaults to /dev/null: cat ends at once instead of waiting for a terminal. */
    const char *cat[] = {"cat", NULL};
    run(cat, 5, &r);
    assert_int_equal(r.exit_code, 0);
    assert_false(r.timed_out);
    assert_string_equal(r.out, "");
    spawn_result_release(&r);
}

static void test_spawn_leftovers_killed_on_exit(void **state)
{
    /* The child exits at once but leaves a background grandchild holding stdout: the
     * call must return promptly and the grandchild must not survive it. */
    char pidfile[300], script[400];
    snprintf(pidfile, sizeof pidfile, "%s/left.pid", tmpdir);
    snprintf(script, sizeof script, "sleep 100 & echo $! > '%s'; echo bye", pidfile);
    const char *argv[] = {"sh", "-c", script, NULL};
    struct spawn_result r;
    run(argv, 30, &r);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "bye\n");
    assert_true(r.wall_s < 5);
    spawn_result_release(&r);
    char *txt = read_file(pidfile, NULL);
    assert_non_null(txt);
    long gpid = atol(txt);
    free(txt);
    for (int i = 0; i < 50 && !process_gone(gpid); i++)
        usleep(20000);
    assert_true(process_gone(gpid));
}

/* ---- atomicio ---- */

static int count_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strstr(e->d_name, ".tmp."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void test_atomic_write_replaces(void **state)
{
    char p[300];
    snprintf(p, sizeof p, "%s/file.json", tmpdir);
    assert_int_equal(atomic_write(p, "first version", 13), 0);
    size_t len;
    char *txt = read_file(p, &len);
    assert_string_equal(txt, "first version");
    assert_int_equal(len, 13);
    free(txt);
    assert_int_equal(atomic_write_str(p, "2nd"), 0);
    txt = read_file(p, &len);
    assert_string_equal(txt, "2nd");
    assert_int_equal(len, 3);
    free(txt);
    assert_int_equal(count_temp_files(tmpdir), 0);

    char bad[300];
    snprintf(bad, sizeof bad, "%s/no/such/dir/f", tmpdir);
    assert_int_equal(atomic_write_str(bad, "x"), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(atomic_write_str("", "x"), -1);
    assert_int_equal(errno, EINVAL);
}

static void test_read_file_errors(void **state)
{
    char p[300];
    snprintf(p, sizeof p, "%s/missing.txt", tmpdir);
    errno = 0;
    assert_null(read_file(p, NULL));
    assert_int_equal(errno, ENOENT);
    assert_null(read_file(tmpdir, NULL));
    assert_int_equal(errno, EISDIR);
    /* /proc files report size 0 but have content. */
    char *s = read_file("/proc/self/status", NULL);
    assert_non_null(s);
    assert_non_null(strstr(s, "Pid:"));
    free(s);
}

/* A FIFO (open would block), /dev/zero (read forever) and a symlink to it are refused
 * at once; a file over the limit too; a lock opened REGFILE_NOFOLLOW refuses a link. */
static void test_regfile_refuses_non_regular(void **state)
{
    char fifo[300], zero[300], big[300], lock[300];
    snprintf(fifo, sizeof fifo, "%s/state.json", tmpdir);
    snprintf(zero, sizeof zero, "%s/results.tsv", tmpdir);
    snprintf(big, sizeof big, "%s/big.txt", tmpdir);
    snprintf(lock, sizeof lock, "%s/x.lock", tmpdir);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    assert_int_equal(symlink("/dev/zero", zero), 0);
    errno = 0;
    assert_null(read_file(fifo, NULL));
    assert_int_equal(errno, EINVAL);
    assert_string_equal(regfile_strerror(EINVAL), "not a regular file (a FIFO, device or socket is never read)");
    assert_null(read_file(zero, NULL));
    assert_int_equal(errno, EINVAL);
    assert_null(read_file("/dev/zero", NULL));
    assert_false(regfile_is(fifo));
    assert_false(regfile_is(zero));
    char err[600];
    assert_null(regfile_load_json(fifo, 0, err, sizeof err));
    assert_non_null(strstr(err, "state.json': not a regular file"));
    /* the lenient readers' form: why in a json_error_t, line -1 when the file was not read */
    json_error_t je;
    assert_null(regfile_load_json_je(fifo, 0, &je));
    assert_int_equal(errno, EINVAL);
    assert_int_equal(je.line, -1);
    assert_string_equal(je.text, "not a regular file (a FIFO, device or socket is never read)");
    char absent[600], bad[600];
    snprintf(absent, sizeof absent, "%s/absent.json", tmpdir);
    assert_null(regfile_load_json_je(absent, 0, &je));
    assert_int_equal(errno, ENOENT);
    assert_int_equal(je.line, -1);
    snprintf(bad, sizeof bad, "%s/bad.json", tmpdir);
    assert_int_equal(atomic_write_str(bad, "{\"a\":\n 1,"), 0);
    assert_null(regfile_load_json_je(bad, 0, &je));
    assert_int_equal(errno, EINVAL);
    assert_int_equal(je.line, 2);
    assert_int_equal(atomic_write_str(bad, "{\"a\": 1}"), 0);
    json_t *j = regfile_load_json_je(bad, 0, &je);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "a")), 1);
    json_decref(j);
    /* an append to a FIFO with no reader neither blocks nor writes */
    assert_int_equal(append_record(fifo, "x\n", 2), -1);
    assert_int_equal(regfile_open(fifo, O_RDWR | O_CREAT, REGFILE_NOFOLLOW, 0), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(symlink(big, lock), 0);
    assert_int_equal(regfile_open(lock, O_RDWR | O_CREAT, REGFILE_NOFOLLOW, 0), -1);
    assert_int_equal(errno, ELOOP);
    assert_int_equal(atomic_write_str(big, "0123456789"), 0);
    assert_null(regfile_read(big, 9, NULL));
    assert_int_equal(errno, EFBIG);
    size_t len;
    char *t = regfile_read(big, 10, &len);
    assert_string_equal(t, "0123456789");
    assert_int_equal(len, 10);
    free(t);
    int fd = regfile_open(big, O_RDWR, REGFILE_NOFOLLOW, 0);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0); /* cleared for the caller */
    close(fd);
    unlink(fifo), unlink(zero), unlink(big), unlink(lock);
}

/* The pid of a process that has exited and been reaped: a killed writer's. */
static pid_t dead_pid(void)
{
    pid_t dead = fork();
    if (!dead)
        _exit(0);
    assert_true(dead > 0);
    waitpid(dead, NULL, 0);
    return dead;
}

/* What kill -9 leaves between an atomic write's temp file and its rename: removed when
 * its writer is dead and it is over a minute old, or when it is over a day old; a live
 * writer's, a fresh one, another name pattern or another prefix stay. */
static void test_atomic_clean_temps(void **state)
{
    char d[300], sub[300], p[400];
    snprintf(d, sizeof d, "%s/clean", tmpdir);
    snprintf(sub, sizeof sub, "%s/clean/logs", tmpdir);
    assert_int_equal(mkdir_p(sub), 0);
    pid_t dead = dead_pid();
    struct {
        const char *dir, *fmt;
        long pid;
        int age_s;
        bool removed;
    } f[] = {
        {d, ".state.json.tmp.%ld", dead, 120, true},
        {sub, ".k_results.tsv.tmp.%ld", dead, 120, true},  /* one level down */
        {d, ".state.json.x.tmp.%ld", dead, 10, false},    /* fresh: its writer may be on another host */
        {d, ".RESUME.md.tmp.%ld", getpid(), 120, false},  /* a live writer */
        {d, ".RESUME.md.tmp.%ld", getpid() + 0L, 2 * 86400, true}, /* a day old: abandoned */
        {d, "state.json.tmp.%ld", dead, 120, false},      /* not our pattern */
        {d, ".state.json.tmp.%ldx", dead, 120, false},
        {d, ".tmp.%ld", dead, 120, false},
        {d, ".other.tmp.%ld", dead, 120, true},           /* another prefix: only without one */
    };
    size_t n = sizeof f / sizeof *f;
    char paths[16][400];
    for (size_t i = 0; i < n; i++) {
        char leaf[100];
        snprintf(leaf, sizeof leaf, f[i].fmt, f[i].pid);
        if (i == 4)
            snprintf(leaf, sizeof leaf, ".RESUME.md.tmp.%ld", (long)getpid() + 1000000L); /* any pid */
        snprintf(paths[i], sizeof paths[i], "%s/%s", f[i].dir, leaf);
        assert_int_equal(atomic_write_str(paths[i], "x"), 0);
        struct timespec ts[2] = {{time(NULL) - f[i].age_s, 0}, {time(NULL) - f[i].age_s, 0}};
        assert_int_equal(utimensat(AT_FDCWD, paths[i], ts, 0), 0);
    }
    snprintf(p, sizeof p, "%s/.state.json.tmp.%ld", d, (long)dead);
    assert_int_equal(atomic_clean_temps(d, "state.json", 0), 1); /* prefix and depth 0 */
    assert_int_equal(access(p, F_OK), -1);
    /* the rest: .k_results one level down, the day-old one, .other */
    assert_int_equal(atomic_clean_temps(d, NULL, 1), 3);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(access(paths[i], F_OK) == 0, !f[i].removed);
    assert_int_equal(atomic_clean_temps("/nonexistent/dir", NULL, 3), 0);
}

/* Numbers as the project writes them (util/decimal.h): what strtol/strtod take beyond
 * that is refused. */
static void test_decimal(void **state)
{
    (void)state;
    long l = 7;
    double d = 7;
    assert_int_equal(dec_long("0", &l), 0), assert_int_equal(l, 0);
    assert_int_equal(dec_long("-42", &l), 0), assert_int_equal(l, -42);
    assert_int_equal(dec_long("62914560", &l), 0), assert_int_equal(l, 62914560);
    const char *bad_l[] = {"", "-", "+5", " 5", "\t5", "05", "-05", "5 ", "5x", "0x10", "1e3", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_l / sizeof *bad_l; i++)
        if (!dec_long(bad_l[i], &l))
            fail_msg("dec_long took '%s'", bad_l[i]);
    assert_int_equal(dec_double("0.12", &d), 0), assert_float_equal(d, 0.12, 0);
    assert_int_equal(dec_double("-1.5e-05", &d), 0), assert_float_equal(d, -1.5e-05, 0);
    assert_int_equal(dec_double(".5", &d), 0), assert_float_equal(d, 0.5, 0);
    const char *bad_d[] = {"", "+0.12", " 1", "0x1p-3", "1p3", "nan", "inf", "-inf", "1e999", "1.5.", "1,5"};
    for (size_t i = 0; i < sizeof bad_d / sizeof *bad_d; i++)
        if (!dec_double(bad_d[i], &d))
            fail_msg("dec_double took '%s'", bad_d[i]);
}

/* A user-named output (atomic_write_out): a killed writer's temp file of that name goes on
 * the next write; another name's, or a live writer's, stays. */
static void test_atomic_write_out(void **state)
{
    char d[300], out[400], stale[400], other[400], live[400];
    snprintf(d, sizeof d, "%s/out", tmpdir);
    assert_int_equal(mkdir_p(d), 0);
    pid_t dead = dead_pid();
    snprintf(out, sizeof out, "%s/model.txt", d);
    snprintf(stale, sizeof stale, "%s/.model.txt.tmp.%ld", d, (long)dead);
    snprintf(other, sizeof other, "%s/.model.txt.bak.tmp.%ld", d, (long)dead);
    snprintf(live, sizeof live, "%s/.model.txt.tmp.%ld", d, (long)getppid());
    const char *made[] = {stale, other, live};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(atomic_write_str(made[i], "torn"), 0);
        struct timespec ts[2] = {{time(NULL) - 120, 0}, {time(NULL) - 120, 0}};
        assert_int_equal(utimensat(AT_FDCWD, made[i], ts, 0), 0);
    }
    assert_int_equal(atomic_write_out(out, "new\n", 4), 0);
    char *txt = read_file(out, NULL);
    assert_string_equal(txt, "new\n");
    free(txt);
    assert_int_equal(access(stale, F_OK), -1);
    assert_int_equal(access(other, F_OK), 0);
    assert_int_equal(access(live, F_OK), 0);
}

static void test_append_record(void **state)
{
    char p[300];
    snprintf(p, sizeof p, "%s/log.tsv", tmpdir);
    assert_int_equal(append_record(p, "a\t1\n", 4), 0);
    assert_int_equal(append_record(p, "b\t2", 3), 0); /* newline added */
    assert_int_equal(append_record(p, "c\n", 2), 0);
    char *txt = read_file(p, NULL);
    assert_string_equal(txt, "a\t1\nb\t2\nc\n");
    free(txt);
}

static void test_mkdir_p(void **state)
{
    char p[300], f[320];
    snprintf(p, sizeof p, "%s/a/b//c/", tmpdir);
    assert_int_equal(mkdir_p(p), 0);
    assert_int_equal(mkdir_p(p), 0); /* exists: fine */
    struct stat st;
    snprintf(f, sizeof f, "%s/a/b/c", tmpdir);
    assert_int_equal(stat(f, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    snprintf(f, sizeof f, "%s/a/file", tmpdir);
    assert_int_equal(atomic_write_str(f, "x"), 0);
    snprintf(p, sizeof p, "%s/a/file/sub", tmpdir);
    assert_int_equal(mkdir_p(p), -1);
    assert_int_equal(errno, ENOTDIR);
}

/* text compressed as one gzip member (zlib's deflate with the gzip wrapper) appended at
 * out + *n. */
static void gzip_member(const char *text, unsigned char *out, size_t cap, size_t *n)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = (Bytef *)text;
    zs.avail_in = (uInt)strlen(text);
    zs.next_out = out + *n;
    zs.avail_out = (uInt)(cap - *n);
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    *n += zs.total_out;
    deflateEnd(&zs);
}

/* gunzip_mem: concatenated members read as one text; a member cut short, a damaged one,
 * trailing bytes, a result above the limit and data that is no gzip each refused with
 * their own reason. */
static void test_gunzip(void **state)
{
    unsigned char gz[4096];
    char text[1500], err[256];
    size_t n = 0, len = 0;
    for (int i = 0; i < 100; i++) /* 1090 bytes that compress well */
        snprintf(text + i * 11, sizeof text - (size_t)i * 11, "line %04d.\n", i);
    gzip_member(text, gz, sizeof gz, &n);
    size_t one = n;
    gzip_member("tail\n", gz, sizeof gz, &n);
    assert_true(gunzip_is((char *)gz, n));
    assert_false(gunzip_is(text, strlen(text)));
    char *out = gunzip_mem((char *)gz, n, 1 << 20, &len, err, sizeof err);
    assert_non_null(out);
    assert_int_equal(len, strlen(text) + 5);
    assert_memory_equal(out, text, strlen(text));
    assert_string_equal(out + strlen(text), "tail\n");
    free(out);

    assert_null(gunzip_mem((char *)gz, one - 3, 1 << 20, NULL, err, sizeof err)); /* CRC/size cut */
    assert_non_null(strstr(err, "cut short"));
    unsigned char bad[4096];
    memcpy(bad, gz, one);
    bad[one - 6] ^= 0x55; /* the CRC-32 of the trailer (RFC 1952 2.3.1) */
    assert_null(gunzip_mem((char *)bad, one, 1 << 20, NULL, err, sizeof err));
    assert_non_null(strstr(err, "incorrect data check"));
    memcpy(bad, gz, one);
    memcpy(bad + one, "junk", 4);
    assert_null(gunzip_mem((char *)bad, one + 4, 1 << 20, NULL, err, sizeof err));
    assert_non_null(strstr(err, "trailing bytes"));
    assert_null(gunzip_mem((char *)gz, n, 1000, NULL, err, sizeof err)); /* 1095 bytes inflated */
    assert_non_null(strstr(err, "larger than the limit of 1000 bytes when inflated"));
    out = gunzip_mem((char *)gz, n, strlen(text) + 5, &len, err, sizeof err); /* exactly the limit */
    assert_non_null(out);
    free(out);
    assert_null(gunzip_mem(text, strlen(text), 1 << 20, NULL, err, sizeof err));
    assert_non_null(strstr(err, "not gzip"));
    (void)state;
}

static void test_atomic_copy(void **state)
{
    char a[300], b[300];
    snprintf(a, sizeof a, "%s/src.bin", tmpdir);
    snprintf(b, sizeof b, "%s/dst.bin", tmpdir);
    unsigned char data[300];
    for (int i = 0; i < 300; i++)
        data[i] = (unsigned char)i; /* includes NUL bytes */
    assert_int_equal(atomic_write(a, data, sizeof data), 0);
    assert_int_equal(atomic_write_str(b, "old"), 0);
    assert_int_equal(atomic_copy(a, b), 0);
    size_t len;
    char *got = read_file(b, &len);
    assert_int_equal(len, 300);
    assert_memory_equal(got, data, 300);
    free(got);
    snprintf(a, sizeof a, "%s/nope", tmpdir);
    assert_int_equal(atomic_copy(a, b), -1);
    assert_int_equal(errno, ENOENT);
}

/* The volatile variants replace as atomically (the old or the new content, no temp file
 * left, the source's mode bits within 0644), only without the fsyncs. */
static void test_atomic_volatile(void **state)
{
    char a[300], b[300];
    snprintf(a, sizeof a, "%s/vol.txt", tmpdir);
    snprintf(b, sizeof b, "%s/vol-copy.txt", tmpdir);
    assert_int_equal(atomic_write_volatile(a, "one", 3), 0);
    assert_int_equal(atomic_write_volatile(a, "second", 6), 0);
    size_t len;
    char *txt = read_file(a, &len);
    assert_int_equal(len, 6);
    assert_string_equal(txt, "second");
    free(txt);
    assert_int_equal(chmod(a, 0600), 0);
    assert_int_equal(atomic_write_str(b, "old"), 0);
    assert_int_equal(atomic_copy_volatile(a, b), 0);
    txt = read_file(b, &len);
    assert_string_equal(txt, "second");
    free(txt);
    struct stat st;
    assert_int_equal(stat(b, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(count_temp_files(tmpdir), 0);
    snprintf(a, sizeof a, "%s/no/such/dir/f", tmpdir);
    assert_int_equal(atomic_write_volatile(a, "x", 1), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(atomic_copy_volatile(a, b), -1);
    assert_int_equal(errno, ENOENT);
}

/* ---- strbuf, hash ---- */

static void test_strbuf(void **state)
{
    struct strbuf sb = STRBUF_INIT;
    assert_string_equal(strbuf_str(&sb), "");
    for (int i = 0; i < 1000; i++)
        strbuf_addf(&sb, "%d,", i);
    strbuf_adds(&sb, "end");
    assert_int_equal(sb.len, strlen(sb.buf));
    assert_memory_equal(sb.buf, "0,1,2,", 6);
    assert_string_equal(sb.buf + sb.len - 7, "999,end");
    char *s = strbuf_detach(&sb);
    assert_null(sb.buf);
    assert_int_equal(sb.len, 0);
    free(s);
}

static void test_hash_fnv1a64(void **state)
{
    /* Reference values from the FNV test suite. */
    assert_true(hash_fnv1a64(HASH_FNV1A64_INIT, "", 0) == UINT64_C(0xcbf29ce484222325));
    assert_true(hash_fnv1a64(HASH_FNV1A64_INIT, "a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
    assert_true(hash_fnv1a64(HASH_FNV1A64_INIT, "foobar", 6) == UINT64_C(0x85944171f73967e8));
    char hex[17];
    hash_hex(UINT64_C(0x85944171f73967e8), hex);
    assert_string_equal(hex, "85944171f73967e8");
    uint64_t ab_c = hash_fnv1a64_str(hash_fnv1a64_str(HASH_FNV1A64_INIT, "ab"), "c");
    uint64_t a_bc = hash_fnv1a64_str(hash_fnv1a64_str(HASH_FNV1A64_INIT, "a"), "bc");
    assert_true(ab_c != a_bc);
}

/* ---- srcnorm: comments and whitespace do not make a new source; tokens do ---- */

static uint64_t sn(const char *s) { return srcnorm_hash(s, strlen(s)); }

static void test_srcnorm_same(void **state)
{
    (void)state;
    const char *base = "#include <cuda.h>\n#define N 4\n__global__ void k(int *p) { p[0] = p[1] + N; }\n";
    assert_true(sn(base) == sn("#include <cuda.h>\n#define N 4\n// a comment\n__global__ void k(int*p){p[0]=p[1]+N;}"));
    assert_true(sn(base) == sn("/* head\n comment */ #include <cuda.h>\n#define   N\t4\n"
                               "__global__\n void k( int * p ) {\n  p[ 0 ] = p[ 1 ] + N; /* sum */ }\n\n"));
    assert_true(sn("a + b") == sn("a+b"));
    assert_true(sn("x = -1.5e-3f;") == sn("x=-1.5e-3f ;"));
    assert_true(sn("int a = 1; \\\n int b;") == sn("int a = 1; int b;"));      /* splice */
    assert_true(sn("s.x") == sn("s . x"));
    assert_true(sn("") == sn("  \n\t// nothing\n/* */"));
}

static void test_srcnorm_differs(void **state)
{
    (void)state;
    assert_true(sn("a++b") != sn("a+ +b"));                 /* tokens, not characters */
    assert_true(sn("p[0] = 1;") != sn("p[0] = 2;"));
    assert_true(sn("s = \"a b\";") != sn("s = \"a  b\";"));  /* inside a literal, blanks count */
    assert_true(sn("s = \"// x\";") != sn("s = \"\";"));     /* no comment inside a literal */
    assert_true(sn("c = '/'; d = 1;") != sn("c = '/'; d = 2;"));
    assert_true(sn("#define A 1\nint x;") != sn("#define A 1 int x;")); /* a directive ends at its line */
    assert_true(sn("asm(\"bar.sync 1, 128;\");") != sn("asm(\"bar.sync 2, 128;\");"));
    assert_true(sn("ab") != sn("a b"));
}

/* ---- lockinfo: the pid that holds a flock ---- */

static void test_flock_holder(void **state)
{
    (void)state;
    char path[] = "/tmp/croq-lockinfo-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(flock_holder_pid(fd), -1); /* nobody */
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    if (child == 0) {
        int cfd = open(path, O_RDONLY);
        char b = 1;
        if (cfd < 0 || flock(cfd, LOCK_EX) || write(ready[1], &b, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char b;
    assert_int_equal(read(ready[0], &b, 1), 1);
    assert_int_equal(flock_holder_pid(fd), (long)child);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_int_equal(flock_holder_pid(fd), -1); /* released with its holder */
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    assert_int_equal(flock_holder_pid(fd), -1); /* our own lock is not "another process" */
    close(fd);
    close(ready[0]);
    close(ready[1]);
    unlink(path);
}

/* util/jsonget.h: the rules every JSON reader relies on (absent vs null vs wrong type,
 * the first problem kept, strict vs cut strings, ranges). */
static void test_jsonget(void **state)
{
    (void)state;
    json_t *o = json_loads("{\"i\": 7, \"d\": 2.5, \"n\": null, \"s\": \"abcdef\", \"b\": true,"
                           " \"inf\": \"inf\", \"o\": {\"x\": 1}, \"a\": [1]}", 0, NULL);
    assert_non_null(o);
    char err[128], s[4];
    struct jget g;
    long long i = -1;
    double d = 0;
    bool b = false;
    jget_init(&g, "t: ", err, sizeof err);
    assert_true(jget_int(&g, o, "", "i", true, &i) && i == 7);
    assert_true(jget_num(&g, o, "", "i", true, &d) && d == 7.0);
    assert_true(jget_num(&g, o, "", "inf", true, &d) && isinf(d));
    assert_false(jget_num(&g, o, "", "n", false, &d)); /* null = absent, unchanged */
    assert_true(isinf(d));
    assert_true(jget_finite_or_null(&g, o, "", "n", &d) && isnan(d));
    assert_true(jget_finite_or_null(&g, o, "", "d", &d) && d == 2.5);
    assert_true(jget_bool(&g, o, "", "b", true, &b) && b);
    assert_non_null(jget_obj(&g, o, "", "o", true));
    assert_null(jget_obj_or_null(&g, o, "", "n"));
    assert_non_null(jget_array(&g, o, "", "a", true));
    assert_true(jget_text(&g, o, "", "s", true, s, sizeof s));
    assert_string_equal(s, "abc");
    assert_false(jget_int(&g, o, "", "absent", false, &i));
    assert_false(g.failed);
    assert_string_equal(err, "");
    /* the first problem is the message; later reads still work */
    assert_false(jget_str(&g, o, "top", "s", true, s, sizeof s));
    assert_string_equal(err, "t: 'top.s' is too long");
    assert_false(jget_int_in(&g, o, "", "i", true, 0, 5, &i));
    assert_string_equal(err, "t: 'top.s' is too long");
    assert_true(g.failed);
    struct { const char *key; const char *msg; } bad[] = {
        {"absent", "t: 'absent' missing"}, {"d", "t: 'd' is not an integer"},
        {"s", "t: 's' is not a number"}, {"i", "t: 'i' is not in [8, 9]"},
        {"b", "t: 'b' is not a string"}, {"inf", "t: 'inf' is not a finite number"},
        {"s", "t: 's' is not a finite number"},
        {"a", "t: 'a' is not an object"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        jget_init(&g, "t: ", err, sizeof err);
        switch (k) {
        case 0: jget_obj_or_null(&g, o, "", bad[k].key); break;
        case 1: jget_int(&g, o, "", bad[k].key, true, &i); break;
        case 2: jget_num(&g, o, "", bad[k].key, true, &d); break;
        case 3: jget_int_in(&g, o, "", bad[k].key, true, 8, 9, &i); break;
        case 4: jget_str(&g, o, "", bad[k].key, true, s, sizeof s); break;
        case 5: case 6: jget_finite_or_null(&g, o, "", bad[k].key, &d); break;
        default: jget_obj(&g, o, "", bad[k].key, true); break;
        }
        assert_string_equal(err, bad[k].msg);
    }
    assert_int_equal(i, 7); /* a refused value never overwrites */
    json_decref(o);
}

/* ---- opts.h: the table-driven option parser ------------------------------------------- */

struct opts_fixture {
    const char *dtype, *file, *dir, *out, *outdir, *mode, *list[4];
    int iters, nlist;
    bool flag;
    double pct;
    unsigned long long seed;
};

static const char opts_usage[] =
    "usage: t [--dtype D] [--iters N] [--flag] [--mode a|b] [--file F] [--dir D] [--out F]\n"
    "         [--outdir D] [--set S ...] [--pct P] [--seed S]\n"
    "\n"
    "  --dtype D   a string\n";

static int opts_run(struct opts_fixture *f, int argc, const char **argv)
{
    struct opt t[] = {
        {.name = "--dtype", .type = OPT_STR, .dst = &f->dtype},
        {.name = "--iters", .type = OPT_INT, .dst = &f->iters, .lo = 1, .hi = 10},
        {.name = "--flag", .type = OPT_FLAG, .dst = &f->flag},
        {.name = "--mode", .type = OPT_ENUM, .dst = &f->mode, .choices = "a|b"},
        {.name = "--file", .type = OPT_FILE, .dst = &f->file},
        {.name = "--dir", .type = OPT_DIR, .dst = &f->dir},
        {.name = "--out", .type = OPT_OUTFILE, .dst = &f->out},
        {.name = "--outdir", .type = OPT_OUTDIR, .dst = &f->outdir},
        {.name = "--set", .type = OPT_STR, .dst = f->list, .max = 4, .count = &f->nlist},
        {.name = "--pct", .type = OPT_PERCENT, .dst = &f->pct},
        {.name = "--seed", .type = OPT_U64, .dst = &f->seed},
        {.name = "--hidden", .type = OPT_STR, .dst = &f->dtype, .flags = OPT_HIDDEN},
    };
    struct opt_spec spec = {"t", opts_usage, t, sizeof t / sizeof t[0]};
    memset(f, 0, sizeof *f);
    return opts_parse(&spec, argc, (char **)argv);
}

#define OPTS_RUN(f, ...)                                                                                        \
    ({                                                                                                           \
        const char *av_[] = {"t", __VA_ARGS__};                                                                  \
        opts_run(f, (int)(sizeof av_ / sizeof av_[0]), av_);                                                    \
    })

static void test_opts_parse(void **state)
{
    struct opts_fixture f;
    char file[300];
    snprintf(file, sizeof file, "%s/opts-file", tmpdir);
    assert_int_equal(atomic_write_str(file, "x"), 0);
    /* both spellings of a value; flags; a list in order */
    assert_int_equal(OPTS_RUN(&f, "--dtype", "f16", "--iters=7", "--flag", "--set", "a", "--set=b", "--mode", "b"), 0);
    assert_string_equal(f.dtype, "f16");
    assert_int_equal(f.iters, 7);
    assert_true(f.flag);
    assert_int_equal(f.nlist, 2);
    assert_string_equal(f.list[0], "a");
    assert_string_equal(f.list[1], "b");
    assert_string_equal(f.mode, "b");
    assert_int_equal(OPTS_RUN(&f, "--pct", "2%", "--seed", "12"), 0);
    assert_true(f.pct == 2 && f.seed == 12);
    /* a single-valued option given twice is refused (issue 24 item 13); a flag may repeat */
    assert_int_equal(OPTS_RUN(&f, "--dtype", "f16", "--dtype", "e4m3"), 2);
    assert_int_equal(OPTS_RUN(&f, "--flag", "--flag"), 0);
    /* a list past its limit */
    assert_int_equal(OPTS_RUN(&f, "--set", "1", "--set", "2", "--set", "3", "--set", "4", "--set", "5"), 2);
    /* values of the wrong type or outside the range */
    assert_int_equal(OPTS_RUN(&f, "--iters", "0"), 2);
    assert_int_equal(OPTS_RUN(&f, "--iters", "11"), 2);
    assert_int_equal(OPTS_RUN(&f, "--iters", "3x"), 2);
    assert_int_equal(OPTS_RUN(&f, "--iters", " 3"), 2);
    assert_int_equal(OPTS_RUN(&f, "--iters", "+3"), 2);
    assert_int_equal(OPTS_RUN(&f, "--mode", "c"), 2);
    assert_int_equal(OPTS_RUN(&f, "--mode", ""), 2);
    assert_int_equal(OPTS_RUN(&f, "--pct", "101"), 2);
    assert_int_equal(OPTS_RUN(&f, "--seed", "-1"), 2);
    /* no value, a value for a flag, an unknown option, a positional word */
    assert_int_equal(OPTS_RUN(&f, "--dtype"), 2);
    assert_int_equal(OPTS_RUN(&f, "--flag=1"), 2);
    assert_int_equal(OPTS_RUN(&f, "--dtypes", "x"), 2);
    assert_int_equal(OPTS_RUN(&f, "word"), 2);
    /* paths (issue 24 items 13, 14): inputs exist and are of their kind; outputs are
     * absent or of their kind */
    assert_int_equal(OPTS_RUN(&f, "--file", file, "--dir", tmpdir), 0);
    assert_int_equal(OPTS_RUN(&f, "--file", "/nonexistent/x"), 2);
    assert_int_equal(OPTS_RUN(&f, "--file", "/dev/zero"), 2);
    assert_int_equal(OPTS_RUN(&f, "--file", tmpdir), 2);
    assert_int_equal(OPTS_RUN(&f, "--dir", file), 2);
    assert_int_equal(OPTS_RUN(&f, "--dir", "/nonexistent/x"), 2);
    char fresh[300];
    snprintf(fresh, sizeof fresh, "%s/new", tmpdir);
    assert_int_equal(OPTS_RUN(&f, "--out", fresh, "--outdir", "/nonexistent/new"), 0);
    /* a new file's directory must exist (no command makes it): refused at parse time */
    assert_int_equal(OPTS_RUN(&f, "--out", "/nonexistent-dir/new"), 2);
    assert_int_equal(OPTS_RUN(&f, "--out", file), 0);
    assert_int_equal(OPTS_RUN(&f, "--out", "/dev/null"), 2);
    assert_int_equal(OPTS_RUN(&f, "--out", tmpdir), 2);
    assert_int_equal(OPTS_RUN(&f, "--outdir", file), 2);
    /* --help: printed, 1 */
    assert_int_equal(OPTS_RUN(&f, "--iters", "3", "--help"), 1);
    unlink(file);
}

static void test_opts_value_messages(void **state)
{
    char err[300];
    int n;
    struct opt o = {.name = "--mode", .type = OPT_ENUM, .dst = &(const char *){NULL}, .choices = "a|b|c"};
    assert_int_equal(opts_value(&o, "d", err, sizeof err), -1);
    assert_string_equal(err, "'d' is not a, b or c");
    o = (struct opt){.name = "--n", .type = OPT_INT, .dst = &n, .lo = 1, .hi = 5};
    assert_int_equal(opts_value(&o, "9", err, sizeof err), -1);
    assert_string_equal(err, "9 is outside [1, 5]");
    assert_int_equal(opts_check_file("/dev/zero", err, sizeof err), -1);
    assert_string_equal(err, "'/dev/zero' is not a regular file (a FIFO, device or socket is never read)");
    assert_int_equal(opts_check_outfile("/dev/null", err, sizeof err), -1);
    assert_string_equal(err, "'/dev/null' is not a regular file (a FIFO, device or socket is never written)");
    assert_int_equal(opts_check_file("/nonexistent", err, sizeof err), -1);
    assert_string_equal(err, "'/nonexistent' does not exist");
    assert_int_equal(opts_check_outfile("/tmp", err, sizeof err), -1);
    assert_string_equal(err, "'/tmp' is a directory, not a regular file");
    /* an absent path is fine here (compare checks a record whose directory it makes); an
     * --out FILE's directory must exist (opts_value, below) */
    assert_int_equal(opts_check_outfile("/nonexistent/dir/out.txt", err, sizeof err), 0);
    struct opt out = {.name = "--out", .type = OPT_OUTFILE, .dst = &(const char *){NULL}};
    assert_int_equal(opts_value(&out, "/nonexistent/dir/out.txt", err, sizeof err), -1);
    assert_string_equal(err, "'/nonexistent/dir/out.txt': its directory '/nonexistent/dir' does not exist");
    assert_int_equal(opts_value(&out, "/nonexistent-file-here", err, sizeof err), 0); /* '/' takes it */
    assert_int_equal(opts_value(&out, "new-file-here.txt", err, sizeof err), 0);     /* '.' */
    assert_int_equal(opts_check_outdir("/dev/null", err, sizeof err), -1);
    assert_string_equal(err, "'/dev/null' is not a directory");
    /* numbers are decimal as the tool prints them: no hex, no leading '+' (attack finding 11) */
    double d = 0;
    o = (struct opt){.name = "--s", .type = OPT_DOUBLE, .dst = &d};
    const char *bad[] = {"0x10", "0X1p3", "+5", "1p3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(opts_value(&o, bad[i], err, sizeof err), -1);
        char want[64];
        snprintf(want, sizeof want, "'%s' is not a number", bad[i]);
        assert_string_equal(err, want);
    }
    assert_int_equal(opts_value(&o, "1e+05", err, sizeof err), 0);
    assert_true(d == 1e5);
    assert_int_equal(opts_value(&o, "-2.5", err, sizeof err), 0);
    assert_true(d == -2.5);
}

/* The drift check --help runs: the table against the usage text, both ways. */
static void test_opts_check_help(void **state)
{
    const char *v;
    bool b;
    char err[300];
    struct opt t[] = {
        {.name = "--dtype", .type = OPT_STR, .dst = &v},
        {.name = "--json", .type = OPT_FLAG, .dst = &b},
        {.name = "--test-only", .type = OPT_STR, .dst = &v, .flags = OPT_HIDDEN},
    };
    struct opt_spec s = {"x", "usage: x --dtype D [--json]\n\nMore text names tune --iters.\n", t, 3};
    assert_int_equal(opts_check_help(&s, err, sizeof err), 0);
    s.usage = "usage: x --dtype D\n\n  --json-ish and --jsonx are other words\n";
    assert_int_equal(opts_check_help(&s, err, sizeof err), -1);
    assert_string_equal(err, "x --help does not list its option --json");
    s.usage = "usage: x --dtype D [--json] [--gone N]\n";
    assert_int_equal(opts_check_help(&s, err, sizeof err), -1);
    assert_string_equal(err, "x --help shows --gone, which is not one of its options");
    s.usage = "usage: x --dtype D [--json] [--test-only]\n";
    assert_int_equal(opts_check_help(&s, err, sizeof err), -1);
}

/* A stamp reads back as the time it was written from; anything else a writer does not
 * produce is NAN. 1764415327 is 2025-11-29T11:22:07Z (date -u -d @1764415327). */
static void test_utctime(void **state)
{
    (void)state;
    char s[UTC_STAMP_SIZE];
    utc_format((time_t)1764415327, s);
    assert_string_equal(s, "2025-11-29T11:22:07Z");
    assert_true(utc_parse(s) == 1764415327.0);
    assert_true(utc_parse("1970-01-01T00:00:00Z") == 0.0);
    utc_now(s);
    double now = utc_parse(s);
    assert_true(fabs(now - (double)time(NULL)) <= 2.0);
    const char *bad[] = {NULL, "", "2025-11-29T11:22:07", "2025-11-29T11:22:07Z ", "2025-11-29 11:22:07Z",
                         "2025-13-29T11:22:07Z", "2025-11-29T24:22:07Z", "2025-11-29T11:60:07Z", "2025-11-00T11:22:07Z",
                         "2025-1-29T11:22:07Z", "x2025-11-29T11:22:07Z", "1969-12-31T23:59:59Z"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_true(isnan(utc_parse(bad[i])));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spawn_exit_codes),
        cmocka_unit_test(test_spawn_signal),
        cmocka_unit_test(test_spawn_exec_failure),
        cmocka_unit_test(test_spawn_timeout_kills_group),
        cmocka_unit_test(test_spawn_timeout_escalates_to_kill),
        cmocka_unit_test(test_spawn_argv_is_literal),
        cmocka_unit_test(test_spawn_big_output),
        cmocka_unit_test(test_spawn_cwd_env_redirect),
        cmocka_unit_test(test_spawn_leftovers_killed_on_exit),
        cmocka_unit_test(test_atomic_write_replaces),
        cmocka_unit_test(test_read_file_errors),
        cmocka_unit_test(test_regfile_refuses_non_regular),
        cmocka_unit_test(test_atomic_clean_temps),
        cmocka_unit_test(test_decimal),
        cmocka_unit_test(test_atomic_write_out),
        cmocka_unit_test(test_append_record),
        cmocka_unit_test(test_mkdir_p),
        cmocka_unit_test(test_gunzip),
        cmocka_unit_test(test_atomic_copy),
        cmocka_unit_test(test_atomic_volatile),
        cmocka_unit_test(test_strbuf),
        cmocka_unit_test(test_hash_fnv1a64),
        cmocka_unit_test(test_srcnorm_same),
        cmocka_unit_test(test_srcnorm_differs),
        cmocka_unit_test(test_flock_holder),
        cmocka_unit_test(test_jsonget),
        cmocka_unit_test(test_opts_parse),
        cmocka_unit_test(test_utctime),
        cmocka_unit_test(test_opts_value_messages),
        cmocka_unit_test(test_opts_check_help),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
