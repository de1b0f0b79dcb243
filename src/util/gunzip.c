/* src/util/gunzip.c — see gunzip.h. */
#include "util/gunzip.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

bool gunzip_is(const char *data, size_t len)
{
    return len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b;
}

char *gunzip_mem(const char *data, size_t len, size_t max, size_t *out_len, char *err, size_t errlen)
{
    if (!gunzip_is(data, len)) {
        snprintf(err, errlen, "not gzip data (no 1f 8b magic)");
        return NULL;
    }
    if (len > UINT_MAX) { /* zlib counts its input in uInt */
        snprintf(err, errlen, "gzip data of %zu bytes: more than zlib takes at once", len);
        return NULL;
    }
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) { /* 16: a gzip wrapper, not zlib's */
        snprintf(err, errlen, "zlib: inflateInit2 failed");
        return NULL;
    }
    if (max > SIZE_MAX / 2) /* room for max + 2 bytes below, without wrapping */
        max = SIZE_MAX / 2;
    size_t cap = max + 2, used = 0; /* the first guess, len x 4 + 64, never above max + 2 */
    if (len < SIZE_MAX / 8 && len * 4 + 64 < cap)
        cap = len * 4 + 64;
    char *buf = malloc(cap);
    zs.next_in = (Bytef *)data;
    zs.avail_in = (uInt)len;
    char over[96];
    snprintf(over, sizeof over, "larger than the limit of %zu bytes when inflated", max);
    const char *why = buf ? NULL : "out of memory";
    while (!why) {
        if (cap - used < 2) {
            if (cap > max) {
                why = over;
                break;
            }
            size_t ncap = cap * 2 > max + 2 ? max + 2 : cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                why = "out of memory";
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t room = cap - used - 1; /* one byte stays for the NUL */
        zs.next_out = (Bytef *)buf + used;
        zs.avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
        uInt before = zs.avail_out;
        int rc = inflate(&zs, Z_NO_FLUSH);
        used += before - zs.avail_out;
        if (used > max) {
            why = over;
        } else if (rc == Z_STREAM_END) {
            if (!zs.avail_in)
                break;
            if (!gunzip_is((const char *)zs.next_in, zs.avail_in)) {
                why = "trailing bytes after the last gzip member";
                break;
            }
            inflateReset(&zs); /* the next member */
        } else if (rc == Z_BUF_ERROR && !zs.avail_in) {
            why = "cut short (the gzip member does not end)";
        } else if (rc == Z_MEM_ERROR) {
            why = "out of memory";
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            why = zs.msg ? zs.msg : "damaged gzip data";
        }
    }
    inflateEnd(&zs);
    if (why) {
        snprintf(err, errlen, "%s", why);
        free(buf);
        return NULL;
    }
    buf[used] = '\0';
    if (out_len)
        *out_len = used;
    return buf;
}
