/* src/engine/generator_pin.c — which code generator writes a shape's candidates.
 *
 * A tuning directory is one experiment: every shape of it is measured with the kernels it
 * began with, so kernel changes that land while a sweep runs (SASS-identical or not) wait
 * for the next tuning directory instead of splitting the sweep into two generations
 * (issue 27: "one generator identity across them"). The rule, in order:
 *  1. a shape that has a baseline recipe (srcs/<key>/iter000.gen.json) keeps its generator;
 *  2. a new shape takes the generator of the directory's other shapes' baseline recipes
 *     when they all name one;
 *  3. else (a new directory, or one that already mixes generators) this binary's.
 * A pinned generator other than this binary's is read from the directory's snapshot
 * (generators/<id>.json, src/codegen/generator.h); a recipe naming one whose snapshot is
 * missing or damaged stops the shape by name; a snapshot of another codegen version is
 * not used (this binary's generator writes, with a warning). engine_shape_generator
 * (engine.h) is this rule alone, reading and writing nothing else, also for `croqtuner
 * knobs --tuning DIR --key KEY`; run_pin_generator applies it to a shape being tuned.
 *
 * The knobs go with the generator. The knob table this binary proposes from, validates
 * against and writes #defines from is the one compiled in; a pinned generator's kernels
 * implement only the knobs and values of its own knobs.def (a snapshot file), and ignore
 * a #define of one added since, so a candidate using it would be another candidate under
 * a false name. So the shape's knob space is the pinned generator's (src/knobs/space.h,
 * read here once into r->space, run_space): IDEATE hands it to the strategy
 * (proposer_ctx.space; every strategy keeps to it) and refuses an idea outside it, INIT
 * moves a start configuration into it, and codegen refuses a configuration outside it
 * naming the knob and the generator (codegen.h). A knob the generator lacks is a late
 * one held at its default, so it appears in no signature and no #define, and every
 * configuration recorded for the shape reads back in the croqtuner that began the
 * directory. A knobs.def that does not read, or disagrees with this binary's table where
 * they overlap, stops the shape naming the difference. This binary's own generator has
 * its own table: run_space is NULL and nothing changes.
 */
#include "run.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/generator.h"
#include "artifacts/srcstore.h"
#include "util/log.h"

/* The generator named by srcs/<key>/iter000.gen.json: 0 with id; 1 when there is none. */
static int baseline_generator(const char *dir, const char *key, char id[GENERATOR_ID_MAX], char *err, size_t errlen)
{
    char rel[SRCSTORE_REL_MAX];
    struct srcstore_recipe rec;
    if (snprintf(rel, sizeof rel, "srcs/%s/iter000.cu", key) >= (int)sizeof rel)
        return 1;
    int rc = srcstore_recipe_read(dir, rel, &rec, err, errlen);
    if (rc)
        return rc;
    snprintf(id, GENERATOR_ID_MAX, "%s", rec.generator);
    return 0;
}

/* Rule 2: the one generator the other shapes' baselines name; 1 when none or several. */
static int directory_generator(const char *dir, const char *self, char id[GENERATOR_ID_MAX])
{
    char path[ENGINE_PATH_MAX];
    if (snprintf(path, sizeof path, "%s/srcs", dir) >= (int)sizeof path)
        return 1;
    DIR *d = opendir(path);
    if (!d)
        return 1;
    int n = 0;
    bool mixed = false;
    struct dirent *e;
    while (!mixed && (e = readdir(d))) {
        char other[GENERATOR_ID_MAX], err[300];
        if (e->d_name[0] == '.' || !strcmp(e->d_name, self) ||
            baseline_generator(dir, e->d_name, other, err, sizeof err))
            continue; /* not a shape, or one whose baseline has no (valid) recipe */
        if (n++ == 0)
            snprintf(id, GENERATOR_ID_MAX, "%s", other);
        else
            mixed = strcmp(id, other) != 0;
    }
    closedir(d);
    return n && !mixed ? 0 : 1;
}

int engine_shape_generator(const char *dir, const char *key, struct engine_pin *p, char *err, size_t errlen)
{
    char why[600];
    struct generator cur;
    memset(p, 0, sizeof *p);
    generator_current(&cur);
    snprintf(p->id, sizeof p->id, "%s", cur.id);
    p->rule = "this croqtuner's";
    int rc = baseline_generator(dir, key, p->id, why, sizeof why);
    if (rc < 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (rc == 0) {
        p->rule = "its baseline's";
    } else if (directory_generator(dir, key, p->id)) {
        snprintf(p->id, sizeof p->id, "%s", cur.id); /* rule 3 */
        return 0;
    } else {
        p->rule = "the directory's";
    }
    if (!strcmp(p->id, cur.id))
        return 0;
    rc = generator_load(dir, p->id, &p->gen, why, sizeof why);
    if (rc < 0) {
        snprintf(err, errlen, "%s: the generator this shape is pinned to (%s) cannot be read: %s", key, p->id, why);
        return -1;
    }
    if (rc == 1) { /* the recipes that name it were written with it: someone removed it */
        snprintf(err, errlen, "%s: the generator this shape is pinned to (%s) has no snapshot: generators/%s.json is "
                 "missing (restore it; its recipes cannot be regenerated without it either), so nothing was "
                 "written", key, p->id, p->id);
        return -1;
    }
    if (p->gen.codegen_version != CODEGEN_VERSION) {
        snprintf(p->warning, sizeof p->warning, "%s: generator %s is codegen version %d, this croqtuner writes %d: "
                 "candidates are written by this croqtuner's generator %s", key, p->id, p->gen.codegen_version,
                 CODEGEN_VERSION, cur.id);
        generator_release(&p->gen);
        snprintf(p->id, sizeof p->id, "%s", cur.id);
        p->rule = "this croqtuner's";
        return 0;
    }
    rc = generator_knob_space(p->gen.files, p->gen.codegen_version, &p->space, why, sizeof why);
    if (rc) {
        snprintf(err, errlen, "%s: the generator this shape is pinned to (%s): %s", key, p->id,
                 rc > 0 ? "its snapshot has no knobs.def, so its knobs are unknown" : why);
        generator_release(&p->gen);
        return -1;
    }
    p->pinned = true;
    return 0;
}

void engine_pin_release(struct engine_pin *p)
{
    if (p->pinned)
        generator_release(&p->gen);
    memset(p, 0, sizeof *p);
}

int run_pin_generator(struct run *r)
{
    struct engine_pin p;
    struct generator cur;
    char err[900];
    if (engine_shape_generator(r->dir, r->ck.key, &p, err, sizeof err))
        return run_fail(r, "%s", err);
    if (p.warning[0])
        log_warn("%s", p.warning);
    if (!p.pinned)
        return 0;
    r->pinned_gen = p.gen; /* the run owns the files now */
    r->space = p.space;
    r->has_pinned_gen = true;
    if (!r->o->quiet) {
        char lacks[KNOB_SPACE_DESCRIBE_MAX];
        generator_current(&cur);
        knob_space_describe(&r->space, lacks, sizeof lacks);
        printf("%s: candidates are written by the tuning directory's generator %s (this croqtuner's is %s; a "
               "new tuning directory takes new kernel sources)%s%s\n", r->ck.key, p.id, cur.id,
               r->space.restricted ? "; proposals keep to its knobs, which lack " : "",
               r->space.restricted ? lacks : "");
    }
    return 0;
}

const struct knob_space *run_space(const struct run *r)
{
    return r->has_pinned_gen ? &r->space : NULL;
}

void run_unpin_generator(struct run *r)
{
    if (r->has_pinned_gen)
        generator_release(&r->pinned_gen);
    memset(&r->pinned_gen, 0, sizeof r->pinned_gen);
    r->has_pinned_gen = false;
}
