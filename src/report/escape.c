/* src/report/escape.c — format-specific escaping of untrusted text (escape.h). */
#include "report/escape.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool is_ctrl(unsigned char c)
{
    return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f;
}

void esc_html(struct strbuf *sb, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': strbuf_adds(sb, "&amp;"); break;
        case '<': strbuf_adds(sb, "&lt;"); break;
        case '>': strbuf_adds(sb, "&gt;"); break;
        case '"': strbuf_adds(sb, "&quot;"); break;
        case '\'': strbuf_adds(sb, "&#39;"); break;
        default:
            if (is_ctrl((unsigned char)*s))
                strbuf_adds(sb, "\xef\xbf\xbd");
            else
                strbuf_add(sb, s, 1);
        }
    }
}

void esc_csv(struct strbuf *sb, const char *s)
{
    size_t len = strlen(s);
    bool quote = strpbrk(s, ",\"\r\n") != NULL || (len && (s[0] == ' ' || s[len - 1] == ' '));
    if (!quote) {
        strbuf_adds(sb, s);
        return;
    }
    strbuf_adds(sb, "\"");
    for (; *s; s++)
        strbuf_adds(sb, *s == '"' ? "\"\"" : (char[2]){*s, 0});
    strbuf_adds(sb, "\"");
}

void esc_md(struct strbuf *sb, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '<')
            strbuf_adds(sb, "&lt;");
        else if (c == '&')
            strbuf_adds(sb, "&amp;");
        else if (c == '\n' || c == '\t' || c == '\r' || is_ctrl(c))
            strbuf_adds(sb, " ");
        else if (strchr("\\`*_[]|#>~", c))
            strbuf_addf(sb, "\\%c", c);
        else
            strbuf_add(sb, s, 1);
    }
}

void esc_tex(struct strbuf *sb, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '\\': strbuf_adds(sb, "\\textbackslash{}"); break;
        case '{': case '}': case '$': case '&': case '#': case '_': case '%':
            strbuf_addf(sb, "\\%c", *s);
            break;
        case '^': strbuf_adds(sb, "\\textasciicircum{}"); break;
        case '~': strbuf_adds(sb, "\\textasciitilde{}"); break;
        case '<': strbuf_adds(sb, "\\textless{}"); break;
        case '>': strbuf_adds(sb, "\\textgreater{}"); break;
        case '|': strbuf_adds(sb, "\\textbar{}"); break;
        default:
            if (*s == '\n' || *s == '\t' || *s == '\r' || is_ctrl((unsigned char)*s))
                strbuf_adds(sb, " ");
            else
                strbuf_add(sb, s, 1);
        }
    }
}

void esc_json_script(struct strbuf *sb, const char *json)
{
    for (; *json; json++) {
        if (*json == '<')
            strbuf_adds(sb, "\\u003c");
        else if (*json == '>')
            strbuf_adds(sb, "\\u003e");
        else if (*json == '&')
            strbuf_adds(sb, "\\u0026");
        else
            strbuf_add(sb, json, 1);
    }
}

void esc_url_path(struct strbuf *sb, const char *path)
{
    for (; *path; path++) {
        unsigned char c = (unsigned char)*path;
        if (isalnum(c) || strchr("-._~/", c))
            strbuf_add(sb, path, 1);
        else
            strbuf_addf(sb, "%%%02X", c);
    }
}
