/* src/engine/decide.h — the decision rules of DECIDE as pure functions, shared by the
 * engine's steps and the audit (docs/engine.md, "Noise and sanity"). */
#ifndef CROQ_ENGINE_DECIDE_H
#define CROQ_ENGINE_DECIDE_H
#include <stdbool.h>

#include "artifacts/checkpoint.h"

/* ---- deciding (decide.c): pure functions, docs/engine.md "Noise and sanity" ------ */

/* Why a first measurement must be repeated (candidate AND best re-measured), or NULL:
 * above 1.5x or below 0.5x the best, or above the physical peak at its clock. best may
 * be NULL (baseline: only the peak rule). */
const char *decide_suspect(int dtype, const struct perf_numbers *cand, const struct perf_numbers *best);
bool decide_above_peak(int dtype, const struct perf_numbers *p);
/* The noise rule: KEEP iff cand > best * (1 + max(spread_cand, spread_best, floor_pct %)).
 * The engine's floor is DECIDE_NOISE_FLOOR_PCT (its source is in decide.c); the audit
 * may replay a run decided under an older one. */
#define DECIDE_NOISE_FLOOR_PCT 2.0
/* Rules 3: KEEP iff the paired speedup's lower bound > 1 + this / 100 (decide.c: why). */
#define DECIDE_PAIRED_FLOOR_PCT 1.0
/* Rules 4: a screen's KEEP stands iff the confirmation's lower bound > 1 + this / 100. */
#define DECIDE_CONFIRM_FLOOR_PCT 0.0
/* The floor a rules version decides with: DECIDE_PAIRED_FLOOR_PCT for 3, else
 * DECIDE_NOISE_FLOOR_PCT. */
double decide_floor_pct(int rules);
bool decide_keep_floor(const struct perf_numbers *cand, const struct perf_numbers *best, double floor_pct,
                       double *threshold);
/* rules 2, cand not suspect, and floor < gain <= the noise rule's margin. */
bool decide_confirming(int rules, int dtype, double floor_pct, const struct perf_numbers *cand,
                       const struct perf_numbers *best);
/* Why the first measurement must be repeated: decide_suspect's reasons, or (rules 2)
 * a gain within the spread; rules 3: above the physical peak only (the pairing already
 * compares with the best in the same process); NULL if it stands. */
const char *decide_recheck(int rules, int dtype, double floor_pct, const struct perf_numbers *cand,
                           const struct perf_numbers *best);
/* The best's numbers the recorded candidate is compared with: best, or its re-measurement
 * best_re (NULL: none, or it failed). Rules 1: the re-measurement. Rules 2: the higher of
 * the two, so a best re-measured low never makes a KEEP easier. */
const struct perf_numbers *decide_reference(int rules, const struct perf_numbers *best,
                                            const struct perf_numbers *best_re);
/* Whether a DISCARD makes the best's re-measurement its recorded numbers (rules 1); under
 * rules 2 the best's numbers change only when a candidate is kept. */
bool decide_rebase_on_discard(int rules);
/* KEEP rule for the recorded candidate against ref (decide_reference): the floor alone
 * when confirming, else the noise rule. *threshold = the TFLOPS it had to beat. */
bool decide_keep_as(bool confirming, const struct perf_numbers *cand, const struct perf_numbers *ref,
                    double floor_pct, double *threshold);
/* DECIDE for a verified candidate, the one composition of the rules above that MEASURE/
 * DECIDE and the audit both use. first: the first measurement; cand: the recorded one
 * (the re-measurement when remeasured); best: the best the first was compared with;
 * best_re: its re-measurement, NULL if none or failed. */
struct decide_case {
    int rules, dtype;
    double floor_pct;
    const struct perf_numbers *first, *cand, *best, *best_re;
    bool remeasured;
};
struct decide_verdict {
    bool keep, confirming;
    bool paired;                    /* rules 3: threshold is a speedup, compared with cand->ratio_lo */
    const struct perf_numbers *ref; /* what cand was compared with */
    double threshold;
};
struct decide_verdict decide_candidate(const struct decide_case *c);
enum decision decide_failure(enum cand_status s); /* DISCARD_* for a failed candidate */
/* Rules 4: a candidate the screen (decide_candidate) keeps must be paired with the best a
 * second time. True for rules >= 4. */
bool decide_needs_confirmation(int rules);
/* Rules 4: does the confirmation (a second, independent paired measurement) keep it?
 * keep iff its lower bound > 1 + DECIDE_CONFIRM_FLOOR_PCT / 100; threshold is that. */
struct decide_verdict decide_confirmation(const struct perf_numbers *confirm);
/* Rules 4: the best's TFLOPS on the shape's one scale after a KEEP whose confirmation
 * measured speedup `ratio`: best x ratio, rounded as the artifacts print it. Rules < 4:
 * the kept candidate's own TFLOPS (cand). The engine and the audit both compute it here. */
double decide_best_after_keep(int rules, double best_tflops, const struct perf_numbers *cand,
                              const struct perf_numbers *confirm);
/* Rules 4: can the chained best (decide_best_after_keep) be a kernel's at all? false above
 * the physical peak at the highest clock (1980 MHz): then the pairings are broken, and
 * the confirmed candidate is not kept. */
bool decide_chain_plausible(int dtype, double chained_tflops);
/* ---- the final ladder (ladder.c): docs/engine.md "Final ladder" ------------------ */

#define LADDER_KEEPS 5 /* the last kept configurations it times ... */
#define LADDER_TOPS 5  /* ... and the highest recorded TFLOPS besides them */
/* The rows res (a shape's results.tsv) gives the ladder, into out in iteration order: the
 * current best (best_iter), the last LADDER_KEEPS kept rows (BASELINE, KEEP) and the
 * LADDER_TOPS measured rows of the highest recorded TFLOPS not already picked among the
 * plain DISCARDs not above the physical peak (of dtype) and the kept rows, never a discarded
 * agent candidate (agent[i] true for row i; agent may be NULL).
 * Returns how many (at most 1 + LADDER_KEEPS + LADDER_TOPS <= LADDER_MAX). Pure. */
int ladder_pick(const struct result_log *res, const bool *agent, int best_iter, int dtype, int out[LADDER_MAX]);
/* Which rows of res an agent proposed (ideas: the shape's idea log, line i for row i), for
 * ladder_pick: res->n flags, malloc'd. */
struct idea_log;
bool *ladder_agent_rows(const struct result_log *res, const struct idea_log *ideas);
/* The winner: the entry of the lowest rel (its trials relative to their rounds',
 * backend.h; the first on a tie), -1 when none has a positive finite one. Pure. */
int ladder_winner(const double *rel, int n);

/* Round to the precision the artifacts print (results_round, src/artifacts/results.h:
 * fixed decimals, at least 4 significant digits for TFLOPS, ms and speedups), so a value
 * read back equals the one the uninterrupted run used (resume must decide exactly alike). */
void perf_quantize(struct perf_numbers *p);
/* x at a fixed number of decimals (NaN and infinities unchanged): what a message shows. */
double decide_round(double x, int decimals);
#endif
