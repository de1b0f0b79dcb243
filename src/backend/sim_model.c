/* src/backend/sim_model.c — the simulated GPU's performance model (docs/engine.md,
 * "The simulated backend"). Not a prediction of the H200: a smooth, deterministic
 * function of the knobs with the same kinds of trade-offs, so the engine's loop,
 * the proposer's moves and every decision rule get exercised in CI.
 *
 * efficiency = tile x kernel x pipeline x k-loop x waves x padding x L2 x variants,
 * the SM clock falls as efficiency (power) rises, and the time is the larger of the
 * compute time at that clock and the DRAM time, plus a launch overhead.
 */
#include "backend.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "target/target.h"

#define SIM_DRAM_BPS 4.0e12   /* ~85% of the H200's 4.8 TB/s */
/* The simulated GPU's L2 pressure scale, its own constant and not the H200's 60 MiB
 * (src/target/target.def l2_bytes): every simulated number, and the sim tests' and
 * replay datasets' expectations, depend on it, and the simulator models no real L2. */
#define SIM_L2_BYTES 50e6
#define SIM_LAUNCH_S 4e-6

struct factors {
    double tile, kern, stage, kloop, wave, pad, l2, variant, split, ifetch, cluster;
    double waves; /* grid CTAs / resident CTAs, what ncu calls launch__waves_per_multiprocessor */
};

static int ctas_per_sm(const struct croq_config *c)
{
    long smem = knobs_smem_bytes(c);
    /* the per-CTA limit divides, as it always has (the exact rule: 228 KB per SM, 1 KB of
     * it reserved per resident CTA) */
    int n = smem > 0 ? (int)((double)croq_target()->smem_per_block / (double)smem) : 1;
    int by_threads = 2048 / knobs_threads(c);
    n = n < by_threads ? n : by_threads;
    return n < 1 ? 1 : n > 2 ? 2 : n;
}

static void wave_factors(const struct croq_config *c, const struct croq_shape *s, struct factors *f)
{
    const int *v = c->v;
    double tm = v[KNOB_TILE_M], tn = v[KNOB_TILE_N];
    double tiles_m = ceil((double)s->m / tm), tiles_n = ceil((double)s->n / tn);
    double tiles = tiles_m * tiles_n * v[KNOB_SPLIT_K];
    double slots = croq_target()->sms * ctas_per_sm(c);
    double cl = v[KNOB_CLUSTER_M] * v[KNOB_CLUSTER_N];
    slots = floor(slots / cl) * cl; /* a cluster occupies whole groups of SMs */
    f->wave = tiles / (ceil(tiles / slots) * slots);
    f->waves = (v[KNOB_PERSISTENT] ? fmin(tiles, croq_target()->sms) : tiles) / slots;
    if (v[KNOB_PERSISTENT]) /* CTAs overlap one tile's epilogue with the next's loads */
        f->wave = fmin(1.0, 0.5 * (f->wave + fmin(1.0, tiles / slots)) * (tiles > slots ? 1.04 : 0.98));
    f->pad = ((double)s->m / (tiles_m * tm)) * ((double)s->n / (tiles_n * tn));
    f->cluster = cl > 1 ? (tiles >= 2 * slots ? 1.03 : 0.97) : 1.0;
}

static void core_factors(const struct croq_config *c, const struct croq_shape *s, struct factors *f)
{
    const int *v = c->v;
    bool ws = v[KNOB_KERNEL] == CROQ_V_WS;
    double tm = v[KNOB_TILE_M], tn = v[KNOB_TILE_N], tk = v[KNOB_TILE_K];
    double esz = croq_dtype_size(c->dtype);
    /* bigger tiles: more MMA per byte of shared memory traffic */
    f->tile = (1 + 40.0 / 256 + 40.0 / 256) / (1 + 40.0 / tm + 40.0 / tn);
    f->kern = ws ? (v[KNOB_CONSUMERS] == 2 ? 1.0 : 0.86) : 0.70;
    /* bytes in flight hide global-memory latency; warp specialization needs fewer */
    double inflight = v[KNOB_STAGES] * tk * esz / 2.0;
    f->stage = 1.0 - 0.5 * exp(-inflight / (ws ? 300.0 : 200.0));
    double kiters = (double)s->k / (tk * v[KNOB_SPLIT_K]);
    f->kloop = kiters / (kiters + (ws ? 1.0 : 2.0) + 0.25 * v[KNOB_STAGES]);
    f->split = v[KNOB_SPLIT_K] > 1 ? 1.0 / (1.0 + 0.03 * v[KNOB_SPLIT_K]) : 1.0;
    f->ifetch = (tk >= 512 && tm * tn >= 128 * 256) ? 0.93 : 1.0;
}

static void memory_factors(const struct croq_config *c, const struct croq_shape *s, struct factors *f)
{
    const int *v = c->v;
    bool e4m3 = c->dtype == CROQ_DTYPE_E4M3;
    double esz = croq_dtype_size(c->dtype);
    double press = fmin(1.0, ((double)s->m * s->k / 2 + (double)s->n * s->k) * esz / SIM_L2_BYTES);
    f->l2 = 1.0 - 0.08 * press / (1.0 + 0.6 * log2((double)v[KNOB_GROUP]));
    if ((v[KNOB_RASTER] == CROQ_V_COL) == (s->m > s->n))
        f->l2 *= 1.01;
    double meta = v[KNOB_META_PATH] == CROQ_V_META_HOISTED ? (e4m3 ? 0.99 : 1.02) : (e4m3 ? 1.02 : 0.985);
    double epi = v[KNOB_EPILOGUE] == CROQ_V_EPI_TMA ? (v[KNOB_TILE_N] >= 128 ? 1.02 : 0.99) : 1.0;
    double sw = v[KNOB_SWIZZLE] == 128 ? 1.0 : 0.96;
    double prom = 1.0 + (v[KNOB_L2_A] >= 128 ? 0.006 : v[KNOB_L2_A] ? -0.003 : 0) +
                  (v[KNOB_L2_B] >= 128 ? 0.004 : v[KNOB_L2_B] ? -0.002 : 0);
    f->variant = meta * epi * sw * prom;
}

/* Counters a profiler would report for this point, shaped so that the real classifier
 * (src/profile, profile_classify) files each limiting factor under its category. */
static void fill_metrics(struct sim_point *o, const struct factors *f, const struct croq_config *c,
                         const struct croq_shape *s, double t_mem, double t)
{
    struct profile_metrics *m = &o->metrics;
    double esz = croq_dtype_size(c->dtype);
    double press = fmin(1.0, ((double)s->m * s->k / 2 + (double)s->n * s->k) * esz / SIM_L2_BYTES);
    profile_metrics_init(m);
    m->tensor_pipe_pct = 100 * o->eff;
    m->sm_throughput_pct = fmin(100, 100 * o->eff + 5);
    m->dram_throughput_pct = fmin(100, 100 * t_mem / t);
    m->l2_throughput_pct = 35 + 45 * press / (1.0 + 0.6 * log2((double)c->v[KNOB_GROUP]));
    m->smem_throughput_pct = fmin(100, fmax(0, 40 + 800 * (1 - f->variant)));
    m->theoretical_occupancy_pct = 100.0 * ctas_per_sm(c) * knobs_threads(c) / 2048.0;
    m->achieved_occupancy_pct = m->theoretical_occupancy_pct * f->wave;
    m->waves_per_sm = f->waves;
    m->stall_long_scoreboard_pct = fmin(100, 250 * (1 - f->stage));
    m->stall_barrier_pct = 100 * (1 - f->kloop);
    m->stall_no_instruction_pct = f->ifetch < 1 ? 25 : 3;
    m->duration_us = t * 1e6;
}

void sim_model(const struct croq_config *c, const struct croq_shape *s, struct sim_point *o)
{
    struct factors f;
    memset(o, 0, sizeof *o);
    wave_factors(c, s, &f);
    core_factors(c, s, &f);
    memory_factors(c, s, &f);
    double eff = f.tile * f.kern * f.stage * f.kloop * f.wave * f.pad * f.l2 * f.variant * f.split *
                 f.ifetch * f.cluster;
    eff = fmin(eff, 0.95);
    /* power: a busier tensor pipe draws more, and the clock gives way (H200 at 700 W) */
    o->clock_mhz = croq_target()->boost_mhz - 560.0 * eff * (c->dtype == CROQ_DTYPE_E4M3 ? 0.9 : 1.0);
    double flops = 2.0 * (double)s->m * (double)s->n * (double)s->k;
    double peak = backend_peak_tflops(c->dtype, o->clock_mhz) * 1e12;
    double esz = croq_dtype_size(c->dtype);
    double bytes = esz * ((double)s->m * s->k / 2 + (double)s->n * s->k) + (double)s->m * s->k / 8 +
                   2.0 * s->m * s->n + (c->v[KNOB_SPLIT_K] > 1 ? 8.0 * s->m * s->n * c->v[KNOB_SPLIT_K] : 0);
    double t_comp = flops / (eff * peak), t_mem = bytes / SIM_DRAM_BPS;
    double t = fmax(t_comp, t_mem) + 0.3 * fmin(t_comp, t_mem) + SIM_LAUNCH_S;
    o->tflops = flops / t / 1e12;
    o->eff = o->tflops * 1e12 / peak;
    fill_metrics(o, &f, c, s, t_mem, t);
    struct profile_result pr;
    memset(&pr, 0, sizeof pr);
    profile_classify(&o->metrics, &pr);
    o->bottleneck = pr.category;
    snprintf(o->justification, sizeof o->justification, "%s", pr.justification);
}
