/* src/util/utctime.c — UTC stamps (utctime.h). */
#include "util/utctime.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void utc_format(time_t t, char *out)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, UTC_STAMP_SIZE, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void utc_now(char *out) { utc_format(time(NULL), out); }

double utc_parse(const char *s)
{
    struct tm tm;
    int n = 0;
    memset(&tm, 0, sizeof tm);
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                     &tm.tm_sec, &n) != 6 || n != UTC_STAMP_SIZE - 1 || s[n])
        return NAN;
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
        tm.tm_sec > 60 || tm.tm_year < 1970 || tm.tm_hour < 0 || tm.tm_min < 0 || tm.tm_sec < 0)
        return NAN;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm);
}
