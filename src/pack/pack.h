/* src/pack/pack.h — the kernel pack format (one owner: this module writes and reads it;
 * `croqtuner export` writes packs, the croqsparse library reads them) and the choice of a
 * kernel for a shape.
 *
 * A pack is one file: text lines, then per entry its cubin bytes.
 *   croqsparse-pack 2\n
 *   gpu <name as cuDeviceGetName reports it>\n
 *   cuda <major>.<minor>\n          the toolkit the cubins were compiled with
 *   driver <version or "unrecorded">\n
 *   entries <n>\n
 *   n times:  entry <dtype> <m> <n> <k> <tflops> <fallback> <hash> <tuned_hash> <key> <config> <bytes>\n
 *             <bytes of cubin>\n
 * dtype f16|e4m3; m n k the tuned shape (0 0 0 for a fallback); tflops measured when tuned
 * (0 for a fallback); fallback 1 for a configuration valid for every accepted shape of its
 * dtype; hash 16 hex digits (FNV-1a 64, src/util/hash.h, as results.tsv's source_hash)
 * of the generated source the cubin was compiled from; tuned_hash the same of the source
 * whose speed tflops is ("-" for a fallback): equal to hash when the pack holds the
 * measured kernel, different when export regenerated the configuration with newer
 * kernel sources; key the tuning key ("-"
 * for a fallback); config a knob signature (knobs_signature, no blanks). Every number is
 * decimal. Plain C11, no dependencies (linked into the library).
 * Thread-safety: functions touch only their arguments.
 */
#ifndef CROQ_PACK_PACK_H
#define CROQ_PACK_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knobs/knobs.h"

#define PACK_MAGIC "croqsparse-pack 2"
#define PACK_KEY_MAX 96
#define PACK_MAX_ENTRIES 4096

struct pack_entry {
    int dtype;                   /* enum croq_dtype */
    long m, n, k;                /* tuned shape; 0 for a fallback */
    double tflops;               /* measured when tuned; 0 for a fallback */
    bool fallback;
    char hash[17];
    char tuned_hash[17];         /* "-" for a fallback; != hash: the measured source was older */
    char key[PACK_KEY_MAX];
    char config[CROQ_SIG_MAX];
    const unsigned char *cubin;  /* pack_parse: points into the parsed bytes */
    size_t cubin_bytes;
};

struct pack {
    char gpu[128];
    int cuda_major, cuda_minor;
    char driver[64];
    size_t n;
    struct pack_entry *e;        /* malloc'd */
};

/* Parse size bytes at data. Entries point into data, which must outlive p. 0, or -1
 * with err naming the line or entry that is wrong (p is then empty). */
int pack_parse(const void *data, size_t size, struct pack *p, char *err, size_t errlen);
/* The file image of p (entries' cubin/cubin_bytes are written). malloc'd into *out. */
int pack_serialize(const struct pack *p, unsigned char **out, size_t *len, char *err, size_t errlen);
void pack_release(struct pack *p);

/* The kernel for (dtype, shape). Order: an entry tuned at this exact shape; else the
 * tuned entry of the nearest shape (sum over M, N, K of |log2(tuned / wanted)|; ties:
 * the higher tflops, then the earlier entry) whose configuration the knob rules accept
 * for this shape; else a fallback entry valid for it. use_tuned false skips tuned
 * entries (a pack made on another GPU). Returns the entry index, or -1 (with why) when
 * nothing fits (shape rules broken, or no fallback of this dtype). */
enum pack_match { PACK_EXACT, PACK_NEAREST, PACK_FALLBACK };
long pack_choose(const struct pack *p, int dtype, const struct croq_shape *s, bool use_tuned,
                 enum pack_match *match, char *why, size_t whylen);

#endif
