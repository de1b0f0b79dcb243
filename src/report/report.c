/* src/report/report.c — `croqtuner report` from start to end (report.h): load the
 * sweep, write every shape's tables and figures, the sweep tables and figures, the
 * notes, then the page that links them (last, so it links only what exists). */
#include "report/report.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "artifacts/results.h"
#include "report/figures.h"
#include "report/render.h"
#include "report/sweep.h"
#include "report/tables.h"
#include "util/atomicio.h"
#include "util/datafile.h"
#include "util/log.h"

#define DYGRAPHS_DIR_DEFAULT "/usr/share/javascript/dygraphs"
/* Notes (groups of one text) printed on stderr; beyond this they are counted (all are in notes.txt). */
#define NOTES_PRINTED_MAX 40

const char *report_default_anchors(void)
{
    static char path[PATH_MAX];
    char err[64];
    const char *env = getenv("CROQ_ANCHORS");
    if (env && *env) /* named: used as it is, so a wrong name is reported, not replaced */
        return env;
    return datafile_find("vendor-anchors-h200.json", NULL, path, sizeof path, err, sizeof err) ? NULL : path;
}

static void write_shape(struct report_render *rr, size_t i)
{
    const struct report_shape *s = &rr->sw->shapes[i];
    if (!s->n_rows)
        return;
    char stem[160];
    struct report_table t;
    tables_progression(s, &t);
    snprintf(stem, sizeof stem, "shapes/%s/progression", s->key);
    out_write_table(rr->o, stem, &t);
    table_release(&t);
    if (s->have_ladder && s->ladder.ok) {
        tables_ladder(s, &t);
        snprintf(stem, sizeof stem, "shapes/%s/ladder", s->key);
        out_write_table(rr->o, stem, &t);
        table_release(&t);
    }
    tables_bottleneck(s, &rr->bn, &t);
    snprintf(stem, sizeof stem, "shapes/%s/bottlenecks", s->key);
    out_write_table(rr->o, stem, &t);
    table_release(&t);
    rr->files[i].tables = true;
    rr->files[i].convergence = fig_convergence(rr->o, s);
    rr->files[i].bottlenecks = fig_bottleneck(rr->o, s, &rr->bn);
}

static void write_sweep(struct report_render *rr)
{
    struct report_table t;
    tables_summary(rr->sw, &t);
    out_write_table(rr->o, "tables/summary", &t);
    table_release(&t);
    tables_geomean(rr->sw, &t);
    out_write_table(rr->o, "tables/geomean", &t);
    table_release(&t);
    if (tables_pairs(rr->sw, &t)) {
        out_write_table(rr->o, "tables/fs-vs-fcb", &t);
        rr->has_pairs = true;
    }
    table_release(&t);
    fig_speedup(rr->o, rr->sw, &rr->speedup);
    for (size_t i = 0; i < rr->sw->n_shapes; i++) {
        const struct report_shape *s = &rr->sw->shapes[i];
        const struct report_shape *fs = sweep_partner(rr->sw, s);
        if (!s->from_scratch && fs && s->n_rows && fs->n_rows)
            rr->files[i].pair = fig_pair(rr->o, s, fs);
    }
}

/* dst becomes a symbolic link to src by the relative path from dst's directory (both
 * resolved), replacing what was there atomically: a report kept beside one vendored copy
 * of the library (results/vendor/dygraphs) refers to it instead of holding another.
 * 0, or -1 with errno. */
static int link_relative(const char *src, const char *dst, const char *dst_dir)
{
    char from[PATH_MAX], to[PATH_MAX], rel[PATH_MAX], tmp[PATH_MAX + 32];
    if (!realpath(dst_dir, from) || !realpath(src, to))
        return -1;
    /* the common directory: from[0..last), last at a '/' of both or the end of from */
    size_t i = 0, last = 0, n = 0;
    for (; from[i] && from[i] == to[i]; i++)
        if (from[i] == '/')
            last = i;
    if (!from[i] && to[i] == '/')
        last = i;
    for (const char *p = from + last; *p; p++) /* one "../" per component of from below it */
        if (*p == '/' && n + 4 < sizeof rel)
            n += (size_t)snprintf(rel + n, sizeof rel - n, "../");
    if (n + strlen(to + last + 1) + 1 > sizeof rel) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(rel + n, sizeof rel - n, "%s", to + last + 1);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", dst, (long)getpid());
    unlink(tmp);
    if (symlink(rel, tmp))
        return -1;
    if (rename(tmp, dst)) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

static void copy_dygraphs(struct report_render *rr, const char *dir, bool link)
{
    const char *files[][2] = {{"dygraph.min.js", "dygraph.min.js"}, {"dygraph.css", "dygraph.css"}};
    char src[PATH_MAX], dst[PATH_MAX];
    rr->dygraphs = true;
    for (size_t i = 0; i < 2; i++) {
        snprintf(src, sizeof src, "%s/%s", dir, files[i][0]);
        snprintf(dst, sizeof dst, "%s/%s", rr->o->dir, files[i][1]);
        if (link ? access(src, R_OK) || link_relative(src, dst, rr->o->dir) : atomic_copy(src, dst)) {
            int err = errno;
            rr->dygraphs = false;
            if (access(src, R_OK) == 0) /* the copy failed, not the source: an output failure */
                out_failed(rr->o, dst, err);
            else
                notes_add(rr->o->notes, NOTE_MISSING, NULL,
                          "'%s': %s (Debian package libjs-dygraphs): the page has no interactive charts", src,
                          strerror(err));
            return;
        }
    }
}

static void write_notes(struct report_out *o, const struct report_notes *nl)
{
    struct strbuf sb = STRBUF_INIT;
    /* key and text come from the files read (a key of state.json, a path): escaped as in
     * results.tsv, so a tab or newline in them cannot cut a line or a column. */
    strbuf_adds(&sb, "# what this report could not show, and why (kind\tshape\ttext, escaped as results.tsv)\n");
    for (size_t i = 0; i < nl->n; i++) {
        strbuf_addf(&sb, "%s\t", note_kind_name(nl->v[i].kind));
        tsv_escape(&sb, nl->v[i].key ? nl->v[i].key : "-");
        strbuf_adds(&sb, "\t");
        tsv_escape(&sb, nl->v[i].text);
        strbuf_adds(&sb, "\n");
    }
    out_write_sb(o, "notes.txt", &sb);
    strbuf_release(&sb);
}

static void print_summary(const struct report_sweep *sw, const struct report_out *o, FILE *out)
{
    const struct report_notes *nl = &sw->notes;
    size_t printed = 0, ng;
    struct note_group *g = notes_group(nl, &ng);
    for (size_t i = 0; i < ng; i++) {
        if (g[i].kind == NOTE_INFO || printed++ >= NOTES_PRINTED_MAX)
            continue;
        struct strbuf sb = STRBUF_INIT;
        note_group_format(nl, &g[i], NOTE_KEYS_SHOWN, &sb);
        log_warn("%s: %s", note_kind_name(g[i].kind), strbuf_str(&sb));
        strbuf_release(&sb);
    }
    note_groups_release(g, ng);
    if (printed > NOTES_PRINTED_MAX)
        log_warn("%zu more kinds of missing or skipped items in '%s/notes.txt'", printed - NOTES_PRINTED_MAX,
                 o->dir);
    if (o->failures) /* the page may not be there: never name it as written */
        log_error("%d file(s) of the report could not be written in '%s' (the first is named above)", o->failures,
                  o->dir);
    else
        fprintf(out, "report: %s/index.html (%zu shape run(s); %zu missing, %zu skipped, %zu notes: see notes.txt)\n",
                o->dir, sw->n_shapes, notes_count(nl, NOTE_MISSING, NULL), notes_count(nl, NOTE_MALFORMED, NULL),
                notes_count(nl, NOTE_INFO, NULL));
}

static void render_all(struct report_render *rr, const struct report_opts *opts)
{
    for (size_t i = 0; i < rr->sw->n_shapes; i++)
        write_shape(rr, i);
    write_sweep(rr);
    const char *dy = opts->dygraphs_dir ? opts->dygraphs_dir : getenv("CROQ_DYGRAPHS_DIR");
    copy_dygraphs(rr, dy && *dy ? dy : DYGRAPHS_DIR_DEFAULT, opts->link_dygraphs);
    time_t now = time(NULL);
    strftime(rr->generated, sizeof rr->generated, "%Y-%m-%d %H:%M", gmtime(&now));
    write_notes(rr->o, &rr->sw->notes);
    struct strbuf page = STRBUF_INIT;
    html_page(rr, &page);
    out_write_sb(rr->o, "index.html", &page);
    strbuf_release(&page);
}

int report_run(const struct report_opts *opts, FILE *out)
{
    struct report_sweep sw = {0};
    char why[PATH_MAX + 128];
    if (sweep_load(&sw, opts->tuning_dir, opts->anchors, why, sizeof why)) {
        log_error("%s", why);
        sweep_release(&sw);
        return 1;
    }
    char outdir[PATH_MAX];
    snprintf(outdir, sizeof outdir, "%s", opts->out_dir ? opts->out_dir : opts->tuning_dir);
    if (!opts->out_dir)
        strncat(outdir, "/report", sizeof outdir - strlen(outdir) - 1);
    struct report_out o;
    if (out_init(&o, outdir, opts->tuning_dir, &sw.notes)) {
        sweep_release(&sw);
        return 1;
    }
    o.gnuplot = opts->gnuplot ? opts->gnuplot : "gnuplot";
    struct report_render rr = {.sw = &sw, .o = &o};
    rr.files = calloc(sw.n_shapes, sizeof *rr.files);
    if (!rr.files)
        die("out of memory");
    bn_collect(&sw, &rr.bn);
    render_all(&rr, opts);
    print_summary(&sw, &o, out);
    int rc = o.failures ? 1 : 0;
    bn_release(&rr.bn);
    free(rr.files);
    out_release(&o);
    sweep_release(&sw);
    return rc;
}
