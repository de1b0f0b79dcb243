/* src/report/out.c — atomic writes into the output directory (out.h). */
#include "report/out.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomicio.h"
#include "util/log.h"

int report_path_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Split an absolute canonical path into its components (in place). */
static size_t split_path(char *p, char **comp, size_t max)
{
    size_t n = 0;
    for (char *tok = strtok(p, "/"); tok && n < max; tok = strtok(NULL, "/"))
        comp[n++] = tok;
    return n;
}

char *report_relpath(const char *from_dir, const char *to)
{
    char a[PATH_MAX], b[PATH_MAX];
    char *ca[PATH_MAX / 2], *cb[PATH_MAX / 2];
    if (!realpath(from_dir, a) || !realpath(to, b))
        return NULL;
    size_t na = split_path(a, ca, PATH_MAX / 2), nb = split_path(b, cb, PATH_MAX / 2);
    size_t common = 0;
    while (common < na && common < nb && !strcmp(ca[common], cb[common]))
        common++;
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = common; i < na; i++)
        strbuf_adds(&sb, sb.len ? "/.." : "..");
    for (size_t i = common; i < nb; i++)
        strbuf_addf(&sb, "%s%s", sb.len ? "/" : "", cb[i]);
    if (!sb.len)
        strbuf_adds(&sb, ".");
    return strbuf_detach(&sb);
}

/* 0 when a file can be created in dir (tried, not guessed: access(W_OK) says yes to root
 * on a read-only mount), else -1 with errno. */
static int dir_writable(const char *dir)
{
    char probe[PATH_MAX];
    if (report_path_fmt(probe, sizeof probe, "%s/.croq-report-probe.%ld", dir, (long)getpid()))
        return -1;
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(probe);
    return 0;
}

int out_init(struct report_out *o, const char *dir, const char *tuning_dir, struct report_notes *notes)
{
    memset(o, 0, sizeof *o);
    o->notes = notes;
    /* said once, before anything is rendered: otherwise every file of the report fails on
     * its own line */
    if (mkdir_p(dir)) {
        log_error("cannot create the output directory '%s': %s; give --out DIR to write the report elsewhere", dir,
                  strerror(errno));
        return -1;
    }
    if (dir_writable(dir)) {
        log_error("the output directory '%s' is not writable (%s); give --out DIR to write the report elsewhere",
                  dir, strerror(errno));
        return -1;
    }
    o->dir = xstrdup(dir);
    o->tuning_dir = xstrdup(tuning_dir);
    o->tuning_rel = report_relpath(dir, tuning_dir);
    if (!o->tuning_rel) {
        log_error("cannot resolve '%s' or '%s': %s", dir, tuning_dir, strerror(errno));
        return -1;
    }
    return 0;
}

void out_release(struct report_out *o)
{
    free(o->dir);
    free(o->tuning_rel);
    free(o->tuning_dir);
    memset(o, 0, sizeof *o);
}

int out_write(struct report_out *o, const char *rel, const char *data, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", o->dir, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    int rc = mkdir_p(path);
    *slash = '/';
    if (rc || atomic_write(path, data, len)) {
        out_failed(o, path, errno);
        return -1;
    }
    return 0;
}

void out_failed(struct report_out *o, const char *path, int err)
{
    /* the first is named; the others usually share its cause (report_run counts them) */
    if (!o->failures++)
        log_error("cannot write '%s': %s", path, strerror(err));
}

int out_write_sb(struct report_out *o, const char *rel, const struct strbuf *sb)
{
    return out_write(o, rel, strbuf_str(sb), sb->len);
}

void out_write_table(struct report_out *o, const char *stem, const struct report_table *t)
{
    void (*fmt[3])(const struct report_table *, struct strbuf *) = {table_csv, table_md, table_tex};
    static const char *const ext[3] = {"csv", "md", "tex"};
    for (int i = 0; i < 3; i++) {
        struct strbuf sb = STRBUF_INIT;
        char rel[PATH_MAX];
        fmt[i](t, &sb);
        snprintf(rel, sizeof rel, "%s.%s", stem, ext[i]);
        out_write_sb(o, rel, &sb);
        strbuf_release(&sb);
    }
}

bool out_exists(const struct report_out *o, const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", o->dir, rel);
    return access(path, F_OK) == 0;
}

bool out_tuning_exists(const struct report_out *o, const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", o->tuning_dir, rel);
    return access(path, F_OK) == 0;
}
