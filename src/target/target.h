/* src/target/target.h — the target table (target.def): the facts of the GPU the tuner
 * plans for, read by the proposer's and the simulated backend's occupancy models and
 * by every peak check, instead of constants repeated in each.
 *
 * Header only, like dtype.h. Pure and thread-safe.
 */
#ifndef CROQ_TARGET_TARGET_H
#define CROQ_TARGET_TARGET_H
#include "dtype.h"

struct croq_target {
    const char *name;                 /* as NVML names the model */
    int sms;                          /* streaming multiprocessors */
    long smem_per_sm;                 /* bytes of shared memory per SM */
    long smem_per_block;              /* bytes one CTA may opt in to */
    int regs_per_sm;                  /* 32-bit registers per SM */
    int regs_per_thread;              /* 32-bit registers one thread may use */
    double boost_mhz;                 /* the highest SM clock, MHz */
    long l2_bytes;                    /* the L2 cache, bytes */
    double peak_tflops[CROQ_DTYPE_COUNT]; /* sparse, dense-equivalent, at boost_mhz, per dtype */
};

enum {
#define TARGET(ID, ...) CROQ_TARGET_ROW_##ID,
#include "target.def"
#undef TARGET
    CROQ_TARGET_COUNT
};

/* Row i of the table (0 .. CROQ_TARGET_COUNT - 1; NULL outside). */
static inline const struct croq_target *croq_target_row(int i)
{
    static const struct croq_target rows[] = {
#define TARGET(ID, NAME, SMS, SMEM_SM, SMEM_BLOCK, REGS_SM, REGS_THREAD, BOOST, L2, ...) \
    {NAME, SMS, SMEM_SM, SMEM_BLOCK, REGS_SM, REGS_THREAD, BOOST, L2, {__VA_ARGS__}},
#include "target.def"
#undef TARGET
    };
    return i >= 0 && i < CROQ_TARGET_COUNT ? &rows[i] : NULL;
}

/* The GPU the tuner plans for: the H200 (the table's only row). */
static inline const struct croq_target *croq_target(void) { return croq_target_row(CROQ_TARGET_ROW_H200); }

/* dtype's sparse peak (dense-equivalent TFLOPS) at an SM clock of sm_clock_mhz: the peak
 * at boost scaled linearly (an unknown dtype gets f16's, as croq_dtype_traits does). */
static inline double target_peak_tflops(const struct croq_target *t, int dtype, double sm_clock_mhz)
{
    return t->peak_tflops[croq_dtype_traits(dtype)->id] * sm_clock_mhz / t->boost_mhz;
}

#endif
