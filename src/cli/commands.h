/* src/cli/commands.h — the subcommands. One cmd_<name> per file in src/cli/, listed in
 * the table in main.c. Each gets argv with argv[0] = the subcommand name and returns
 * the process exit code: 0 success, 1 failure of the work, 2 bad usage. */
#ifndef CROQ_CLI_COMMANDS_H
#define CROQ_CLI_COMMANDS_H

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

/* Shared by the engine's commands (cmd_tune.c): the options every one of them takes
 * (--tuning, --backend, --seed, --iters, --git, --quiet, --busy-limit, ...): 1 taken,
 * 0 not one of them, -1 bad (message printed). */
struct engine_opts;
int engine_opt_parse(int argc, char **argv, int *i, struct engine_opts *o);
/* enum engine_rc -> exit status */
int engine_exit_code(int rc);
#endif
