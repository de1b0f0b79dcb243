/* src/util/hash.h — FNV-1a 64-bit hash (Fowler/Noll/Vo, offset basis
 * 14695981039346656037, prime 1099511628211; http://www.isthe.com/chongo/tech/comp/fnv/).
 * Used for cache keys and short file-name tags, where inputs are our own text, not
 * adversarial; not a cryptographic hash.
 */
#ifndef CROQ_UTIL_HASH_H
#define CROQ_UTIL_HASH_H
#include <stddef.h>
#include <stdint.h>

#define HASH_FNV1A64_INIT UINT64_C(14695981039346656037)

/* Continue hash h over data[0..len). Start with HASH_FNV1A64_INIT. */
uint64_t hash_fnv1a64(uint64_t h, const void *data, size_t len);
/* Same over a string and its terminating NUL, so ("ab","c") and ("a","bc") differ. */
uint64_t hash_fnv1a64_str(uint64_t h, const char *s);
/* 16 lower-case hex digits + NUL. */
void hash_hex(uint64_t h, char out[17]);
#endif
