/* src/profile/classify.c — metrics -> one of the seven bottleneck categories.
 *
 * The rule is ordered; the first that holds decides (docs/profiling.md):
 *   1. tensor_pipe >= 70%                 -> compute_bound
 *      (sm_throughput stands in when the tensor pipe metric is not reported)
 *   2. dram_throughput >= 70%             -> dram_throughput
 *   3. l2_throughput >= 70%               -> l2_throughput
 *   4. max(smem LSU pipe, l1tex) >= 70%   -> smem_throughput
 *   5. no_instruction stall share >= 20%  -> instruction_fetch
 *   6. theoretical occupancy < 50%, the binding occupancy limit is registers or shared
 *      memory, long_scoreboard stall share >= 30%, and the grid is more than one wave
 *      (launch__waves_per_multiprocessor > 1)  -> occupancy_limited
 *   7. otherwise                          -> latency_bound
 * Why this order: a kernel whose tensor pipe is busy is at its roof whatever else is
 * high, so compute goes first; then the memory levels from the slowest (DRAM) inwards,
 * because a saturated outer level starves the inner ones; then front-end starvation,
 * which no tiling change fixes; occupancy before latency because with registers or
 * shared memory as the limit, fewer resources per CTA is the lever, whereas latency
 * that remains with free occupancy needs a deeper pipeline. The wave condition: when
 * every CTA of the grid is already resident (one wave or less, as for a persistent
 * kernel or a small shape), a higher per-SM limit places no more work on the SMs, so
 * occupancy cannot be what limits; without it, every one-CTA-per-SM GEMM of this
 * family was called occupancy_limited (H200 runs of 2026-11-29: 297 of 300).
 */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const bn_names[BN_COUNT] = {
    [BN_SMEM_THROUGHPUT] = "smem_throughput",   [BN_L2_THROUGHPUT] = "l2_throughput",
    [BN_DRAM_THROUGHPUT] = "dram_throughput",   [BN_COMPUTE_BOUND] = "compute_bound",
    [BN_LATENCY_BOUND] = "latency_bound",       [BN_OCCUPANCY_LIMITED] = "occupancy_limited",
    [BN_INSTRUCTION_FETCH] = "instruction_fetch",
};

const char *bottleneck_name(enum croq_bottleneck b)
{
    return (b >= 0 && b < BN_COUNT) ? bn_names[b] : "unknown";
}

enum croq_bottleneck bottleneck_parse(const char *s)
{
    for (int i = 0; s && i < BN_COUNT; i++)
        if (!strcmp(s, bn_names[i]))
            return (enum croq_bottleneck)i;
    return BN_UNKNOWN;
}

static bool at_least(double x, double threshold)
{
    return !isnan(x) && x >= threshold;
}

static double max_present(double a, double b)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    return a > b ? a : b;
}

static enum croq_bottleneck decide(struct profile_result *r, enum croq_bottleneck b,
                                   const char *what, double value, const char *op, double threshold)
{
    snprintf(r->justification, sizeof r->justification, "%s %.1f%% %s %.0f%%", what, value, op,
             threshold);
    return b;
}

/* The binding limit is the smallest blocks-per-SM limit; registers or shared memory
 * binding means a CTA's own resources keep others out. Without the limit metrics the
 * condition is not required (theoretical occupancy alone says it is low). */
static bool limited_by_resources(const struct profile_metrics *m)
{
    double lim[] = {m->occ_limit_registers, m->occ_limit_shared_mem, m->occ_limit_warps,
                    m->occ_limit_blocks};
    double lowest = INFINITY;
    for (size_t i = 0; i < sizeof lim / sizeof *lim; i++)
        if (!isnan(lim[i]) && lim[i] < lowest)
            lowest = lim[i];
    if (isinf(lowest))
        return true;
    return m->occ_limit_registers == lowest || m->occ_limit_shared_mem == lowest;
}

/* More CTAs than fit at once. Like the limits, not required when ncu did not report it
 * (the justification then prints "waves nan"). */
static bool more_than_a_wave(const struct profile_metrics *m)
{
    return isnan(m->waves_per_sm) || m->waves_per_sm > PROFILE_OCC_WAVES;
}

static enum croq_bottleneck classify_memory(const struct profile_metrics *m, struct profile_result *r)
{
    if (at_least(m->dram_throughput_pct, PROFILE_DRAM_PCT))
        return decide(r, BN_DRAM_THROUGHPUT, "dram_throughput", m->dram_throughput_pct, ">=",
                      PROFILE_DRAM_PCT);
    if (at_least(m->l2_throughput_pct, PROFILE_L2_PCT))
        return decide(r, BN_L2_THROUGHPUT, "l2_throughput", m->l2_throughput_pct, ">=", PROFILE_L2_PCT);
    if (at_least(m->smem_throughput_pct, PROFILE_SMEM_PCT))
        return decide(r, BN_SMEM_THROUGHPUT, "smem_throughput", m->smem_throughput_pct, ">=",
                      PROFILE_SMEM_PCT);
    if (at_least(m->l1tex_throughput_pct, PROFILE_SMEM_PCT))
        return decide(r, BN_SMEM_THROUGHPUT, "l1tex_throughput", m->l1tex_throughput_pct, ">=",
                      PROFILE_SMEM_PCT);
    return BN_UNKNOWN;
}

static enum croq_bottleneck classify_stalls(const struct profile_metrics *m, struct profile_result *r)
{
    if (at_least(m->stall_no_instruction_pct, PROFILE_NO_INSTRUCTION_PCT))
        return decide(r, BN_INSTRUCTION_FETCH, "stall_no_instruction", m->stall_no_instruction_pct,
                      ">=", PROFILE_NO_INSTRUCTION_PCT);
    if (!isnan(m->theoretical_occupancy_pct) &&
        m->theoretical_occupancy_pct < PROFILE_OCC_THEORETICAL_PCT && limited_by_resources(m) &&
        at_least(m->stall_long_scoreboard_pct, PROFILE_OCC_LONG_SB_PCT) && more_than_a_wave(m)) {
        int n = snprintf(r->justification, sizeof r->justification,
                         "theoretical_occupancy %.1f%% < %.0f%% (registers/shared memory bound), "
                         "stall_long_scoreboard %.1f%% >= %.0f%%",
                         m->theoretical_occupancy_pct, PROFILE_OCC_THEORETICAL_PCT,
                         m->stall_long_scoreboard_pct, PROFILE_OCC_LONG_SB_PCT);
        if (!isnan(m->waves_per_sm)) /* not reported: the condition was not applied */
            snprintf(r->justification + n, sizeof r->justification - (size_t)n, ", waves %.3g > %.0f",
                     m->waves_per_sm, PROFILE_OCC_WAVES);
        return BN_OCCUPANCY_LIMITED;
    }
    return BN_UNKNOWN;
}

/* The busiest unit, for the latency_bound justification. */
static void busiest(const struct profile_metrics *m, const char **name, double *value)
{
    const struct {
        const char *n;
        double v;
    } u[] = {{"tensor_pipe", m->tensor_pipe_pct},   {"sm_throughput", m->sm_throughput_pct},
             {"dram_throughput", m->dram_throughput_pct}, {"l2_throughput", m->l2_throughput_pct},
             {"smem_throughput", max_present(m->smem_throughput_pct, m->l1tex_throughput_pct)}};
    *name = "none";
    *value = NAN;
    for (size_t i = 0; i < sizeof u / sizeof *u; i++)
        if (!isnan(u[i].v) && (isnan(*value) || u[i].v > *value)) {
            *name = u[i].n;
            *value = u[i].v;
        }
}

static enum croq_bottleneck classify(const struct profile_metrics *m, struct profile_result *r)
{
    if (isnan(m->tensor_pipe_pct) && isnan(m->sm_throughput_pct) && isnan(m->dram_throughput_pct) &&
        isnan(m->l2_throughput_pct)) {
        snprintf(r->justification, sizeof r->justification,
                 "no throughput metric reported (sections missing from the ncu output?)");
        return BN_UNKNOWN;
    }
    if (at_least(m->tensor_pipe_pct, PROFILE_COMPUTE_PCT))
        return decide(r, BN_COMPUTE_BOUND, "tensor_pipe", m->tensor_pipe_pct, ">=", PROFILE_COMPUTE_PCT);
    if (isnan(m->tensor_pipe_pct) && at_least(m->sm_throughput_pct, PROFILE_COMPUTE_PCT))
        return decide(r, BN_COMPUTE_BOUND, "sm_throughput (no tensor pipe metric)",
                      m->sm_throughput_pct, ">=", PROFILE_COMPUTE_PCT);
    enum croq_bottleneck b = classify_memory(m, r);
    if (b == BN_UNKNOWN)
        b = classify_stalls(m, r);
    if (b != BN_UNKNOWN)
        return b;
    const char *name;
    double value;
    busiest(m, &name, &value);
    int n = snprintf(r->justification, sizeof r->justification, "no unit >= %.0f%% (busiest %s %.1f%%)",
                     PROFILE_COMPUTE_PCT, name, value);
    if (m->top_stall[0] && isfinite(m->top_stall_pct)) /* no stall breakdown: say nothing */
        snprintf(r->justification + n, sizeof r->justification - (size_t)n, "; top stall %s %.1f%%", m->top_stall,
                 m->top_stall_pct);
    return BN_LATENCY_BOUND;
}

void profile_classify(const struct profile_metrics *m, struct profile_result *r)
{
    if (m != &r->m)
        r->m = *m;
    r->justification[0] = '\0';
    r->category = classify(&r->m, r);
}
