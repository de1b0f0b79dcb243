/* src/util/decimal.h — numbers read back as this project writes them: decimal only.
 * strtol/strtod also take a leading blank, a '+', and (strtod) hex such as "0x1p-3";
 * none of our writers prints those, so a value that has them is hand-made or damaged.
 * Taken: an optional '-', then digits (an integer: no leading zero but "0" itself; a
 * real: strtod's decimal form, digits or '.' first, an exponent allowed), and nothing
 * after. Used by the option parser (opts.h), the cost model and pack formats and the
 * plan cache. Thread-safe (errno aside). */
#ifndef CROQ_UTIL_DECIMAL_H
#define CROQ_UTIL_DECIMAL_H

/* 0 with *out, or -1: not such an integer, or outside long's range. */
int dec_long(const char *s, long *out);
/* 0 with *out, or -1: not such a number, or not finite (an overflow included). */
int dec_double(const char *s, double *out);

#endif
