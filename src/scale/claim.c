/* src/scale/claim.c — a claim on a shape (its record in state.json: artifacts/claim.h):
 * the facts about its process and the rule that says when it is stale (docs/scale.md, "Claims").
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "util/atomicio.h"
#include "util/log.h"
#include "util/regfile.h"
#include "util/utctime.h"

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

/* Seconds since a stamp; a huge age when absent or malformed (it then says nothing about
 * the claim). */
static double since(const char *iso)
{
    double t = utc_parse(iso);
    return isnan(t) ? 1e18 : difftime(time(NULL), (time_t)t);
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
