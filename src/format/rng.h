/* src/format/rng.h — deterministic random operands.
 *
 * Generator: xoshiro256** 1.0 (D. Blackman, S. Vigna, "Scrambled linear pseudorandom
 * number generators", ACM TOMS 2021; reference code
 * https://prng.di.unimi.it/xoshiro256starstar.c), its 256-bit state filled by four
 * outputs of splitmix64 (https://prng.di.unimi.it/splitmix64.c) started at the seed,
 * as the xoshiro authors recommend. splitmix64's output is a bijection of its
 * counter, so the four words are distinct and the state is never all zero (the one
 * state xoshiro cannot leave).
 *
 * Same seed -> same sequence -> same operand bytes, on any machine: the fillers use
 * only integer arithmetic, IEEE double arithmetic and the exact conversions of
 * src/format/numeric.h.
 */
#ifndef CROQ_FORMAT_RNG_H
#define CROQ_FORMAT_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
    uint64_t s[4]; /* xoshiro256** state; may be set directly (tests use {1,2,3,4}) */
};

/* One splitmix64 step: advances *x by the golden-ratio increment, returns the mix. */
uint64_t rng_splitmix64(uint64_t *x);
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform double in [0, 1): the top 53 bits of rng_next() times 2^-53. */
double rng_uniform(struct rng *r);

/* Fill dst[0..n) with values uniform in [lo, hi] rounded to the dtype: each element
 * is lo + (hi - lo) * rng_uniform() computed in double, clamped to [lo, hi], rounded
 * to float, then to the dtype (numeric.h: f16 round-to-nearest-even; e4m3 also
 * saturating to +-448). One rng_next() per element, in index order.
 * Never all zeros: if every element came out +-0 (possible only for a small n or a
 * range hugging zero), dst[n-1] is set to the endpoint of larger magnitude, rounded.
 * Returns 0, or -1 with a message in err (errlen may be 0) when lo or hi is not
 * finite, lo > hi, or both endpoints round to zero in the dtype (no non-zero value
 * can be produced). dst is untouched on error. */
int rng_fill_f16(struct rng *r, uint16_t *dst, size_t n, float lo, float hi,
                 char *err, size_t errlen);
int rng_fill_e4m3(struct rng *r, uint8_t *dst, size_t n, float lo, float hi,
                  char *err, size_t errlen);
/* The same for dtype = enum croq_dtype (kernels/abi.h); -1 for an unknown dtype. */
int rng_fill(struct rng *r, int dtype, void *dst, size_t n, float lo, float hi,
             char *err, size_t errlen);

#endif
