/* src/artifacts/srcstore.h — candidate sources in a tuning directory: whole, or as a recipe.
 *
 * A generated source (48 KB) is a function of its configuration and its generator
 * (generator.h), so it is kept as a recipe of a few hundred bytes beside the name the
 * records use: for `srcs/<key>/NAME.cu` the file `srcs/<key>/NAME.gen.json` (JSON,
 * schema 1):
 *   {"schema": 1, "codegen_version": 1, "generator": "<identity>", "config": "dtype=f16,...",
 *    "note": "croqtuner f16_..._fs iteration 12 (backend=gpu)" | null, "inject_fault": "none",
 *    "source_hash": "<FNV-1a 64 of the bytes>", "bytes": 48213}
 * plus the generator's snapshot, generators/<identity>.json, once per identity. The whole
 * NAME.cu is a working copy: written with the recipe for nvcc, and removed by
 * srcstore_compact only after the recipe has regenerated exactly its bytes. A source with
 * no recipe (an agent's, croqtuner propose) is only ever kept whole. srcstore_read gives
 * the bytes either way, so every reader goes through it.
 *
 * Paths: dir is the tuning directory; rel is relative to it and ends in ".cu" (the engine
 * builds it from validated integers). Errors are written to err (errlen bytes). Nothing
 * here is shared between threads; concurrent processes are safe because every write is
 * atomic (src/util/atomicio.h) and a snapshot's content is fixed by its name.
 */
#ifndef CROQ_ARTIFACTS_SRCSTORE_H
#define CROQ_ARTIFACTS_SRCSTORE_H
#include <stdbool.h>
#include <stddef.h>

#include "codegen/codegen.h"
#include "codegen/generator.h"
#include "knobs/knobs.h"

#define SRCSTORE_REL_MAX 256
#define SRCSTORE_NOTE_MAX 256

struct srcstore_recipe {
    int codegen_version;
    char generator[GENERATOR_ID_MAX];
    char config[CROQ_SIG_MAX];  /* knobs_signature */
    bool has_note;
    char note[SRCSTORE_NOTE_MAX];
    int inject_fault;           /* enum codegen_fault */
    char source_hash[GENERATOR_ID_MAX];
    size_t bytes;
};

/* "srcs/k/iter005.cu" -> "srcs/k/iter005.gen.json"; -1 if rel does not end in ".cu" or
 * the result does not fit. */
int srcstore_recipe_rel(const char *rel, char out[SRCSTORE_REL_MAX]);
/* 0; 1 when rel has no recipe; -1 with err when it is not a valid recipe. */
int srcstore_recipe_read(const char *dir, const char *rel, struct srcstore_recipe *r, char *err, size_t errlen);

/* Generate cfg's source with o (note, fault; o->files NULL: this binary's kernel sources),
 * write the generator's snapshot (if new), the recipe and the whole file at rel, and put
 * the source's FNV-1a 64 in hash. 0; 1 when the generator refuses the configuration; -1
 * when a write failed; the reason in o->err for 1 and -1. */
int srcstore_generate(const char *dir, const char *rel, const struct croq_config *cfg, const struct codegen_opts *o,
                      char hash[GENERATOR_ID_MAX]);
/* The bytes a recipe describes, regenerated with its generator: this binary's when the
 * identities match, else the directory's snapshot. *src malloc'd (NUL-terminated), *len
 * bytes. 0, or -1 with why it cannot be regenerated (other codegen version, no snapshot,
 * damaged snapshot, a config that does not parse). Does not compare the hash. */
int srcstore_regenerate(const char *dir, const struct srcstore_recipe *r, char **src, size_t *len, char *err,
                        size_t errlen);
/* rel's bytes: the whole file if present, else regenerated from its recipe and checked
 * against the recipe's hash and size. 0, or -1 with err. */
/* Whether rel names a source inside dir and nothing else: relative, no empty, "." or ".."
 * component, no component below dir a symbolic link (the directories, the whole file, or
 * its recipe when the file is absent), and the file regular where present. A reader that
 * publishes what it reads (export) checks this first, so a record naming
 * "../outside.cu", or a symlink put in srcs/, cannot bring another file in. 0, or -1
 * with err (names rel and what is wrong). */
int srcstore_check_inside(const char *dir, const char *rel, char *err, size_t errlen);
int srcstore_read(const char *dir, const char *rel, char **src, size_t *len, char *err, size_t errlen);
/* The note line of a generated source's header (codegen_opts.note as written) into out;
 * false when src has none (or it does not fit cap). */
bool srcstore_note(const char *src, char *out, size_t cap);
/* The config line of a generated source's header (the knob signature codegen emitted its
 * #defines from, src/codegen/codegen.c) into out; false when src has none (a source not
 * written by codegen) or it does not fit cap. */
bool srcstore_config(const char *src, char *out, size_t cap);
/* Make the whole file exist (regenerated from its recipe, written atomically) for a
 * build. 0 or -1 with err. */
int srcstore_materialize(const char *dir, const char *rel, char *err, size_t errlen);
/* Copy a candidate under another name (a failed compile's kept source): the whole file,
 * and the recipe when there is one. 0 or -1 with err. */
int srcstore_copy(const char *dir, const char *from_rel, const char *to_rel, char *err, size_t errlen);
/* Remove the whole file if its recipe regenerates exactly its bytes. 0 removed (or
 * already only a recipe); 1 kept whole, why in err (no recipe; regenerated bytes
 * differ; cannot regenerate); -1 on an I/O error. */
int srcstore_compact(const char *dir, const char *rel, char *err, size_t errlen);
/* A whole generated file with no recipe (written before recipes existed): read the
 * configuration, note and fault from its header, regenerate with each of gens[0..n) in
 * turn, and at the first that reproduces its bytes write that generator's snapshot and
 * the recipe and remove the file. 0 adopted (*used = the generator's index); 1 kept
 * whole, why in err (no generated header, or no generator reproduces it); -1 I/O error. */
int srcstore_adopt(const char *dir, const char *rel, const struct generator *gens, size_t n, size_t *used, char *err,
                   size_t errlen);
#endif
