/* src/util/hash.c — FNV-1a 64 (see hash.h). */
#include "hash.h"

#include <stdio.h>
#include <string.h>

uint64_t hash_fnv1a64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

uint64_t hash_fnv1a64_str(uint64_t h, const char *s) { return hash_fnv1a64(h, s, strlen(s) + 1); }

void hash_hex(uint64_t h, char out[17]) { snprintf(out, 17, "%016llx", (unsigned long long)h); }
