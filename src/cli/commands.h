/* src/cli/commands.h — the subcommands. One cmd_<name> per file in src/cli/, listed in
 * the table in main.c. Each gets argv with argv[0] = the subcommand name and returns
 * the process exit code: 0 success, 1 failure of the work, 2 bad usage. */
#ifndef CROQ_CLI_COMMANDS_H
#define CROQ_CLI_COMMANDS_H
#include <stddef.h>
#include <stdio.h>

#include "knobs/knobs.h"

struct croq_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

int cmd_bench(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_knobs(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_slurm(int argc, char **argv);
int cmd_propose(int argc, char **argv);
int cmd_explore(int argc, char **argv);
int cmd_replay_bench(int argc, char **argv);
int cmd_costmodel(int argc, char **argv);
int cmd_source(int argc, char **argv);
int cmd_compact(int argc, char **argv);
int cmd_plan_sim(int argc, char **argv);
int cmd_ladder(int argc, char **argv);

/* The options the engine's commands share (engine_opts.c): rows of a command's option
 * table (src/util/opts.h) that store into o. shown: the EO_* bits of the ones its --help
 * documents; taken: those it accepts hidden (it uses them without documenting them, as
 * --runner, or refuses them after parsing with its reason, as resume refuses --seed);
 * rows only for tests (no EO_* bit) are taken hidden by every command. A row neither shown
 * nor taken is left out, so the command says "unknown option" instead of ignoring it.
 * Writes at most ENGINE_OPTS_N rows to t and returns how many. */
struct engine_opts;
struct opt;
struct opt_spec;
enum {
    EO_TUNING = 1 << 0, EO_BACKEND = 1 << 1, EO_DATASET = 1 << 2, EO_SEED = 1 << 3, EO_ITERS = 1 << 4,
    EO_BUSY = 1 << 5, EO_SHAPES = 1 << 6, EO_L2 = 1 << 7, EO_GIT = 1 << 8, EO_QUIET = 1 << 9, EO_RUNNER = 1 << 10,
    EO_WAVES = 1 << 11,
};
#define ENGINE_OPTS_N 16
size_t engine_opts_table(struct engine_opts *o, unsigned shown, unsigned taken, struct opt *t);
/* After opts_parse: what the table cannot store by itself (o->seed_given). */
void engine_opts_given(const struct opt_spec *spec, struct engine_opts *o);
/* OPT_CUSTOM check of a --busy-limit MIN option: minutes >= 0, stored in seconds into
 * the double dst. */
int cli_busy_minutes(const char *v, void *dst, char *err, size_t errlen);
/* OPT_CUSTOM check of a --shape MxNxK option (shape_parse: digits and 'x' only): dst a
 * struct cli_shape, text NULL until given. The dtype's rules (shape_validate) are the
 * command's, once it knows the dtype. */
struct cli_shape {
    const char *text;
    struct croq_shape s;
};
int cli_shape_value(const char *v, void *dst, char *err, size_t errlen);
/* OPT_CUSTOM checks of --dtype (f16|e4m3; cli_dtype_all_value: or all) and --mode
 * (scratch|best, mode_parse's names): dst a const char *, set to the value once it is
 * one of those, so a command's croq_dtype_parse / mode_parse of it cannot fail. */
int cli_dtype_value(const char *v, void *dst, char *err, size_t errlen);
int cli_dtype_all_value(const char *v, void *dst, char *err, size_t errlen);
int cli_mode_value(const char *v, void *dst, char *err, size_t errlen);
/* OPT_CUSTOM check of a --key KEY option: a shape key as key_format writes it (key_parse:
 * no path in it); dst a const char *. */
int cli_key_value(const char *v, void *dst, char *err, size_t errlen);
/* Whether tuning directory dir ever held shape key (its logs or its checkpoint exist; one
 * of them missing is a damaged record, which the command itself reports). When it did
 * not, says so as `cmd: no shape KEY in 'DIR'` and returns 2: a key given on the command
 * line that names no shape is bad usage (audit, ladder, source); 0 otherwise. */
int cli_key_held(const char *cmd, const char *dir, const char *key);
/* 0 unless out (an output file option) names an existing file inside one of the tuning
 * directories dirs[0..n) (symbolic links and ".." resolved); else 2 with the message
 * printed: the write would replace one of the tuning's records. */
int cli_out_outside_tuning(const char *cmd, const char *opt, const char *out, const char *const *dirs, size_t n);
/* enum engine_rc -> exit status: 0 done or waiting, 2 bad usage, else 1 */
int engine_exit_code(int rc);
/* The search strategies' table (src/search/strategies.def), one "  NAME  summary" line
 * each, for the --help of the commands that take --strategy (cmd_tune.c). */
void cli_print_strategies(FILE *out);
#endif
