/* src/format/rng.c — xoshiro256** seeded by splitmix64, and dtype fillers. */
#include "rng.h"

#include <math.h>
#include <stdio.h>

#include "../../kernels/abi.h"
#include "numeric.h"
#include "target/dtype.h"

uint64_t rng_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = rng_splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_uniform(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1p-53; }

/* Round a float to the dtype and back: the value an element will hold. */
static uint32_t to_dtype(int dtype, float x)
{
    return dtype == CROQ_DTYPE_E4M3 ? numeric_f32_to_e4m3(x) : numeric_f32_to_f16(x);
}

static int is_zero_bits(int dtype, uint32_t bits)
{
    return (bits & croq_dtype_traits(dtype)->mag_mask) == 0;
}

static int check_range(int dtype, float lo, float hi, char *err, size_t errlen)
{
    const char *name = croq_dtype_traits(dtype)->name;
    if (!isfinite(lo) || !isfinite(hi) || lo > hi) {
        snprintf(err, errlen, "random range [%g, %g]: need finite lo <= hi", (double)lo, (double)hi);
        return -1;
    }
    if (is_zero_bits(dtype, to_dtype(dtype, lo)) && is_zero_bits(dtype, to_dtype(dtype, hi))) {
        snprintf(err, errlen, "random range [%g, %g]: every value rounds to zero in '%s'",
                 (double)lo, (double)hi, name);
        return -1;
    }
    return 0;
}

int rng_fill(struct rng *r, int dtype, void *dst, size_t n, float lo, float hi,
             char *err, size_t errlen)
{
    if (!numeric_dtype_bytes(dtype)) {
        snprintf(err, errlen, "random fill: dtype %d is not f16 or e4m3", dtype);
        return -1;
    }
    if (check_range(dtype, lo, hi, err, errlen))
        return -1;
    int all_zero = 1;
    for (size_t i = 0; i < n; i++) {
        double v = (double)lo + ((double)hi - (double)lo) * rng_uniform(r);
        v = v < lo ? lo : v > hi ? hi : v;
        uint32_t bits = to_dtype(dtype, (float)v);
        numeric_store_bits(dtype, dst, i, bits);
        all_zero &= is_zero_bits(dtype, bits);
    }
    if (n && all_zero) /* a zero operand would make any kernel look correct */
        numeric_store_bits(dtype, dst, n - 1, to_dtype(dtype, fabsf(hi) >= fabsf(lo) ? hi : lo));
    return 0;
}

int rng_fill_f16(struct rng *r, uint16_t *dst, size_t n, float lo, float hi,
                 char *err, size_t errlen)
{
    return rng_fill(r, CROQ_DTYPE_F16, dst, n, lo, hi, err, errlen);
}

int rng_fill_e4m3(struct rng *r, uint8_t *dst, size_t n, float lo, float hi,
                  char *err, size_t errlen)
{
    return rng_fill(r, CROQ_DTYPE_E4M3, dst, n, lo, hi, err, errlen);
}
