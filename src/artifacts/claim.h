/* src/artifacts/claim.h — a claim record of state.json's "scale.claims" (docs/scale.md):
 * which worker process holds a shape of a sweep in waves. The record and its JSON are
 * the artifacts module's; when a claim is stale, and claiming itself, are src/scale's. */
#ifndef CROQ_ARTIFACTS_CLAIM_H
#define CROQ_ARTIFACTS_CLAIM_H
#include <stddef.h>

#include <jansson.h>

#include "artifacts/names.h"

#define SCALE_HOST_MAX 64
#define SCALE_ID_MAX 48      /* boot id (36 chars), pid namespace "pid:[4026531836]" */
#define SCALE_GPU_MAX 48     /* a GPU id as the user or Slurm gave it: "3", "GPU-8c1e..." */
#define SCALE_JOB_MAX 48     /* Slurm "1234_7" */

/* Who a process is (filled by src/scale, proc_ident_self). */
struct proc_ident {
    long pid;
    char host[SCALE_HOST_MAX];
    char boot_id[SCALE_ID_MAX];        /* /proc/sys/kernel/random/boot_id */
    char pidns[SCALE_ID_MAX];          /* readlink /proc/self/ns/pid */
    unsigned long long start_ticks;    /* /proc/<pid>/stat field 22: start, clock ticks after boot */
};

enum claim_action { CLAIM_INIT = 0, CLAIM_TUNE = 1 };
const char *claim_action_name(enum claim_action a); /* "init" / "tune" */

struct claim {
    char key[KEY_MAX];
    enum claim_action action;
    struct proc_ident who;
    char gpu[SCALE_GPU_MAX];           /* "" when the worker has no GPU of its own */
    char job[SCALE_JOB_MAX];           /* Slurm job (array) id, "" outside Slurm */
    char claimed_at[32];               /* UTC ISO 8601 */
    long long claimed_s;               /* the same, seconds since the epoch */
};
json_t *claim_to_json(const struct claim *c);
/* Strict: every member present and typed, the key a valid shape key. 0 or -1 with err. */
int claim_from_json(const char *key, json_t *j, struct claim *c, char *err, size_t errlen);
#endif
