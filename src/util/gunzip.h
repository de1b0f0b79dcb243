/* src/util/gunzip.h — a gzip file's content (RFC 1952) inflated in memory, through zlib.
 * Why: the committed explore datasets are JSONL of ~2 KB a record (the raw measurement
 * kept whole), several MB a shape; gzip makes them ~10x smaller in the repository, and
 * their readers take either form. The form is told by the content (the magic bytes
 * 1f 8b), not by the file's name. Thread-safe (no state). */
#ifndef CROQ_UTIL_GUNZIP_H
#define CROQ_UTIL_GUNZIP_H
#include <stdbool.h>
#include <stddef.h>

/* Whether data[0..len) starts as a gzip member does (RFC 1952 section 2.3.1: ID1 0x1f,
 * ID2 0x8b). */
bool gunzip_is(const char *data, size_t len);

/* data[0..len) inflated, every member in turn (concatenated members are one file, as
 * gunzip reads them), into a NUL-terminated buffer (free() it); *out_len (bytes without
 * the NUL) optional. At most max bytes inflated (a small file cannot expand into all of
 * memory; a max above SIZE_MAX / 2 counts as SIZE_MAX / 2), and no more than max + 2
 * bytes allocated. NULL with the reason in err: not gzip, damaged (zlib's message), cut
 * short, trailing bytes that are no member, more than max bytes (the message names the
 * limit), or out of memory. */
char *gunzip_mem(const char *data, size_t len, size_t max, size_t *out_len, char *err, size_t errlen);

#endif
