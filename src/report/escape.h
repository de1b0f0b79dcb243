/* src/report/escape.h — append untrusted text (idea text, notes, file names) to an
 * output in one format, so that it reads as the same text there and can never become
 * markup: HTML, CSV (RFC 4180), a Markdown table cell, LaTeX, JSON inside <script>,
 * and a relative URL path.
 */
#ifndef CROQ_REPORT_ESCAPE_H
#define CROQ_REPORT_ESCAPE_H
#include "util/strbuf.h"

/* & < > " ' as entities; other control characters (not tab/newline) as U+FFFD. */
void esc_html(struct strbuf *sb, const char *s);
/* Quoted (with "" for ") when s has a comma, quote, CR or newline, or edge spaces. */
void esc_csv(struct strbuf *sb, const char *s);
/* One table cell: | and Markdown punctuation backslash-escaped, < & as entities,
 * newlines and tabs as spaces (a cell cannot span lines). */
void esc_md(struct strbuf *sb, const char *s);
/* LaTeX text mode: the ten special characters and < > | as commands; newlines as spaces. */
void esc_tex(struct strbuf *sb, const char *s);
/* JSON text made safe inside an HTML <script> element: < > & written as \u003c ...
 * (they can only occur inside JSON strings, where the escape means the same). */
void esc_json_script(struct strbuf *sb, const char *json);
/* Percent-encode everything but unreserved characters and '/' (RFC 3986), for href. */
void esc_url_path(struct strbuf *sb, const char *path);
#endif
