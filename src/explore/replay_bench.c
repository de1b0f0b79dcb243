/* src/explore/replay_bench.c — replay-bench (replay_bench.h): tuning runs on the replay
 * backend in child processes, scored against each dataset's best. */
#include "replay_bench.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dataset/dataset.h"
#include "util/spawn.h"
#include "artifacts/paths.h"
#include "artifacts/results.h"
#include "artifacts/state.h"
#include "backend/backend.h"
#include "engine/engine.h"
#include "bench/kernel.h"
#include "util/log.h"

struct ds_entry {
    char path[1024], name[128];
    struct dataset ds;
    const struct ds_record *best;
};

struct rb_job {
    int ds, mode, seed; /* mode 0 scratch, 1 best */
    const char *start;  /* best: the signature it starts from */
    pid_t pid;
    int fd;
    bool ok;
    struct rb_result {
        double ratio[RB_MAX_NS];
        int proposals, unmeasured; /* rows after the baseline; those without numbers */
    } res;
};

/* by name, then path: X.jsonl before X.jsonl.gz, whatever order readdir gave */
static int cmp_name(const void *a, const void *b)
{
    const struct ds_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->path, y->path);
}

static int load_datasets(const char *dir, struct ds_entry **out, int *n)
{
    DIR *d = opendir(dir);
    char err[1024];
    *out = NULL;
    *n = 0;
    if (!d) {
        log_error("replay-bench: cannot open '%s': %s", dir, strerror(errno));
        return 2;
    }
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name), sfx = dataset_file_suffix(e->d_name);
        if (!sfx || len == sfx || len - sfx >= sizeof(*out)->name)
            continue;
        *out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out);
        struct ds_entry *x = &(*out)[(*n)++];
        memset(x, 0, sizeof *x);
        snprintf(x->path, sizeof x->path, "%s/%s", dir, e->d_name);
        snprintf(x->name, sizeof x->name, "%.*s", (int)(len - sfx), e->d_name);
    }
    closedir(d);
    if (!*n) {
        log_error("replay-bench: no *.jsonl or *.jsonl.gz dataset in '%s' (make them with 'croqtuner explore')", dir);
        return 2;
    }
    qsort(*out, (size_t)*n, sizeof **out, cmp_name);
    for (int i = 1; i < *n; i++)
        if (!strcmp((*out)[i - 1].name, (*out)[i].name)) { /* X.jsonl beside X.jsonl.gz: which one? */
            log_error("replay-bench: '%s' and '%s' are one dataset twice: keep one", (*out)[i - 1].path, (*out)[i].path);
            return 2;
        }
    for (int i = 0; i < *n; i++) {
        struct ds_entry *x = &(*out)[i];
        if (dataset_load(x->path, false, &x->ds, err, sizeof err)) {
            log_error("replay-bench: %s", err);
            return 2;
        }
        if (!(x->best = dataset_best(&x->ds))) {
            log_error("replay-bench: '%s' has no configuration measured ok", x->path);
            return 2;
        }
        if (dataset_check_baseline(&x->ds, err, sizeof err)) {
            log_error("replay-bench: '%s' cannot be scored: %s", x->path, err);
            return 2;
        }
    }
    return 0;
}

/* The dataset whose best seeds a from-best run on d: same dtype, nearest shape, its best
 * measured ok in d. -1 if none. */
static int best_source(const struct ds_entry *all, int n, int d)
{
    int pick = -1;
    double best_d = INFINITY;
    for (int i = 0; i < n; i++) {
        if (i == d || all[i].ds.dtype != all[d].ds.dtype)
            continue;
        const struct ds_record *r = dataset_find(&all[d].ds, &all[i].best->cfg);
        if (!r || strcmp(r->status, "ok"))
            continue;
        double dist = shape_log_distance(&all[i].ds.shape, &all[d].ds.shape);
        if (dist < best_d) /* ties: the first by name */
            best_d = dist, pick = i;
    }
    return pick;
}

static const char *scratch_root(void)
{
    if (!access("/dev/shm", W_OK))
        return "/dev/shm";
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

/* In the child: one tuning run, its ratios written to fd. Exit 0, or 1 (said why). The
 * other datasets are the run's other tuned shapes (the cost model's prior); the engine
 * skips those of another dtype. */
static int child_run(const struct replay_bench_opts *o, const struct ds_entry *all, int nd, const struct rb_job *j,
                     int fd)
{
    const struct ds_entry *x = &all[j->ds];
    const char **prior = xmalloc((size_t)nd * sizeof *prior);
    size_t n_prior = 0;
    for (int i = 0; i < nd; i++)
        if (i != j->ds)
            prior[n_prior++] = all[i].path;
    struct kernel_workdir wd = {.temporary = true};
    snprintf(wd.path, sizeof wd.path, "%s/croq-replay-XXXXXX", scratch_root());
    if (!mkdtemp(wd.path)) {
        log_error("replay-bench: cannot create a tuning directory in %s: %s", scratch_root(), strerror(errno));
        free(prior);
        return 1;
    }
    struct engine_opts eo;
    engine_opts_default(&eo);
    eo.dir = wd.path;
    eo.backend = "replay";
    eo.dataset = x->path;
    eo.seed = (unsigned long long)j->seed;
    eo.seed_given = true;
    eo.iters = o->iters;
    eo.quiet = true;
    eo.start_config = j->start;
    eo.start_from = j->mode ? "replay-bench" : NULL;
    eo.prior_datasets = prior;
    eo.n_prior_datasets = n_prior;
    eo.strategy = o->strategy;
    struct shape_key k = {.dtype = x->ds.dtype, .shape = x->ds.shape,
                          .mode = j->mode ? MODE_FROM_CURRENT_BEST : MODE_FROM_SCRATCH};
    char key[KEY_MAX], path[ENGINE_PATH_MAX], err[1024];
    key_format(&k, key);
    int rc = engine_tune(&eo, &k);
    struct result_log log = {0};
    if (rc == ENGINE_DONE && !path_fmt(path, "%s/logs/%s/results.tsv", wd.path, key) &&
        result_log_read(path, &log, err, sizeof err) >= 0) {
        struct rb_result res = {0};
        double *ratio = res.ratio;
        const char *best = NULL;
        size_t r = 0;
        /* at the end of the run its registered best counts: the final ladder's winner */
        struct state_shape done;
        json_t *st = state_load(wd.path, err, sizeof err);
        bool registered = st && state_shape_get(st, key, &done) && done.have_best && done.best.from_ladder;
        for (int i = 0; i < o->n_ns; i++) {
            for (; r < log.n && log.rows[r].iter <= o->ns[i]; r++)
                if (decision_kept(log.rows[r].decision))
                    best = log.rows[r].config;
            if (registered && (size_t)o->ns[i] + 1 >= log.n)
                best = done.best.config;
            struct croq_config cfg;
            const struct ds_record *rec = NULL;
            if (best && !knobs_parse_signature(&cfg, best, err, sizeof err))
                rec = dataset_find(&x->ds, &cfg);
            ratio[i] = rec && !strcmp(rec->status, "ok") ? rec->tflops / x->best->tflops : 0;
        }
        json_decref(st);
        /* a proposal the dataset does not hold has no numbers and can never be kept;
         * strategies keep to the dataset (backend.measurable), so the count checks that
         * they do. A recorded failure (incorrect, crash) has no numbers either, but the
         * dataset holds it: the note tells them apart. */
        for (size_t q = 0; q < log.n; q++)
            if (log.rows[q].iter >= 1) {
                res.proposals++;
                res.unmeasured += !strncmp(log.rows[q].note, CAND_NOT_IN_DATASET_REASON,
                                           strlen(CAND_NOT_IN_DATASET_REASON));
            }
        rc = write(fd, &res, sizeof res) == (ssize_t)sizeof res ? 0 : 1;
    } else {
        log_error("replay-bench: %s seed %d (%s): the tuning run failed (engine status %d)", x->name, j->seed,
                  j->mode ? "best" : "scratch", rc);
        rc = 1;
    }
    result_log_release(&log);
    kernel_workdir_release(&wd);
    free(prior);
    return rc;
}

static void reap(struct rb_job *j)
{
    int status;
    ssize_t r;
    while ((r = read(j->fd, &j->res, sizeof j->res)) < 0 && errno == EINTR)
        ;
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(j->fd);
    j->ok = r == (ssize_t)sizeof j->res && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    j->pid = 0;
}

static int start(const struct replay_bench_opts *o, const struct ds_entry *all, int nd, struct rb_job *j)
{
    int pid, fd;
    int forked = spawn_fork_piped(false, &pid, &fd);
    if (forked < 0)
        return -1;
    if (forked == 0)
        _exit(child_run(o, all, nd, j, fd));
    j->pid = pid;
    j->fd = fd;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (!n)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void print_table(const struct replay_bench_opts *o, FILE *out, const struct replay_bench_row *rows, int n,
                        long proposals, long unmeasured)
{
    fprintf(out, "%-28s %-8s %5s", "dataset", "mode", "runs");
    for (int i = 0; i < o->n_ns; i++)
        fprintf(out, "  @%-5d", o->ns[i]);
    fprintf(out, "  %-10s %s\n", "best TFLOPS", "seeded from");
    double mins[RB_MAX_NS];
    for (int i = 0; i < o->n_ns; i++)
        mins[i] = INFINITY;
    for (int r = 0; r < n; r++) {
        fprintf(out, "%-28s %-8s %5d", rows[r].dataset, rows[r].mode, rows[r].runs);
        for (int i = 0; i < o->n_ns; i++) {
            fprintf(out, "  %6.3f", rows[r].median[i]);
            mins[i] = fmin(mins[i], rows[r].median[i]);
        }
        fprintf(out, "  %10.1f  %s\n", rows[r].dataset_best, rows[r].from[0] ? rows[r].from : "-");
    }
    /* The summary names the columns the table has: min@50 and min@150 (the score)
     * when both were printed, else every printed column (a short --iters run). */
    int i50 = -1, i150 = -1;
    for (int i = 0; i < o->n_ns; i++)
        i50 = o->ns[i] == 50 ? i : i50, i150 = o->ns[i] == 150 ? i : i150;
    fprintf(out, "proposals: %ld of %ld were not in their dataset (no numbers, never kept)\n", unmeasured,
            proposals);
    if (o->strategy)
        fprintf(out, "replay-bench %s:", o->strategy);
    else
        fputs("replay-bench:", out);
    for (int i = 0; i < o->n_ns; i++)
        if ((i50 < 0 || i150 < 0) || i == i50 || i == i150)
            fprintf(out, " min@%d %.3f", o->ns[i], isfinite(mins[i]) ? mins[i] : NAN);
    fputc('\n', out);
}

int replay_bench_run(const struct replay_bench_opts *o, FILE *out, struct replay_bench_row **rows_out, int *n_rows)
{
    struct ds_entry *all;
    int nd, rc = load_datasets(o->datasets, &all, &nd);
    if (rc)
        goto done_ds;
    struct rb_job *jobs = xmalloc((size_t)nd * 2 * (size_t)o->seeds * sizeof *jobs);
    struct replay_bench_row *rows = calloc((size_t)nd * 2, sizeof *rows);
    int nj = 0, nr = 0;
    for (int d = 0; d < nd; d++)
        for (int m = 0; m < 2; m++) {
            int src = m ? best_source(all, nd, d) : -1;
            struct replay_bench_row *row = &rows[nr++];
            snprintf(row->dataset, sizeof row->dataset, "%s", all[d].name);
            row->mode = m ? "best" : "scratch";
            row->dataset_best = all[d].best->tflops;
            if (m && src < 0) {
                snprintf(row->from, sizeof row->from, "(no other dataset's best is in it: not run)");
                for (int i = 0; i < o->n_ns; i++)
                    row->median[i] = NAN;
                continue;
            }
            if (m)
                snprintf(row->from, sizeof row->from, "%s", all[src].name);
            for (int s = 1; s <= o->seeds; s++)
                jobs[nj++] = (struct rb_job){.ds = d, .mode = m, .seed = s, .start = m ? all[src].best->sig : NULL};
        }
    /* run: at most o->jobs children at once, reaped in order */
    int next = 0, failed = 0;
    for (int i = 0; i < nj; i++) {
        while (next < nj && next - i < o->jobs)
            if (start(o, all, nd, &jobs[next++])) {
                log_error("replay-bench: cannot start a run: %s", strerror(errno));
                return 1;
            }
        reap(&jobs[i]);
        failed += !jobs[i].ok;
    }
    /* medians per row */
    double *v = xmalloc((size_t)(o->seeds + 1) * sizeof *v);
    for (int r = 0, j0 = 0; r < nr; r++) {
        int cnt = 0;
        while (j0 + cnt < nj && jobs[j0 + cnt].ds == r / 2 && jobs[j0 + cnt].mode == r % 2)
            cnt++;
        if (!cnt)
            continue;
        for (int i = 0; i < o->n_ns; i++) {
            int k = 0;
            for (int q = 0; q < cnt; q++)
                if (jobs[j0 + q].ok)
                    v[k++] = jobs[j0 + q].res.ratio[i];
            rows[r].median[i] = median(v, k);
            rows[r].runs = k;
        }
        j0 += cnt;
    }
    free(v);
    long proposals = 0, unmeasured = 0;
    for (int i = 0; i < nj; i++)
        if (jobs[i].ok)
            proposals += jobs[i].res.proposals, unmeasured += jobs[i].res.unmeasured;
    print_table(o, out, rows, nr, proposals, unmeasured);
    if (rows_out)
        *rows_out = rows, *n_rows = nr;
    else
        free(rows);
    free(jobs);
    rc = failed ? 1 : 0;
done_ds:
    for (int i = 0; i < nd; i++)
        dataset_release(&all[i].ds);
    free(all);
    return rc;
}

void replay_bench_compare(const struct replay_bench_opts *o, FILE *out, const char *const *names,
                          struct replay_bench_row *const *rows, int n_strategies, int n_rows)
{
    int cols[2], nc = 0;
    for (int i = 0; i < o->n_ns; i++)
        if (o->ns[i] == 50 || o->ns[i] == 150)
            cols[nc++] = i;
    if (!nc)
        cols[nc++] = o->n_ns - 1;
    char head[64] = "";
    for (int c = 0; c < nc; c++)
        snprintf(head + strlen(head), sizeof head - strlen(head), "%s@%d", c ? " / " : "", o->ns[cols[c]]);
    fprintf(out, "strategies: %s of each dataset's best (median over seeds)\n", head);
    fprintf(out, "%-28s %-8s", "dataset", "mode");
    for (int s = 0; s < n_strategies; s++)
        fprintf(out, "  %-*s", s + 1 < n_strategies ? nc * 8 - 2 : 0, names[s]); /* no trailing blanks */
    fputc('\n', out);
    double (*mins)[2] = xmalloc((size_t)n_strategies * sizeof *mins);
    for (int s = 0; s < n_strategies; s++)
        mins[s][0] = mins[s][1] = INFINITY;
    for (int r = 0; r < n_rows; r++) {
        fprintf(out, "%-28s %-8s", rows[0][r].dataset, rows[0][r].mode);
        for (int s = 0; s < n_strategies; s++) {
            fputs(" ", out);
            for (int c = 0; c < nc; c++) {
                double v = rows[s][r].median[cols[c]];
                fprintf(out, "%s%6.3f", c ? " /" : " ", v);
                if (!isnan(v))
                    mins[s][c] = fmin(mins[s][c], v);
            }
        }
        fputc('\n', out);
    }
    fprintf(out, "%-28s %-8s", "min", "");
    for (int s = 0; s < n_strategies; s++) {
        fputs(" ", out);
        for (int c = 0; c < nc; c++)
            fprintf(out, "%s%6.3f", c ? " /" : " ", isfinite(mins[s][c]) ? mins[s][c] : NAN);
    }
    fputc('\n', out);
    free(mins);
}
