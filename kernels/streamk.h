/* kernels/streamk.h — the stream-K work decomposition of family.cu (knob stream_k=1) as a
 * pure function, shared by the kernel (kernels/parts/scheduler_streamk.cuh), the host's
 * launch geometry (src/launch/launch.c, croq_sk_grid) and the CPU test that checks it
 * (tests/unit/test_streamk.c). Plain C: no CUDA-only construct outside CROQ_SK_FN.
 *
 * The hybrid "data-parallel + stream-K last wave" (Osama et al., Stream-K, PPoPP 2023;
 * CUTLASS's DP + SK). A persistent grid of G CTAs, T output tiles of I k-iterations each
 * (one k-iteration = one tile_k stage), tiles numbered as the persistent scheduler's units
 * (raster order, kernels/common.cuh tile_coords):
 *   - data-parallel part: the first D = (T / G) * G tiles, dp_rounds = T / G per CTA,
 *     CTA c taking tiles c, c + G, ... whole, exactly as persistent=1 does;
 *   - stream-K part: the S = T - D (< G) remaining tiles, S * I iterations numbered
 *     q * I + k (tile q of the part, k-iteration k), split into G contiguous ranges whose
 *     lengths differ by at most one: CTA c has [b(c), b(c + 1)), b(c) = c * (S*I / G) +
 *     min(c, S*I % G). A range is cut at tile boundaries into pieces, one work item each,
 *     in increasing order, after the CTA's data-parallel tiles.
 * When T % G == 0 there is no stream-K part; when T < G every tile is stream-K. CTAs with
 * an empty range (S * I < G) have only their data-parallel tiles.
 *
 * Roles of a piece (tile q, k-iterations [k_begin, k_end)):
 *   CROQ_SK_FULL     k_begin == 0 and k_end == I: one CTA has the whole tile (and every
 *                    data-parallel item): it stores C, no workspace.
 *   CROQ_SK_OWNER    k_begin == 0, k_end < I: the fixup owner. The rest of the tile is
 *                    held by CTAs first..last (= c + 1 .. the CTA of the tile's last
 *                    iteration), each as its first stream-K piece; the owner waits for
 *                    their partials, adds them in CTA order and stores C.
 *   CROQ_SK_PARTIAL  k_begin > 0: a contributor. It writes its f32 partial to its CTA's
 *                    workspace slot and raises the slot's flag. Only a CTA's first
 *                    stream-K piece can be one (every later piece starts at k = 0), so a
 *                    CTA writes at most one partial per launch and a slot per CTA is enough.
 * Each tile has exactly one FULL or OWNER piece (the one holding its k = 0).
 *
 * Forward progress. The only waits are an owner's on its contributors' flags. A
 * contributor's piece is its CTA's first stream-K item, and a CTA waits on nothing before
 * it (data-parallel items never wait), so every flag an owner waits for is raised by a CTA
 * that reaches it without waiting on anyone; the owner's wait ends as soon as those CTAs
 * run. They run because all G CTAs are co-resident: the host launches G = croq_sk_grid()
 * <= the SM count CTAs, and the kernel needs at most one SM per CTA (__launch_bounds__(...,
 * 1); a module whose CTA does not fit an SM does not launch at all), so no CTA waits for a
 * slot held by a waiting CTA. (A GPU shared with other work only delays them: its kernels
 * finish without waiting on ours.) The waits-for relation points from a CTA to higher
 * CTAs only, so it has no cycle either; tests/unit/test_streamk.c simulates every CTA
 * step by step and checks each launch completes.
 *
 * Bounds: T <= 2^31 - 1, I <= 2^31 - 1, G >= 1, and S * I < G * I must fit an int (the
 * host's shapes: K <= 2^20 so I <= 16384, G <= 2^16 by the SM count).
 */
#ifndef CROQ_KERNELS_STREAMK_H
#define CROQ_KERNELS_STREAMK_H

#if defined(__CUDACC__)
#define CROQ_SK_FN static __host__ __device__ __forceinline__
#else
#define CROQ_SK_FN static inline
#endif

enum croq_sk_role { CROQ_SK_FULL = 0, CROQ_SK_OWNER = 1, CROQ_SK_PARTIAL = 2 };

struct croq_sk_plan {
    int ctas;      /* G */
    int tiles;     /* T */
    int k_iters;   /* I; < 1 means no work at all */
    int dp_rounds; /* T / G: data-parallel tiles per CTA */
    int dp_tiles;  /* D = dp_rounds * G */
    int sk_iters;  /* S * I: iterations of the stream-K part */
    int per_cta;   /* S * I / G */
    int extra;     /* S * I % G: CTAs 0 .. extra-1 have per_cta + 1 iterations */
};

struct croq_sk_item {
    int unit;    /* output tile in the persistent scheduler's unit order: 0 .. T-1 */
    int k_begin; /* k-iterations [k_begin, k_end) of the tile, 0 <= k_begin < k_end <= I */
    int k_end;
    int role;    /* enum croq_sk_role */
    int first;   /* OWNER: contributors are CTAs first .. last (first = this CTA + 1); */
    int last;    /* otherwise first = 0, last = -1 */
};

CROQ_SK_FN struct croq_sk_plan croq_sk_plan_make(int tiles, int k_iters, int ctas)
{
    struct croq_sk_plan p;
    p.ctas = ctas < 1 ? 1 : ctas;
    p.tiles = tiles < 0 ? 0 : tiles;
    p.k_iters = k_iters;
    if (k_iters < 1)
        p.tiles = 0;
    p.dp_rounds = p.tiles / p.ctas;
    p.dp_tiles = p.dp_rounds * p.ctas;
    p.sk_iters = (p.tiles - p.dp_tiles) * (p.k_iters < 1 ? 0 : p.k_iters);
    p.per_cta = p.sk_iters / p.ctas;
    p.extra = p.sk_iters % p.ctas;
    return p;
}

/* First stream-K iteration of CTA c (c = G gives S * I, the end). */
CROQ_SK_FN int croq_sk_begin(const struct croq_sk_plan *p, int c)
{
    return c * p->per_cta + (c < p->extra ? c : p->extra);
}

/* The CTA whose range holds stream-K iteration it (0 <= it < S * I). */
CROQ_SK_FN int croq_sk_cta_of(const struct croq_sk_plan *p, int it)
{
    const int long_end = p->extra * (p->per_cta + 1); /* CTAs < extra have per_cta + 1 */
    if (it < long_end)
        return it / (p->per_cta + 1);
    return p->extra + (it - long_end) / p->per_cta; /* per_cta > 0 here: it < S * I */
}

/* Work item `step` (0, 1, ...) of CTA c: 1 with *out, 0 past the CTA's last item. */
CROQ_SK_FN int croq_sk_item_get(const struct croq_sk_plan *p, int c, int step, struct croq_sk_item *out)
{
    out->first = 0;
    out->last = -1;
    if (step < 0)
        return 0;
    if (step < p->dp_rounds) {
        out->unit = c + step * p->ctas;
        out->k_begin = 0;
        out->k_end = p->k_iters;
        out->role = CROQ_SK_FULL;
        return 1;
    }
    const int b = croq_sk_begin(p, c), e = croq_sk_begin(p, c + 1);
    if (b >= e)
        return 0;
    const int I = p->k_iters;
    const int q = b / I + (step - p->dp_rounds); /* tile of the stream-K part */
    if (q > (e - 1) / I)
        return 0;
    const int lo = q * I > b ? q * I : b, hi = (q + 1) * I < e ? (q + 1) * I : e;
    out->unit = p->dp_tiles + q;
    out->k_begin = lo - q * I;
    out->k_end = hi - q * I;
    if (out->k_begin > 0) {
        out->role = CROQ_SK_PARTIAL;
    } else if (out->k_end == I) {
        out->role = CROQ_SK_FULL;
    } else {
        out->role = CROQ_SK_OWNER;
        out->first = c + 1;
        out->last = croq_sk_cta_of(p, (q + 1) * I - 1);
    }
    return 1;
}

/* The stream-K launch's grid: every SM one CTA, but no more CTAs than k-iterations in all
 * (a CTA beyond those would have nothing to do). sm_count >= 1. */
CROQ_SK_FN int croq_sk_grid(int sm_count, long long tiles, long long k_iters)
{
    const long long work = tiles * (k_iters < 1 ? 1 : k_iters);
    if (work < 1)
        return 1;
    return work < sm_count ? (int)work : sm_count;
}

#endif
