/* src/scale/proc.c — who a process is, precisely enough to tell later whether it is
 * still running: a pid alone is not (pids are reused), so a claim also records the
 * process's start time, the host, its boot id (a reboot ends every process) and the pid
 * namespace (containers on one host number their processes independently).
 */
#include "scale.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomicio.h"

/* The first line of a small file, without its newline; "" when unreadable. */
static void read_line(const char *path, char *out, size_t len)
{
    char *text = read_file(path, NULL);
    out[0] = '\0';
    if (!text)
        return;
    snprintf(out, len, "%.*s", (int)strcspn(text, "\n"), text);
    free(text);
}

int proc_start_ticks(long pid, unsigned long long *out)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    char *text = pid > 0 ? read_file(path, NULL) : NULL;
    if (!text)
        return -1;
    /* comm (field 2) may hold blanks and parentheses: fields 3.. follow the last ')' */
    char *p = strrchr(text, ')'), *save = NULL, *tok;
    int field = 2;
    bool ok = false;
    unsigned long long v = 0;
    bool dead = false;
    for (tok = p ? strtok_r(p + 1, " ", &save) : NULL; tok && !ok; tok = strtok_r(NULL, " ", &save))
        if (++field == 3) {
            dead = *tok == 'Z' || *tok == 'X'; /* a zombie has ended: only its exit status is left */
        } else if (field == 22) {
            char *end;
            errno = 0;
            v = strtoull(tok, &end, 10);
            ok = end != tok && !*end && !errno;
        }
    free(text);
    if (!ok || dead)
        return -1;
    *out = v;
    return 0;
}

int proc_ident_self(struct proc_ident *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->pid = (long)getpid();
    if (gethostname(p->host, sizeof p->host - 1)) {
        snprintf(err, errlen, "cannot read the host name: %s", strerror(errno));
        return -1;
    }
    read_line("/proc/sys/kernel/random/boot_id", p->boot_id, sizeof p->boot_id);
    ssize_t n = readlink("/proc/self/ns/pid", p->pidns, sizeof p->pidns - 1);
    p->pidns[n > 0 ? n : 0] = '\0';
    if (proc_start_ticks(p->pid, &p->start_ticks)) {
        snprintf(err, errlen, "cannot read '/proc/%ld/stat': a worker needs /proc to be told apart from "
                 "a later process with the same pid", p->pid);
        return -1;
    }
    return 0;
}

bool proc_same_host(const struct proc_ident *a, const struct proc_ident *b)
{
    return !strcmp(a->host, b->host) && !strcmp(a->boot_id, b->boot_id) && !strcmp(a->pidns, b->pidns);
}
