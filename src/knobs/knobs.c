/* src/knobs/knobs.c — knob table, parsing, validation and derived geometry. */
#include "knobs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/geometry.h"

const struct croq_knob croq_knobs[KNOB_COUNT] = {
#define KNOB(id, nm, mc, def, cat, mean, ...)                                    \
    [KNOB_##id] = {.name = nm, .macro = mc, .default_value = def, .category = cat, \
                   .meaning = mean,                                              \
                   .n_values = sizeof((int[]){__VA_ARGS__}) / sizeof(int),       \
                   .values = {__VA_ARGS__}},
#include "knobs.def"
#undef KNOB
};

const char *croq_dtype_name(int dtype)
{
    return dtype == CROQ_DTYPE_E4M3 ? "e4m3" : dtype == CROQ_DTYPE_F16 ? "f16" : "?";
}

int croq_dtype_parse(const char *s)
{
    if (s && !strcmp(s, "f16"))
        return CROQ_DTYPE_F16;
    if (s && !strcmp(s, "e4m3"))
        return CROQ_DTYPE_E4M3;
    return -1;
}

int croq_dtype_size(int dtype) { return dtype == CROQ_DTYPE_E4M3 ? 1 : 2; }

void knobs_default(struct croq_config *cfg, int dtype)
{
    cfg->dtype = dtype;
    for (int i = 0; i < KNOB_COUNT; i++)
        cfg->v[i] = croq_knobs[i].default_value;
    /* e4m3 moves half the bytes per K: twice the K per stage keeps stages equal in size. */
    if (dtype == CROQ_DTYPE_E4M3)
        cfg->v[KNOB_TILE_K] *= 2;
}

void knobs_baseline(struct croq_config *cfg, int dtype)
{
    knobs_default(cfg, dtype);
    cfg->v[KNOB_KERNEL] = CROQ_V_BASELINE;
    cfg->v[KNOB_TILE_M] = 64;
    cfg->v[KNOB_TILE_N] = 128;
    /* tile_k keeps the default (64 f16 / 128 e4m3) so K = 128, the smallest K of the
     * scenario shapes, is a whole number of stages for both dtypes. */
    cfg->v[KNOB_STAGES] = 2;
    cfg->v[KNOB_CONSUMERS] = 1;
    cfg->v[KNOB_META_PATH] = CROQ_V_META_HOISTED;
    cfg->v[KNOB_EPILOGUE] = CROQ_V_EPI_DIRECT;
}

int knobs_find(const char *name)
{
    for (int i = 0; i < KNOB_COUNT; i++)
        if (!strcmp(croq_knobs[i].name, name))
            return i;
    return -1;
}

bool knobs_value_allowed(int id, int value)
{
    for (int i = 0; i < croq_knobs[id].n_values; i++)
        if (croq_knobs[id].values[i] == value)
            return true;
    return false;
}

static int parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < -1000000 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

int knobs_set(struct croq_config *cfg, const char *assignment, char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    char name[64];
    if (!eq || eq == assignment || (size_t)(eq - assignment) >= sizeof name) {
        snprintf(err, errlen, "expected knob=value, got '%s'", assignment);
        return -1;
    }
    memcpy(name, assignment, (size_t)(eq - assignment));
    name[eq - assignment] = '\0';
    int id = knobs_find(name);
    if (id < 0) {
        snprintf(err, errlen, "unknown knob '%s' (see 'croqtuner knobs')", name);
        return -1;
    }
    int value;
    if (parse_int(eq + 1, &value)) {
        snprintf(err, errlen, "knob '%s': value '%s' is not an integer", name, eq + 1);
        return -1;
    }
    if (!knobs_value_allowed(id, value)) {
        int n = snprintf(err, errlen, "knob '%s': value %d is not one of its allowed values (", name, value);
        for (int i = 0; i < croq_knobs[id].n_values && n > 0 && (size_t)n < errlen; i++)
            n += snprintf(err + n, errlen - (size_t)n, "%s%d", i ? ", " : "", croq_knobs[id].values[i]);
        if (n > 0 && (size_t)n < errlen)
            snprintf(err + n, errlen - (size_t)n, ")");
        return -1;
    }
    cfg->v[id] = value;
    return 0;
}

int knobs_set_list(struct croq_config *cfg, const char *list, char *err, size_t errlen)
{
    char buf[1024];
    if (strlen(list) >= sizeof buf) {
        snprintf(err, errlen, "--set list too long");
        return -1;
    }
    strcpy(buf, list);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, " ,\t\n", &save); t; t = strtok_r(NULL, " ,\t\n", &save), n++) {
        /* A whole signature ("dtype=f16,kernel=1,...", what status and the logs print)
         * names its dtype: accepted when it is the configuration's own. */
        if (!strncmp(t, "dtype=", 6)) {
            int d = croq_dtype_parse(t + 6);
            if (d < 0 || d != cfg->dtype) {
                snprintf(err, errlen, "'%s' disagrees with the configuration's dtype %s", t,
                         croq_dtype_name(cfg->dtype));
                return -1;
            }
            continue;
        }
        if (knobs_set(cfg, t, err, errlen))
            return -1;
    }
    if (!n) {
        snprintf(err, errlen, "empty --set (expected knob=value)");
        return -1;
    }
    return 0;
}

long knobs_smem_bytes(const struct croq_config *c)
{
    const bool pingpong = c->v[KNOB_SCHEDULE] == CROQ_V_PINGPONG;
    const long c_tiles = c->v[KNOB_EPILOGUE] == CROQ_V_EPI_TMA ? (pingpong ? 2 : 1) : 0;
    return CROQ_SMEM_BYTES((long)c->v[KNOB_TILE_M], (long)c->v[KNOB_TILE_N],
                           (long)c->v[KNOB_TILE_K], (long)croq_dtype_size(c->dtype),
                           (long)c->v[KNOB_STAGES], c->v[KNOB_META_PATH] == CROQ_V_META_TMA, c_tiles);
}

int knobs_threads(const struct croq_config *c)
{
    return CROQ_THREADS(c->v[KNOB_KERNEL] == CROQ_V_WS, c->v[KNOB_CONSUMERS]);
}

int knobs_acc_regs(const struct croq_config *c)
{
    return CROQ_ACC_REGS(c->v[KNOB_TILE_M], c->v[KNOB_TILE_N], knobs_tile_split(c));
}

int knobs_tile_split(const struct croq_config *c)
{
    return CROQ_TILE_SPLIT(c->v[KNOB_CONSUMERS], c->v[KNOB_SCHEDULE] == CROQ_V_PINGPONG);
}

/* whylen 0: only the answer (the proposer asks millions of times and needs no text) */
#define REJECT(...)                                  \
    do {                                             \
        if (whylen)                                  \
            snprintf(why, whylen, __VA_ARGS__);      \
        return false;                                \
    } while (0)

bool shape_validate(int dtype, const struct croq_shape *s, char *why, size_t whylen)
{
    if (s->m < 1 || s->n < 1 || s->k < 1)
        REJECT("shape %ldx%ldx%ld: every dimension must be positive", s->m, s->n, s->k);
    if (s->m > (1L << 20) || s->n > (1L << 20) || s->k > (1L << 20))
        REJECT("shape %ldx%ldx%ld: dimensions above 1048576 are not supported", s->m, s->n, s->k);
    /* 64 = dense K of one metadata word group in wgmma order (one u32 per thread per
     * 64 K), which also covers TMA's 16-B stride rule for packed A (K/2 * esz). */
    if (s->k % 64)
        REJECT("K=%ld: K must be a multiple of 64 (metadata chunk; pad K with zeros)", s->k);
    /* C row stride must be a multiple of 16 B for TMA: 8 f16. B rows: K*esz, covered. */
    if (s->n % 8)
        REJECT("N=%ld: N must be a multiple of 8 (16-byte C row stride for TMA)", s->n);
    (void)dtype;
    return true;
}

/* Rules that do not depend on the shape. Each says why it exists. */
static bool validate_structure(const struct croq_config *c, char *why, size_t whylen)
{
    const int *v = c->v;
    for (int i = 0; i < KNOB_COUNT; i++)
        if (!knobs_value_allowed(i, v[i]))
            REJECT("knob '%s': value %d is not allowed", croq_knobs[i].name, v[i]);
    if (c->dtype != CROQ_DTYPE_F16 && c->dtype != CROQ_DTYPE_E4M3)
        REJECT("dtype %d is not supported", c->dtype);
    /* One wgmma covers 64 rows; each consumer needs whole m64 slices of the rows it owns
     * (a share of the tile when cooperative, the whole tile in ping-pong). */
    if (v[KNOB_TILE_M] % (64 * knobs_tile_split(c)))
        REJECT("tile_m=%d must be a multiple of 64 x consumers (%d)", v[KNOB_TILE_M], v[KNOB_CONSUMERS]);
    /* Swizzle needs no rule: a k-step reads 32 B of packed A and 64 B of B per row, and
     * the kernel caps each operand's swizzle at its row bytes per stage
     * (kernels/common.cuh), so a k-step always lies inside one atom. */
    /* Accumulators beyond 128 f32 per thread spill (wgmma D lives in registers). */
    if (knobs_acc_regs(c) > 128)
        REJECT("tile %dx%d with %d consumer(s)%s needs %d accumulator registers per thread (max 128)",
               v[KNOB_TILE_M], v[KNOB_TILE_N], v[KNOB_CONSUMERS],
               v[KNOB_SCHEDULE] == CROQ_V_PINGPONG ? " in ping-pong (each owns the whole tile)" : "",
               knobs_acc_regs(c));
    if (knobs_smem_bytes(c) > CROQ_SMEM_LIMIT)
        REJECT("needs %ld B of shared memory per CTA (limit %d)", knobs_smem_bytes(c), CROQ_SMEM_LIMIT);
    if (v[KNOB_KERNEL] == CROQ_V_BASELINE) {
        /* The baseline is the simple reference point: it implements none of these. */
        if (v[KNOB_CONSUMERS] != 1 || v[KNOB_STAGES] > 2 || v[KNOB_PERSISTENT] ||
            v[KNOB_CLUSTER_M] != 1 || v[KNOB_CLUSTER_N] != 1 || v[KNOB_SPLIT_K] != 1 ||
            v[KNOB_EPILOGUE] != CROQ_V_EPI_DIRECT || v[KNOB_META_PATH] != CROQ_V_META_HOISTED ||
            v[KNOB_SCHEDULE] != CROQ_V_COOPERATIVE)
            REJECT("kernel=0 (baseline) supports only consumers=1, stages<=2, direct epilogue, "
                   "hoisted metadata, schedule=0, no persistence, cluster or split-K");
    }
    /* A consumer keeps one wgmma group in flight and releases a stage only after issuing
     * the next one; with a single stage the producer would wait for a release that waits
     * for the producer (seen as a deadlock on the H200, results/h200/tuning-f16-768 iter 19). */
    if (v[KNOB_KERNEL] == CROQ_V_WS && v[KNOB_STAGES] < 2)
        REJECT("kernel=1 (warp-specialized) needs stages >= 2: a stage is released one stage late");
    /* Persistent CTAs walk tiles in software (a cluster walks cluster-shaped units of
     * tiles together); split-K fixes the K partition of a CTA at launch (gridDim.y), so
     * that combination is not implemented. */
    if (v[KNOB_PERSISTENT] && v[KNOB_SPLIT_K] > 1)
        REJECT("persistent=1 cannot be combined with split-K");
    /* Ping-pong: consumer c takes tiles c, c+2, ... of its CTA's list, so it needs two
     * consumers and a list (persistent); each consumer reduces its own tile, which the
     * split-K fix-up (all consumers of one tile meet at one barrier) does not do. */
    if (v[KNOB_SCHEDULE] == CROQ_V_PINGPONG &&
        (v[KNOB_KERNEL] != CROQ_V_WS || v[KNOB_CONSUMERS] != 2 || !v[KNOB_PERSISTENT] || v[KNOB_SPLIT_K] > 1))
        REJECT("schedule=1 (ping-pong) needs kernel=1, consumers=2, persistent=1 and split_k=1");
    if (v[KNOB_CLUSTER_M] * v[KNOB_CLUSTER_N] > 1 && v[KNOB_SPLIT_K] > 1)
        REJECT("a cluster cannot be combined with split-K");
    if (v[KNOB_SPLIT_K] > 1 && v[KNOB_EPILOGUE] != CROQ_V_EPI_DIRECT)
        REJECT("split-K reduces through the workspace and needs epilogue=0");
    return true;
}

bool knobs_validate(const struct croq_config *c, const struct croq_shape *s, char *why, size_t whylen)
{
    if (!validate_structure(c, why, whylen))
        return false;
    if (!s)
        return true;
    if (!shape_validate(c->dtype, s, why, whylen))
        return false;
    long kslice = (long)c->v[KNOB_TILE_K] * c->v[KNOB_SPLIT_K];
    if (s->k % kslice)
        REJECT("K=%ld is not a multiple of tile_k x split_k = %ld", s->k, kslice);
    return true;
}

void knobs_signature(const struct croq_config *c, char out[CROQ_SIG_MAX])
{
    size_t n = (size_t)snprintf(out, CROQ_SIG_MAX, "dtype=%s", croq_dtype_name(c->dtype));
    for (int i = 0; i < KNOB_COUNT && n < CROQ_SIG_MAX; i++)
        if (!KNOB_OMITTED(c, i))
            n += (size_t)snprintf(out + n, CROQ_SIG_MAX - n, ",%s=%d", croq_knobs[i].name, c->v[i]);
}

int knobs_parse_signature(struct croq_config *c, const char *sig, char *err, size_t errlen)
{
    char buf[CROQ_SIG_MAX];
    bool seen[KNOB_COUNT] = {0};
    bool have_dtype = false;
    if (strlen(sig) >= sizeof buf) {
        snprintf(err, errlen, "signature too long");
        return -1;
    }
    strcpy(buf, sig);
    knobs_default(c, CROQ_DTYPE_F16);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strncmp(tok, "dtype=", 6)) {
            if ((c->dtype = croq_dtype_parse(tok + 6)) < 0) {
                snprintf(err, errlen, "signature: unknown dtype '%s'", tok + 6);
                return -1;
            }
            have_dtype = true;
            continue;
        }
        if (knobs_set(c, tok, err, errlen))
            return -1;
        *strchr(tok, '=') = '\0'; /* knobs_set proved the '=' is there */
        seen[knobs_find(tok)] = true;
    }
    if (!have_dtype) {
        snprintf(err, errlen, "signature: missing dtype");
        return -1;
    }
    for (int i = 0; i < KNOB_FIRST_LATE; i++) /* a late knob left out is at its default */
        if (!seen[i]) {
            snprintf(err, errlen, "signature: missing knob '%s'", croq_knobs[i].name);
            return -1;
        }
    return 0;
}

double shape_log_distance(const struct croq_shape *a, const struct croq_shape *b)
{
    double dm = log((double)a->m / (double)b->m), dn = log((double)a->n / (double)b->n);
    double dk = log((double)a->k / (double)b->k);
    return sqrt(dm * dm + dn * dn + dk * dk);
}

int shape_parse(const char *s, struct croq_shape *out)
{
    char tail;
    if (!s || sscanf(s, "%ldx%ldx%ld%c", &out->m, &out->n, &out->k, &tail) != 3)
        return -1;
    return (out->m > 0 && out->n > 0 && out->k > 0) ? 0 : -1;
}
