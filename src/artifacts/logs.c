/* src/artifacts/logs.c — reading the append-only logs exactly.
 *
 * A log is read whole: schema line, header, then complete rows. A final fragment with
 * no '\n' is what a crash in the middle of an append leaves; it is handed back apart
 * (torn) so resume can decide whether it is the record it was writing (then it moves
 * the fragment aside) or damage (then it refuses and touches nothing). Every other
 * irregularity is an error naming the file and line.
 */
#include "artifacts/ideas.h"
#include "artifacts/results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomicio.h"
#include "util/log.h"
#include "util/regfile.h"
#include "util/strbuf.h"

int logs_read_lines(const char *path, struct logs_lines *out, char *err, size_t errlen)
{
    size_t len = 0, cap = 0;
    memset(out, 0, sizeof *out);
    out->text = read_file(path, &len);
    if (!out->text) {
        if (errno == ENOENT)
            return 1;
        snprintf(err, errlen, "cannot read '%s': %s", path, regfile_strerror(errno));
        return -1;
    }
    if (memchr(out->text, '\0', len)) {
        snprintf(err, errlen, "cannot read '%s': it contains NUL bytes (not a text log)", path);
        free(out->text);
        out->text = NULL;
        return -1;
    }
    char *p = out->text;
    for (char *nl; (nl = strchr(p, '\n')); p = nl + 1) {
        *nl = '\0';
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            out->line = xrealloc(out->line, cap * sizeof *out->line);
        }
        out->line[out->n++] = p;
    }
    out->complete_len = (size_t)(p - out->text);
    out->torn = *p ? p : NULL;
    return 0;
}

void logs_lines_release(struct logs_lines *l)
{
    free(l->text);
    free(l->line);
    memset(l, 0, sizeof *l);
}

char *result_log_header(const char *kind, const char *backend, int decide_rules)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "# croqtuner %s schema=%d backend=%s decide=%d\n", kind, ENGINE_SCHEMA, backend,
                decide_rules);
    for (int i = 0; i < RESULTS_COLUMNS; i++)
        strbuf_addf(&sb, "%s%s", i ? "\t" : "", results_columns[i]);
    strbuf_adds(&sb, "\n");
    return strbuf_detach(&sb);
}

int result_log_create(const char *path, const char *kind, const char *backend, int decide_rules, char *err,
                      size_t errlen)
{
    if (!access(path, F_OK) || errno != ENOENT)
        return 0; /* there (whatever it is: reading it says what is wrong with it) */
    char *h = result_log_header(kind, backend, decide_rules);
    int rc = atomic_write_str(path, h);
    free(h);
    if (rc)
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    return rc;
}

/* "results" from ".../results.tsv" */
static void log_kind(const char *path, char *kind, size_t len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(kind, len, "%.*s", (int)strcspn(b, "."), b);
}

/* What follows "backend=<be>" on line 1: nothing (a log from before the rules were
 * versioned: rules 1) or exactly " decide=N", N one digit in 1..DECIDE_RULES. */
static int read_rules(const char *rest, int *rules)
{
    *rules = 1;
    if (!*rest)
        return 0;
    if (strncmp(rest, " decide=", 8) || rest[8] < '1' || rest[8] > '0' + DECIDE_RULES || rest[9])
        return -1;
    *rules = rest[8] - '0';
    return 0;
}

static int check_head(const char *path, struct logs_lines *l, struct result_log *out, char *err, size_t errlen)
{
    char kind[32], want[96], be[16] = "";
    log_kind(path, kind, sizeof kind);
    snprintf(want, sizeof want, "# croqtuner %s schema=%d backend=", kind, ENGINE_SCHEMA);
    if (l->n < 2) {
        snprintf(err, errlen, "cannot read '%s': truncated (no schema line and header)", path);
        return -1;
    }
    if (strncmp(l->line[0], want, strlen(want)) ||
        sscanf(l->line[0] + strlen(want), "%15s", be) != 1 || !backend_name_known(be)) {
        snprintf(err, errlen, "cannot read '%s': line 1 is not '%s<sim|gpu|replay>' (another schema?)", path, want);
        return -1;
    }
    snprintf(out->backend, sizeof out->backend, "%s", be);
    if (read_rules(l->line[0] + strlen(want) + strlen(be), &out->decide_rules)) {
        snprintf(err, errlen, "cannot read '%s': line 1 must end in the backend or ' decide=1'..' decide=%d' "
                 "(decision rules this croqtuner knows)", path, DECIDE_RULES);
        return -1;
    }
    char *h = result_log_header(kind, be, out->decide_rules);
    char *cols = strchr(h, '\n') + 1;
    cols[strlen(cols) - 1] = '\0'; /* drop the header's own '\n' */
    int differs = strcmp(l->line[1], cols);
    free(h);
    if (differs) {
        snprintf(err, errlen, "cannot read '%s': line 2 is not the schema %d header", path, ENGINE_SCHEMA);
        return -1;
    }
    return 0;
}

int result_log_read(const char *path, struct result_log *out, char *err, size_t errlen)
{
    struct logs_lines l;
    char why[256];
    memset(out, 0, sizeof *out);
    int rc = logs_read_lines(path, &l, err, errlen);
    if (rc)
        return rc;
    if (l.n < 2 && l.torn) {
        snprintf(err, errlen, "cannot read '%s': truncated inside its header", path);
        goto fail;
    }
    if (check_head(path, &l, out, err, errlen))
        goto fail;
    out->rows = xmalloc((l.n + 1) * sizeof *out->rows);
    for (size_t i = 2; i < l.n; i++) {
        if (row_parse(l.line[i], &out->rows[out->n], why, sizeof why)) {
            snprintf(err, errlen, "cannot read '%s': line %zu: %s", path, i + 1, why);
            goto fail;
        }
        out->n++;
    }
    out->torn = l.torn ? xstrdup(l.torn) : NULL;
    out->complete_len = l.complete_len;
    logs_lines_release(&l);
    return 0;
fail:
    logs_lines_release(&l);
    result_log_release(out);
    return -1;
}

void result_log_release(struct result_log *l)
{
    free(l->rows);
    free(l->torn);
    memset(l, 0, sizeof *l);
}

int idea_log_read(const char *path, struct idea_log *out, char *err, size_t errlen)
{
    struct logs_lines l;
    char why[256];
    memset(out, 0, sizeof *out);
    int rc = logs_read_lines(path, &l, err, errlen);
    if (rc)
        return rc;
    out->recs = xmalloc((l.n + 1) * sizeof *out->recs);
    for (size_t i = 0; i < l.n; i++) {
        if (idea_parse(l.line[i], &out->recs[out->n], why, sizeof why)) {
            snprintf(err, errlen, "cannot read '%s': line %zu: %s", path, i + 1, why);
            logs_lines_release(&l);
            idea_log_release(out);
            return -1;
        }
        out->n++;
    }
    out->torn = l.torn ? xstrdup(l.torn) : NULL;
    out->complete_len = l.complete_len;
    logs_lines_release(&l);
    return 0;
}

void idea_log_release(struct idea_log *l)
{
    free(l->recs);
    free(l->torn);
    memset(l, 0, sizeof *l);
}
