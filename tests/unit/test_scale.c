/* tests/unit/test_scale.c — src/scale: process identity, claims and the stale-claim
 * rule (with real processes: a live child, a dead one, a reused pid, a held lock),
 * claiming in waves on hand-made states, the plan's waves, and the Slurm script text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/utctime.h"
#include "scale/scale.h"
#include "util/atomicio.h"

static char dir[256];
static char shapes[300];

/* Two typical f16 shapes, far and near scenario shapes, one typical e4m3 shape. */
static const char shapes_json[] =
    "{\"scenarios\": {\n"
    "   \"sq\": {\"type\": \"single\", \"M\": \"S\", \"N\": \"S\", \"K\": \"S\", \"sizes\": [256, 512, 2048]},\n"
    "   \"vk\": {\"type\": \"single\", \"M\": 2048, \"N\": 4096, \"K\": \"S\", \"sizes\": [4096, 8192]}},\n"
    " \"size_constraints\": {\"min_M\": 128, \"min_N\": 256, \"min_K\": 128},\n"
    " \"regions\": {\"near\": {\"M\": [2048, 8192], \"N\": [4096, 16384], \"K\": [4096, 16384]}},\n"
    " \"typical_shapes_for_scratch\": {\"f16\": [[512, 512, 512], [1024, 1024, 1024]],\n"
    "                                 \"e4m3\": [[2048, 2048, 2048]]},\n"
    " \"iteration_budgets\": {\"from_scratch\": 150, \"from_current_best\": 30}}\n";

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/croq-test-scale.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(shapes, sizeof shapes, "%s/shapes.json", dir);
    return atomic_write_str(shapes, shapes_json);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A child that waits until the pipe closes (or, with lock_key, first flocks that shape's
 * lock and says so). Returns its pid; *fd is the pipe to close to end it. */
static pid_t child_start(int *fd, const char *lock_key)
{
    int p[2], ready[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char c, path[600];
        close(p[1]);
        if (lock_key) {
            snprintf(path, sizeof path, "%s/checkpoints", dir);
            mkdir_p(path);
            snprintf(path, sizeof path, "%s/checkpoints/%s.lock", dir, lock_key);
            int l = open(path, O_RDWR | O_CREAT, 0644);
            if (l < 0 || flock(l, LOCK_EX))
                _exit(1);
        }
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        while (read(p[0], &c, 1) > 0)
            ;
        _exit(0);
    }
    char c;
    close(p[0]);
    close(ready[1]);
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    *fd = p[1];
    return pid;
}

static void child_end(pid_t pid, int fd)
{
    int st;
    close(fd);
    assert_int_equal(waitpid(pid, &st, 0), pid);
}

static void ident_of(pid_t pid, struct proc_ident *out)
{
    char err[300];
    assert_int_equal(proc_ident_self(out, err, sizeof err), 0);
    out->pid = pid;
    assert_int_equal(proc_start_ticks(pid, &out->start_ticks), 0);
}

/* ---- proc.c -------------------------------------------------------------------------- */

static void test_proc_ident_self(void **state)
{
    (void)state;
    struct proc_ident me;
    unsigned long long t;
    char err[300];
    assert_int_equal(proc_ident_self(&me, err, sizeof err), 0);
    assert_int_equal(me.pid, (long)getpid());
    assert_true(strlen(me.host) > 0);
    assert_int_equal(strlen(me.boot_id), 36); /* a UUID */
    assert_int_equal(strncmp(me.pidns, "pid:[", 5), 0);
    assert_int_equal(proc_start_ticks(getpid(), &t), 0);
    assert_true(t == me.start_ticks && t > 0);
    assert_true(proc_same_host(&me, &me));
    struct proc_ident other = me;
    strcpy(other.pidns, "pid:[1]");
    assert_false(proc_same_host(&me, &other)); /* another container on this host */
}

static void test_proc_dead_child(void **state)
{
    (void)state;
    unsigned long long t;
    siginfo_t si;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    /* exited but not reaped: a zombie has no process left to hold anything */
    assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
    assert_int_equal(proc_start_ticks(pid, &t), -1);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_int_equal(proc_start_ticks(pid, &t), -1);
    assert_int_equal(proc_start_ticks(0, &t), -1);
}

/* ---- claim.c --------------------------------------------------------------------------- */

static void claim_sample(struct claim *c, const char *key, long pid)
{
    memset(c, 0, sizeof *c);
    snprintf(c->key, sizeof c->key, "%s", key);
    c->action = CLAIM_TUNE;
    c->who.pid = pid;
    strcpy(c->who.host, "node7");
    strcpy(c->who.boot_id, "0b5c7a3e-54d4-4f6a-9d7e-5d0f2b1f0c11");
    strcpy(c->who.pidns, "pid:[4026531836]");
    c->who.start_ticks = 123456789;
    strcpy(c->gpu, "3");
    strcpy(c->job, "4242_7");
    strcpy(c->claimed_at, "2026-11-29T11:42:07Z");
    c->claimed_s = 1795952527;
}

static void test_claim_json(void **state)
{
    (void)state;
    struct claim c, back;
    char err[300];
    claim_sample(&c, "f16_512x512x512_fs", 4242);
    json_t *j = claim_to_json(&c);
    assert_int_equal(claim_from_json("f16_512x512x512_fs", j, &back, err, sizeof err), 0);
    assert_memory_equal(&c, &back, sizeof c);
    /* each damage is refused with the member named */
    json_t *bad = json_deep_copy(j);
    json_object_del(bad, "pid");
    assert_int_equal(claim_from_json("f16_512x512x512_fs", bad, &back, err, sizeof err), -1);
    assert_non_null(strstr(err, "'pid'"));
    json_object_set_new(bad, "pid", json_integer(0));
    assert_int_equal(claim_from_json("f16_512x512x512_fs", bad, &back, err, sizeof err), -1);
    json_object_set_new(bad, "pid", json_integer(5));
    json_object_set_new(bad, "action", json_string("steal"));
    assert_int_equal(claim_from_json("f16_512x512x512_fs", bad, &back, err, sizeof err), -1);
    assert_non_null(strstr(err, "'action'"));
    assert_int_equal(claim_from_json("../f16_512x512x512_fs", j, &back, err, sizeof err), -1);
    assert_int_equal(claim_from_json("f16_512x512x512_fs", json_string("x"), &back, err, sizeof err), -1);
    json_decref(bad);
    json_decref(j);
}

static void test_stale_rule(void **state)
{
    (void)state;
    struct claim c;
    char why[200];
    claim_sample(&c, "f16_512x512x512_fs", 4242);
    struct claim_facts alive = {.same_host = true, .pid_alive = true, .start_matches = true, .age_s = 1e6};
    assert_null(claim_stale_reason(&c, &alive, why, sizeof why));
    struct claim_facts gone = {.same_host = true, .age_s = 1};
    assert_non_null(claim_stale_reason(&c, &gone, why, sizeof why));
    assert_string_equal(why, "process 4242 on 'node7' is gone");
    struct claim_facts reused = {.same_host = true, .pid_alive = true, .start_matches = false};
    assert_non_null(claim_stale_reason(&c, &reused, why, sizeof why));
    assert_non_null(strstr(why, "now belongs to another process"));
    /* the lock outranks everything: someone is working on the shape */
    struct claim_facts locked = {.same_host = true, .lock_held = true};
    assert_null(claim_stale_reason(&c, &locked, why, sizeof why));
    struct claim_facts rebooted = {.rebooted = true, .age_s = 5};
    assert_non_null(claim_stale_reason(&c, &rebooted, why, sizeof why));
    assert_non_null(strstr(why, "rebooted"));
    /* another host: trusted for the grace period, then only with the lock */
    struct claim_facts young = {.age_s = CLAIM_GRACE_S - 1};
    assert_null(claim_stale_reason(&c, &young, why, sizeof why));
    struct claim_facts old = {.age_s = CLAIM_GRACE_S};
    assert_non_null(claim_stale_reason(&c, &old, why, sizeof why));
    assert_non_null(strstr(why, "nothing happened for 120 s to the claim of process 4242 on host 'node7'"));
    struct claim_facts old_locked = {.age_s = 1e6, .lock_held = true};
    assert_null(claim_stale_reason(&c, &old_locked, why, sizeof why));
}

static void test_facts_real_processes(void **state)
{
    (void)state;
    struct claim c;
    struct claim_facts f;
    struct proc_ident me;
    char err[300], why[200];
    const char *key = "f16_1024x1024x1024_fs";
    int fd;
    assert_int_equal(proc_ident_self(&me, err, sizeof err), 0);
    pid_t pid = child_start(&fd, NULL);
    claim_sample(&c, key, pid);
    ident_of(pid, &c.who);
    claim_facts_gather(dir, &c, &me, NULL, &f);
    assert_true(f.same_host && f.pid_alive && f.start_matches && !f.lock_held);
    assert_null(claim_stale_reason(&c, &f, why, sizeof why));
    c.who.start_ticks++; /* the same pid, started at another time: a later process */
    claim_facts_gather(dir, &c, &me, NULL, &f);
    assert_true(f.pid_alive && !f.start_matches);
    assert_non_null(claim_stale_reason(&c, &f, why, sizeof why));
    c.who.start_ticks--;
    child_end(pid, fd); /* kill -9 would do the same: the process is gone */
    claim_facts_gather(dir, &c, &me, NULL, &f);
    assert_false(f.pid_alive);
    assert_non_null(claim_stale_reason(&c, &f, why, sizeof why));
    assert_non_null(strstr(why, "is gone"));
    /* a process holding the shape's lock keeps even a dead claimant's claim live */
    pid_t holder = child_start(&fd, key);
    assert_true(claim_lock_held(dir, key));
    claim_facts_gather(dir, &c, &me, NULL, &f);
    assert_true(f.lock_held);
    assert_null(claim_stale_reason(&c, &f, why, sizeof why));
    child_end(holder, fd);
    assert_false(claim_lock_held(dir, key)); /* the kernel dropped it with the process */
}

static void test_facts_other_host(void **state)
{
    (void)state;
    struct claim c;
    struct claim_facts f;
    struct proc_ident me;
    char err[300], why[200], now[32], json[256];
    json_error_t je;
    assert_int_equal(proc_ident_self(&me, err, sizeof err), 0);
    claim_sample(&c, "f16_512x512x512_fs", 1); /* host 'node7': its pid says nothing here */
    c.claimed_s = (long long)time(NULL) - 7200;
    claim_facts_gather(dir, &c, &me, NULL, &f);
    assert_false(f.same_host || f.rebooted || f.pid_alive);
    assert_true(f.age_s >= 7200 && f.age_s < 7300);
    assert_non_null(claim_stale_reason(&c, &f, why, sizeof why));
    /* an old claim whose shape just changed (finished, stopped): its worker is releasing it */
    utc_now(now);
    snprintf(json, sizeof json, "{\"shapes\": {\"f16_512x512x512_fs\": {\"updated_at\": \"%s\"}}}", now);
    json_t *st = json_loads(json, 0, &je);
    claim_facts_gather(dir, &c, &me, st, &f);
    assert_true(f.age_s >= 0 && f.age_s < 60);
    assert_null(claim_stale_reason(&c, &f, why, sizeof why));
    json_object_set_new(json_object_get(json_object_get(st, "shapes"), "f16_512x512x512_fs"), "updated_at",
                        json_string("2020-01-01T00:00:00Z"));
    claim_facts_gather(dir, &c, &me, st, &f);
    assert_true(f.age_s >= 7200 && f.age_s < 7300); /* the claim's own age again */
    json_decref(st);
    /* same host name, another boot: everything it ran is gone */
    strcpy(c.who.host, me.host);
    claim_facts_gather(dir, &c, &me, NULL, &f);
    assert_true(f.rebooted && !f.same_host);
    assert_non_null(claim_stale_reason(&c, &f, why, sizeof why));
}

/* ---- plan.c ---------------------------------------------------------------------------- */

static void wave_keys(const struct plan_wave *w, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; i < w->n; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", w->s[i].key);
}

static void test_plan_waves(void **state)
{
    (void)state;
    struct scale_plan p;
    char err[600], keys[1024];
    assert_int_equal(plan_build(shapes, CROQ_DTYPE_F16, -1, 0, false, &p, err, sizeof err), 0);
    assert_true(p.dtypes[CROQ_DTYPE_F16] && !p.dtypes[CROQ_DTYPE_E4M3] && p.scratch_rerun);
    wave_keys(&p.waves[CROQ_DTYPE_F16][0], keys, sizeof keys);
    assert_string_equal(keys, "f16_512x512x512_fs f16_1024x1024x1024_fs");
    wave_keys(&p.waves[CROQ_DTYPE_F16][1], keys, sizeof keys);
    assert_string_equal(keys, "f16_256x256x256 f16_2048x2048x2048"); /* 512^3 is typical: wave 1 */
    wave_keys(&p.waves[CROQ_DTYPE_F16][2], keys, sizeof keys);
    assert_string_equal(keys, "f16_2048x4096x4096 f16_2048x4096x8192");
    assert_int_equal(p.waves[CROQ_DTYPE_E4M3][0].n, 0);
    /* stage 4: the from-scratch keys of flagged from-best shapes (best still iter 0,
     * no seed), in scenario order */
    json_error_t je;
    json_t *st = json_loads("{\"shapes\": {\"f16_256x256x256\": {\"status\": \"done\", \"mode\": "
                            "\"from_current_best\", \"m\": 256, \"n\": 256, \"k\": 256, \"seed_from\": \"\", "
                            "\"best\": {\"iter\": 0}}}}", 0, &je);
    struct plan_wave w4;
    plan_scratch_wave(&p, CROQ_DTYPE_F16, st, &w4);
    wave_keys(&w4, keys, sizeof keys);
    assert_string_equal(keys, "f16_256x256x256_fs");
    plan_wave_release(&w4);
    json_decref(st);
    plan_release(&p);
    /* --mode scratch: one mode everywhere, a typical shape is never planned twice */
    assert_int_equal(plan_build(shapes, -1, MODE_FROM_SCRATCH, 0, false, &p, err, sizeof err), 0);
    assert_false(p.scratch_rerun);
    wave_keys(&p.waves[CROQ_DTYPE_F16][1], keys, sizeof keys);
    assert_string_equal(keys, "f16_256x256x256_fs f16_2048x2048x2048_fs");
    wave_keys(&p.waves[CROQ_DTYPE_E4M3][0], keys, sizeof keys);
    assert_string_equal(keys, "e4m3_2048x2048x2048_fs");
    plan_release(&p);
    /* --waves N: the waves after N are empty, wave 4 only with all four */
    assert_int_equal(plan_build(shapes, -1, -1, 1, false, &p, err, sizeof err), 0);
    assert_false(p.scratch_rerun);
    wave_keys(&p.waves[CROQ_DTYPE_F16][0], keys, sizeof keys);
    assert_string_equal(keys, "f16_512x512x512_fs f16_1024x1024x1024_fs");
    assert_int_equal(p.waves[CROQ_DTYPE_E4M3][0].n, 1);
    for (int dt = 0; dt < CROQ_DTYPE_COUNT; dt++)
        assert_true(p.waves[dt][1].n == 0 && p.waves[dt][2].n == 0);
    plan_release(&p);
    assert_int_equal(plan_build(shapes, CROQ_DTYPE_F16, -1, 2, false, &p, err, sizeof err), 0);
    assert_false(p.scratch_rerun);
    assert_true(p.waves[CROQ_DTYPE_F16][1].n == 2 && p.waves[CROQ_DTYPE_F16][2].n == 0);
    plan_release(&p);
    assert_int_equal(plan_build(shapes, CROQ_DTYPE_F16, -1, 4, false, &p, err, sizeof err), 0);
    assert_true(p.scratch_rerun && p.waves[CROQ_DTYPE_F16][2].n == 2);
    plan_release(&p);
    assert_int_equal(plan_build("/nonexistent/shapes.json", -1, -1, 0, false, &p, err, sizeof err), -1);
}

/* ---- next.c: claiming on hand-made states ----------------------------------------------- */

static void set_shape(json_t *st, const char *key, const char *status, const char *phase)
{
    json_t *e = json_object();
    json_object_set_new(e, "status", json_string(status));
    json_object_set_new(e, "phase", json_string(phase));
    json_object_set_new(json_object_get(st, "shapes"), key, e);
}

static void worker_of(pid_t pid, struct worker_id *w, const char *gpu)
{
    memset(w, 0, sizeof *w);
    ident_of(pid, &w->self);
    snprintf(w->gpu, sizeof w->gpu, "%s", gpu);
}

static void expect_work(json_t *st, const struct scale_plan *p, const struct worker_id *w, enum claim_action a,
                        const char *key, struct next_result *r)
{
    char err[300];
    assert_int_equal(claim_next(dir, st, p, w, r, err, sizeof err), 0);
    assert_int_equal(r->kind, NEXT_WORK);
    assert_int_equal(r->claim.action, a);
    assert_string_equal(r->claim.key, key);
    json_t *j = json_object_get(json_object_get(json_object_get(st, "scale"), "claims"), key);
    assert_int_equal(json_integer_value(json_object_get(j, "pid")), w->self.pid);
    assert_string_equal(json_string_value(json_object_get(j, "gpu")), w->gpu);
}

static void test_claim_next_waves(void **state)
{
    (void)state;
    struct scale_plan p;
    struct worker_id me, other, third;
    struct next_result r;
    char err[600];
    int fd;
    assert_int_equal(plan_build(shapes, CROQ_DTYPE_F16, MODE_FROM_SCRATCH, 0, false, &p, err, sizeof err), 0);
    pid_t live = child_start(&fd, NULL);
    pid_t gone = fork();
    if (gone == 0)
        _exit(0);
    worker_of(getpid(), &me, "0");
    worker_of(live, &other, "1");
    third = me;
    third.self.pid = gone; /* a third worker (holding nothing); also the identity of a killed one */
    assert_int_equal(waitpid(gone, NULL, 0), gone);
    json_t *st = json_pack("{s:i, s:{}}", "schema", 1, "shapes");
    /* wave 1: INIT work first, one shape per worker, then nothing until it is INITed */
    expect_work(st, &p, &me, CLAIM_INIT, "f16_512x512x512_fs", &r);
    expect_work(st, &p, &other, CLAIM_INIT, "f16_1024x1024x1024_fs", &r);
    assert_int_equal(claim_next(dir, st, &p, &third, &r, err, sizeof err), 0);
    assert_int_equal(r.kind, NEXT_WAIT);
    /* INITed and released: now TUNE work */
    set_shape(st, "f16_512x512x512_fs", "active", "BASELINE");
    set_shape(st, "f16_1024x1024x1024_fs", "active", "BASELINE");
    assert_int_equal(claim_release(st, "f16_512x512x512_fs", &me, false, NULL), 0);
    assert_int_equal(claim_release(st, "f16_1024x1024x1024_fs", &me, false, NULL), 1); /* not mine */
    assert_int_equal(claim_release(st, "f16_1024x1024x1024_fs", &other, false, NULL), 0);
    assert_int_equal(json_object_size(json_object_get(json_object_get(st, "scale"), "claims")), 0);
    expect_work(st, &p, &me, CLAIM_TUNE, "f16_512x512x512_fs", &r);
    assert_false(r.takeover);
    /* a worker killed while tuning: its claim is stale and the next worker takes it over */
    json_object_set_new(json_object_get(json_object_get(st, "scale"), "claims"), "f16_1024x1024x1024_fs",
                        json_deep_copy(json_object_get(json_object_get(json_object_get(st, "scale"), "claims"),
                                                       "f16_512x512x512_fs")));
    json_object_set_new(json_object_get(json_object_get(json_object_get(st, "scale"), "claims"),
                                        "f16_1024x1024x1024_fs"), "pid", json_integer(gone));
    expect_work(st, &p, &other, CLAIM_TUNE, "f16_1024x1024x1024_fs", &r);
    assert_true(r.takeover);
    assert_int_equal(r.was.who.pid, gone);
    assert_non_null(strstr(r.why, "is gone"));
    /* a live claim is never taken: the wave is fully claimed */
    assert_int_equal(claim_next(dir, st, &p, &third, &r, err, sizeof err), 0);
    assert_int_equal(r.kind, NEXT_WAIT);
    /* wave 2 opens only when wave 1 is finished; a failure counts as finished */
    set_shape(st, "f16_512x512x512_fs", "done", "NEXT_SHAPE");
    assert_int_equal(claim_release(st, "f16_512x512x512_fs", &me, false, NULL), 0);
    assert_int_equal(claim_next(dir, st, &p, &me, &r, err, sizeof err), 0);
    assert_int_equal(r.kind, NEXT_WAIT);
    assert_int_equal(claim_release(st, "f16_1024x1024x1024_fs", &other, true, "broken checkpoint"), 0);
    json_t *failed = json_object_get(json_object_get(json_object_get(st, "scale"), "failed"), "f16_1024x1024x1024_fs");
    assert_string_equal(json_string_value(json_object_get(failed, "why")), "broken checkpoint");
    expect_work(st, &p, &me, CLAIM_INIT, "f16_256x256x256_fs", &r);
    /* a shape locked by a process outside the sweep (a manual 'tune') is passed over */
    int lfd;
    pid_t holder = child_start(&lfd, "f16_2048x2048x2048_fs");
    assert_int_equal(claim_next(dir, st, &p, &other, &r, err, sizeof err), 0);
    assert_int_equal(r.kind, NEXT_WAIT);
    child_end(holder, lfd);
    expect_work(st, &p, &other, CLAIM_INIT, "f16_2048x2048x2048_fs", &r);
    /* everything finished: done */
    const char *all[] = {"f16_256x256x256_fs", "f16_2048x2048x2048_fs", "f16_2048x4096x4096_fs",
                         "f16_2048x4096x8192_fs"};
    for (size_t i = 0; i < 4; i++)
        set_shape(st, all[i], "done", "NEXT_SHAPE");
    assert_int_equal(claim_next(dir, st, &p, &me, &r, err, sizeof err), 0);
    assert_int_equal(r.kind, NEXT_DONE);
    assert_true(r.dropped_own); /* its own leftover claim on 256^3 went */
    json_decref(st);
    child_end(live, fd);
    plan_release(&p);
}

static void test_claim_damage_and_drop(void **state)
{
    (void)state;
    struct scale_plan p;
    struct worker_id me;
    struct next_result r;
    struct strbuf sb = STRBUF_INIT;
    char err[600];
    assert_int_equal(plan_build(shapes, CROQ_DTYPE_E4M3, -1, 0, false, &p, err, sizeof err), 0);
    worker_of(getpid(), &me, "");
    json_error_t je;
    json_t *st = json_loads("{\"schema\": 1, \"shapes\": {}, \"scale\": {\"claims\": {\"e4m3_2048x2048x2048_fs\": "
                            "{\"action\": \"tune\"}}}}", 0, &je);
    assert_int_equal(claim_next(dir, st, &p, &me, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "e4m3_2048x2048x2048_fs"));
    json_object_set_new(json_object_get(st, "scale"), "claims", json_string("x"));
    assert_int_equal(claim_next(dir, st, &p, &me, &r, err, sizeof err), -1);
    /* the merge drops stale claims and keeps live ones */
    struct claim c;
    claim_sample(&c, "e4m3_2048x2048x2048_fs", 1);
    c.claimed_s = (long long)time(NULL) - 3600; /* another host, an hour ago, nothing locked */
    json_t *claims = json_object();
    json_object_set_new(claims, c.key, claim_to_json(&c));
    c = (struct claim){0};
    snprintf(c.key, sizeof c.key, "e4m3_256x256x256");
    c.who = me.self;
    json_object_set_new(claims, c.key, claim_to_json(&c));
    json_object_set_new(json_object_get(st, "scale"), "claims", claims);
    assert_int_equal(claim_drop_stale(dir, st, &me.self, &sb), 1);
    assert_non_null(strstr(strbuf_str(&sb), "e4m3_2048x2048x2048_fs (tune): nothing happened for 360"));
    assert_non_null(strstr(strbuf_str(&sb), " s to the claim of process 1 on host 'node7', and no process holds"));
    assert_int_equal(json_object_size(claims), 1);
    assert_non_null(json_object_get(claims, "e4m3_256x256x256"));
    strbuf_release(&sb);
    json_decref(st);
    plan_release(&p);
}

/* ---- slurm.c, pool.c -------------------------------------------------------------------- */

static void test_slurm_pieces(void **state)
{
    (void)state;
    char m[ENGINE_PATH_MAX];
    struct strbuf sb = STRBUF_INIT;
    assert_true(slurm_time_valid("00:30:00"));
    assert_true(slurm_time_valid("2-12:00:00"));
    assert_true(slurm_time_valid("100:00:00"));
    assert_false(slurm_time_valid("1:00:00"));
    assert_false(slurm_time_valid("00:60:00"));
    assert_false(slurm_time_valid("00:00:61"));
    assert_false(slurm_time_valid("x-00:10:00"));
    assert_false(slurm_time_valid("00:10"));
    slurm_shell_quote(&sb, "it's $HOME");
    assert_string_equal(strbuf_str(&sb), "'it'\\''s $HOME'");
    strbuf_release(&sb);
    assert_int_equal(slurm_merge_path("/a/b/sweep.sbatch", m), 0);
    assert_string_equal(m, "/a/b/sweep-merge.sbatch");
    assert_int_equal(slurm_merge_path("/a.d/job", m), 0);
    assert_string_equal(m, "/a.d/job-merge");
    assert_int_equal(slurm_merge_path(".hidden", m), 0);
    assert_string_equal(m, ".hidden-merge");
}

static void test_slurm_scripts(void **state)
{
    (void)state;
    struct engine_opts o;
    char err[600];
    engine_opts_default(&o);
    o.dir = "/scratch/tun";
    o.shapes = "/data/it's shapes.json";
    o.backend = "gpu";
    o.iters = 40;
    struct slurm_opts so = {.partition = "h200", .time = "04:00:00", .gpus_per_task = 2,
                            .out = "/scratch/tun/slurm/sweep.sbatch", .croqtuner = "/opt/croq/bin/croqtuner"};
    char *a = slurm_array_script(&o, -1, MODE_FROM_CURRENT_BEST, &so, 3, err, sizeof err);
    assert_non_null(a);
    const char *want[] = {"#!/bin/bash\n", "#SBATCH --array=0-2\n", "#SBATCH --gpus-per-task=2\n",
                          "#SBATCH --cpus-per-task=8\n", "#SBATCH --partition=h200\n", "#SBATCH --time=04:00:00\n",
                          "#SBATCH --output=/scratch/tun/slurm/%A_%a.out\n",
                          "exec '/opt/croq/bin/croqtuner' sweep --array-task --tuning '/scratch/tun' --shapes "
                          "'/data/it'\\''s shapes.json' --dtype 'all' --mode 'best' --backend 'gpu' --iters '40' "
                          "--gpus \"$gpus\"\n",
                          "sbatch --dependency=afterany:${jid%%;*} '/scratch/tun/slurm/sweep-merge.sbatch'"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(a, want[i]))
            fail_msg("array script lacks \"%s\":\n%s", want[i], a);
    free(a);
    so.gpus_per_task = 0; /* sim on CPUs: no GPU requested, one worker */
    a = slurm_array_script(&o, CROQ_DTYPE_F16, -1, &so, 1, err, sizeof err);
    assert_non_null(strstr(a, " --workers 1\n"));
    assert_null(strstr(a, "--gpus-per-task"));
    assert_null(strstr(a, "--mode"));
    assert_non_null(strstr(a, "#SBATCH --cpus-per-task=1\n"));
    free(a);
    char *m = slurm_merge_script(&o, &so, err, sizeof err);
    assert_non_null(strstr(m, "exec '/opt/croq/bin/croqtuner' slurm --merge --tuning '/scratch/tun'\n"));
    assert_non_null(strstr(m, "#SBATCH --output=/scratch/tun/slurm/%j-merge.out\n"));
    free(m);
    o.dir = "/scratch/my tuning";
    assert_null(slurm_array_script(&o, -1, -1, &so, 1, err, sizeof err));
    assert_non_null(strstr(err, "'/scratch/my tuning' cannot be written into #SBATCH lines"));
    o.dir = "/scratch/50%";
    assert_null(slurm_merge_script(&o, &so, err, sizeof err));
}

static void test_gpus_parse(void **state)
{
    (void)state;
    struct scale_opts so;
    char err[300];
    assert_int_equal(scale_gpus_parse("0,1,7", &so, err, sizeof err), 0);
    assert_int_equal(so.n_gpus, 3);
    assert_string_equal(so.gpus[2], "7");
    assert_int_equal(scale_gpus_parse("GPU-8c1e2f3a-0000-1111-2222-333344445555", &so, err, sizeof err), 0);
    assert_int_equal(scale_gpus_parse("0,0", &so, err, sizeof err), -1);
    assert_non_null(strstr(err, "listed twice"));
    assert_int_equal(scale_gpus_parse("0,,1", &so, err, sizeof err), -1);
    assert_int_equal(scale_gpus_parse("1;rm", &so, err, sizeof err), -1);
    assert_int_equal(scale_gpus_parse("", &so, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proc_ident_self),
        cmocka_unit_test(test_proc_dead_child),
        cmocka_unit_test(test_claim_json),
        cmocka_unit_test(test_stale_rule),
        cmocka_unit_test(test_facts_real_processes),
        cmocka_unit_test(test_facts_other_host),
        cmocka_unit_test(test_plan_waves),
        cmocka_unit_test(test_claim_next_waves),
        cmocka_unit_test(test_claim_damage_and_drop),
        cmocka_unit_test(test_slurm_pieces),
        cmocka_unit_test(test_slurm_scripts),
        cmocka_unit_test(test_gpus_parse),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
