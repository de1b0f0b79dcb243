/* src/engine/speculate.c — compile ahead.
 *
 * nvcc takes seconds per candidate; the GPU measures one in well under that. So, right
 * after IMPLEMENT has built candidate i, the engine asks the proposer for the candidates
 * it would pick at i+1, i+2, ... if i and those were all discarded (the common case),
 * generates their sources exactly as IMPLEMENT will (implement_source), and compiles
 * them ahead through the backend (build_ahead: background processes filling the build
 * cache, for the gpu backend) while candidate i is measured.
 * IMPLEMENT then finds its cubin in the cache, or waits on the build of the same key
 * (src/build holds a flock per cache key) instead of compiling it twice.
 *
 * Nothing here is state: a KEEP, a compile failure or a crash only makes a guess
 * useless, and the only thing written is the build cache and build/<key>/spec/. Each guess
 * is named by its iteration and its source's hash (spec/iterNNN-<hash>.cu): when the
 * proposer re-plans, one iteration gets guesses of several sources, built in detached
 * processes at the same time, and no two of them may share an output path (issue 22: two
 * builds renaming different modules into one spec/iterNNN.cubin).
 * CROQ_SPECULATE=N sets how many candidates ahead (default: CPU cores - 1, at most 4);
 * 0 turns it off.
 */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomicio.h"
#include "util/hash.h"
#include "util/log.h"

#define SPECULATE_MAX 4

static int speculate_depth(void)
{
    const char *e = getenv("CROQ_SPECULATE");
    if (e && *e)
        return atoi(e) < 0 ? 0 : atoi(e) > SPECULATE_MAX ? SPECULATE_MAX : atoi(e);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus <= 2 ? 1 : cpus - 1 > SPECULATE_MAX ? SPECULATE_MAX : (int)cpus - 1;
}

/* Write the guessed source of iteration iter and have the backend start its build. */
static void speculate_one(struct run *r, const struct croq_config *cfg, int iter)
{
    char dir[ENGINE_PATH_MAX], path[ENGINE_PATH_MAX], rel[ENGINE_PATH_MAX], err[512], h[17];
    char *src = NULL;
    if (path_fmt(dir, "%s/build/%s/spec", r->dir, r->ck.key) || mkdir_p(dir) ||
        implement_source(r, cfg, iter, &src, err, sizeof err))
        return;
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, src, strlen(src)), h); /* backend_hash_file's hash of the file */
    if (path_fmt(rel, "build/%s/spec/iter%03d-%s.cu", r->ck.key, iter, h) || path_fmt(path, "%s/%s", r->dir, rel)) {
        free(src);
        return;
    }
    struct cand_req req = {.dir = r->dir, .key = r->ck.key, .iter = iter, .src_rel = rel};
    if (!atomic_write_volatile(path, src, strlen(src))) /* a guess: nothing needs it after a power cut */
        r->be->build_ahead(r->be, &req);
    free(src);
}

void speculate_ahead(struct run *r)
{
    struct checkpoint *c = &r->ck;
    struct pending *p = &c->pending;
    struct run_history h;
    int depth = speculate_depth();
    if (!r->be->build_ahead || c->agent || depth == 0 || history_load(r, &h))
        return;
    struct idea_history_entry *hist = xmalloc((h.n + 1 + (size_t)depth) * sizeof *hist);
    memcpy(hist, h.e, h.n * sizeof *hist);
    size_t n = h.n;
    int cat = idea_category_parse(p->category);
    hist[n] = (struct idea_history_entry){.category = cat >= 0 ? (enum idea_category)cat : IDEA_MACRO};
    snprintf(hist[n++].signature, CROQ_SIG_MAX, "%s", p->config); /* candidate i, as if discarded */
    int discards = h.consecutive_discards + 1;
    history_release(&h);
    for (int k = 1; k <= depth && p->iter + k <= c->budget; k++) {
        struct idea idea;
        if (ideate_next(r, hist, n, p->iter + k, discards, &idea))
            break;
        speculate_one(r, &idea.cfg, p->iter + k);
        hist[n] = (struct idea_history_entry){.category = idea.category};
        knobs_signature(&idea.cfg, hist[n++].signature);
        discards++;
    }
    free(hist);
}
