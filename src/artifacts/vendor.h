/* src/artifacts/vendor.h — a tuning directory's vendor record,
 * perf/<dtype>_<M>x<N>x<K>/vendor.json (format: docs/report.md, "Vendor numbers"): the
 * verified cuSPARSELt (default, after search) and cuBLAS TFLOPS of one shape, and our kernel
 * of one configuration, as one `croqtuner compare --tuning DIR` measured them in one process.
 * `compare` writes it, `report` reads it; both through here, so its members are named once.
 *
 * Not thread-safe across processes beyond what the atomic rename gives: two compares of
 * one shape leave the later one's file whole.
 */
#ifndef CROQ_ARTIFACTS_VENDOR_H
#define CROQ_ARTIFACTS_VENDOR_H
#include <stdbool.h>
#include <stddef.h>

#include "knobs/knobs.h"

/* The vendors, in the order of their members. */
enum vendor_subject { VENDOR_SLT_DEFAULT, VENDOR_SLT_SEARCH, VENDOR_CUBLAS, VENDOR_SUBJECTS };
/* "cusparselt_default", "cusparselt_search", "cublas": a subject's TFLOPS are
 * "<name>_tflops" (cuBLAS's "cublas_tflops"), ours over it "paired"."ours_over_<name>". */
extern const char *const vendor_subject_names[VENDOR_SUBJECTS];

/* How the compare timed its subjects ("protocol"). */
enum vendor_timing {
    VENDOR_TIMING_BLOCKS,      /* "blocks": one after the other; files without the member */
    VENDOR_TIMING_INTERLEAVED, /* "interleaved": rounds of one trial of every subject */
};

/* Ours over one vendor, round by round: the median of the per-round ratios (vendor time /
 * ours) inside its 95 % interval [lo, hi]; rounds 0 when there is none (null). */
struct vendor_ratio {
    double median, lo, hi;
    int rounds;
};

struct vendor_record {
    int dtype;                              /* enum croq_dtype */
    struct croq_shape shape;
    double tflops[VENDOR_SUBJECTS];         /* NAN: not measured or not verified (null) */
    double sm_clock_mhz;                    /* cuSPARSELt after search's median clock, NAN unknown */
    char timestamp[32];                     /* UTC, "2026-12-02T16:07:12Z" */
    char gpu[128];
    bool cold_l2;
    enum vendor_timing timing;
    int rounds;                             /* interleaved: the rounds timed; 0 otherwise */
    bool has_ours;                          /* ours was compared (not --no-ours) */
    double ours_tflops;                     /* NAN: not verified */
    char ours_config[CROQ_SIG_MAX];         /* its knob signature */
    struct vendor_ratio paired[VENDOR_SUBJECTS]; /* interleaved with ours only */
    /* ours is the best of the shape's from-scratch run: the record goes to perf/<key>_fs/,
     * beside that run, so a compare of the from-best run's best (perf/<key>/) never
     * replaces it; false: perf/<key>/, which the from-scratch run reads when it has none */
    bool from_scratch;
};

/* The record's key ("f16_4096x8192x8192", with from_scratch "f16_4096x8192x8192_fs"), its
 * directory <tuning>/perf/<key> and its file, from a validated dtype and shape (never from
 * user text). 0, or -1 when a path does not fit (dir and path hold dirlen / pathlen bytes;
 * key KEY_MAX). */
int vendor_record_paths(const char *tuning, int dtype, const struct croq_shape *s, bool from_scratch, char *key,
                        size_t keylen, char *dir, size_t dirlen, char *path, size_t pathlen);

/* Write r as <tuning>/perf/<key>/vendor.json (key: vendor_record_paths' of r), atomically
 * (temp file and rename; a killed compare's temp file in that directory is removed first),
 * creating the directories; r->timestamp empty: now. 0, or -1 with err (errno's reason). */
int vendor_record_write(const char *tuning, const struct vendor_record *r, char *err, size_t errlen);

/* Called once per problem of a record being read: line the file's line where the JSON
 * parser stopped (0: not a parse error); the text says what and what was done with it
 * ("... (ignored)", "... (file ignored)"). */
typedef void (*vendor_problem_fn)(void *ctx, int line, const char *text);

/* Read the record at path for dtype and shape, leniently: a member that is not what it
 * should be (a TFLOPS value that is not a positive number at most peak_tflops[dtype's] —
 * the sparse peak at the boost clock, which no measurement can exceed —, an interleaved
 * record's rounds or paired ratios) is reported through problem and left out (its value
 * NAN); a file that is not a JSON object, names another protocol, records another
 * shape (its dtype, M, N or K) or another run (its key is not the name of the directory
 * path is in) is reported and not used. 0 with *out filled; -1 when the
 * file cannot be used (absent: errno ENOENT and no problem reported). */
int vendor_record_read(const char *path, int dtype, const struct croq_shape *s, double peak_tflops,
                       struct vendor_record *out, vendor_problem_fn problem, void *ctx);

#endif
