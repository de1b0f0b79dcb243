/* src/knobs/knobs.h — the kernel family's knob space (declared in knobs.def).
 *
 * A struct croq_config is one point of the space plus the operand dtype. It is the
 * unit the code generator compiles, the proposer mutates, the engine records and the
 * reports group by. Its canonical text form ("signature") is the dedup key.
 */
#ifndef CROQ_KNOBS_H
#define CROQ_KNOBS_H

#include <stddef.h>
#include <stdbool.h>

#include "../../kernels/abi.h"

enum croq_knob_id {
#define KNOB(id, name, macro, def, cat, meaning, ...) KNOB_##id,
#include "knobs.def"
#undef KNOB
    KNOB_COUNT
};

#define CROQ_KNOB_MAX_VALUES 8

/* Knobs appended after the tuner's results started being recorded (knobs.def): one of
 * these at its default is not written in a signature or config JSON, nor as a #define
 * (codegen), and a signature or JSON object without it means its default. Every id
 * >= KNOB_FIRST_LATE is late. */
#define KNOB_FIRST_LATE KNOB_SCHEDULE
/* True when knob id is late and at its default in cfg: omitted from the text forms. */
#define KNOB_OMITTED(cfg, id) ((id) >= KNOB_FIRST_LATE && (cfg)->v[id] == croq_knobs[id].default_value)

struct croq_knob {
    const char *name;
    const char *macro;
    int default_value;
    const char *category;
    const char *meaning;
    int n_values;
    int values[CROQ_KNOB_MAX_VALUES];
};

/* The table, indexed by enum croq_knob_id. */
extern const struct croq_knob croq_knobs[KNOB_COUNT];

struct croq_config {
    int dtype; /* enum croq_dtype */
    int v[KNOB_COUNT];
};

struct croq_shape {
    long m, n, k;
};

/* Longest signature: every knob as "name=value," (see knobs_signature). */
#define CROQ_SIG_MAX 512
#define CROQ_WHY_MAX 256

const char *croq_dtype_name(int dtype); /* "f16" / "e4m3" */
int croq_dtype_parse(const char *s);    /* -1 if unknown */
int croq_dtype_size(int dtype);         /* bytes per operand element */

/* Fill every knob with its default and set the dtype. */
void knobs_default(struct croq_config *cfg, int dtype);
/* The simplest correct configuration: the baseline kernel (issue 2). */
void knobs_baseline(struct croq_config *cfg, int dtype);

int knobs_find(const char *name); /* knob id or -1 */
bool knobs_value_allowed(int id, int value);

/* Apply "name=value"; blanks (space, tab) around the name and around the value are
 * ignored ("tile_m = 128"). Returns 0, or -1 with a message in err (no '=' or no name,
 * unknown knob, value not an integer, value not in the knob's list). */
int knobs_set(struct croq_config *cfg, const char *assignment, char *err, size_t errlen);

/* Apply a list of assignments, "a=1 b=2" or "a=1,b=2" (blanks next to '=' belong to the
 * assignment: "a = 1, b= 2" is two) (what one --set may carry: a whole
 * kernels/variants.txt line, or a whole signature). A "dtype=X" item is accepted when X
 * is cfg's dtype and an error otherwise. A list that starts with "ws" or "base" is a
 * whole short label (knobs_label): cfg becomes the dtype's defaults with the label's
 * knobs (a "base" label: consumers=1). A leading "* config:" or "config:" (the header
 * line of a generated .cu, the config: line of knobs --check for an invalid
 * configuration) or "valid:" (its line for a valid one) is skipped. 0, or -1 with err
 * (an empty list is an error). */
int knobs_set_list(struct croq_config *cfg, const char *list, char *err, size_t errlen);

/* Check a configuration against the shape: every rule that would make it fail to
 * compile, fail to launch, or compute a wrong result. Returns true if usable;
 * otherwise false with the first violated rule in why (nothing written when whylen is 0). shape may be NULL to check
 * only shape-independent rules. */
bool knobs_validate(const struct croq_config *cfg, const struct croq_shape *shape,
                    char *why, size_t whylen);
/* Make cfg valid for shape with the smallest change (fit.c): the nearest values of
 * split_k, tile_k and swizzle, in that order of preference to keep. 0 if cfg (possibly
 * changed) is valid, -1 if nothing fits (cfg unchanged). */
int knobs_fit(struct croq_config *cfg, const struct croq_shape *shape);

/* One violated rule and what to change: change is in --set form ("tile_n=128 or
 * tile_m=64"), or words where no knob fixes it (the shape). */
struct knobs_violation {
    char reason[CROQ_WHY_MAX];
    char change[CROQ_WHY_MAX];
};
/* Every rule cfg breaks (knobs_validate's rules, in the same order; the shape's rules
 * too when shape is not NULL). Returns how many
 * rules are broken (0: valid); the first min(that, max) are written to out. Thread-safe. */
int knobs_violations(const struct croq_config *cfg, const struct croq_shape *shape,
                     struct knobs_violation *out, int max);

/* Shape rules that hold for every kernel (K multiple of 64, N multiple of 8, ...). */
bool shape_validate(int dtype, const struct croq_shape *shape, char *why, size_t whylen);

/* Canonical "dtype=f16,kernel=1,tile_m=128,..." in table order; late knobs at their
 * default are left out (KNOB_FIRST_LATE). */
void knobs_signature(const struct croq_config *cfg, char out[CROQ_SIG_MAX]);
/* A total order on configurations (their bytes: a config is ints only, so equal configs
 * compare equal), for qsort and bsearch over struct croq_config arrays. */
int knobs_config_cmp(const void *a, const void *b);
/* True when set is NULL (no restriction) or its n configurations, sorted by
 * knobs_config_cmp, hold cfg: a backend's measurable list (backend.measurable). */
bool knobs_config_in(const struct croq_config *set, size_t n, const struct croq_config *cfg);
/* The short label tables print: "base 64x128x64 s2" / "ws 128x256x64 s4 c2" (kernel,
 * tile_m x tile_n x tile_k, stages, consumers of the warp-specialized kernel) + every
 * other knob that differs from the dtype's default as " name=value" (no commas: the
 * form goes into CSV cells). knobs_set_list reads it back. */
#define CROQ_LABEL_MAX 160
void knobs_label(const struct croq_config *cfg, char out[CROQ_LABEL_MAX]);

/* Parse a signature back (every knob before KNOB_FIRST_LATE must be present; a late one
 * missing takes its default). 0 or -1 with err. */
int knobs_parse_signature(struct croq_config *cfg, const char *sig, char *err, size_t errlen);

/* Derived geometry (kernels/geometry.h). */
long knobs_smem_bytes(const struct croq_config *cfg);
int knobs_threads(const struct croq_config *cfg);
int knobs_acc_regs(const struct croq_config *cfg);
/* Metadata registers per consumer thread of kernel=1 (two buffers, CROQ_META_REGS). */
int knobs_meta_regs(const struct croq_config *cfg);
/* Consumers that split one tile's rows: consumers (cooperative) or 1 (ping-pong). */
int knobs_tile_split(const struct croq_config *cfg);

/* The Euclidean distance of (ln M, ln N, ln K) of two shapes: how similar they are (the
 * nearest tuned shape, the cost model's weight of another shape's measurements). */
double shape_log_distance(const struct croq_shape *a, const struct croq_shape *b);
/* Parse "MxNxK". 0 or -1. */
int shape_parse(const char *s, struct croq_shape *out);

#endif
