/* src/util/decimal.c — see decimal.h. */
#include "decimal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The first byte after an optional '-': a digit, or for a real also '.'. */
static const char *body(const char *s) { return *s == '-' ? s + 1 : s; }

int dec_long(const char *s, long *out)
{
    const char *b = body(s);
    char *end;
    if (!(*b >= '1' && *b <= '9') && strcmp(b, "0"))
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int dec_double(const char *s, double *out)
{
    const char *b = body(s);
    char *end;
    if (!((*b >= '0' && *b <= '9') || *b == '.') || strpbrk(b, "xXpP"))
        return -1;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}
