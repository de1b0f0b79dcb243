/* src/artifacts/names.c — shape keys, tuning modes, phase and decision names.
 *
 * A key becomes a path component (logs/<key>/, srcs/<key>/), so it is only ever made
 * by key_format from integers, and text claiming to be a key (from --key, state.json)
 * is accepted only if formatting its parsed integers gives back the same text.
 */
#include "artifacts/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const char *mode_name(enum tune_mode m)
{
    return m == MODE_FROM_CURRENT_BEST ? "from_current_best" : "from_scratch";
}

int mode_parse(const char *s)
{
    if (!s)
        return -1;
    if (!strcmp(s, "scratch") || !strcmp(s, "from_scratch"))
        return MODE_FROM_SCRATCH;
    if (!strcmp(s, "best") || !strcmp(s, "from_current_best"))
        return MODE_FROM_CURRENT_BEST;
    return -1;
}

void key_format(const struct shape_key *k, char out[KEY_MAX])
{
    snprintf(out, KEY_MAX, "%s_%ldx%ldx%ld%s", croq_dtype_name(k->dtype), k->shape.m, k->shape.n,
             k->shape.k, k->mode == MODE_FROM_SCRATCH ? "_fs" : "");
}

/* Digits only, no sign, no leading zero, at most 7 digits (shape_validate caps 2^20). */
static const char *parse_dim(const char *p, long *out)
{
    long v = 0;
    int n = 0;
    if (*p == '0')
        return NULL;
    while (*p >= '0' && *p <= '9' && n < 8) {
        v = v * 10 + (*p++ - '0');
        n++;
    }
    if (n == 0 || n > 7)
        return NULL;
    *out = v;
    return p;
}

int key_parse(const char *s, struct shape_key *k, char *err, size_t errlen)
{
    char back[KEY_MAX], why[CROQ_WHY_MAX];
    const char *us = s ? strchr(s, '_') : NULL;
    char dt[8];
    if (!us || (size_t)(us - s) >= sizeof dt)
        goto bad;
    memcpy(dt, s, (size_t)(us - s));
    dt[us - s] = '\0';
    if ((k->dtype = croq_dtype_parse(dt)) < 0)
        goto bad;
    const char *p = us + 1;
    if (!(p = parse_dim(p, &k->shape.m)) || *p++ != 'x' || !(p = parse_dim(p, &k->shape.n)) ||
        *p++ != 'x' || !(p = parse_dim(p, &k->shape.k)))
        goto bad;
    if (!strcmp(p, "_fs"))
        k->mode = MODE_FROM_SCRATCH;
    else if (!*p)
        k->mode = MODE_FROM_CURRENT_BEST;
    else
        goto bad;
    if (!shape_validate(k->dtype, &k->shape, why, sizeof why)) {
        snprintf(err, errlen, "shape key '%s': %s", s, why);
        return -1;
    }
    key_format(k, back);
    if (strcmp(back, s))
        goto bad;
    return 0;
bad:
    snprintf(err, errlen, "'%.80s' is not a shape key (expected <f16|e4m3>_<M>x<N>x<K>[_fs])",
             s ? s : "(null)");
    return -1;
}

static const char *const dec_names[DEC_COUNT] = {
    [DEC_BASELINE] = "BASELINE",
    [DEC_KEEP] = "KEEP",
    [DEC_DISCARD] = "DISCARD",
    [DEC_DISCARD_INCORRECT] = "DISCARD_INCORRECT",
    [DEC_DISCARD_RUNTIME_CRASH] = "DISCARD_RUNTIME_CRASH",
    [DEC_DISCARD_TIMEOUT] = "DISCARD_TIMEOUT",
    [DEC_COMPILE_ERROR] = "COMPILE_ERROR",
};

const char *decision_name(enum decision d)
{
    return (unsigned)d < DEC_COUNT ? dec_names[d] : "?";
}

int decision_parse(const char *s)
{
    for (int i = 0; s && i < DEC_COUNT; i++)
        if (!strcmp(s, dec_names[i]))
            return i;
    return -1;
}

bool decision_kept(enum decision d) { return d == DEC_BASELINE || d == DEC_KEEP; }

bool strategy_name_ok(const char *s)
{
    return s[0] && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(s);
}

static const char *const phase_names[PH_COUNT] = {
    [PH_INIT] = "INIT",           [PH_BASELINE] = "BASELINE", [PH_PROFILE] = "PROFILE",
    [PH_IDEATE] = "IDEATE",       [PH_IMPLEMENT] = "IMPLEMENT", [PH_MEASURE] = "MEASURE",
    [PH_DECIDE] = "DECIDE",       [PH_STORE] = "STORE",       [PH_LADDER] = "LADDER", [PH_SHAPE_COMPLETE] = "SHAPE_COMPLETE",
    [PH_NEXT_SHAPE] = "NEXT_SHAPE",
};

const char *phase_name(enum engine_phase p)
{
    return (unsigned)p < PH_COUNT ? phase_names[p] : "?";
}

int phase_parse(const char *s)
{
    for (int i = 0; s && i < PH_COUNT; i++)
        if (!strcmp(s, phase_names[i]))
            return i;
    return -1;
}
