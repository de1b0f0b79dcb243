/* src/knobs/knobs.c — knob table, parsing, validation and derived geometry. */
#include "knobs.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/geometry.h"
#include "target/dtype.h"

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
    return croq_dtype_valid(dtype) ? croq_dtype_traits(dtype)->name : "?";
}

int croq_dtype_parse(const char *s)
{
    for (int d = 0; s && d < CROQ_DTYPE_COUNT; d++)
        if (!strcmp(s, croq_dtype_traits(d)->name))
            return d;
    return -1;
}

int croq_dtype_size(int dtype) { return croq_dtype_traits(dtype)->bytes; }

void knobs_default(struct croq_config *cfg, int dtype)
{
    cfg->dtype = dtype;
    for (int i = 0; i < KNOB_COUNT; i++)
        cfg->v[i] = croq_knobs[i].default_value;
    /* e4m3 moves half the bytes per K: twice the K per stage keeps stages equal in size. */
    cfg->v[KNOB_TILE_K] *= croq_dtype_traits(dtype)->tile_k_scale;
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

static bool blank(char ch) { return ch == ' ' || ch == '\t'; }

/* [s, e) without the blanks at either end into out (a C string); -1 if it does not fit. */
static int trimmed(const char *s, const char *e, char *out, size_t outlen)
{
    while (s < e && blank(*s))
        s++;
    while (e > s && blank(e[-1]))
        e--;
    if ((size_t)(e - s) >= outlen)
        return -1;
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = '\0';
    return 0;
}

int knobs_set(struct croq_config *cfg, const char *assignment, char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    char name[64], text[64];
    if (!eq || trimmed(assignment, eq, name, sizeof name) || !name[0] ||
        trimmed(eq + 1, eq + strlen(eq), text, sizeof text)) {
        snprintf(err, errlen, "expected knob=value, got '%s'", assignment);
        return -1;
    }
    int id = knobs_find(name);
    if (id < 0) {
        snprintf(err, errlen, "unknown knob '%s' (see 'croqtuner knobs')", name);
        return -1;
    }
    int value;
    if (parse_int(text, &value)) {
        snprintf(err, errlen, "knob '%s': value '%s' is not an integer", name, text);
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

/* The head of a short label (knobs_label) at tokens t[0..]: "ws"/"base", "MxNxK", "sN",
 * and "cN" after "ws". Returns the tokens it took, or -1 with err. */
static int label_head(struct croq_config *cfg, char **t, int nt, char *err, size_t errlen)
{
    int tm, tn, tk, st, used = 0;
    char tail;
    bool ws = !strcmp(t[0], "ws");
    knobs_default(cfg, cfg->dtype);
    cfg->v[KNOB_KERNEL] = ws ? CROQ_V_WS : CROQ_V_BASELINE;
    if (!ws) /* the label leaves out the baseline's one consumer */
        cfg->v[KNOB_CONSUMERS] = 1;
    if (nt < 3 || sscanf(t[1], "%dx%dx%d%c", &tm, &tn, &tk, &tail) != 3 || sscanf(t[2], "s%d%c", &st, &tail) != 1) {
        snprintf(err, errlen, "short label '%s ...': expected '%s TILE_MxTILE_NxTILE_K sSTAGES%s' (as bench prints it)",
                 t[0], t[0], ws ? " cCONSUMERS" : "");
        return -1;
    }
    char a[64];
    const int want[][2] = {{KNOB_TILE_M, tm}, {KNOB_TILE_N, tn}, {KNOB_TILE_K, tk}, {KNOB_STAGES, st}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        snprintf(a, sizeof a, "%s=%d", croq_knobs[want[i][0]].name, want[i][1]);
        if (knobs_set(cfg, a, err, errlen))
            return -1;
    }
    used = 3;
    if (ws && nt > 3 && sscanf(t[3], "c%d%c", &st, &tail) == 1) {
        snprintf(a, sizeof a, "consumers=%d", st);
        if (knobs_set(cfg, a, err, errlen))
            return -1;
        used = 4;
    }
    return used;
}

int knobs_set_list(struct croq_config *cfg, const char *list, char *err, size_t errlen)
{
    char buf[1024], *tok[KNOB_COUNT * 2 + 8];
    int nt = 0, i = 0;
    if (strlen(list) >= sizeof buf) {
        snprintf(err, errlen, "--set list too long");
        return -1;
    }
    /* Blanks separate assignments, except around '=': "tile_m = 128" is one assignment,
     * as knobs_set reads it, not "tile_m=" and "128". */
    size_t len = 0;
    for (const char *p = list; *p; p++) {
        if (blank(*p)) {
            const char *q = p;
            while (blank(*q))
                q++;
            if (*q == '=' || (len && buf[len - 1] == '=')) {
                p = q - 1;
                continue;
            }
        }
        buf[len++] = *p;
    }
    buf[len] = '\0';
    for (char *save = NULL, *t = strtok_r(buf, " ,\t\n", &save); t; t = strtok_r(NULL, " ,\t\n", &save)) {
        if (nt == (int)(sizeof tok / sizeof tok[0])) {
            snprintf(err, errlen, "--set list has too many items");
            return -1;
        }
        tok[nt++] = t;
    }
    /* A configuration line pasted as it was printed: " * config: dtype=f16,..." (a
     * generated .cu's header), "  config: ..." (knobs --check of an invalid one) or
     * "valid: ..." (knobs --check of a valid one). */
    if (i < nt && !strcmp(tok[i], "*"))
        i++;
    if (i < nt && (!strcmp(tok[i], "config:") || !strcmp(tok[i], "valid:")))
        i++;
    if (i == nt) {
        snprintf(err, errlen, "empty --set (expected knob=value)");
        return -1;
    }
    if (!strcmp(tok[i], "ws") || !strcmp(tok[i], "base")) {
        int used = label_head(cfg, tok + i, nt - i, err, errlen);
        if (used < 0)
            return -1;
        i += used;
    }
    for (; i < nt; i++) {
        /* A whole signature ("dtype=f16,kernel=1,...", what status and the logs print)
         * names its dtype: accepted when it is the configuration's own. */
        if (!strncmp(tok[i], "dtype=", 6)) {
            int d = croq_dtype_parse(tok[i] + 6);
            if (d < 0 || d != cfg->dtype) {
                snprintf(err, errlen, "'%s' disagrees with the configuration's dtype %s", tok[i],
                         croq_dtype_name(cfg->dtype));
                return -1;
            }
            continue;
        }
        if (knobs_set(cfg, tok[i], err, errlen))
            return -1;
    }
    return 0;
}

void knobs_label(const struct croq_config *cfg, char out[CROQ_LABEL_MAX])
{
    struct croq_config def;
    const int *v = cfg->v;
    static const int shown[] = {KNOB_KERNEL, KNOB_TILE_M, KNOB_TILE_N, KNOB_TILE_K, KNOB_STAGES, KNOB_CONSUMERS};
    knobs_default(&def, cfg->dtype);
    size_t n = (size_t)snprintf(out, CROQ_LABEL_MAX, "%s %dx%dx%d s%d", v[KNOB_KERNEL] ? "ws" : "base",
                                v[KNOB_TILE_M], v[KNOB_TILE_N], v[KNOB_TILE_K], v[KNOB_STAGES]);
    if (v[KNOB_KERNEL] && n < CROQ_LABEL_MAX)
        n += (size_t)snprintf(out + n, CROQ_LABEL_MAX - n, " c%d", v[KNOB_CONSUMERS]);
    for (int i = 0; i < KNOB_COUNT && n < CROQ_LABEL_MAX; i++) {
        bool in_head = false;
        for (size_t j = 0; j < sizeof shown / sizeof shown[0]; j++)
            in_head |= shown[j] == i;
        if (!in_head && v[i] != def.v[i])
            n += (size_t)snprintf(out + n, CROQ_LABEL_MAX - n, " %s=%d", croq_knobs[i].name, v[i]);
    }
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

int knobs_meta_regs(const struct croq_config *c)
{
    return CROQ_META_REGS(c->v[KNOB_TILE_M], c->v[KNOB_TILE_K], knobs_tile_split(c));
}

int knobs_tile_split(const struct croq_config *c)
{
    return CROQ_TILE_SPLIT(c->v[KNOB_CONSUMERS], c->v[KNOB_SCHEDULE] == CROQ_V_PINGPONG);
}

/* whylen 0: only the answer, no text. */
#define SHAPE_REJECT(...)                       \
    do {                                        \
        if (whylen)                             \
            snprintf(why, whylen, __VA_ARGS__); \
        return false;                           \
    } while (0)

bool shape_validate(int dtype, const struct croq_shape *s, char *why, size_t whylen)
{
    if (s->m < 1 || s->n < 1 || s->k < 1)
        SHAPE_REJECT("shape %ldx%ldx%ld: every dimension must be positive", s->m, s->n, s->k);
    if (s->m > (1L << 20) || s->n > (1L << 20) || s->k > (1L << 20))
        SHAPE_REJECT("shape %ldx%ldx%ld: dimensions above 1048576 are not supported", s->m, s->n, s->k);
    /* 64 = dense K of one metadata word group in wgmma order (one u32 per thread per
     * 64 K), which also covers TMA's 16-B stride rule for packed A (K/2 * esz). */
    if (s->k % 64)
        SHAPE_REJECT("K=%ld: K must be a multiple of 64 (metadata chunk; pad K with zeros)", s->k);
    /* C row stride must be a multiple of 16 B for TMA: 8 f16. B rows: K*esz, covered. */
    if (s->n % 8)
        SHAPE_REJECT("N=%ld: N must be a multiple of 8 (16-byte C row stride for TMA)", s->n);
    (void)dtype;
    return true;
}

/* Where the rules report. Fast mode (why == NULL, !all): the first violation ends the
 * check with no text (the proposer asks millions of times). First mode (why, !all): the
 * first violation's reason goes to why. All mode: every violation with its change goes
 * to out[] and the check goes on (knobs --check shows them at once). */
struct rule_sink {
    bool all;
    char *why;
    size_t whylen;
    struct knobs_violation *out;
    int max, n;
};

/* Record one violation; true when the check must stop here. change is what to --set. */
static bool reject(struct rule_sink *s, const char *change, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool reject(struct rule_sink *s, const char *change, const char *fmt, ...)
{
    va_list ap;
    if (!s->all) {
        if (s->whylen) {
            va_start(ap, fmt);
            vsnprintf(s->why, s->whylen, fmt, ap);
            va_end(ap);
        }
        s->n++;
        return true;
    }
    if (s->n < s->max) {
        va_start(ap, fmt);
        vsnprintf(s->out[s->n].reason, sizeof s->out[s->n].reason, fmt, ap);
        va_end(ap);
        snprintf(s->out[s->n].change, sizeof s->out[s->n].change, "%s", change);
    }
    s->n++;
    return false;
}

/* The change text is built only when someone reads it (not in fast mode). */
#define WANT_TEXT(s) ((s)->all || (s)->whylen)
#define REJECT(change, ...)                    \
    do {                                       \
        if (reject(s, (change), __VA_ARGS__))  \
            return;                            \
    } while (0)

/* Append " name=value" for each knob of want[] that cfg does not already have. */
static void append_differing(char *buf, size_t len, const struct croq_config *c, const int (*want)[2], int n)
{
    size_t used = strlen(buf);
    for (int i = 0; i < n && used < len; i++)
        if (c->v[want[i][0]] != want[i][1])
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%d", used ? " " : "",
                                     croq_knobs[want[i][0]].name, want[i][1]);
}

/* Changes of one knob that bring the accumulators within 128 registers per thread. */
static void acc_change(const struct croq_config *c, char *buf, size_t len)
{
    static const int ids[] = {KNOB_TILE_N, KNOB_TILE_M, KNOB_CONSUMERS, KNOB_SCHEDULE};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof ids / sizeof ids[0] && used < len; k++) {
        const struct croq_knob *kn = &croq_knobs[ids[k]];
        for (int j = kn->n_values - 1; j >= 0 && used < len; j--) { /* largest value that fits */
            struct croq_config t = *c;
            t.v[ids[k]] = kn->values[j];
            if (kn->values[j] == c->v[ids[k]] || knobs_acc_regs(&t) > 128 ||
                t.v[KNOB_TILE_M] % (64 * knobs_tile_split(&t)))
                continue;
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%d", used ? " or " : "", kn->name,
                                     kn->values[j]);
            break;
        }
    }
}

/* Rules that do not depend on the shape. Each says why it exists. */
static void validate_structure(const struct croq_config *c, struct rule_sink *s)
{
    const int *v = c->v;
    char change[CROQ_WHY_MAX] = "";
    for (int i = 0; i < KNOB_COUNT; i++)
        if (!knobs_value_allowed(i, v[i]))
            REJECT("a value listed by 'croqtuner knobs'", "knob '%s': value %d is not allowed", croq_knobs[i].name,
                   v[i]);
    if (!croq_dtype_valid(c->dtype))
        REJECT("--dtype f16 or e4m3", "dtype %d is not supported", c->dtype);
    /* One wgmma covers 64 rows; each consumer needs whole m64 slices of the rows it owns
     * (a share of the tile when cooperative, the whole tile in ping-pong). */
    if (v[KNOB_TILE_M] % (64 * knobs_tile_split(c))) {
        if (WANT_TEXT(s))
            snprintf(change, sizeof change, "tile_m=%d or consumers=1", 64 * knobs_tile_split(c));
        REJECT(change, "tile_m=%d must be a multiple of 64 x consumers (%d)", v[KNOB_TILE_M], v[KNOB_CONSUMERS]);
    }
    /* Swizzle needs no rule: a k-step reads 32 B of packed A and 64 B of B per row, and
     * the kernel caps each operand's swizzle at its row bytes per stage
     * (kernels/common.cuh), so a k-step always lies inside one atom. */
    /* Accumulators beyond 128 f32 per thread spill (wgmma D lives in registers). */
    if (knobs_acc_regs(c) > 128) {
        if (WANT_TEXT(s))
            acc_change(c, change, sizeof change);
        REJECT(change, "tile %dx%d with %d consumer(s)%s needs %d accumulator registers per thread (max 128)",
               v[KNOB_TILE_M], v[KNOB_TILE_N], v[KNOB_CONSUMERS],
               v[KNOB_SCHEDULE] == CROQ_V_PINGPONG ? " in ping-pong (each owns the whole tile)" : "",
               knobs_acc_regs(c));
    }
    /* The two metadata buffers of a kernel=1 consumer live next to its accumulators; above
     * this sum ptxas spills or serializes the wgmmas (kernels/geometry.h, measured). Too
     * many accumulators alone is the rule above's. */
    if (v[KNOB_KERNEL] == CROQ_V_WS && knobs_acc_regs(c) <= 128 &&
        knobs_acc_regs(c) + knobs_meta_regs(c) > CROQ_CONSUMER_REGS_MAX) {
        if (WANT_TEXT(s)) {
            struct croq_config t = *c;
            while (t.v[KNOB_TILE_K] > 64 && knobs_acc_regs(&t) + knobs_meta_regs(&t) > CROQ_CONSUMER_REGS_MAX)
                t.v[KNOB_TILE_K] /= 2;
            snprintf(change, sizeof change, "tile_k=%d, or a smaller tile", t.v[KNOB_TILE_K]);
        }
        REJECT(change,
               "tile %dx%dx%d with %d consumer(s) per tile needs %d accumulator + %d metadata registers per "
               "thread (max %d)",
               v[KNOB_TILE_M], v[KNOB_TILE_N], v[KNOB_TILE_K], knobs_tile_split(c), knobs_acc_regs(c),
               knobs_meta_regs(c), CROQ_CONSUMER_REGS_MAX);
    }
    if (knobs_smem_bytes(c) > CROQ_SMEM_LIMIT) {
        if (WANT_TEXT(s)) {
            struct croq_config t = *c;
            while (t.v[KNOB_STAGES] > 1 && knobs_smem_bytes(&t) > CROQ_SMEM_LIMIT)
                t.v[KNOB_STAGES]--;
            if (knobs_smem_bytes(&t) <= CROQ_SMEM_LIMIT)
                snprintf(change, sizeof change, "stages=%d, or a smaller tile_k or tile", t.v[KNOB_STAGES]);
            else
                snprintf(change, sizeof change, "a smaller tile_k, tile_m or tile_n");
        }
        REJECT(change, "needs %ld B of shared memory per CTA (limit %d)", knobs_smem_bytes(c), CROQ_SMEM_LIMIT);
    }
    if (v[KNOB_KERNEL] == CROQ_V_BASELINE) {
        /* The baseline is the simple reference point: it implements none of these. */
        if (v[KNOB_CONSUMERS] != 1 || v[KNOB_STAGES] > 2 || v[KNOB_PERSISTENT] ||
            v[KNOB_CLUSTER_M] != 1 || v[KNOB_CLUSTER_N] != 1 || v[KNOB_SPLIT_K] != 1 ||
            v[KNOB_EPILOGUE] != CROQ_V_EPI_DIRECT || v[KNOB_META_PATH] != CROQ_V_META_HOISTED ||
            v[KNOB_SCHEDULE] != CROQ_V_COOPERATIVE) {
            if (WANT_TEXT(s)) {
                static const int base[][2] = {
                    {KNOB_CONSUMERS, 1}, {KNOB_PERSISTENT, 0}, {KNOB_CLUSTER_M, 1}, {KNOB_CLUSTER_N, 1},
                    {KNOB_SPLIT_K, 1}, {KNOB_EPILOGUE, CROQ_V_EPI_DIRECT}, {KNOB_META_PATH, CROQ_V_META_HOISTED},
                    {KNOB_SCHEDULE, CROQ_V_COOPERATIVE}};
                change[0] = '\0';
                if (v[KNOB_STAGES] > 2)
                    snprintf(change, sizeof change, "stages=2");
                append_differing(change, sizeof change, c, base, (int)(sizeof base / sizeof base[0]));
                size_t used = strlen(change);
                snprintf(change + used, sizeof change - used, ", or kernel=1");
            }
            REJECT(change, "kernel=0 (baseline) supports only consumers=1, stages<=2, direct epilogue, "
                           "hoisted metadata, schedule=0, no persistence, cluster or split-K");
        }
    }
    /* A consumer keeps one wgmma group in flight and releases a stage only after issuing
     * the next one; with a single stage the producer would wait for a release that waits
     * for the producer (seen as a deadlock on the H200, results/h200/tuning-f16-768 iter 19). */
    if (v[KNOB_KERNEL] == CROQ_V_WS && v[KNOB_STAGES] < 2)
        REJECT("stages=2 (or more)", "kernel=1 (warp-specialized) needs stages >= 2: a stage is released one stage late");
    /* Persistent CTAs walk tiles in software (a cluster walks cluster-shaped units of
     * tiles together); split-K fixes the K partition of a CTA at launch (gridDim.y), so
     * that combination is not implemented. */
    if (v[KNOB_PERSISTENT] && v[KNOB_SPLIT_K] > 1)
        REJECT("persistent=0 or split_k=1", "persistent=1 cannot be combined with split-K");
    /* Ping-pong: consumer c takes tiles c, c+2, ... of its CTA's list, so it needs two
     * consumers and a list (persistent); each consumer reduces its own tile, which the
     * split-K fix-up (all consumers of one tile meet at one barrier) does not do. */
    if (v[KNOB_SCHEDULE] == CROQ_V_PINGPONG &&
        (v[KNOB_KERNEL] != CROQ_V_WS || v[KNOB_CONSUMERS] != 2 || !v[KNOB_PERSISTENT] || v[KNOB_SPLIT_K] > 1)) {
        if (WANT_TEXT(s)) {
            static const int pp[][2] = {
                {KNOB_KERNEL, CROQ_V_WS}, {KNOB_CONSUMERS, 2}, {KNOB_PERSISTENT, 1}, {KNOB_SPLIT_K, 1}};
            change[0] = '\0';
            append_differing(change, sizeof change, c, pp, (int)(sizeof pp / sizeof pp[0]));
            size_t used = strlen(change);
            snprintf(change + used, sizeof change - used, ", or schedule=0");
        }
        REJECT(change, "schedule=1 (ping-pong) needs kernel=1, consumers=2, persistent=1 and split_k=1");
    }
    /* Stream-K (kernels/streamk.h): the persistent CTAs split the last wave's k-iterations
     * themselves (so no split-K), one CTA per range (a cluster's CTAs would need the same
     * ranges for the multicast), and the fixup meets all consumers of one tile at one
     * barrier (cooperative only, as split-K's). */
    if (v[KNOB_STREAM_K] &&
        (v[KNOB_KERNEL] != CROQ_V_WS || !v[KNOB_PERSISTENT] || v[KNOB_SPLIT_K] > 1 ||
         v[KNOB_SCHEDULE] != CROQ_V_COOPERATIVE || v[KNOB_CLUSTER_M] != 1 || v[KNOB_CLUSTER_N] != 1)) {
        if (WANT_TEXT(s)) {
            static const int sk[][2] = {{KNOB_KERNEL, CROQ_V_WS}, {KNOB_PERSISTENT, 1}, {KNOB_SPLIT_K, 1},
                                        {KNOB_SCHEDULE, CROQ_V_COOPERATIVE}, {KNOB_CLUSTER_M, 1},
                                        {KNOB_CLUSTER_N, 1}};
            change[0] = '\0';
            append_differing(change, sizeof change, c, sk, (int)(sizeof sk / sizeof sk[0]));
            size_t used = strlen(change);
            snprintf(change + used, sizeof change - used, ", or stream_k=0");
        }
        REJECT(change, "stream_k=1 needs kernel=1, persistent=1, split_k=1, schedule=0 and no cluster");
    }
    if (v[KNOB_CLUSTER_M] * v[KNOB_CLUSTER_N] > 1 && v[KNOB_SPLIT_K] > 1)
        REJECT("cluster_m=1 cluster_n=1, or split_k=1", "a cluster cannot be combined with split-K");
    if (v[KNOB_SPLIT_K] > 1 && v[KNOB_EPILOGUE] != CROQ_V_EPI_DIRECT)
        REJECT("epilogue=0 or split_k=1", "split-K reduces through the workspace and needs epilogue=0");
}

static void validate_all(const struct croq_config *c, const struct croq_shape *sh, struct rule_sink *s)
{
    validate_structure(c, s);
    if ((s->n && !s->all) || !sh)
        return;
    char why[CROQ_WHY_MAX];
    if (!shape_validate(c->dtype, sh, why, WANT_TEXT(s) ? sizeof why : 0)) {
        reject(s, "the shape (--shape)", "%s", why);
        return; /* the rule below assumes a valid K */
    }
    long kslice = (long)c->v[KNOB_TILE_K] * c->v[KNOB_SPLIT_K];
    if (sh->k % kslice)
        reject(s, "a tile_k or split_k whose product divides K", "K=%ld is not a multiple of tile_k x split_k = %ld",
               sh->k, kslice);
}

bool knobs_validate(const struct croq_config *c, const struct croq_shape *sh, char *why, size_t whylen)
{
    struct rule_sink s = {.why = why, .whylen = whylen};
    validate_all(c, sh, &s);
    return s.n == 0;
}

int knobs_violations(const struct croq_config *c, const struct croq_shape *sh, struct knobs_violation *out, int max)
{
    struct rule_sink s = {.all = true, .out = out, .max = max};
    validate_all(c, sh, &s);
    return s.n;
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
        char name[64]; /* knobs_set proved the '=' is there and the trimmed name a knob's */
        trimmed(tok, strchr(tok, '='), name, sizeof name);
        seen[knobs_find(name)] = true;
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

/* One dimension: decimal digits only (no sign, no blank: " 1024" and "+1024" are refused
 * as "1024 " is), at most 9 of them, so the value fits every caller's arithmetic. */
static const char *shape_dim(const char *s, long *out)
{
    long v = 0;
    int n = 0;
    for (; *s >= '0' && *s <= '9'; s++, n++) {
        if (n == 9)
            return NULL;
        v = 10 * v + (*s - '0');
    }
    *out = v;
    return n ? s : NULL;
}

int shape_parse(const char *s, struct croq_shape *out)
{
    if (!s || !(s = shape_dim(s, &out->m)) || *s++ != 'x' || !(s = shape_dim(s, &out->n)) || *s++ != 'x' ||
        !(s = shape_dim(s, &out->k)) || *s)
        return -1;
    return (out->m > 0 && out->n > 0 && out->k > 0) ? 0 : -1;
}

int knobs_config_cmp(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct croq_config));
}

bool knobs_config_in(const struct croq_config *set, size_t n, const struct croq_config *cfg)
{
    return !set || bsearch(cfg, set, n, sizeof *set, knobs_config_cmp) != NULL;
}
