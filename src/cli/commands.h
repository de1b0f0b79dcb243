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
int cmd_knobs(int argc, char **argv);
#endif
