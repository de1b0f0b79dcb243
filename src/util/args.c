/* src/util/args.c — subcommand option parsing (see args.h). */
#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

int args_value(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n))
        return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n])
        return 0; /* a longer option that starts with name */
    if (*i + 1 >= argc) {
        log_error("option '%s' needs a value", name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

bool args_flag(char **argv, int i, const char *name) { return !strcmp(argv[i], name); }

int args_double(const char *option, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) {
        log_error("option '%s': '%s' is not a number", option, s);
        return -1;
    }
    *out = v;
    return 0;
}

int args_percent(const char *option, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end != s && *end == '%')
        end++;
    if (errno || end == s || *end || !(v >= 0 && v <= 100)) {
        log_error("option '%s': '%s' is not a percentage in 0..100 (e.g. 2 or 2%%)", option, s);
        return -1;
    }
    *out = v;
    return 0;
}

int args_long(const char *option, const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end) {
        log_error("option '%s': '%s' is not an integer", option, s);
        return -1;
    }
    *out = v;
    return 0;
}
