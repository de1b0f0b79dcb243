/* src/dataset/dataset.h — the measured-ground-truth dataset (owner of its on-disk
 * format): what `croqtuner explore` writes and the replay backend reads.
 *
 * File: JSONL, one record per configuration measured on one (dtype, shape), appended
 * whole (one write + fsync per record, util/atomicio.h append_record). A final line
 * without its newline is a record cut by a crash: readers ignore it, and explore moves
 * it to FILE.torn before appending again. Record (schema 1):
 *
 *   {"schema": 1, "dtype": "f16", "shape": "1024x1024x4096",
 *    "config": "<knobs_signature>" (a late knob it does not name, one added to knobs.def
 *              after the record was measured, reads as its default: the record measured
 *              that; knobs.h KNOB_FIRST_LATE),
 *    "status": "ok" | "compile_error" | "incorrect" |
 *              "crash" | "timeout" (backend.h cand_status names), "reason": "...",
 *    "tflops", "median_ms", "spread_pct", "sm_clock_mhz", "hw_eff_pct",
 *    "max_err_over_tol": numbers, null when not measured,
 *    "trials_ms": [per-launch ms of every timing trial], "trial_clock_mhz": [SM clock of
 *    each trial, when the backend reports it per trial, else []],
 *    "verify": {"passed": bool, "reference": "cublas"|"cpu"|"sim", "max_err_over_tol"},
 *    "regs": int|null, "smem_bytes": int|null (from the runner's abi block),
 *    "compile_s": seconds of nvcc for this config (0 on a cache hit),
 *    "backend": "gpu"|"sim", "gpu": "NVIDIA H200", "date": "2026-12-01T10:40:00Z",
 *    "seed": operand/noise seed, "raw": the backend's raw measurement JSON, whole}
 *
 * Units: ms, TFLOPS (dense-equivalent 2MNK/t), MHz, seconds.
 */
#ifndef CROQ_DATASET_DATASET_H
#define CROQ_DATASET_DATASET_H
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "knobs/knobs.h"

#define DS_MAX_TRIALS 64
#define DS_REASON_MAX 256

struct ds_record {
    struct croq_config cfg;
    char sig[CROQ_SIG_MAX];
    char status[24];
    char reason[DS_REASON_MAX];
    double tflops, median_ms, spread_pct, sm_clock_mhz, hw_eff_pct, max_err_over_tol; /* NAN if absent */
    int n_trials;
    double trial_ms[DS_MAX_TRIALS];
    int n_trial_clocks;
    double trial_clock_mhz[DS_MAX_TRIALS];
    bool verify_passed;
    char verify_reference[16];
    int regs, smem_bytes; /* -1 unknown */
    double compile_s;
    unsigned long long seed;
    char backend[16], gpu[96], date[32];
};

struct dataset {
    int dtype;               /* -1 when empty */
    struct croq_shape shape; /* of every record */
    char backend[16];        /* of every record ("gpu" or "sim"): one dataset, one source of numbers */
    struct ds_record *r;
    int n;
    size_t valid_bytes;      /* length of the file's text up to its last whole line */
    bool torn;               /* a final line without its newline follows valid_bytes */
    bool compressed;         /* the file is gzip (read-only: explore appends to plain JSONL) */
    /* FNV-1a 64 (hex) of the text the records were read from (inflated, up to valid_bytes):
     * the records' identity, the same for a dataset and a recompressed copy of it */
    char hash[17];
};

/* Load path: JSONL, or JSONL compressed with gzip (told by its content, util/gunzip.h:
 * the committed datasets are). A missing file is an empty dataset when missing_ok, else
 * an error. 0, or -1 with the reason in err (file and line named): unreadable, damaged
 * gzip, a malformed line, a record of another dtype, shape or backend than the first, a
 * configuration twice. */
int dataset_load(const char *path, bool missing_ok, struct dataset *ds, char *err, size_t errlen);
/* The length of a dataset file name's suffix: ".jsonl" (6) or, gzip-compressed,
 * ".jsonl.gz" (9); 0 for another name. */
size_t dataset_file_suffix(const char *name);
void dataset_release(struct dataset *ds);

/* The record of a configuration, or NULL. */
const struct ds_record *dataset_find(const struct dataset *ds, const struct croq_config *cfg);
/* The best ok record (highest tflops), or NULL when none is ok. */
const struct ds_record *dataset_best(const struct dataset *ds);

/* Whether the dataset holds the baseline configuration of its dtype (knobs_baseline)
 * measured ok: every tuning run starts from it (iteration 0), so a dataset without it
 * cannot be replayed or scored. 0, or -1 with the reason in err (names the baseline's
 * signature and, when it is there but failed, its status). */
int dataset_check_baseline(const struct dataset *ds, char *err, size_t errlen);

/* Append rec (of dtype and shape) with the backend's raw measurement (may be NULL) to
 * path as one line: one write + fsync (append_record). 0 or -1 with err. */
int dataset_append(const char *path, const struct ds_record *rec, int dtype, const struct croq_shape *shape,
                   const json_t *raw, char *err, size_t errlen);

/* Parse one record object (exposed for tests). 0 or -1 with err. */
int dataset_record_parse(const json_t *obj, struct ds_record *rec, int *dtype, struct croq_shape *shape, char *err,
                         size_t errlen);
#endif
