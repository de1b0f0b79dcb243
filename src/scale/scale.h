/* src/scale/scale.h — sweeps, above the engine: one plan (the order of docs/engine.md,
 * "Sweeps") run serially, or by several workers (one per GPU, or the tasks of a Slurm
 * job array) tuning the shapes of one sweep in one shared tuning directory
 * (docs/scale.md); and resume, which continues shapes and the recorded sweep.
 *
 * A worker claims the next shape under the exclusive flock on <dir>/.lock that already
 * serializes state.json, so claiming is a read-modify-write of state.json's "scale"
 * member: {"claims": {key: claim}, "failed": {key: failure}}. A claim names the process
 * that holds it (pid, host, boot id, pid namespace, process start time); a claim is
 * stale, and taken over by the next worker that looks, when no process holds the
 * shape's lock and its process is gone (same host) or neither it nor its shape changed
 * for CLAIM_GRACE_S (another host). Everything a worker does to a shape goes through the
 * engine (engine_run_shape), whose crash safety makes a taken-over shape end exactly as
 * an uninterrupted one.
 *
 * A parallel sweep runs the sweep plan in waves (plan.c): per dtype, 1. typical shapes,
 * 2. other far shapes, 3. near shapes, 4. needs_scratch shapes. Every shape of a wave
 * is INITed before any of them is tuned, and a wave opens only when the earlier waves
 * of its dtype are finished, so each shape starts from exactly the shapes of earlier
 * waves whatever the number of workers or their timing: one worker and eight give the
 * same results.
 */
#ifndef CROQ_SCALE_H
#define CROQ_SCALE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "artifacts/artifacts.h"
#include "engine/engine.h"
#include "shapes/shapes.h"
#include "target/dtype.h"
#include "util/strbuf.h"

#define SCALE_WORKERS_MAX 64
/* A claim made on another host is trusted this long without the shape's lock: the
 * worker takes the lock right after claiming (run_open), well within a second. */
#define CLAIM_GRACE_S 120.0

/* ---- who a process is (proc.c) ---------------------------------------------------- */

/* struct proc_ident: artifacts/claim.h (a claim record holds one) */
/* This process. 0, or -1 with err. */
int proc_ident_self(struct proc_ident *p, char *err, size_t errlen);
/* Start time of pid: 0, or -1 when no such process runs (none, or a zombie). */
int proc_start_ticks(long pid, unsigned long long *out);
/* Same machine and pid namespace: a pid of one can be checked by the other. */
bool proc_same_host(const struct proc_ident *a, const struct proc_ident *b);

/* ---- claims (claim.c) -------------------------------------------------------------- */

/* struct claim, claim_to_json, claim_from_json: artifacts/claim.h (the record in state.json) */

/* What can be known about a claim's process from here; gathered by claim_facts_gather,
 * built by hand in the unit tests. */
struct claim_facts {
    bool same_host;      /* proc_same_host(claimant, us) */
    bool rebooted;       /* same host name, another boot id: every process of then is gone */
    bool pid_alive;      /* a process with the claim's pid exists (same host only) */
    bool start_matches;  /* ... and started when the claim says (else the pid was reused) */
    bool lock_held;      /* someone holds checkpoints/<key>.lock (the engine, for the whole run) */
    double age_s;        /* seconds since the claim was made or its shape's state.json entry
                            last changed, whichever is later: a shape that just finished or
                            stopped has a fresh entry while its worker releases the claim */
};
/* state: the state.json root the claim is in (for the shape's updated_at), or NULL. */
void claim_facts_gather(const char *dir, const struct claim *c, const struct proc_ident *self, json_t *state,
                        struct claim_facts *f);
/* The rule (docs/scale.md): NULL when the claim is live; else why it is stale, in buf.
 * Stale = nobody holds the shape's lock AND (same host: the process is gone, its pid
 * was reused, or the host rebooted; another host: nothing happened to the claim or
 * its shape for CLAIM_GRACE_S). */
const char *claim_stale_reason(const struct claim *c, const struct claim_facts *f, char *buf, size_t len);
/* Is checkpoints/<key>.lock held by any process (this one included, through another fd)? */
bool claim_lock_held(const char *dir, const char *key);

/* ---- the plan of a parallel sweep (plan.c) -------------------------------------------- */

struct plan_shape {
    char key[KEY_MAX];
    struct shape_key k;
};
struct plan_wave {
    int dtype;
    int stage;                         /* 1 typical, 2 far, 3 near, 4 needs_scratch */
    struct plan_shape *s;
    size_t n;
};
struct scale_plan {
    struct plan_wave waves[CROQ_DTYPE_COUNT][3]; /* [dtype][stage-1], stages 1-3; stage 4 comes from the state */
    bool dtypes[CROQ_DTYPE_COUNT];     /* which dtypes the sweep covers */
    bool scratch_rerun;                /* the default plan: stage 4 runs */
    struct scenario_set set;
};
/* The waves of `sweep --dtype dtype [--mode mode] [--waves last_wave]` (dtype -1 all,
 * mode -1 the default plan, last_wave 0 all) over the shapes.json at path: the waves after
 * last_wave are empty. Invalid shapes are skipped with a warning when warn is set. 0 or -1
 * with err. */
int plan_build(const char *path, int dtype, int mode, int last_wave, bool warn, struct scale_plan *p, char *err,
               size_t errlen);
void plan_release(struct scale_plan *p);
/* Stage 4 of a dtype from the state: the from-scratch keys of the shapes whose
 * from_current_best run is flagged needs_scratch, in scenario order. */
void plan_scratch_wave(const struct scale_plan *p, int dtype, json_t *state, struct plan_wave *out);
/* Stages of a dtype, 4 included when the plan has it and stages 1-3 are finished: the
 * first wave not finished (a shape done, or failed in this sweep), or NULL when the
 * dtype is finished. *tmp holds a computed stage 4 (plan_wave_release it). */
const struct plan_wave *plan_current_wave(const struct scale_plan *p, int dtype, json_t *state,
                                          struct plan_wave *tmp);
void plan_wave_release(struct plan_wave *w);
/* Shapes of the plan not done yet (stage 4 counted only once known), and the most that
 * can be worked on at once (the widest unfinished wave). */
void plan_pending(const struct scale_plan *p, json_t *state, size_t *pending, size_t *widest);
/* A shape is finished for the sweep: done, or failed in this sweep. */
bool plan_shape_finished(json_t *state, const char *key);

/* ---- claiming (next.c): run under the .lock, on the freshest state --------------------- */

enum next_kind { NEXT_WORK = 0, NEXT_WAIT, NEXT_DONE };
struct next_result {
    enum next_kind kind;
    struct claim claim;                /* NEXT_WORK: the claim made */
    bool takeover;                     /* it replaced a stale claim ... */
    struct claim was;                  /* ... this one */
    char why[160];                     /* ... stale because */
    bool dropped_own;                  /* a leftover claim (this process's, or a dead one's on a
                                          finished shape) was dropped: write the state */
};
struct worker_id {
    struct proc_ident self;
    char gpu[SCALE_GPU_MAX];
    char job[SCALE_JOB_MAX];
};
/* Choose and claim the next piece of work in state (edited in place): in dtype order,
 * the first unfinished wave; while a shape of it has not been INITed, an INIT claim of
 * such a shape; then TUNE claims of its shapes not finished. Shapes with a live claim
 * or whose lock another process holds are passed over; a stale claim is taken over.
 * NEXT_WAIT: everything claimable is claimed; NEXT_DONE: every wave is finished. */
int claim_next(const char *dir, json_t *state, const struct scale_plan *p, const struct worker_id *w,
               struct next_result *out, char *err, size_t errlen);
/* Drop w's claim on key (if it is still w's), recording failed when the work failed.
 * 1 when the claim was no longer w's (taken over: nothing changed). */
int claim_release(json_t *state, const char *key, const struct worker_id *w, bool failed, const char *why);
/* Drop every stale claim (merge): how many, appended to dropped (one line each). */
size_t claim_drop_stale(const char *dir, json_t *state, const struct proc_ident *self, struct strbuf *dropped);
/* After a sweep's workers, or at a merge: how many shapes of p are not finished, and how
 * many the workers gave up (state.json scale.failed; each logged with its reason, in the
 * file's order). 0, or -1 when state.json cannot be read (logged). */
struct scale_plan;
int scale_outcome(const char *dir, const struct scale_plan *p, size_t *pending, size_t *failed);
/* <dir>/scale/claims.log: one line per claim, takeover, release, failure (audit;
 * nothing reads it to decide). */
void claims_log(const char *dir, const char *event, const struct claim *c, const char *detail);

/* ---- a sweep without workers, its record, resume (sweep.c) ------------------------------ */

/* Before a sweep runs or goes on, under the tuning directory's lock and before any shape
 * is claimed or the sweep record changes: a directory holding shapes (or a sweep) of
 * another backend than o's is refused, once, and src (the shapes.json the plan was just
 * built from: validated) is kept as the directory's plan snapshot, or checked against it
 * (state_plan_keep: an older record's absolute path counts while its file is there).
 * Every sweep, continued or not, records STATE_PLAN_FILE. 0; ENGINE_USAGE when refused,
 * ENGINE_FAILED when a file cannot be read or written (both printed). */
int sweep_plan_take(const struct engine_opts *o, const char *src);
/* `sweep` without --gpus/--workers: the plan of o->shapes (dtype -1 all, mode -1 the
 * default plan), each shape tuned to the end before the next, recorded in state.json.
 * An engine_rc. */
int sweep_serial(const struct engine_opts *o, int dtype, int mode);
/* Record the sweep (o's backend, seed, iters, shapes) in state.json with status
 * ("running", "done", "stopped: ..."); waves: resume continues it in waves. 0 or
 * ENGINE_FAILED (printed). */
int sweep_record(const struct engine_opts *o, int dtype, int mode, const char *status, bool waves);
/* How a sweep ran, for the words of its ending (sweep_end). */
enum sweep_run {
    SWEEP_SERIAL, /* sweep_serial: one process */
    SWEEP_WAVES,  /* scale_sweep: workers in waves */
    SWEEP_MERGE,  /* slurm_merge: the merge job after an array of workers */
};
/* The one ending of a sweep: stop ENGINE_GPU_BUSY / ENGINE_GPU_GONE records it "stopped:
 * GPU busy / unusable" and says how to continue (pending: the shapes left, said by
 * SWEEP_WAVES); otherwise it is recorded "done" and, with failed shapes (their errors
 * printed before), said so, else "sweep done" printed (not with o->quiet, but always by
 * the merge, the job's one line). Returns the engine_rc of the sweep: stop, ENGINE_FAILED
 * (a failed shape, or state.json not written) or ENGINE_DONE. */
int sweep_end(const struct engine_opts *o, int dtype, int mode, enum sweep_run how, int stop, size_t pending,
              size_t failed);
/* `resume`: a recorded parallel sweep first (in its waves), every unfinished shape
 * (engine_resume_shapes), then a recorded serial sweep. An engine_rc. */
int sweep_resume(const struct engine_opts *o);

/* ---- workers and the pool (worker.c, pool.c) -------------------------------------------- */

/* One worker: claim, INIT or tune, release, until every wave is finished. Returns
 * ENGINE_DONE, ENGINE_FAILED (a shape failed, or the state could not be updated), or
 * ENGINE_GPU_BUSY / ENGINE_GPU_GONE (its GPU: the worker stops, others go on). */
int worker_run(const struct engine_opts *o, const struct scale_plan *p, const struct worker_id *w);

struct scale_opts {
    char gpus[SCALE_WORKERS_MAX][SCALE_GPU_MAX]; /* one worker per GPU id (CUDA_VISIBLE_DEVICES) */
    int n_gpus;
    int workers;                          /* or this many workers without a GPU each */
    bool array_task;                      /* a Slurm array task: joins the recorded sweep */
};
/* Parse "0,1,2" (ids: digits, or GPU-/MIG- UUIDs) into o. 0 or -1 with err (which names the
 * list, not the option). */
int scale_gpus_parse(const char *s, struct scale_opts *o, char *err, size_t errlen);
/* `sweep --gpus` / `--workers`: record the sweep, fork the workers, wait, record how it
 * ended. Returns an engine_rc. */
int scale_sweep(const struct engine_opts *o, int dtype, int mode, const struct scale_opts *so);
/* A new run of a parallel sweep: shapes that failed in an earlier run are tried again
 * (as a sequential sweep would) and the sweep is recorded, waves and all, for resume.
 * 0 or -1 (printed). */
int scale_sweep_begin(const struct engine_opts *o, int dtype, int mode);
/* resume of a recorded parallel sweep: one worker in this process. */
int scale_sweep_resume(const struct engine_opts *o, int dtype, int mode);

/* ---- Slurm (slurm.c, merge.c) ----------------------------------------------------------- */

struct slurm_opts {
    const char *partition;             /* NULL: the cluster's default */
    const char *time;                  /* HH:MM:SS or D-HH:MM:SS, NULL: the partition's */
    int gpus_per_task;                 /* 0: no GPU requested (sim backend, CPU tests) */
    int cpus_per_task;                 /* 0: 4 per GPU, 1 without */
    int tasks;                         /* 0: as many as the widest pending wave needs */
    const char *out;                   /* array script; the merge script is <out>-merge */
    const char *croqtuner;             /* absolute path of the binary the jobs run */
    bool submit;
};
/* A Slurm time limit: [D-]HH:MM:SS. */
bool slurm_time_valid(const char *s);
/* POSIX shell single-quoting of s, appended to sb. */
void slurm_shell_quote(struct strbuf *sb, const char *s);
/* The merge script's path for an array script path. */
int slurm_merge_path(const char *out, char merge[ENGINE_PATH_MAX]);
/* Text of the array script and of the merge script. dir, shapes absolute. NULL with err
 * when a path cannot be written into #SBATCH lines. */
char *slurm_array_script(const struct engine_opts *o, int dtype, int mode, const struct slurm_opts *so, int tasks,
                         char *err, size_t errlen);
char *slurm_merge_script(const struct engine_opts *o, const struct slurm_opts *so, char *err, size_t errlen);
/* `croqtuner slurm`: write both scripts (and submit them). An engine_rc. */
int slurm_generate(const struct engine_opts *o, int dtype, int mode, const struct slurm_opts *so);
/* `croqtuner slurm --merge`: after the array: drop stale claims, bring the shapes left
 * unfinished level with their checkpoints, record the sweep done (or say what is left).
 * An engine_rc. */
int slurm_merge(const struct engine_opts *o);

/* ---- status (status.c) ------------------------------------------------------------------ */

/* {"workers": [...], "stale_claims": [...]} from the claims of state.json: pid, host,
 * GPU, shape, action, iteration/budget (live progress when there is some), job. */
json_t *scale_status_json(const char *dir, char *err, size_t errlen);
/* Shapes of sw's plan, cut after last_wave (0: every wave), not finished in state (wave 4
 * counted once it is known: plan_pending); -1 when the plan cannot be read. */
long scale_sweep_pending(const char *dir, const struct state_sweep *sw, json_t *state, int last_wave);
/* The same as text, after the shape table; nothing when there are no claims. */
int scale_status_print(const char *dir, FILE *out);
#endif
