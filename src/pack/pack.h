/* src/pack/pack.h — the kernel pack format (one owner: this module writes and reads it;
 * `croqtuner export` writes packs, the croqsparse library reads them) and the ranking of
 * a pack's kernels for a shape.
 *
 * A pack is one file: text lines, then per entry its cubin bytes, an optional model
 * section, and a checksum line.
 *   croqsparse-pack 3\n
 *   gpu <name as cuDeviceGetName reports it>\n
 *   cuda <major>.<minor>\n          the toolkit the cubins were compiled with
 *   driver <version or "unrecorded">\n
 *   entries <n>\n
 *   n times:  entry <dtype> <m> <n> <k> <tflops> <fallback> <hash> <tuned_hash> <key> <config>
 *                   <measured> <clock> <l2> <bytes> <cubin_sum>\n        (one line)
 *             <bytes of cubin>\n
 *   optional: model <bytes> <model_sum>\n
 *             <bytes of the model>\n
 *   sum <file_sum>\n
 * dtype f16|e4m3; m n k the tuned shape (0 0 0 for a fallback); tflops measured when tuned
 * (0 for a fallback); fallback 1 for a configuration valid for every accepted shape of its
 * dtype; hash 16 hex digits (FNV-1a 64, src/util/hash.h, as results.tsv's source_hash)
 * of the generated source the cubin was compiled from; tuned_hash the same of the source
 * whose speed tflops is ("-" for a fallback): equal to hash when the pack holds the
 * measured kernel, different when export regenerated the configuration with newer
 * kernel sources; key the tuning key, "<dtype>_<m>x<n>x<k>" of the entry's own fields
 * with an optional "_<mode>" of lower-case letters and digits ("_fs"; "-" for a
 * fallback); config a knob signature (knobs_signature, no blanks); measured how tflops
 * was measured: "ladder" (the final ladder's number for its winner, the engine's
 * re-timing of the best against the other candidates) or "pair" (the tuning's own paired
 * measurement, results.tsv's row), "-" for a fallback; clock the SM clock in MHz that
 * measurement recorded (state.json's best.sm_clock_mhz), "-" when not recorded; l2 the
 * L2 mode the shape was tuned in, "warm" or "cold" (state.json's "l2"), "-" for a
 * fallback; cubin_sum, model_sum and file_sum 16 hex digits, FNV-1a 64 of the entry's
 * cubin bytes, of the model's bytes, and of every byte of the file before the sum line
 * (text lines, cubins and model): a damaged byte anywhere is found, and an entry's own
 * sum names the damaged entry. FNV-1a finds damage, not forgery (a writer who edits a
 * pack can recompute it): the load's other checks do not rely on it.
 * The model section is opaque here: its bytes are the cost model's serialized form
 * (src/costmodel owns it); the pack only carries them with their length and checksum.
 * Every number is decimal.
 *
 * Refused by pack_parse, with a message naming the line: format 1 and 2 ("export it
 * again": they had no checksums, no measurement provenance and no model), a sum that does
 * not match, a key that is not its entry's dtype and shape, two tuned entries of one
 * (dtype, M, N, K), whatever their keys (a duplicate could only be a damaged or forged
 * copy, and which one is the measured kernel is not the reader's to guess; export keeps
 * the faster of a shape tuned in two modes), two fallbacks of one dtype, anything after
 * the sum line. Both lines of a duplicate are named.
 *
 * Plain C11, no dependencies beyond src/knobs and src/util/hash (linked into the
 * library). Thread-safety: functions touch only their arguments.
 */
#ifndef CROQ_PACK_PACK_H
#define CROQ_PACK_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knobs/knobs.h"

#define PACK_FORMAT 3
#define PACK_MAGIC "croqsparse-pack 3"
#define PACK_KEY_MAX 96
#define PACK_MAX_ENTRIES 4096
#define PACK_MODEL_MAX (16u << 20) /* bytes; a cost model is a few tens of KB */
#define PACK_TFLOPS_MAX 1e6        /* no GPU measures more: a larger number is damage */

enum pack_measured { PACK_MEASURED_NONE, PACK_MEASURED_LADDER, PACK_MEASURED_PAIR };
enum pack_l2 { PACK_L2_NONE, PACK_L2_WARM, PACK_L2_COLD };

struct pack_entry {
    int dtype;                   /* enum croq_dtype */
    long m, n, k;                /* tuned shape; 0 for a fallback */
    double tflops;               /* measured when tuned; 0 for a fallback */
    bool fallback;
    char hash[17];
    char tuned_hash[17];         /* "-" for a fallback; != hash: the measured source was older */
    char key[PACK_KEY_MAX];
    char config[CROQ_SIG_MAX];
    enum pack_measured measured; /* NONE only for a fallback */
    double clock_mhz;            /* the measurement's SM clock; 0 when not recorded */
    enum pack_l2 l2;             /* NONE only for a fallback */
    int line;                    /* pack_parse: the entry's line (text lines counted) */
    const unsigned char *cubin;  /* pack_parse: points into the parsed bytes */
    size_t cubin_bytes;
};

struct pack {
    char gpu[128];
    int cuda_major, cuda_minor;
    char driver[64];
    size_t n;
    struct pack_entry *e;        /* malloc'd */
    const unsigned char *model;  /* the model section's bytes (NULL, 0: none); pack_parse:
                                    points into the parsed bytes */
    size_t model_bytes;
    char sum[17];                /* pack_parse: the file's sum line, its identity (hex) */
};

/* "ladder", "pair", "-"; "warm", "cold", "-". */
const char *pack_measured_name(enum pack_measured m);
const char *pack_l2_name(enum pack_l2 l);

/* Parse size bytes at data. Entries and the model point into data, which must outlive p.
 * 0, or -1 with err naming the line or entry that is wrong (p is then empty): besides the
 * sums and the one-kernel-per-shape rule, an entry's config must be a whole knob signature
 * of the entry's dtype and its hashes 16 hex digits; a newer format is named as such. */
int pack_parse(const void *data, size_t size, struct pack *p, char *err, size_t errlen);
/* The file image of p (entries' cubin/cubin_bytes, the model if any; the sums are
 * computed here). malloc'd into *out. -1 with err on an entry pack_parse would refuse. */
int pack_serialize(const struct pack *p, unsigned char **out, size_t *len, char *err, size_t errlen);
void pack_release(struct pack *p);

/* How the first candidate of a ranking was found. */
enum pack_match { PACK_EXACT, PACK_NEAREST, PACK_FALLBACK, PACK_MODEL };
/* "exact", "nearest", "fallback", "model". */
const char *pack_match_name(enum pack_match m);

/* A cost model's prediction: TFLOPS of configuration cfg on shape s; a value that is not
 * positive and finite means "no prediction" (the entry then ranks after every predicted
 * one, in the nearest-shape order). ctx is the caller's. */
typedef double (*pack_predict_fn)(const void *ctx, const struct croq_config *cfg, const struct croq_shape *s);

/* How far the device that runs a pack may trust its tuned entries. */
enum pack_trust {
    PACK_TRUST_NONE,      /* only the fallbacks run (the pack's CUDA major is not the driver's) */
    PACK_TRUST_ELSEWHERE, /* tuned on another GPU model of this architecture: the tuned kernels
                             run, but ranked as untuned ones (no exact match): their TFLOPS and
                             tuned shapes are that GPU's (on the H100 the H200 sweep's f16 bests
                             ran at 0.73-0.96x of the H100's fastest, docs/kernels.md) */
    PACK_TRUST_HERE,      /* tuned on this GPU model, compiled for this CUDA major */
};

/* "here", "elsewhere", "none" ("?" for another value). */
const char *pack_trust_name(enum pack_trust t);

/* The entries of p that may run (dtype, shape), best first, into out[0..cap) (indices
 * into p->e); returns how many there are (which may exceed cap: only cap are written), 0
 * when none, or -1 (with why) when the shape breaks the format's rules. Candidates: the
 * entries of dtype whose configuration the knob rules accept for s (tuned ones unless
 * trust is PACK_TRUST_NONE). Order:
 *   1. the entry tuned at exactly this shape (a pack has at most one), with
 *      PACK_TRUST_HERE only (elsewhere it is ranked by 2 or 3 like the others);
 *   2. with predict: every other candidate, fallbacks too (the family's shape-
 *      independent defaults), by predicted TFLOPS, higher first (ties: the earlier
 *      entry); those without a prediction after them, in the order of 3;
 *   3. without predict: tuned entries by distance of their shape (sum over M, N, K of
 *      |log2(tuned / wanted)|; ties: the higher tflops, then the earlier entry), then
 *      the fallbacks in pack order.
 * A configuration (its knob signature) is ranked once, at its best place: entries that
 * share one (a configuration registered as the best of several shapes) are one kernel
 * but for the identity the source embeds, and the model predicts them alike.
 * *match (may be NULL) says how out[0] was found: EXACT (1), MODEL (2, a predicted
 * entry), NEAREST (3, or 2 without any prediction), FALLBACK (a fallback by 3). */
long pack_rank(const struct pack *p, int dtype, const struct croq_shape *s, enum pack_trust trust, pack_predict_fn predict,
               const void *ctx, long *out, size_t cap, enum pack_match *match, char *why, size_t whylen);

/* The first of pack_rank without a model: the entry index, or -1 (with why) when nothing
 * fits (shape rules broken, or no kernel and no fallback of this dtype). */
long pack_choose(const struct pack *p, int dtype, const struct croq_shape *s, enum pack_trust trust,
                 enum pack_match *match, char *why, size_t whylen);

#endif
