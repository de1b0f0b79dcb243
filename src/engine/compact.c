/* src/engine/compact.c — a shape's generated sources kept as recipes (src/artifacts/srcstore.h).
 *
 * The engine writes every candidate whole (nvcc needs a file) and as a recipe; this
 * removes the whole files a recipe reproduces byte for byte, so a tuned shape keeps some
 * 150 recipes of a few hundred bytes instead of 7 MB. The best stays whole in
 * kernels/gemm_sp_<dtype>/<key>_best.cu (SHAPE_COMPLETE), and an agent's source, which
 * has no recipe, stays whole in srcs/. `croqtuner compact` runs the same walk over a
 * directory written before recipes existed, adopting each generated file that a given
 * generator reproduces.
 */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "artifacts/srcstore.h"
#include "util/atomicio.h"
#include "util/log.h"

static int by_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* The iteration an "iterNNN.cu" or "iterNNN-attemptA.cu" file is of, or -1. */
static int file_iter(const char *name)
{
    int it, used = 0;
    return sscanf(name, "iter%3d%n", &it, &used) == 1 && used == 7 ? it : -1;
}

static bool kept(const char *rel, const char *const *keep, size_t nkeep)
{
    for (size_t i = 0; i < nkeep; i++)
        if (keep[i] && !strcmp(keep[i], rel))
            return true;
    return false;
}

int compact_shape(const char *dir, const char *key, const struct compact_opts *co, struct compact_tally *t, FILE *out)
{
    char sub[ENGINE_PATH_MAX], rel[SRCSTORE_REL_MAX], err[600];
    int errors = 0;
    if (path_fmt(sub, "%s/srcs/%s", dir, key))
        return 1;
    DIR *d = opendir(sub);
    if (!d)
        return errno == ENOENT ? 0 : (fprintf(out, "%s: cannot open srcs/%s: %s\n", key, key, strerror(errno)), 1);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) { /* every source: a whole NAME.cu, or only its NAME.gen.json */
        size_t l = strlen(e->d_name);
        bool cu = l > 3 && !strcmp(e->d_name + l - 3, ".cu");
        bool recipe = l > 9 && !strcmp(e->d_name + l - 9, ".gen.json");
        if (e->d_name[0] == '.' || !(cu || recipe))
            continue;
        if (n == cap)
            names = xrealloc(names, (cap = cap ? 2 * cap : 256) * sizeof *names);
        names[n] = xmalloc(l + 1);
        snprintf(names[n], l + 1, "%.*s.cu", (int)(l - (cu ? 3 : 9)), e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_str); /* the same order, and messages, on every run */
    for (size_t i = 0; i < n; i++) {
        if (i && !strcmp(names[i], names[i - 1]))
            continue; /* NAME.cu and NAME.gen.json: one source */
        if ((size_t)snprintf(rel, sizeof rel, "srcs/%s/%s", key, names[i]) >= sizeof rel)
            continue;
        t->sources++;
        int it = file_iter(names[i]), rc;
        size_t used = 0;
        struct srcstore_recipe r;
        if (kept(rel, co->keep, co->nkeep)) {
            t->working++;
            continue;
        }
        rc = srcstore_recipe_read(dir, rel, &r, err, sizeof err);
        if (rc < 0) {
            fprintf(out, "%s: %s\n", rel, err);
            t->whole++;
            continue;
        }
        if (rc == 0) {
            rc = srcstore_compact(dir, rel, err, sizeof err);
        } else if (it >= 0 && it < co->n_agent && co->agent[it]) {
            t->agent++; /* an agent's source is its own record */
            continue;
        } else if (co->ngens) {
            rc = srcstore_adopt(dir, rel, co->gens, co->ngens, &used, err, sizeof err);
            if (rc == 0 && used < COMPACT_GENS_MAX)
                t->adopted[used]++;
        } else {
            t->whole++; /* no recipe, nothing asked to adopt it */
            continue;
        }
        if (rc == 0) {
            t->recipes++;
        } else {
            t->whole++;
            errors += rc < 0;
            if (!co->quiet_kept || rc < 0)
                fprintf(out, "%s: kept whole: %s\n", rel, err);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return errors;
}

/* Which iterations an agent submitted (idea-log origin "agent"). */
static bool *agent_iters(const char *dir, const char *key, int *n)
{
    char path[ENGINE_PATH_MAX], err[256];
    struct idea_log ideas;
    *n = 0;
    if (path_fmt(path, "%s/logs/%s/idea-log.jsonl", dir, key) || idea_log_read(path, &ideas, err, sizeof err) != 0)
        return NULL;
    int max = -1;
    for (size_t i = 0; i < ideas.n; i++)
        max = ideas.recs[i].iter > max ? ideas.recs[i].iter : max;
    bool *a = calloc((size_t)max + 2, sizeof *a);
    for (size_t i = 0; a && i < ideas.n; i++)
        if (ideas.recs[i].iter >= 0 && !strcmp(ideas.recs[i].origin, "agent"))
            a[ideas.recs[i].iter] = true;
    *n = max + 1;
    idea_log_release(&ideas);
    return a;
}

/* The shape's lock, taken without waiting: -1 when a tuner holds it. */
static int try_lock(const char *dir, const char *key)
{
    char path[ENGINE_PATH_MAX];
    if (path_fmt(path, "%s/checkpoints/%s.lock", dir, key))
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
        close(fd);
        return -1;
    }
    return fd < 0 ? -2 : fd;
}

/* What the whole walk did, for its closing summary. */
struct compact_totals {
    size_t shapes, skipped;
    struct compact_tally t;
};

static void tally_add(struct compact_tally *sum, const struct compact_tally *t)
{
    sum->sources += t->sources, sum->recipes += t->recipes, sum->agent += t->agent;
    sum->working += t->working, sum->whole += t->whole;
    for (size_t g = 0; g < COMPACT_GENS_MAX; g++)
        sum->adopted[g] += t->adopted[g];
}

/* "N sources: R as recipes, W whole (...)" of t, after prefix. */
static void tally_print(FILE *out, const char *prefix, const struct compact_tally *t, const struct generator *gens,
                        size_t ngens)
{
    fprintf(out, "%s: %zu sources: %zu as recipes, %zu whole (%zu agent, %zu working copies of a tuning shape, %zu "
            "not reproduced)\n", prefix, t->sources, t->recipes, t->agent + t->working + t->whole, t->agent, t->working,
            t->whole);
    for (size_t g = 0; g < ngens && g < COMPACT_GENS_MAX; g++)
        if (t->adopted[g])
            fprintf(out, "%s: %zu written before recipes reproduced by generator %s\n", prefix, t->adopted[g],
                    gens[g].id);
}

static int compact_one(const char *dir, const char *key, const struct generator *gens, size_t ngens, bool verbose,
                       struct compact_totals *sum, FILE *out)
{
    char err[600], path[ENGINE_PATH_MAX];
    struct checkpoint ck;
    struct compact_tally t = {0};
    int fd = path_fmt(path, "%s/checkpoints", dir) || mkdir_p(path) ? -2 : try_lock(dir, key);
    if (fd == -1) {
        fprintf(out, "%s: a tuner holds the shape; skipped (compact it when it stops)\n", key);
        sum->skipped++;
        return 0;
    }
    checkpoint_init(&ck);
    int lrc = checkpoint_load(dir, key, &ck, err, sizeof err);
    if (lrc < 0)
        fprintf(out, "%s: checkpoint: %s (its sources are compacted as of a finished shape)\n", key, err);
    /* a shape still tuning needs its best and its pending candidate as files: keep them */
    bool active = lrc == 0 && ck.phase != PH_NEXT_SHAPE;
    const char *keep[2] = {active && ck.have_best ? ck.best.kernel : NULL,
                           active && ck.pending.active ? ck.pending.src_rel : NULL};
    int n_agent;
    bool *agent = agent_iters(dir, key, &n_agent);
    struct compact_opts co = {.keep = keep, .nkeep = 2, .gens = gens, .ngens = ngens, .agent = agent,
                              .n_agent = n_agent, .quiet_kept = !verbose};
    int errors = compact_shape(dir, key, &co, &t, out);
    if (verbose)
        tally_print(out, key, &t, gens, ngens);
    tally_add(&sum->t, &t);
    sum->shapes++;
    free(agent);
    checkpoint_release(&ck);
    if (fd >= 0)
        close(fd);
    return errors;
}

int engine_compact(const char *dir, const struct generator *gens, size_t ngens, bool verbose, FILE *out)
{
    char path[ENGINE_PATH_MAX], err[256];
    struct shape_key sk;
    if (path_fmt(path, "%s/srcs", dir))
        return -1;
    DIR *d = opendir(path);
    if (!d) {
        fprintf(out, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    char **keys = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || key_parse(e->d_name, &sk, err, sizeof err))
            continue; /* only names the engine could have made become paths */
        if (n == cap)
            keys = xrealloc(keys, (cap = cap ? 2 * cap : 64) * sizeof *keys);
        keys[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(keys, n, sizeof *keys, by_str);
    int errors = 0;
    struct compact_totals sum = {0};
    for (size_t i = 0; i < n; i++) {
        errors += compact_one(dir, keys[i], gens, ngens, verbose, &sum, out);
        free(keys[i]);
    }
    free(keys);
    char prefix[96];
    snprintf(prefix, sizeof prefix, "%zu shape%s%s", sum.shapes, sum.shapes == 1 ? "" : "s",
             sum.skipped ? " (others skipped: a tuner holds them)" : "");
    tally_print(out, prefix, &sum.t, gens, ngens);
    return errors;
}
