/* src/costmodel/costmodel.h — the cost model: what a configuration of the kernel family is
 * predicted to run at on a shape, from measured rows (docs/proposer.md "Cost model").
 *
 * One model is a weighted ridge regression of ln(TFLOPS) on features of (dtype, shape,
 * knob configuration) for one dtype. Two users:
 *   - the proposer fits one at every call on this shape's measurements (group 0) and,
 *     weighted down by distance, other tuned shapes' (costmodel_add_prior), and ranks its
 *     candidates by the prediction and its uncertainty (costmodel_stddev);
 *   - `croqtuner export` / the croqsparse library: costmodel_fit_shapes fits one model on
 *     the measured rows of every tuned shape, serialized into the kernel pack
 *     (costmodel_serialize) and read back at run time (costmodel_parse) to rank the pack's
 *     kernels for a shape nobody tuned.
 *
 * Plain C11 and libm; calls only src/knobs (the table, knobs_smem_bytes, knobs_acc_regs),
 * so the library links it without JSON or the tuner. Pure: no I/O, no global state; every
 * function is reentrant and a fitted model may be read by any number of threads at once.
 * Deterministic: the same rows in the same order give the same bits.
 *
 * Errors: functions returning int give 0 on success and -1 on failure; costmodel_parse
 * writes the reason (file position, field) into err.
 *
 * ## The serialized format (this module is its one owner)
 *
 * Plain text, ASCII, '\n'-terminated lines of fields separated by one space; numbers in
 * C "%.17g" form (a double round-trips exactly, so a parsed model predicts the same bits):
 *
 *     croq-costmodel 2                     magic and format version (COSTMODEL_FORMAT)
 *     model f16                            a model: its dtype (croq_dtype_name)
 *     target 132 232448 62914560           the SMs, the shared memory per SM and the L2
 *                                          (bytes) the features assumed (COSTMODEL_SM_COUNT,
 *                                          _SMEM_LIMIT, _L2_BYTES; version 1 lacked the L2,
 *                                          which wave_l2_over reads, so it is refused)
 *     fit 4213 28 0.0512                   rows fitted, shapes, sigma (residual, ln units)
 *     mean 6.52                            ln-TFLOPS level when has-level is 0
 *     level 1 0.1 0.2 0.3 0.05             has-level (0/1), then c0 c1 c2 c3: the level
 *                                          c0 + c1 ln M + c2 ln N + c3 ln K
 *     features 70                          the count of f lines that follow
 *     f tile_m=64 1 0.25 -0.013            name, seen (0/1), centre xbar, weight w
 *     ...                                  one-hot names "knob=value", derived ones by name
 *     end                                  the model's last line; more "model" blocks may follow
 *     sum 0123456789abcdef                 FNV-1a 64 of every byte before this line (hex)
 *
 * Features are matched by name, so a model stays readable when knobs.def gains a knob
 * or a value (a feature the file lacks weighs 0). costmodel_parse refuses, with a
 * message: another magic or version, a missing/short line or field, a number that does not
 * parse or is not finite, a feature name this build does not know, a target other than
 * this build's, a second model of one dtype, more models than the caller's array, a last
 * line that is not the sum, a sum that does not match (a damaged byte anywhere).
 *
 * Sources of the constants: the SM count and the shared memory are the target table's
 * (src/target/target.def, with their sources: the H200's 132 SMs and 227 KiB = 232448
 * bytes, the most shared memory a CTA may opt into on compute capability 9.0, which the
 * features also take as the SM's budget); the
 * proposer's fit constants were chosen by replay-bench (bench/results/replay-bench.txt),
 * the model across shapes' by leave-one-shape-out (`croqtuner costmodel --leave-out`).
 */
#ifndef CROQ_COSTMODEL_H
#define CROQ_COSTMODEL_H
#include <stdbool.h>
#include <stddef.h>

#include "knobs/knobs.h"
#include "target/target.h"

#define COSTMODEL_FORMAT 2          /* version of the serialized format */
#define COSTMODEL_DERIVED 11        /* features beyond the one-hot of knob values */
#define COSTMODEL_SHAPE_EXTRA 6     /* and beyond those, only in the model across shapes */
#define COSTMODEL_FEATURES 112      /* capacity: the one-hot count + COSTMODEL_DERIVED fits */
#define COSTMODEL_MIN_SAMPLES 4     /* fewer rows of group 0: no model */
#define COSTMODEL_LAMBDA 1.0        /* ridge penalty: unseen knob values stay at "no effect" */
/* The model across shapes' penalty: chosen by leave-one-shape-out on the committed H200
 * rows (docs/proposer.md "The model across shapes": 1, 2, 3, 5 and 10 tried). */
#define COSTMODEL_SHAPES_LAMBDA 3.0
#define COSTMODEL_SIGMA_MIN 0.03    /* ln units: about the run-to-run noise of a measurement */
/* the target's SMs, and the bytes of shared memory a CTA may use, also taken as the SM's
 * budget: the target table's (src/target/target.def; 132 and 232448 on the H200) */
#define COSTMODEL_SM_COUNT (croq_target()->sms)
#define COSTMODEL_SMEM_LIMIT ((int)croq_target()->smem_per_block)
#define COSTMODEL_L2_BYTES (croq_target()->l2_bytes)
/* Other shapes' measurements (costmodel_add_prior): each weighs exp(-d^2 / 2 L^2), d the
 * distance of ln M, ln N, ln K of the two shapes, L = COSTMODEL_PRIOR_LENGTH (replay-bench
 * chose it: farther shapes misled the model), all together at most COSTMODEL_PRIOR_ROWS
 * rows, and that mass shrinks as COSTMODEL_PRIOR_HALF / (COSTMODEL_PRIOR_HALF + this
 * shape's measurements): with 20 of its own the shape's rows outweigh everything else. */
#define COSTMODEL_PRIOR_ROWS 40.0
#define COSTMODEL_PRIOR_LENGTH 0.5
#define COSTMODEL_PRIOR_HALF 10.0

/* A measurement: a configuration (dtype included) on a shape, and its TFLOPS. */
struct costmodel_sample {
    struct croq_config cfg;
    struct croq_shape shape;
    double tflops;            /* > 0 and finite to count */
};

/* One row to fit. Every group has its own level of ln(TFLOPS) (rows and features are
 * centred on their group's weighted mean), so only how knobs and derived quantities move
 * TFLOPS within a shape is shared between groups. Group 0 is the shape predictions are
 * for (the proposer's own shape); each other shape its own group 1, 2, ... */
struct costmodel_row {
    struct croq_config cfg;
    struct croq_shape shape;
    double tflops;      /* rows with tflops <= 0 or not finite are left out */
    double weight;      /* > 0: its share of the least-squares loss */
    int group;          /* 0 .. n-1 */
};

/* A fitted model (about 110 KB: allocate it statically or on the heap). Predictions:
 * ln TFLOPS = level + sum_j w[j] (x[j] - xbar[j]), level = mean (costmodel_fit: group 0's
 * level, the shape the model is for), or when has_level c0 + c1 ln M + c2 ln N + c3 ln K
 * (costmodel_fit_shapes: xbar the mean over every row, the level a regression over the
 * shapes' levels). */
struct costmodel {
    int dtype;                      /* enum croq_dtype of the rows; -1 before a fit */
    int n;                          /* rows fitted (0: no model) */
    int n_self;                     /* of them, group 0's */
    int n_groups;                   /* other groups with a fitted row */
    int p;                          /* features */
    double mean;                    /* group 0's weighted mean of ln(TFLOPS) */
    bool has_level;                 /* the shape's level is the regression below */
    double level[4];                /* c0..c3 (cross-shape fit) */
    double xbar[COSTMODEL_FEATURES]; /* group 0's mean features: predictions are relative to them */
    double w[COSTMODEL_FEATURES];
    bool seen[COSTMODEL_FEATURES];  /* one-hot features some row had */
    double sigma;                   /* weighted residual spread of ln(TFLOPS) on the fit */
    bool has_chol;                  /* chol below is set (a fit; a parsed model has none) */
    double chol[COSTMODEL_FEATURES * COSTMODEL_FEATURES]; /* L of X~'WX~ + lambda I */
};

/* The features of (cfg, shape) into x (COSTMODEL_FEATURES doubles); returns their count p.
 * The one-hot of every knob value (knobs.def order), then: waves log2(CTAs / SMs) / 4,
 * the tail efficiency, the SM fill min(1, CTAs / SMs), persistent x log2(max(1, waves)) / 4,
 * persistent with at most one wave, shared memory per CTA / COSTMODEL_SMEM_LIMIT, 1 / CTAs
 * per SM, accumulator registers / 256, operand bytes per flop, log2 of the k-loop steps
 * / 8, log2(split_k) x log2(M x N / 2^20) / 16 (docs/proposer.md): COSTMODEL_DERIVED of
 * them, which the proposer's fit uses; then COSTMODEL_SHAPE_EXTRA more, which only the
 * model across shapes uses: log2 of the SM fill, log2 of the tail efficiency, wave_l2_over,
 * stages_waves, persistent_kloop (features.c says what they are). -1 (x
 * untouched) when knobs.def has outgrown COSTMODEL_FEATURES. */
int costmodel_features(const struct croq_config *cfg, const struct croq_shape *shape, double *x);
/* The name of feature j ("tile_m=128", "waves", ...) into out; -1 if j is out of range. */
int costmodel_feature_name(int j, char *out, size_t outlen);

/* Fit on rows (any order; groups numbered from 0). 0 with m->n = 0 when group 0 has fewer
 * than COSTMODEL_MIN_SAMPLES usable rows; -1 when out of memory or the system is singular
 * (it cannot be: lambda > 0). */
int costmodel_fit(struct costmodel *m, const struct costmodel_row *rows, size_t n);

/* Fit one model on the measured rows of many shapes (every sample of dtype; the others are
 * left out): each shape a group of weight 1 a row, and the shape's level regressed on
 * ln M, ln N, ln K, so a shape no row has gets a prediction too. 0 with m->n = 0 when
 * fewer than COSTMODEL_MIN_SAMPLES rows or fewer than 2 shapes qualify; -1 on no memory. */
int costmodel_fit_shapes(struct costmodel *m, int dtype, const struct costmodel_sample *s, size_t n);

/* Leave-one-shape-out: each shape of dtype among s[0..n) held out in turn, a model fitted
 * on the other shapes' rows (costmodel_fit_shapes) and the held-out shape's rows predicted.
 * One entry per held-out shape (in order of first appearance) into out[0..max), *n_out of
 * them. row_err (may be NULL; n entries): each held-out row's |predicted / measured - 1|,
 * NAN for rows not judged. -1 when out of memory or more than max shapes. */
#define COSTMODEL_TOP 8 /* the candidates a plan-time search would time (issue 26) */
struct costmodel_heldout {
    struct croq_shape shape;
    bool fitted;                /* the others gave a model (at least 2 shapes); else the rest is 0 */
    int fit_rows, fit_shapes;   /* what it was fitted on */
    int rows, configs;          /* the held-out shape's rows, and their distinct configurations */
    double err_median, err_worst; /* |predicted / measured - 1| over its rows */
    double rel_err_median, rel_err_worst; /* the same of each configuration's TFLOPS relative to the
                                   best configuration's, predicted vs measured (what ranking sees) */
    struct croq_config pick, best; /* the model's top configuration; the best measured (by mean) */
    double pick_tflops, best_tflops; /* their mean measured TFLOPS */
    double pick_ratio;          /* pick_tflops / best_tflops */
    double top_ratio;           /* the best of the model's COSTMODEL_TOP top configurations / best */
    int best_rank;              /* configurations the model ranks above the best (0: it picks it) */
};
int costmodel_leave_out(int dtype, const struct costmodel_sample *s, size_t n, struct costmodel_heldout *out,
                        size_t max, size_t *n_out, double *row_err);

/* Predicted TFLOPS of cfg on shape (m->n > 0; NAN if costmodel_features refuses). *unseen
 * (may be NULL): knob values of cfg no fitted row had (their weight is the prior's "no
 * effect"). For a model across shapes the level of a shape no row had is a regression
 * on its ln M, ln N, ln K: it ranks configurations of one shape well, its absolute TFLOPS
 * is rougher (docs/proposer.md "The model across shapes" gives both errors). */
double costmodel_predict(const struct costmodel *m, const struct croq_config *cfg, const struct croq_shape *shape,
                         int *unseen);
/* The uncertainty of ln(TFLOPS) at cfg: sigma x sqrt(z' (X~'WX~ + lambda I)^-1 z), z the
 * features relative to xbar. Needs m->has_chol (a fitted, not a parsed, model); else 0. */
double costmodel_stddev(const struct costmodel *m, const struct croq_config *cfg, const struct croq_shape *shape);

/* The proposer's prior: append to rows (room for n + n_samples) the samples of dtype as
 * rows of their own groups (1, 2, ... in order of first appearance), each weighing
 * exp(-d^2 / 2 COSTMODEL_PRIOR_LENGTH^2) (d: shape_log_distance to shape), all scaled as
 * COSTMODEL_PRIOR_ROWS and COSTMODEL_PRIOR_HALF say with n_self rows of shape's own.
 * Returns the new row count. */
size_t costmodel_add_prior(struct costmodel_row *rows, size_t n, const struct costmodel_sample *s, size_t n_samples,
                           int dtype, const struct croq_shape *shape, int n_self);

/* Serialize models[0..n) (each fitted, m->n > 0) in the format above into buf (cap bytes,
 * NUL-terminated when cap > 0). Returns the length the text needs, not counting the NUL
 * (snprintf's rule: call with cap 0 to size the buffer), or -1 on a model with no fit or
 * an unknown dtype. */
long costmodel_serialize(const struct costmodel *const *models, size_t n, char *buf, size_t cap);
/* Parse text[0..len) (it need not be NUL-terminated) into out[0..max); *n_out the models
 * read. -1 with a message in err on anything the format section refuses; out is then
 * unspecified. */
int costmodel_parse(const char *text, size_t len, struct costmodel *out, size_t max, size_t *n_out, char *err,
                    size_t errlen);
/* The model of dtype among v[0..n), or NULL. */
const struct costmodel *costmodel_find(const struct costmodel *v, size_t n, int dtype);
#endif
