/* src/cli/main.c — croqtuner entry point: dispatch to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "health/nvml.h"
#include "util/version.h"

static const struct croq_command commands[] = {
    {"bench", cmd_bench, "build, verify and time one kernel configuration on shapes of one or both dtypes"},
    {"compare", cmd_compare, "our kernel next to cuSPARSELt and cuBLAS on one shape, with ratios"},
    {"build", cmd_build, "generate and compile one configuration, with its static check"},
    {"export", cmd_export, "the registered bests of tuning directories as a kernel pack for libcroqsparse"},
    {"knobs", cmd_knobs, "list the kernel family's knobs, or check a configuration"},
    {"tune", cmd_tune, "tune one shape: the engine's crash-safe profile/ideate/measure/decide loop"},
    {"sweep", cmd_sweep, "tune every shape of shapes.json for a dtype, in the engine's order"},
    {"status", cmd_status, "where every shape of a tuning directory stands, and live progress"},
    {"ladder", cmd_ladder, "the final ladder for done shapes without one, or --retime a shape's kept configurations"},
    {"audit", cmd_audit, "re-derive every recorded iteration from its sources and raw measurements"},
    {"source", cmd_source, "one candidate's exact kernel source, regenerated from its recipe when not kept whole"},
    {"compact", cmd_compact, "keep a tuning directory's generated sources as recipes (configuration + generator)"},
    {"plan-sim", cmd_plan_sim, "predict a parallel sweep's wall time and idle share from measured shape durations"},
    {"resume", cmd_resume, "continue everything unfinished in a tuning directory"},
    {"slurm", cmd_slurm, "an sbatch job array (and its merge job) for a sweep on a cluster"},
    {"propose", cmd_propose, "agent mode: submit one idea with its kernel source to a waiting shape"},
    {"explore", cmd_explore, "measure every configuration of a knob grid on one shape into a dataset"},
    {"replay-bench", cmd_replay_bench, "replay tuning runs on explore datasets and score them against each best"},
    {"costmodel", cmd_costmodel, "fit the cost model across the shapes of tuning directories; its leave-one-out error"},
    {"report", cmd_report, "tables, figures and an HTML page from a tuning directory"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: croqtuner <command> [options]   (croqtuner <command> --help, croqtuner help <command>)\n"
               "       croqtuner --version\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

/* What the binaries are and what they would run on: the CUDA toolkit they were built
 * with, and the driver found now (NVML), which decides whether they can run at all. */
static int version(void)
{
    char driver[96];
    printf("croqtuner %s\ncommit %s\nbuilt with CUDA %s for sm_90a\n", croq_version, croq_commit,
           croq_cuda_version);
    printf("driver %s\n", nvml_driver_version(driver, sizeof driver) ? "none (no NVIDIA driver found)" : driver);
    return 0;
}

static const struct croq_command *find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    const struct croq_command *c;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--version"))
        return version();
    /* 'croqtuner help tune' is 'croqtuner tune --help' */
    if (!strcmp(argv[1], "help") && argc > 2) {
        if (!(c = find(argv[2]))) {
            fprintf(stderr, "croqtuner: help: unknown command '%s'\n", argv[2]);
            usage(stderr);
            return 2;
        }
        char *help_argv[] = {argv[2], "--help", NULL};
        return c->fn(2, help_argv);
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    /* Progress lines (tune, sweep, resume, explore) are read while the command runs, from
     * a log file as often as from a terminal: line-buffered either way, so `tail -f` sees
     * each line when it is printed and a kill -9 loses none already printed (stdio would
     * block-buffer a redirected stdout: 4 KiB, some 7 iterations behind). */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if ((c = find(argv[1])))
        return c->fn(argc - 1, argv + 1);
    fprintf(stderr, "croqtuner: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
