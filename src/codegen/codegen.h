/* src/codegen/codegen.h — turn a knob configuration into ONE self-contained .cu file.
 *
 * The output is, in order: a header comment (config signature, entry file, what
 * produced it), `#define CROQ_DTYPE 0|1`, one `#define <macro> <value>` per row of
 * src/knobs/knobs.def (the table, never a hand-written list), optionally
 * `#define CROQ_INJECT_FAULT 1|2|3` (test-only, docs/runner-protocol.md), then the entry
 * file — "baseline.cu" when knob kernel=0, "family.cu" when 1 — with every quoted
 * `#include "name"` replaced by that embedded file's text, recursively, each file at most
 * once (include-once). Names are relative to kernels/ (src/codegen/embedded.h); a name
 * not found there is tried relative to the including file's directory. Angle-bracket
 * includes (<cuda.h>, <stdint.h>) are left for nvcc. `#pragma once` lines are dropped
 * (meaningless, and warned about, in a single file). Includes are found line by line
 * without evaluating #if: a file is inlined where it is first named, so kernel sources
 * must not include a file under a conditional and again unconditionally later.
 *
 * So a generated file compiles with nothing but nvcc and the CUDA headers, anywhere, and
 * is the exact record of what was measured.
 */
#ifndef CROQ_CODEGEN_CODEGEN_H
#define CROQ_CODEGEN_CODEGEN_H
#include <stddef.h>

#include "codegen/embedded.h"
#include "knobs/knobs.h"
#include "util/strbuf.h"

/* The version of what codegen_emit writes: bump it whenever the same configuration and
 * kernel sources would give other bytes (header text, define order, flattening rules), so
 * stored candidates of the old output are named as such instead of failing their hash
 * (src/codegen/generator.h; tests/unit/test_codegen.c pins the output of this version). */
#define CODEGEN_VERSION 1

/* Values of CROQ_INJECT_FAULT (docs/runner-protocol.md, "Test-only fault injection"). */
enum codegen_fault {
    CODEGEN_FAULT_NONE = 0,
    CODEGEN_FAULT_TRAP = 1, /* kernel executes `trap` */
    CODEGEN_FAULT_HANG = 2, /* kernel waits on an mbarrier nobody signals */
    CODEGEN_FAULT_OOB = 3,  /* kernel stores far outside C */
    CODEGEN_FAULT_SKIPK = 4, /* kernel leaves out the last k tile: wrong C everywhere */
    CODEGEN_FAULT_ELEM = 5,  /* kernel writes C[0][0] off by 64 */
    CODEGEN_FAULT_META = 6,  /* kernel uses one metadata bit flipped */
};

struct codegen_opts {
    int inject_fault;   /* enum codegen_fault; tests only */
    const char *note;   /* one extra header line ("iteration 12 of f16_4096x8192x8192"), or NULL */
    const struct croq_embedded_file *files; /* NULL: croq_embedded_files (tests and snapshots
                                                (generator.h) pass their own) */
    bool regenerate;    /* regenerating a stored candidate: the knob rules are not applied again
                           (one added since would refuse a configuration generated before it) */
    char *err;          /* where a failure is described; NULL: printed on stderr */
    size_t errlen;
};

/* The entry file for a configuration: "baseline.cu" (kernel=0) or "family.cu" (1). */
const char *codegen_entry(const struct croq_config *cfg);

/* Generate the source. cfg must pass knobs_validate(cfg, NULL, ...) (unless o->regenerate):
 * an invalid one is refused with the reason. With o->files of another generator (a
 * snapshot's, generator.h) cfg must also lie in that generator's knob space, its
 * knobs.def (src/knobs/space.h), unless o->regenerate: a knob or value it does not
 * declare is refused, naming the knob and the generator's identity. o may be NULL.
 * Returns 0 with *out_src malloc'd (free() it), or -1 with the reason in o->err: invalid
 * configuration, a knob or value the files' generator lacks, entry file not embedded,
 * unknown quoted include (named, with the file and line that asked for it). */
int codegen_emit(const struct croq_config *cfg, const struct codegen_opts *o, char **out_src);

/* codegen_emit, then write the text to path atomically (src/util/atomicio.h). 0 or -1
 * with the reason in o->err (or on stderr). */
int codegen_write(const struct croq_config *cfg, const struct codegen_opts *o, const char *path);

/* The include flattener alone: append entry, with its quoted includes inlined as
 * described above, to out. files is a table ending with a {NULL, NULL, 0} row. 0 or -1
 * with the reason in err. */
int codegen_flatten(const struct croq_embedded_file *files, const char *entry, struct strbuf *out,
                    char *err, size_t errlen);

/* "trap" / "hang" / "oob" / "skipk" / "elem" / "meta" -> enum codegen_fault; -1 if unknown. */
int codegen_fault_parse(const char *s);
const char *codegen_fault_name(int fault); /* "none", "trap", ... */
#endif
