/* src/util/srcnorm.h — a hash of C/CUDA source text by its tokens, so two sources that
 * differ only in comments, whitespace or line breaks hash the same (agent mode's
 * "this kernel was already tried", docs/agent.md).
 *
 * Tokens: identifiers and numbers, string and character literals (kept whole, escapes
 * and all), and operators by longest match ("++" is one token, "+ +" two), so "a+b" and
 * "a + b" are equal but "a++b" and "a+ +b" are not. Comments are dropped (outside
 * literals); a backslash-newline joins lines; the end of a preprocessor line ('#' first
 * on its line) is a token, because it ends the directive. Not a C parser: text that is
 * not C still hashes deterministically.
 */
#ifndef CROQ_UTIL_SRCNORM_H
#define CROQ_UTIL_SRCNORM_H
#include <stddef.h>
#include <stdint.h>

/* FNV-1a 64 (util/hash.h) over the token stream of src[0..len), each token followed
 * by a NUL. Pure; thread-safe. */
uint64_t srcnorm_hash(const char *src, size_t len);

/* Same as 16 lower-case hex digits + NUL. */
void srcnorm_hash_hex(const char *src, size_t len, char out[17]);

#endif
