/* src/util/utctime.h — the one form of a time in croqtuner's files: UTC ISO 8601 to the
 * second, "2026-11-29T11:42:07Z" (results.tsv timestamps, claims, the sweep's progress,
 * vendor.json, explore datasets, bench tables). Written and read here only, so a reader
 * never accepts what no writer produces. Thread-safe (gmtime_r, timegm; no state).
 */
#ifndef CROQ_UTIL_UTCTIME_H
#define CROQ_UTIL_UTCTIME_H
#include <time.h>

/* Bytes of a stamp with its NUL (20 characters). Buffers of 32 hold one too. */
#define UTC_STAMP_SIZE 21

/* t as a stamp into out (at least UTC_STAMP_SIZE bytes). */
void utc_format(time_t t, char *out);
/* Now as a stamp. */
void utc_now(char *out);
/* Seconds since the epoch of a stamp: exactly the 20 characters above (fields in range,
 * nothing after the Z), else NAN. */
double utc_parse(const char *s);
#endif
