/* src/util/srcnorm.c — token hash of C/CUDA source (srcnorm.h). */
#include "srcnorm.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "hash.h"

/* Operators of C and C++, longest first within each length (maximal munch). */
static const char *const ops3[] = {"<<=", ">>=", "...", "->*", NULL};
static const char *const ops2[] = {"->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
                                   "*=", "/=", "%=", "&=", "|=", "^=", "::", "##", ".*", NULL};

struct cursor {
    const char *s;
    size_t n, i;
};

/* The character at i + k with backslash-newlines skipped from i on; '\0' past the end.
 * Advances c->i over splices that sit at i. */
static void skip_splices(struct cursor *c)
{
    while (c->i + 1 < c->n && c->s[c->i] == '\\' &&
           (c->s[c->i + 1] == '\n' || (c->s[c->i + 1] == '\r' && c->i + 2 < c->n && c->s[c->i + 2] == '\n')))
        c->i += c->s[c->i + 1] == '\n' ? 2 : 3;
}

static char at(struct cursor *c)
{
    skip_splices(c);
    return c->i < c->n ? c->s[c->i] : '\0';
}

static char next(struct cursor *c) /* the character after the current one */
{
    struct cursor d = *c;
    at(&d);
    d.i++;
    return at(&d);
}

static bool ident_char(char ch) { return isalnum((unsigned char)ch) || ch == '_' || ch == '$'; }

static uint64_t emit(uint64_t h, const char *tok, size_t len)
{
    h = hash_fnv1a64(h, tok, len);
    return hash_fnv1a64(h, "", 1);
}

uint64_t srcnorm_hash(const char *src, size_t len)
{
    struct cursor c = {src, len, 0};
    uint64_t h = HASH_FNV1A64_INIT;
    char tok[256];
    bool line_start = true, directive = false;
    for (;;) {
        char ch = at(&c);
        if (!ch && c.i >= c.n)
            break;
        if (ch == '\n') {
            if (directive)
                h = emit(h, "\n", 1);
            directive = false;
            line_start = true;
            c.i++;
            continue;
        }
        if (isspace((unsigned char)ch) || ch == '\0') {
            c.i++;
            continue;
        }
        if (ch == '/' && next(&c) == '/') { /* to the end of the line (splices continue it) */
            while (c.i < c.n && at(&c) != '\n')
                c.i++;
            continue;
        }
        if (ch == '/' && next(&c) == '*') {
            c.i += 2;
            while (c.i < c.n && !(at(&c) == '*' && next(&c) == '/'))
                c.i++;
            c.i += 2;
            continue;
        }
        if (line_start && ch == '#')
            directive = true;
        line_start = false;
        size_t n = 0;
        if (ch == '"' || ch == '\'') { /* a literal, whole; an unterminated one ends at the line */
            char q = ch;
            tok[n++] = ch;
            c.i++;
            while (c.i < c.n && (ch = at(&c)) != q && ch != '\n') {
                if (n < sizeof tok - 2)
                    tok[n++] = ch;
                else
                    h = emit(h, tok, n), n = 0; /* a long literal: hashed in pieces, deterministically */
                c.i++;
                if (ch == '\\' && c.i < c.n) {
                    if (n < sizeof tok - 2)
                        tok[n++] = at(&c);
                    c.i++;
                }
            }
            if (ch == q) {
                tok[n++] = q;
                c.i++;
            }
        } else if (ident_char(ch)) { /* identifiers and numbers (with 1e-5, 0x1p+3 exponents) */
            char prev = '\0';
            bool number = isdigit((unsigned char)ch);
            while (c.i < c.n && (ident_char(ch = at(&c)) || (number && ch == '.') ||
                                 (number && (ch == '+' || ch == '-') &&
                                  (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P')))) {
                if (n < sizeof tok - 1)
                    tok[n++] = ch;
                else
                    h = emit(h, tok, n), n = 0;
                prev = ch;
                c.i++;
            }
        } else {
            struct cursor d = c;
            char three[4] = {0};
            for (int k = 0; k < 3; k++) {
                three[k] = at(&d);
                d.i++;
            }
            size_t w = 1;
            for (int k = 0; ops3[k] && w == 1; k++)
                if (!memcmp(three, ops3[k], 3))
                    w = 3;
            for (int k = 0; ops2[k] && w == 1; k++)
                if (!memcmp(three, ops2[k], 2))
                    w = 2;
            for (size_t k = 0; k < w; k++) {
                tok[n++] = at(&c);
                c.i++;
            }
        }
        h = emit(h, tok, n);
    }
    return h;
}

void srcnorm_hash_hex(const char *src, size_t len, char out[17])
{
    hash_hex(srcnorm_hash(src, len), out);
}
