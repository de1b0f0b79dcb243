/* src/profile/csv.h — a small RFC 4180 reader for ncu's CSV output: fields separated
 * by commas, optionally quoted with '"' (a quoted field may hold commas, newlines and
 * '""' for a quote), records ended by LF or CRLF. ncu writes numbers with thousands
 * separators inside quotes ("1,234.5") and tuples like "(32, 32, 1)", so a naive split
 * on ',' is wrong.
 */
#ifndef CROQ_PROFILE_CSV_H
#define CROQ_PROFILE_CSV_H
#include <stdbool.h>
#include <stddef.h>

struct csv_record {
    size_t n;
    char **fields; /* NUL-terminated, unquoted */
};

struct csv_table {
    size_t n;
    struct csv_record *rows;
};

/* Parse text into t. With skip_tool_lines, a line that starts (outside quotes) with
 * "==" is ncu's own message ("==PROF== ...", "==WARNING== ...") and is skipped; empty
 * lines are always skipped; a UTF-8 byte-order mark at the start of text is skipped.
 * 0, or -1 with err (unterminated quote, out of memory);
 * t is empty after a failure. */
int csv_parse(const char *text, bool skip_tool_lines, struct csv_table *t, char *err, size_t errlen);
void csv_release(struct csv_table *t);
#endif
