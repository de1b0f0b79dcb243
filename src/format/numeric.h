/* src/format/numeric.h — the two operand number formats, bit-exact on the host.
 *
 * f16:  IEEE 754 binary16, stored as uint16_t: 1 sign, 5 exponent (bias 15),
 *       10 mantissa bits; subnormals, +-inf, NaN. Largest finite 65504.
 * e4m3: OCP 8-bit floating point, E4M3 "fn" variant (OCP OFP8 spec v1.0, 2023,
 *       section 5.1; CUDA __nv_fp8_e4m3), stored as uint8_t: 1 sign, 4 exponent
 *       (bias 7), 3 mantissa bits. No infinities; exponent 15 is a normal binade
 *       except S.1111.111 (0x7F / 0xFF) = NaN. Largest finite 448 (0x7E); smallest
 *       normal 2^-6 (0x08); subnormals m * 2^-9, m = 1..7 (0x01 = 2^-9).
 *
 * Every f16 and e4m3 value is exactly representable as a float, so the *_to_f32
 * conversions are exact and *_from_f32(*_to_f32(x)) == x for every bit pattern
 * (NaN payloads included: f16 keeps the top 10 payload bits, e4m3 keeps the sign).
 *
 * float -> f16: round to nearest, ties to even (IEEE default); magnitudes at or
 *   above 65520 (the midpoint between 65504 and 2^16) become +-inf; NaN stays NaN
 *   (payload truncated to 10 bits, made quiet if that leaves it zero).
 * float -> e4m3: round to nearest, ties to even, then SATURATE: every finite
 *   magnitude above 448, and +-inf, becomes +-448 (0x7E / 0xFE). This is the
 *   behaviour of PTX cvt.rn.satfinite.e4m3x2.f32 (PTX ISA, "cvt": .satfinite is
 *   mandatory for e4m3), so host-made operands equal device-made ones. NaN -> 0x7F
 *   with the input's sign. -0.0 -> 0x80.
 * Neither conversion depends on the floating-point environment (integer rounding).
 */
#ifndef CROQ_FORMAT_NUMERIC_H
#define CROQ_FORMAT_NUMERIC_H

#include <stddef.h>
#include <stdint.h>

float numeric_f16_to_f32(uint16_t h);
uint16_t numeric_f32_to_f16(float x);
float numeric_e4m3_to_f32(uint8_t b);
uint8_t numeric_f32_to_e4m3(float x);

/* Bytes per element of enum croq_dtype (kernels/abi.h): 2 for f16, 1 for e4m3,
 * 0 for anything else (callers use 0 to reject an unknown dtype). */
size_t numeric_dtype_bytes(int dtype);

/* Element i of an array of dtype elements, as its bit pattern (zero-extended) or as
 * its exact float value. dtype must be valid (numeric_dtype_bytes(dtype) != 0). */
uint32_t numeric_load_bits(int dtype, const void *base, size_t i);
float numeric_load_f32(int dtype, const void *base, size_t i);
/* Store the low 8/16 bits of bits as element i. */
void numeric_store_bits(int dtype, void *base, size_t i, uint32_t bits);

#endif
