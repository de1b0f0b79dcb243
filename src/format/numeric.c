/* src/format/numeric.c — f16 and e4m3 conversions with integer rounding. */
#include "numeric.h"

#include <string.h>

#include "../../kernels/abi.h"
#include "target/dtype.h"

static uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float f32_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Round a finite, non-negative float (bits without sign) to a binary format with
 * mbits mantissa bits whose smallest normal exponent is emin, to nearest, ties to
 * even. Returns the format's magnitude code (exponent field << mbits | mantissa);
 * a result past the format's largest finite value is returned as is, for the
 * caller to turn into inf or saturate. Works because, within and across binades,
 * consecutive codes are consecutive representable values: a rounding carry out of
 * the mantissa bumps the exponent field, and subnormal code q (q <= 2^mbits) is the
 * value q * 2^(emin - mbits) with code 2^mbits meaning the smallest normal. */
static uint32_t round_magnitude(uint32_t abs_bits, int mbits, int emin)
{
    int exp_field = (int)(abs_bits >> 23);
    if (exp_field == 0) /* f32 subnormal (< 2^-126): far below half of either quantum */
        return 0;
    int e = exp_field - 127;
    uint64_t sig = (abs_bits & 0x7FFFFFu) | 0x800000u; /* value = sig * 2^(e-23) */
    int quantum_exp = (e >= emin ? e : emin) - mbits;
    int shift = quantum_exp - (e - 23); /* >= 23 - mbits >= 13 */
    if (shift > 25)                     /* value < quantum / 2: rounds to zero */
        return 0;
    uint64_t q = sig >> shift;
    uint64_t rem = sig & ((1ull << shift) - 1);
    uint64_t half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    uint32_t base = e >= emin ? (uint32_t)(e - emin) << mbits : 0;
    return base + (uint32_t)q;
}

float numeric_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0x1F) /* inf / NaN: payload moved to the top of the f32 mantissa */
        return f32_from_bits(sign | 0x7F800000u | (m << 13));
    if (e == 0) { /* zero or subnormal m * 2^-24, exact in float */
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    return f32_from_bits(sign | ((e - 15 + 127) << 23) | (m << 13));
}

uint16_t numeric_f32_to_f16(float x)
{
    uint32_t u = f32_bits(x);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) { /* NaN: keep the top payload bits, stay a NaN */
        uint32_t m = (a >> 13) & 0x3FFu;
        return (uint16_t)(sign | 0x7C00u | (m ? m : 0x200u));
    }
    if (a >= 0x47800000u) /* >= 2^16 (and inf): beyond the overflow midpoint 65520 */
        return (uint16_t)(sign | 0x7C00u);
    uint32_t code = round_magnitude(a, 10, -14);
    return (uint16_t)(sign | (code >= 0x7C00u ? 0x7C00u : code));
}

float numeric_e4m3_to_f32(uint8_t b)
{
    uint32_t sign = (uint32_t)(b & 0x80u) << 24;
    uint32_t e = (b >> 3) & 0xFu, m = b & 0x7u;
    if (e == 0xF && m == 0x7)
        return f32_from_bits(sign | 0x7FC00000u);
    if (e == 0) { /* zero or subnormal m * 2^-9 */
        float v = (float)m * 0x1p-9f;
        return sign ? -v : v;
    }
    return f32_from_bits(sign | ((e - 7 + 127) << 23) | (m << 20));
}

uint8_t numeric_f32_to_e4m3(float x)
{
    uint32_t u = f32_bits(x);
    uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return (uint8_t)(sign | 0x7Fu);
    if (a > 0x43E00000u) /* > 448 or inf: saturate (satfinite) */
        return (uint8_t)(sign | 0x7Eu);
    return (uint8_t)(sign | round_magnitude(a, 3, -6));
}

size_t numeric_dtype_bytes(int dtype)
{
    return croq_dtype_valid(dtype) ? (size_t)croq_dtype_traits(dtype)->bytes : 0;
}

uint32_t numeric_load_bits(int dtype, const void *base, size_t i)
{
    if (dtype == CROQ_DTYPE_E4M3)
        return ((const uint8_t *)base)[i];
    return ((const uint16_t *)base)[i];
}

float numeric_load_f32(int dtype, const void *base, size_t i)
{
    if (dtype == CROQ_DTYPE_E4M3)
        return numeric_e4m3_to_f32(((const uint8_t *)base)[i]);
    return numeric_f16_to_f32(((const uint16_t *)base)[i]);
}

void numeric_store_bits(int dtype, void *base, size_t i, uint32_t bits)
{
    if (dtype == CROQ_DTYPE_E4M3)
        ((uint8_t *)base)[i] = (uint8_t)bits;
    else
        ((uint16_t *)base)[i] = (uint16_t)bits;
}
