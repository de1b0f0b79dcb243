/* src/util/opts.h — the one option parser of croqtuner's subcommands: each command
 * declares its options as one table (struct opt: name, value type and validator, where
 * the value goes, repeat policy) and opts_parse reads argv against it. The same table is
 * what --help is checked against, so the help text and the parser cannot drift apart.
 *
 * Syntax: "--name VALUE" or "--name=VALUE" for an option with a value (VALUE may start
 * with '-': "--seed -1" is the option --seed with the value "-1", refused by its type;
 * but a separate VALUE that is one of the table's options or --help is bad usage, a value
 * forgotten: "--tuning --quiet"; "--tuning=--quiet" gives it), "--name" alone for a flag. "--help" and "-h" print the command's usage.
 *
 * Errors are printed naming the command and the option ("croqtuner: tune: option
 * '--iters': 0 is outside [1, 100000]"), so a
 * command only returns 2 (bad usage). Every check here happens before the command does
 * any work: a wrong path or value costs nothing and creates nothing.
 *
 * Not thread-safe (a table's parse state is in the table); commands parse once, in main.
 */
#ifndef CROQ_UTIL_OPTS_H
#define CROQ_UTIL_OPTS_H
#include <stdbool.h>
#include <stddef.h>

enum opt_type {
    OPT_FLAG,    /* no value; dst bool *, set true (a flag given twice is harmless) */
    OPT_STR,     /* dst const char **: any value */
    OPT_INT,     /* dst int *: a whole-string decimal integer in [lo, hi] */
    OPT_LONG,    /* dst long *: the same */
    OPT_U64,     /* dst unsigned long long *: a decimal integer >= 0 (a seed) */
    OPT_DOUBLE,  /* dst double *: a finite number in [dlo, dhi] */
    OPT_PERCENT, /* dst double *: a percentage in [0, 100], "2" or "2%" */
    OPT_ENUM,    /* dst const char **: one of choices, "warm|cold" */
    OPT_FILE,    /* dst const char **: an existing regular file (an input) */
    OPT_DIR,     /* dst const char **: an existing directory (an input) */
    OPT_OUTFILE, /* dst const char **: a file to write: absent, or a regular file */
    OPT_OUTDIR,  /* dst const char **: a directory to use or create: absent, or a directory */
    OPT_CUSTOM,  /* dst as check wants: check(value, dst, err, errlen) validates and stores */
};

/* Flags of struct opt. */
#define OPT_HIDDEN 1u /* for tests or refused with a reason by the command: not in --help */

struct opt {
    const char *name;  /* with its dashes: "--dtype" */
    enum opt_type type;
    void *dst;         /* where the value goes; for a repeatable option an array of max */
    const char *alias; /* another spelling ("-v"), or NULL */
    long lo, hi;       /* OPT_INT, OPT_LONG: the range */
    double dlo, dhi;   /* OPT_DOUBLE: the range (both 0: any finite number) */
    const char *choices; /* OPT_ENUM: "a|b|c" */
    /* OPT_CUSTOM: 0 stored, -1 with err (the value's problem; the option is named by
     * the caller) */
    int (*check)(const char *value, void *dst, char *err, size_t errlen);
    /* Repeat policy. 0: once (a single-valued option given twice is refused). N > 0:
     * repeatable up to N times: a string-valued type (OPT_STR, OPT_ENUM, the paths; or
     * OPT_CUSTOM, given &dst[slot]) whose values go in order into the const char *dst[N],
     * their number in *count (required). Two options with one dst and count fill one
     * list in the order given (bench's --shape and --shapes). */
    int max;
    int *count;
    unsigned flags;
    int seen; /* set by opts_parse: how many times it was given */
};

/* The option table of one command, and what its --help prints. */
struct opt_spec {
    const char *command; /* "tune": named in messages */
    const char *usage;   /* the whole --help text */
    struct opt *opts;
    size_t n;
};

/* Parse argv[1..argc) against spec. 0 parsed (every value validated and stored), 1
 * --help printed to stdout (the command returns 0), 2 bad usage (message printed).
 * Positional words are refused as unknown options. */
int opts_parse(struct opt_spec *spec, int argc, char **argv);

/* Validate value as o's type says and store it in o->dst (a repeatable option: its first
 * slot): for a check of one type built on another (OPT_CUSTOM). 0, or -1 with err. */
int opts_value(const struct opt *o, const char *value, char *err, size_t errlen);

/* The entry of name in spec (NULL if none): for "was it given" (->seen). */
const struct opt *opts_find(const struct opt_spec *spec, const char *name);
bool opts_given(const struct opt_spec *spec, const char *name);

/* The drift check --help runs: every option of the table (but OPT_HIDDEN ones) is named
 * in the usage text, and every option the synopsis (the usage up to its first blank
 * line) names is in the table. 0, or -1 with the first mismatch in err. */
int opts_check_help(const struct opt_spec *spec, char *err, size_t errlen);

/* The value checks of the types above, for a value that does not come from argv (an
 * environment variable) or for a command's own checks after parsing: 0 or -1 with the
 * reason in err ("'/x' does not exist", "'/dev/zero' is not a regular file"). */
int opts_check_file(const char *path, char *err, size_t errlen);
int opts_check_dir(const char *path, char *err, size_t errlen);
int opts_check_outfile(const char *path, char *err, size_t errlen);
int opts_check_outdir(const char *path, char *err, size_t errlen);
#endif
