/* src/util/strbuf.h — a growable NUL-terminated string, for building generated
 * source, command logs and messages without fixed-size buffers.
 * Allocation failure ends the program (log.h, xrealloc).
 */
#ifndef CROQ_UTIL_STRBUF_H
#define CROQ_UTIL_STRBUF_H
#include <stddef.h>

struct strbuf {
    char *buf;  /* always NUL-terminated once anything was added; NULL when empty */
    size_t len; /* bytes, without the NUL */
    size_t cap;
};

#define STRBUF_INIT {NULL, 0, 0}

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text ("" when empty); valid until the next change. */
const char *strbuf_str(const struct strbuf *sb);
/* Hand the text to the caller (free() it) and reset sb. Never NULL. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
#endif
