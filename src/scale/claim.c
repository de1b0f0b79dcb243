/* src/scale/claim.c — a claim on a shape: its JSON in state.json, the facts about its
 * process and the rule that says when it is stale (docs/scale.md, "Claims").
 *
 * The strongest fact is the shape's lock: the engine flocks checkpoints/<key>.lock for
 * the whole time it works on a shape, and the kernel drops the lock when the process
 * dies, however it dies. A claim whose shape is locked is live, whoever holds it. An
 * unlocked claim is live while its process runs (same host: pid and start time), or,
 * for a claim from another host, where the pid says nothing, for CLAIM_GRACE_S after it
 * was made or its shape last changed (the worker locks the shape right after claiming,
 * and releases the claim right after the engine lets go of the shape).
 */
#include "scale.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "util/atomicio.h"
#include "util/jsonget.h"
#include "util/log.h"
#include "util/regfile.h"

const char *claim_action_name(enum claim_action a)
{
    return a == CLAIM_INIT ? "init" : "tune";
}

json_t *claim_to_json(const struct claim *c)
{
    json_t *j = json_object();
    json_object_set_new(j, "action", json_string(claim_action_name(c->action)));
    json_object_set_new(j, "pid", json_integer(c->who.pid));
    json_object_set_new(j, "host", json_string(c->who.host));
    json_object_set_new(j, "boot_id", json_string(c->who.boot_id));
    json_object_set_new(j, "pidns", json_string(c->who.pidns));
    json_object_set_new(j, "start_ticks", json_integer((json_int_t)c->who.start_ticks));
    json_object_set_new(j, "gpu", json_string(c->gpu));
    json_object_set_new(j, "job", json_string(c->job));
    json_object_set_new(j, "claimed_at", json_string(c->claimed_at));
    json_object_set_new(j, "claimed_s", json_integer(c->claimed_s));
    return j;
}

int claim_from_json(const char *key, json_t *j, struct claim *c, char *err, size_t errlen)
{
    struct shape_key sk;
    char why[256], action[8];
    long long pid, ticks, at;
    memset(c, 0, sizeof *c);
    if (key_parse(key, &sk, why, sizeof why)) {
        snprintf(err, errlen, "claim: %s", why);
        return -1;
    }
    snprintf(c->key, sizeof c->key, "%s", key);
    if (!json_is_object(j)) {
        snprintf(err, errlen, "claim on '%s' is not an object", key);
        return -1;
    }
    char ctx[KEY_MAX + 16];
    struct jget g;
    snprintf(ctx, sizeof ctx, "claim on '%s': ", key);
    jget_init(&g, ctx, err, errlen);
    jget_str(&g, j, "", "action", true, action, sizeof action);
    jget_str(&g, j, "", "host", true, c->who.host, sizeof c->who.host);
    jget_str(&g, j, "", "boot_id", true, c->who.boot_id, sizeof c->who.boot_id);
    jget_str(&g, j, "", "pidns", true, c->who.pidns, sizeof c->who.pidns);
    jget_str(&g, j, "", "gpu", true, c->gpu, sizeof c->gpu);
    jget_str(&g, j, "", "job", true, c->job, sizeof c->job);
    jget_str(&g, j, "", "claimed_at", true, c->claimed_at, sizeof c->claimed_at);
    jget_int_in(&g, j, "", "pid", true, 1, LLONG_MAX, &pid);
    jget_int_in(&g, j, "", "start_ticks", true, 0, LLONG_MAX, &ticks);
    jget_int_in(&g, j, "", "claimed_s", true, 0, LLONG_MAX, &at);
    if (g.failed)
        return -1;
    if (strcmp(action, "init") && strcmp(action, "tune")) {
        snprintf(err, errlen, "claim on '%s': 'action' must be \"init\" or \"tune\"", key);
        return -1;
    }
    c->action = strcmp(action, "init") ? CLAIM_TUNE : CLAIM_INIT;
    c->who.pid = (long)pid;
    c->who.start_ticks = (unsigned long long)ticks;
    c->claimed_s = at;
    return 0;
}

bool claim_lock_held(const char *dir, const char *key)
{
    char path[ENGINE_PATH_MAX];
    if (path_fmt(path, "%s/checkpoints/%s.lock", dir, key))
        return false;
    int fd = regfile_open(path, O_RDONLY, REGFILE_NOFOLLOW, 0);
    if (fd < 0) /* never locked: the engine creates the file when it first locks; a FIFO or */
        return false; /* a device in its place is refused here and by the engine's open */
    bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* drops our shared lock if we got it */
    return held;
}

/* Seconds since a UTC ISO 8601 time ("2026-11-29T11:42:07Z"); a huge age when absent
 * or malformed (it then says nothing about the claim). */
static double since(const char *iso)
{
    struct tm tm;
    int n = 0;
    memset(&tm, 0, sizeof tm);
    if (!iso || sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                       &tm.tm_min, &tm.tm_sec, &n) != 6 || n != 20 || iso[n])
        return 1e18;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return difftime(time(NULL), timegm(&tm));
}

void claim_facts_gather(const char *dir, const struct claim *c, const struct proc_ident *self, json_t *state,
                        struct claim_facts *f)
{
    unsigned long long ticks = 0;
    memset(f, 0, sizeof *f);
    f->same_host = proc_same_host(&c->who, self);
    f->rebooted = !strcmp(c->who.host, self->host) && strcmp(c->who.boot_id, self->boot_id);
    if (f->same_host) {
        f->pid_alive = proc_start_ticks(c->who.pid, &ticks) == 0;
        f->start_matches = f->pid_alive && ticks == c->who.start_ticks;
    }
    f->lock_held = claim_lock_held(dir, c->key);
    f->age_s = difftime(time(NULL), (time_t)c->claimed_s);
    struct state_shape e;
    state_shape_get(state, c->key, &e);
    double quiet = since(e.updated_at[0] ? e.updated_at : NULL);
    f->age_s = quiet < f->age_s ? quiet : f->age_s;
}

const char *claim_stale_reason(const struct claim *c, const struct claim_facts *f, char *buf, size_t len)
{
    if (f->lock_held)
        return NULL; /* a process is working on the shape: the kernel says so */
    if (f->same_host) {
        if (!f->pid_alive)
            snprintf(buf, len, "process %ld on '%s' is gone", c->who.pid, c->who.host);
        else if (!f->start_matches)
            snprintf(buf, len, "pid %ld on '%s' now belongs to another process", c->who.pid, c->who.host);
        else
            return NULL;
        return buf;
    }
    if (f->rebooted) {
        snprintf(buf, len, "host '%s' rebooted after process %ld claimed the shape", c->who.host, c->who.pid);
        return buf;
    }
    if (f->age_s < CLAIM_GRACE_S)
        return NULL; /* another host: it may be just before locking the shape, or just after */
    snprintf(buf, len, "nothing happened for %.0f s to the claim of process %ld on host '%s', and no process "
             "holds the shape's lock", f->age_s, c->who.pid, c->who.host);
    return buf;
}

/* Text for one field of a tab-separated line: tabs and line breaks become blanks. */
static void field(struct strbuf *sb, const char *s)
{
    strbuf_adds(sb, "\t");
    for (; *s; s++)
        strbuf_add(sb, (*s == '\t' || *s == '\n' || *s == '\r') ? " " : s, 1);
}

void claims_log(const char *dir, const char *event, const struct claim *c, const char *detail)
{
    char path[ENGINE_PATH_MAX], sub[ENGINE_PATH_MAX], now[32], pid[24];
    struct strbuf sb = STRBUF_INIT;
    if (path_fmt(sub, "%s/scale", dir) || path_fmt(path, "%s/scale/claims.log", dir) || mkdir_p(sub))
        return;
    utc_now(now);
    snprintf(pid, sizeof pid, "%ld", c->who.pid);
    strbuf_adds(&sb, now);
    const char *f[] = {event, c->key, claim_action_name(c->action), c->who.host, pid, c->gpu, c->job,
                       detail ? detail : ""};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        field(&sb, f[i]);
    strbuf_adds(&sb, "\n");
    /* an audit trail: losing a line must not stop the worker, so only a warning */
    if (append_record(path, sb.buf, sb.len))
        log_warn("cannot append to '%s': %s", path, strerror(errno));
    strbuf_release(&sb);
}
