/* src/target/dtype.h — the dtype-trait table (dtype.def): one row per data type, read
 * wherever a fact of a dtype is needed instead of a branch on it.
 *
 * Header only (the table is static in each translation unit that asks), so every
 * program and library that includes it (croqtuner, croq-runner, libcroqsparse) has it
 * without linking anything. Pure and thread-safe.
 */
#ifndef CROQ_TARGET_DTYPE_H
#define CROQ_TARGET_DTYPE_H
#include <stdbool.h>
#include <stdint.h>

#include "../../kernels/abi.h" /* enum croq_dtype: the ids */

struct croq_dtype_traits {
    int id;               /* enum croq_dtype */
    const char *name;     /* "f16", "e4m3" */
    int bytes;            /* per element of A and B */
    int tile_k_scale;     /* the default and the recipes' tile_k times this */
    uint32_t mag_mask;    /* the bits below the sign: the magnitude */
    float operand_range;  /* seeded operands uniform in [-range, range] */
    double tol_acc;       /* e_acc of the verification bound (src/format/reference.h) */
};

/* How many dtypes there are: ids are 0 .. CROQ_DTYPE_COUNT - 1. */
enum {
#define DTYPE(ID, ...) CROQ_DTYPE_ROW_##ID,
#include "dtype.def"
#undef DTYPE
    CROQ_DTYPE_COUNT
};

static inline bool croq_dtype_valid(int dtype) { return dtype >= 0 && dtype < CROQ_DTYPE_COUNT; }

/* The row of dtype. An id outside the table gets the f16 row: what each branch this
 * table replaced did with one (dtype == E4M3 ? ... : f16's); a caller that must refuse
 * an unknown id checks croq_dtype_valid first. */
static inline const struct croq_dtype_traits *croq_dtype_traits(int dtype)
{
    static const struct croq_dtype_traits rows[CROQ_DTYPE_COUNT] = {
#define DTYPE(ID, NAME, BYTES, TILE_K_SCALE, MAG_MASK, RANGE, TOL_ACC) \
    [CROQ_DTYPE_##ID] = {CROQ_DTYPE_##ID, NAME, BYTES, TILE_K_SCALE, MAG_MASK, RANGE, TOL_ACC},
#include "dtype.def"
#undef DTYPE
    };
    return &rows[croq_dtype_valid(dtype) ? dtype : CROQ_DTYPE_F16];
}

#endif
