/* src/profile/run.c — PROFILE: one launch of a candidate under ncu.
 *
 * Only the launch after the verification and warm-up launches is profiled, with a few
 * sections (not --set full: the seed lineage profiled ~500 launches with the full set
 * and timed out), and clocks left alone (--clock-control none) so the profile sees the
 * clock the timing saw. The CSV goes to a log file of its own (--log-file), so the
 * runner's stdout (its JSON) never mixes with it.
 */
#include "profile.h"

#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile_json.h"
#include "util/atomicio.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/regfile.h"

static const char *const ncu_sections[] = {
    "SpeedOfLight", "MemoryWorkloadAnalysis", "WarpStateStats", "Occupancy",
    "ComputeWorkloadAnalysis", "InstructionStats", "LaunchStats",
};
#define N_SECTIONS (sizeof ncu_sections / sizeof *ncu_sections)

struct run_paths {
    char log[4096], runner_out[4096], stderr_txt[4096], json[4096];
};

__attribute__((format(printf, 2, 3))) static void fail(struct profile_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r->ok = false;
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    /* The reason quotes tool output; JSON (profile.json, the cache) needs UTF-8, and a
     * log line may carry anything. */
    for (char *c = r->reason; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
            *c = '?';
}

static const char *ncu_program(void)
{
    const char *env = getenv("CROQ_NCU");
    return (env && *env) ? env : "ncu";
}

/* argv for ncu around the runner; strings point into the caller's buffers. */
static size_t build_argv(const char **argv, size_t cap, const char *runner, const char *cubin,
                         const char *shape, const char *skip, const char *log)
{
    size_t n = 0;
    const char *head[] = {ncu_program(), "--target-processes", "all", "--kernel-name",
                          PROFILE_KERNEL_NAME, "--launch-skip", skip, "--launch-count", "1",
                          "--clock-control", "none"};
    for (size_t i = 0; i < sizeof head / sizeof *head && n < cap; i++)
        argv[n++] = head[i];
    for (size_t i = 0; i < N_SECTIONS && n + 2 < cap; i++) {
        argv[n++] = "--section";
        argv[n++] = ncu_sections[i];
    }
    const char *tail[] = {"--csv", "--page", "raw", "--print-units", "base", "--log-file", log,
                          runner, "run", "--cubin", cubin, "--shape", shape, "--warmup", "1",
                          "--warmup-ms", "0", "--iters", "1", "--trials", "1", "--no-verify"};
    for (size_t i = 0; i < sizeof tail / sizeof *tail && n + 1 < cap; i++)
        argv[n++] = tail[i];
    argv[n] = NULL;
    return n;
}

/* The first "==ERROR==" line of text, or NULL. */
static const char *first_error_line(const char *text, char *out, size_t len)
{
    const char *e = text ? strstr(text, "==ERROR==") : NULL;
    if (!e)
        return NULL;
    size_t n = strcspn(e, "\r\n");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), e);
    return out;
}

/* The runner's "status" from its JSON on stdout, "" if none (crashed, killed). */
static void runner_status(const char *path, char *out, size_t len)
{
    char err[300];
    json_t *j = regfile_load_json(path, 0, err, sizeof err);
    const char *s = j ? json_string_value(json_object_get(j, "status")) : NULL;
    snprintf(out, len, "%s", s ? s : "");
    json_decref(j);
}

/* A failed runner explains most failed profiles (no launch to profile after a failed
 * verification), so its status goes into the reason. */
static void append_runner_status(const struct run_paths *p, struct profile_result *r)
{
    char status[64];
    runner_status(p->runner_out, status, sizeof status);
    if (status[0] && strcmp(status, "ok")) {
        size_t n = strlen(r->reason);
        snprintf(r->reason + n, sizeof r->reason - n, " (runner status '%s')", status);
    }
}

static void explain_failure(const struct spawn_result *res, const struct run_paths *p,
                            const char *log_text, struct profile_result *r)
{
    char line[200], what[128];
    char *err_text = read_file(p->stderr_txt, NULL);
    spawn_describe(res, what, sizeof what);
    if (res->exec_failed)
        fail(r, "cannot start '%s': %s", ncu_program(), strerror(res->exec_errno));
    else if (res->timed_out)
        fail(r, "ncu %s", what);
    else if (first_error_line(log_text, line, sizeof line) ||
             first_error_line(err_text, line, sizeof line))
        fail(r, "ncu failed (%s): %s", what, line);
    else
        fail(r, "ncu failed: %s", what);
    append_runner_status(p, r);
    free(err_text);
}

static void write_record(const struct run_paths *p, const struct profile_result *r,
                         const char *const *argv, const char *shape, int dtype)
{
    json_t *j = profile_result_to_json(r);
    json_t *cmd = json_array();
    for (size_t i = 0; argv[i]; i++)
        json_array_append_new(cmd, json_string(argv[i]));
    json_object_set_new(j, "argv", cmd);
    json_object_set_new(j, "shape", json_string(shape));
    json_object_set_new(j, "dtype", json_string(croq_dtype_name(dtype)));
    /* The record is a convenience next to the raw log; failing to write it must not
     * turn a good profile into a failed one. */
    if (profile_json_write_atomic(p->json, j))
        fprintf(stderr, "croqtuner: cannot write '%s': %s\n", p->json, strerror(errno));
    json_decref(j);
}

/* The reason of the first ERR_NVGPUCTRPERM of this process; "" while none. */
static char denied[sizeof ((struct profile_result *)0)->reason];

void profile_forget_denial(void) { denied[0] = '\0'; }

/* ncu failed for want of the counter permission: say what it means and how to allow it,
 * once, and remember it. */
static void note_denial(struct profile_result *r)
{
    if (r->ok || !strstr(r->reason, "ERR_NVGPUCTRPERM"))
        return;
    char how[64]; /* "ncu failed (exit 1)" */
    snprintf(how, sizeof how, "%.*s", (int)strcspn(r->reason, ":"), r->reason);
    fail(r, "%s: this process may not read the GPU's performance counters (ERR_NVGPUCTRPERM): allow it "
            "with the nvidia module option NVreg_RestrictProfilingToAdminUsers=0 and a driver reload, or run as "
            "root", how);
    snprintf(denied, sizeof denied, "%s", r->reason);
    log_warn("%s; see https://developer.nvidia.com/ERR_NVGPUCTRPERM. Tuning goes on without profiles (every "
             "idea starts from bottleneck 'unknown'), and ncu is not tried again by this process", r->reason);
}

static void set_paths(struct run_paths *p, const char *dir)
{
    snprintf(p->log, sizeof p->log, "%s/ncu-raw.csv", dir);
    snprintf(p->runner_out, sizeof p->runner_out, "%s/runner.json", dir);
    snprintf(p->stderr_txt, sizeof p->stderr_txt, "%s/ncu-stderr.txt", dir);
    snprintf(p->json, sizeof p->json, "%s/profile.json", dir);
}

/* Spawn ncu and parse its log into r. */
static void run_and_parse(const char *const *argv, const struct run_paths *p, double timeout_s,
                          struct profile_result *r)
{
    struct spawn_opts o = {.argv = argv, .timeout_s = timeout_s, .stdout_path = p->runner_out,
                           .stderr_path = p->stderr_txt};
    struct spawn_result res = {0};
    if (spawn_run(&o, &res)) {
        fail(r, "cannot run '%s': %s", ncu_program(), strerror(errno));
        return;
    }
    char *log_text = read_file(p->log, NULL);
    if (res.exit_code != 0 || res.timed_out || res.exec_failed) {
        explain_failure(&res, p, log_text, r);
    } else if (!log_text) {
        fail(r, "ncu wrote no log '%s': %s", p->log, strerror(errno));
    } else {
        char err[200];
        if (profile_parse_ncu_csv(log_text, PROFILE_KERNEL_NAME, &r->m, err, sizeof err)) {
            fail(r, "%s in '%s'", err, p->log);
            append_runner_status(p, r);
        } else {
            profile_classify(&r->m, r);
            r->ok = true;
        }
    }
    free(log_text);
    spawn_result_release(&res);
}

int profile_run(const char *runner_path, const char *cubin, const struct croq_shape *shape,
                int dtype, const char *out_dir, double timeout_s, struct profile_result *r)
{
    struct run_paths p;
    char shape_s[96], skip[16];
    const char *argv[64];
    memset(r, 0, sizeof *r);
    r->category = BN_UNKNOWN;
    profile_metrics_init(&r->m);
    if (!runner_path || !cubin || !shape || !out_dir) {
        fail(r, "profile_run: missing runner, cubin, shape or output directory");
        return -1;
    }
    if (mkdir_p(out_dir)) {
        fail(r, "cannot create '%s': %s", out_dir, strerror(errno));
        return -1;
    }
    set_paths(&p, out_dir);
    unlink(p.log); /* a stale log from an earlier profile must not be parsed as this one */
    snprintf(shape_s, sizeof shape_s, "%ldx%ldx%ld", shape->m, shape->n, shape->k);
    snprintf(skip, sizeof skip, "%d", PROFILE_LAUNCH_SKIP);
    build_argv(argv, sizeof argv / sizeof *argv - 1, runner_path, cubin, shape_s, skip, p.log);
    if (denied[0]) {
        fail(r, "not retried: %.230s", denied);
    } else {
        run_and_parse(argv, &p, timeout_s, r);
        note_denial(r);
    }
    write_record(&p, r, argv, shape_s, dtype);
    return r->ok ? 0 : -1;
}
