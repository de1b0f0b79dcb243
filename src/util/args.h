/* src/util/args.h — the small option parser the subcommands share: "--name VALUE" and
 * "--name=VALUE", flags, numbers. Errors are printed ("croqtuner: ...") so a command only
 * returns 2 (bad usage).
 */
#ifndef CROQ_UTIL_ARGS_H
#define CROQ_UTIL_ARGS_H
#include <stdbool.h>

/* If argv[*i] is `name VALUE` or `name=VALUE` (name includes the dashes): *val = VALUE,
 * *i moved to the last word used, 1. Not this option: 0. `name` as the last word, with
 * no value: message printed, -1. */
int args_value(int argc, char **argv, int *i, const char *name, const char **val);

/* argv[i] is exactly name. */
bool args_flag(char **argv, int i, const char *name);

/* Whole-string numbers; 0 or -1 (message printed naming the option). */
int args_double(const char *option, const char *s, double *out);
int args_long(const char *option, const char *s, long *out);
/* A percentage in [0, 100]: a number with or without a trailing '%' ("2", "2%", "0.5%").
 * 0 or -1 (message printed naming the option). The one parser of every option that
 * takes a percentage. */
int args_percent(const char *option, const char *s, double *out);
#endif
