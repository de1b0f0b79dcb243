/* src/artifacts/names.h — the vocabulary every artifact of a tuning directory shares
 * (docs/artifacts.md): the schema, shape keys, tuning modes, phase and decision names,
 * and the versions of the decision rules. Pure functions; no state. */
#ifndef CROQ_ARTIFACTS_NAMES_H
#define CROQ_ARTIFACTS_NAMES_H
#include <stdbool.h>
#include <stddef.h>

#include "knobs/knobs.h"

#define ENGINE_SCHEMA 1
#define KEY_MAX 64
#define NOTE_MAX 512

/* The decision rules, versioned: a shape is decided under the version it started with
 * (its checkpoint and results.tsv header record it), so a resumed or audited run is
 * decided as it was. 1: the noise rule alone. 2: a first measurement whose gain is above
 * the floor but within the spread is confirmed: candidate and best measured again, and
 * KEEP iff the second pair also shows a gain above the floor (decide.c says why). 3:
 * candidate and best are timed in alternating trials of one worker process, and KEEP
 * iff the lower end of the 95% interval of the per-pair speedup exceeds 1 + the paired
 * floor (engine/decide.h); only a measurement above the physical peak is repeated; a
 * KEEP is first verified again on an operand set never used in the shape. 4: as 3, and a
 * candidate the first pairing keeps is paired with the best a second time, independently
 * and with every pair (no early stop); KEEP iff that confirmation's interval also lies
 * above 1, and the gain the shape records is the confirmation's median, chained: the best's
 * TFLOPS become the old best's times that speedup, so the best never falls on the shape's
 * one scale (the baseline's measurement). The first pairing is the screen that chose the
 * candidate out of many and so overstates the gains it keeps (the winner's curse); the
 * confirmation did no choosing. A shape decided under 4 ends with the final ladder
 * (docs/engine.md). */
#define DECIDE_RULES 4
/* The first rules version whose shapes end with the final ladder. */
#define DECIDE_RULES_LADDER 4

/* ---- phases (names.c; the table of moves: engine/phase.c) --------------------------------------------------------- */

enum engine_phase {
    PH_INIT = 0, PH_BASELINE, PH_PROFILE, PH_IDEATE, PH_IMPLEMENT, PH_MEASURE,
    PH_DECIDE, PH_STORE, PH_LADDER, PH_SHAPE_COMPLETE, PH_NEXT_SHAPE, PH_COUNT
};
const char *phase_name(enum engine_phase p); /* "INIT", ... */
int phase_parse(const char *s);              /* -1 if unknown */

/* ---- keys, modes, decisions (names.c) --------------------------------------------- */

enum tune_mode { MODE_FROM_SCRATCH = 0, MODE_FROM_CURRENT_BEST = 1 };
const char *mode_name(enum tune_mode m);  /* "from_scratch" / "from_current_best" */
int mode_parse(const char *s);            /* scratch|best|from_scratch|from_current_best; -1 */

struct shape_key {
    int dtype;
    struct croq_shape shape;
    enum tune_mode mode;
};
/* "<dtype>_<M>x<N>x<K>[_fs]" from integers. */
void key_format(const struct shape_key *k, char out[KEY_MAX]);
/* Strict parse: the text must be exactly what key_format would write for a valid shape
 * (so '/', "..", signs, leading zeros, spaces are all refused). 0 or -1 with err. */
int key_parse(const char *s, struct shape_key *k, char *err, size_t errlen);

enum decision {
    DEC_BASELINE = 0, DEC_KEEP, DEC_DISCARD, DEC_DISCARD_INCORRECT,
    DEC_DISCARD_RUNTIME_CRASH, DEC_DISCARD_TIMEOUT,
    DEC_COMPILE_ERROR, /* attempts.tsv only */
    DEC_COUNT
};
const char *decision_name(enum decision d);
int decision_parse(const char *s); /* -1 if unknown */
bool decision_kept(enum decision d); /* BASELINE or KEEP */

/* Whether s can be a search strategy's name as a checkpoint or state.json records it
 * (lower-case letters, digits, '_', '-'; not empty): what either file's reader accepts
 * before the engine asks src/search whether it runs it. */
bool strategy_name_ok(const char *s);
#define STRATEGY_NAME_RULE "lower-case letters, digits, '_', '-'"
#endif
