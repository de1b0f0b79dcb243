/* src/engine/run.c — one shape's run: open it (lock, checkpoint, reconcile), drive the
 * phase loop, close it. The loop dispatches on the checkpoint's phase only; each step
 * moves the phase through run_goto, which refuses any move the table (phase.c) does
 * not list.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "artifacts/srcstore.h"
#include "util/atomicio.h"
#include "util/lockinfo.h"
#include "util/log.h"
#include "util/regfile.h"

int run_fail(struct run *r, const char *fmt, ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_error("%s", msg);
    (void)r; /* the run is the subject of every message; kept for a future log file */
    return ENGINE_FAILED;
}

int run_path(const struct run *r, char out[ENGINE_PATH_MAX], const char *sub, const char *leaf)
{
    return path_fmt(out, "%s/%s/%s%s", r->dir, sub, r->ck.key, leaf);
}

int run_goto(struct run *r, enum engine_phase to)
{
    char err[128];
    if (phase_transition(&r->ck.phase, to, err, sizeof err))
        return run_fail(r, "shape '%s': %s (engine bug; nothing was written)", r->ck.key, err);
    return 0;
}

int run_save(struct run *r)
{
    char err[600];
    if (checkpoint_save(r->dir, &r->ck, err, sizeof err))
        return run_fail(r, "%s", err);
    return 0;
}

void run_req(struct run *r, struct cand_req *q, const char *tag, bool best, const struct croq_config *cfg)
{
    memset(q, 0, sizeof *q);
    q->dir = r->dir;
    q->key = r->ck.key;
    q->iter = r->ck.pending.active ? r->ck.pending.iter : r->ck.iteration;
    q->attempt = r->ck.compile_failures;
    q->tag = tag;
    q->is_candidate = !best;
    q->cfg = cfg;
    q->shape = r->ck.sk.shape;
    q->src_rel = best ? r->ck.best.kernel : r->ck.pending.src_rel;
    q->src_hash = best ? r->ck.best.source_hash : r->ck.pending.src_hash;
    q->seed = r->ck.seed;
    q->cold_l2 = r->ck.cold_l2;
}

int run_best_source(struct run *r)
{
    char err[700];
    if (r->ck.have_best && srcstore_materialize(r->dir, r->ck.best.kernel, err, sizeof err))
        return run_fail(r, "shape '%s': the best's source: %s", r->ck.key, err);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Only one process works on a shape: an exclusive flock held for the whole run. A short
 * retry rides over 'croqtuner status' probing the lock. */
static int lock_shape(struct run *r)
{
    char dir[ENGINE_PATH_MAX], path[ENGINE_PATH_MAX];
    if (path_fmt(dir, "%s/checkpoints", r->dir) || run_path(r, path, "checkpoints", ".lock"))
        return run_fail(r, "tuning directory path too long");
    if (mkdir_p(dir))
        return run_fail(r, "cannot create '%s': %s", dir, strerror(errno));
    for (int i = 0, reopened = 0; i < 10; i++) { /* 0.2 s: a status probe holds it for microseconds */
        if (r->lock_fd < 0 && (r->lock_fd = regfile_open(path, O_RDWR | O_CREAT, REGFILE_NOFOLLOW, 0)) < 0)
            return run_fail(r, "cannot open '%s': %s", path, regfile_strerror(errno));
        if (!flock(r->lock_fd, LOCK_EX | LOCK_NB)) {
            /* a shape refused before it got anything removes its lock file while holding
             * it (unlock_unborn): a lock taken on that removed file locks nothing, so open
             * the path again */
            struct stat a, b;
            if (!fstat(r->lock_fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                return 0;
            close(r->lock_fd);
            r->lock_fd = -1;
            if (++reopened < 100) /* each a refused shape's removal: bounded all the same */
                i--;
            continue;
        }
        if (errno != EWOULDBLOCK && errno != EINTR)
            break;
        struct timespec ts = {0, 20000000L};
        nanosleep(&ts, NULL);
    }
    long pid = flock_holder_pid(r->lock_fd);
    if (pid > 0)
        return run_fail(r, "shape '%s' is locked by pid %ld: another croqtuner process is tuning it (lock '%s')",
                        r->ck.key, pid, path);
    return run_fail(r, "shape '%s' is being tuned by another croqtuner process (lock '%s')", r->ck.key, path);
}

/* Temp files of atomic writes cut by kill -9 (atomicio.h), in every directory that holds
 * this shape's files or the directory-wide ones. Every writer of the shape's own files
 * (this engine, compact, propose: all through the run, or compact's try_lock) holds the
 * shape's lock, held here, so a dead writer's temp file of them goes at once, whatever
 * its age, as state.json's does under .lock; the prefixes are exact ("<key>." never
 * matches "<key>_fs.json", another shape's). generators/ is written by the runs of every
 * shape, under no common lock: there only a stale one (atomic_clean_temps) goes. */
static void clean_temps(struct run *r, int dtype)
{
    static const struct {
        const char *sub, *prefix; /* prefix: a format of the key ("%s."); NULL: any name */
        int depth;
        bool locked;              /* every writer holds the shape's lock */
    } where[] = {{"checkpoints", "%s.", 0, true},      {"progress", "%s.", 0, true}, {"logs/%s", "", 0, true},
                 {"srcs/%s", "", 0, true},             {"perf/%s", "", 1, true},     {"build/%s", "", 2, true},
                 {"kernels/gemm_sp_%s", "%s_best.", 0, true}, {"generators", NULL, 0, false}};
    char sub[ENGINE_PATH_MAX], path[ENGINE_PATH_MAX], prefix[KEY_MAX + 16];
    int n = state_clean_temps(r->dir); /* the directory-wide files: their owner's lock decides */
    for (size_t i = 0; i < sizeof where / sizeof *where; i++) {
        const char *arg = strstr(where[i].sub, "kernels") ? croq_dtype_name(dtype) : r->ck.key;
        if (path_fmt(sub, where[i].sub, arg) || path_fmt(path, "%s/%s", r->dir, sub))
            continue;
        if (where[i].prefix)
            snprintf(prefix, sizeof prefix, where[i].prefix, r->ck.key);
        const char *pre = where[i].prefix ? prefix : NULL;
        n += where[i].locked ? atomic_clean_temps_locked(path, pre, where[i].depth)
                             : atomic_clean_temps(path, pre, where[i].depth);
    }
    if (n && !r->o->quiet)
        printf("%s: removed %d temporary file(s) of writes cut by a crash\n", r->ck.key, n);
}

static int open_backend(struct run *r, bool is_new);
static int check_strategy(struct run *r);

/* A new shape: its backend is opened first (a replay dataset of another shape is
 * refused there), then state.json gets its entry (state_put_new: refused in a directory
 * of another backend), so a refused shape leaves nothing behind. */
static int new_checkpoint(struct run *r, const struct shape_params *p)
{
    char err[600];
    struct checkpoint *c = &r->ck;
    c->sk = p->k;
    snprintf(c->strategy, sizeof c->strategy, "%s", p->strategy ? p->strategy : SEARCH_DEFAULT);
    if (check_strategy(r))
        return ENGINE_FAILED;
    snprintf(c->backend, sizeof c->backend, "%s", p->backend ? p->backend : "gpu");
    if (open_backend(r, true))
        return ENGINE_FAILED;
    c->seed = p->seed;
    c->budget = p->budget > 0 ? p->budget : p->new_budget;
    if (c->budget <= 0)
        return run_fail(r, "%s: no iteration budget for a new shape (give --iters N): %s", c->key,
                        p->no_budget ? p->no_budget : "none was given");
    c->agent = p->agent;
    const char *l2 = p->l2 ? p->l2 : r->o->l2;
    c->cold_l2 = l2 && !strcmp(l2, "cold");
    c->phase = PH_INIT;
    /* state.json first: a crash before INIT finishes leaves an entry resume can finish */
    if (state_put_new(r->dir, c, "active", err, sizeof err))
        return run_fail(r, "%s", err);
    crashpoint("init.state");
    return 0;
}

static int adopt_params(struct run *r, const struct shape_params *p)
{
    struct checkpoint *c = &r->ck;
    if (p->backend && strcmp(p->backend, c->backend))
        return run_fail(r, "shape '%s' is tuned with backend '%s', not '%s'; results of different backends "
                        "are never mixed in one tuning directory: give --tuning ANOTHER_DIR to tune it with "
                        "'%s', or --backend %s to go on in '%s'", c->key, c->backend, p->backend, p->backend,
                        c->backend, r->dir);
    if (r->o->seed_given && r->o->seed != c->seed)
        return run_fail(r, "shape '%s' was started with --seed %llu; a different seed would make its results "
                        "irreproducible", c->key, c->seed);
    if (p->budget > 0 && p->budget != c->budget) {
        if (p->budget < c->iteration)
            return run_fail(r, "shape '%s' already ran %d iterations; --iters %d is below that", c->key,
                            c->iteration, p->budget);
        c->budget = p->budget;
    }
    const char *l2 = p->l2 ? p->l2 : r->o->l2;
    if (l2 && strcmp(l2, c->cold_l2 ? "cold" : "warm"))
        return run_fail(r, "shape '%s' is timed with a %s L2; its numbers are compared with each other, so it "
                        "keeps it: give --tuning ANOTHER_DIR to tune it with --l2 %s", c->key,
                        c->cold_l2 ? "cold" : "warm", l2);
    if (p->strategy && strcmp(p->strategy, c->strategy))
        return run_fail(r, "shape '%s' is searched with strategy '%s', not '%s'; a shape's configurations come "
                        "from one strategy (so its results compare strategies, and a resumed run re-derives its "
                        "ideas): give --tuning ANOTHER_DIR to tune it with '%s', or leave out --strategy to go on "
                        "with '%s'", c->key, c->strategy, p->strategy, p->strategy, c->strategy);
    if (!p->keep_agent)
        c->agent = p->agent;
    return 0;
}

/* The checkpoint's strategy is one this croqtuner runs itself (the agent is the agent
 * flag's, never a recorded strategy). */
static int check_strategy(struct run *r)
{
    const struct search_strategy *s = search_open(r->ck.strategy);
    char names[200];
    if (s && s->next)
        return 0;
    search_names(names, sizeof names);
    return run_fail(r, "%s/checkpoints/%s.json: strategy '%s' is not a search strategy of this croqtuner that the "
                    "engine runs (%s; agent is the 'agent' flag); the file is left as it is", r->dir, r->ck.key,
                    r->ck.strategy, names);
}

/* A done shape without a final ladder gets one (croqtuner ladder): its registered best
 * becomes the ladder's winner. */
static int maybe_ladder(struct run *r, const struct shape_params *p)
{
    struct checkpoint *c = &r->ck;
    char err[600];
    if (!p->ladder || c->phase != PH_NEXT_SHAPE || !c->have_best || c->ladder.done)
        return 0;
    if (run_goto(r, PH_LADDER) || run_save(r))
        return ENGINE_FAILED;
    if (state_put(r->dir, c, "active", err, sizeof err))
        return run_fail(r, "%s", err);
    return 0;
}

/* A shape done below its budget continues from its best (docs/engine.md). */
static int maybe_reopen(struct run *r, const struct shape_params *p)
{
    struct checkpoint *c = &r->ck;
    char err[600];
    if (c->phase != PH_NEXT_SHAPE || !c->have_best || c->iteration >= c->budget || !p->reopen)
        return 0;
    if (run_goto(r, PH_PROFILE))
        return ENGINE_FAILED;
    c->compile_failures = 0;
    c->stop_reason[0] = '\0';
    /* the ladder was of the old budget's end: the shape's new end gets its own. Until then
     * the shape is being tuned and registers no kernel: the published one (maybe the old
     * ladder's winner, which the checkpoint's best no longer names) goes, and comes back
     * at SHAPE_COMPLETE */
    char pub[ENGINE_PATH_MAX], path[ENGINE_PATH_MAX];
    if (c->ladder.done && !path_published_best(pub, croq_dtype_name(c->sk.dtype), c->key) &&
        !path_fmt(path, "%s/%s", r->dir, pub) && unlink(path) && errno != ENOENT)
        return run_fail(r, "cannot remove the published kernel '%s' of the reopened shape: %s", path, strerror(errno));
    memset(&c->ladder, 0, sizeof c->ladder);
    c->ladder.winner = -1;
    if (run_save(r))
        return ENGINE_FAILED;
    if (state_put(r->dir, c, "active", err, sizeof err))
        return run_fail(r, "%s", err);
    if (!r->o->quiet)
        printf("%s: reopened at iteration %d of %d\n", c->key, c->iteration, c->budget);
    return 0;
}

/* A replay shape's dataset is part of its record: the numbers every row was drawn from.
 * A new shape records the file in the checkpoint (its absolute path, and the backend's
 * hash of the records' text, the same for a recompressed copy); a reopened one takes
 * --dataset or else the recorded path, is refused when the records are not those it
 * started on (a dataset explored further, or another one): its ideas and draws would
 * follow other numbers than the rows before them; and records a moved file's new path. */
static int check_dataset(struct run *r, const char *path, bool is_new)
{
    char abs[PATH_MAX];
    const char *hash = r->be->dataset_hash;
    if (!is_new && r->ck.dataset_hash[0] && strcmp(hash, r->ck.dataset_hash))
        return run_fail(r, "shape '%s' started on the dataset '%s' (records FNV-1a 64 %s); '%s' holds other records "
                        "(%s): a replay run goes on only on the numbers it started with; give that dataset as it was, "
                        "or tune the shape anew in another --tuning directory (nothing was changed)", r->ck.key,
                        r->ck.dataset, r->ck.dataset_hash, path, hash);
    if (!is_new && !r->ck.dataset_hash[0]) /* a checkpoint from before datasets were recorded */
        return 0;
    if (!realpath(path, abs) || strlen(abs) >= sizeof r->ck.dataset)
        return is_new ? run_fail(r, "cannot name the dataset '%s' by an absolute path of at most %zu bytes", path,
                                 sizeof r->ck.dataset - 1)
                      : 0; /* the records are right; the recorded path stays */
    memcpy(r->ck.dataset, abs, strlen(abs) + 1);
    snprintf(r->ck.dataset_hash, sizeof r->ck.dataset_hash, "%s", hash);
    return 0;
}

static int open_backend(struct run *r, bool is_new)
{
    char err[300];
    bool replay = !strcmp(r->ck.backend, "replay");
    const char *dataset = r->o->dataset || !replay || !r->ck.dataset[0] ? r->o->dataset : r->ck.dataset;
    struct backend_opts bo = {.name = r->ck.backend, .dataset = dataset, .shape = &r->ck.sk.shape,
                              .dtype = r->ck.sk.dtype, .sim_faults = r->o->sim_faults,
                              .sim_delay_ms = r->o->sim_delay_ms, .runner = r->o->runner};
    r->be = backend_open(&bo, err, sizeof err);
    if (!r->be && dataset && dataset == r->ck.dataset)
        return run_fail(r, "%s: the dataset shape '%s' started on, as its checkpoint records it; give --dataset FILE "
                        "if it moved", err, r->ck.key);
    if (!r->be)
        return run_fail(r, "%s", err);
    return replay ? check_dataset(r, dataset, is_new) : 0;
}


/* True if logs/<key>/results.tsv holds an iteration row (more than its schema and
 * header lines): the shape was tuned before. A bare header is what a crash during INIT
 * leaves, and INIT redoes it. */
static bool shape_has_logs(const char *dir, const char *key)
{
    char path[ENGINE_PATH_MAX];
    if (path_fmt(path, "%s/logs/%s/results.tsv", dir, key))
        return false;
    char *text = read_file(path, NULL);
    int lines = 0;
    for (const char *p = text; p && *p && lines < 3; p++)
        lines += *p == '\n';
    free(text);
    return lines >= 3;
}

/* A new shape refused before it got a state.json entry or a checkpoint (another
 * backend's directory, a bad strategy, no budget) has nothing on disk but the lock file
 * lock_shape created: remove it, under the lock, so that a refused sweep does not leave
 * one per shape behind. A process waiting for the lock then finds its file gone and opens
 * the path again (lock_shape). */
static void unlock_unborn(struct run *r)
{
    char path[ENGINE_PATH_MAX];
    if (r->lock_fd >= 0 && !run_path(r, path, "checkpoints", ".lock"))
        unlink(path);
}

int run_open(struct run *r, const struct engine_opts *o, const struct shape_params *p)
{
    char err[800];
    memset(r, 0, sizeof *r);
    r->o = o;
    r->dir = o->dir;
    r->lock_fd = -1;
    r->started_s = now_s();
    char key[KEY_MAX];
    checkpoint_init(&r->ck);
    key_format(&p->k, key);
    memcpy(r->ck.key, key, sizeof key);
    if (mkdir_p(r->dir))
        return run_fail(r, "cannot create tuning directory '%s': %s", r->dir, strerror(errno));
    if (lock_shape(r))
        return ENGINE_FAILED;
    /* A refused state.json entry is this shape's record, and unreadable: nothing is changed
     * (the other shapes of the directory go on) */
    char why[700];
    if (state_entry_refused(r->dir, key, why, sizeof why) == 1)
        return run_fail(r, "%s/state.json: %s: this shape's entry is refused, so the shape is not opened and nothing "
                        "was changed; correct the entry, or delete it and 'croqtuner resume' restores it from "
                        "checkpoints/%s.json", r->dir, why, key);
    clean_temps(r, p->k.dtype);
    int rc = checkpoint_load(r->dir, key, &r->ck, err, sizeof err);
    if (rc < 0)
        return run_fail(r, "%s", err);
    if (rc == 1 && p->must_exist)
        return run_fail(r, "shape '%s' is not being tuned in '%s'; start it with 'croqtuner tune --agent ...'",
                        key, r->dir);
    if (rc == 1 && shape_has_logs(r->dir, key)) /* a lost checkpoint is not a new shape */
        return run_fail(r, "the checkpoint of shape '%s' is missing but '%s/logs/%s' holds its results; restore "
                        "checkpoints/%s.json (nothing was changed)", key, r->dir, key, key);
    if (rc == 1) {
        checkpoint_init(&r->ck);
        memcpy(r->ck.key, key, sizeof key);
        if (new_checkpoint(r, p)) {
            unlock_unborn(r);
            return ENGINE_FAILED;
        }
    } else if (check_strategy(r) || adopt_params(r, p)) {
        return ENGINE_FAILED;
    }
    if (run_pin_generator(r))
        return ENGINE_FAILED;
    if (r->ck.have_best && knobs_parse_signature(&r->best_cfg, r->ck.best.config, err, sizeof err))
        return run_fail(r, "checkpoint of '%s': best config: %s; the file is left as it is", r->ck.key, err);
    if ((!r->be && open_backend(r, false)) || reconcile(r))
        return ENGINE_FAILED;
    if ((rc = maybe_reopen(r, p)) || (rc = maybe_ladder(r, p)))
        return rc;
    /* state.json may lag the checkpoint by one write after a crash: bring it level */
    if (state_put(r->dir, &r->ck, r->ck.phase == PH_NEXT_SHAPE ? "done" : "active", err, sizeof err))
        return run_fail(r, "%s", err);
    return 0;
}

void run_close(struct run *r)
{
    backend_close(r->be);
    r->be = NULL;
    if (r->lock_fd >= 0)
        close(r->lock_fd);
    r->lock_fd = -1;
    checkpoint_release(&r->ck);
    free(r->prior);
    r->prior = NULL;
    r->n_prior = 0;
    r->prior_loaded = false;
    run_unpin_generator(r);
}

int run_loop(struct run *r)
{
    for (;;) {
        int rc;
        switch (r->ck.phase) {
        case PH_INIT: rc = step_init(r); break;
        case PH_BASELINE: rc = step_baseline(r); break;
        case PH_PROFILE: rc = step_profile(r); break;
        case PH_IDEATE: rc = step_ideate(r); break;
        case PH_IMPLEMENT: rc = step_implement(r); break;
        case PH_MEASURE: rc = step_measure(r); break;
        case PH_DECIDE: rc = step_decide(r); break;
        case PH_STORE: rc = step_store(r); break;
        case PH_LADDER: rc = step_ladder(r); break;
        case PH_SHAPE_COMPLETE: rc = step_complete(r); break;
        case PH_NEXT_SHAPE: return ENGINE_DONE; /* run_open brought state.json level */
        default: return run_fail(r, "shape '%s': unknown phase %d", r->ck.key, (int)r->ck.phase);
        }
        if (rc)
            return rc;
    }
}
