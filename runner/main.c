/* runner/main.c — croq-runner entry point: the only program that talks to the GPU
 * (docs/runner-protocol.md). Dispatches to run / compare / health. */
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "util/log.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
} commands[] = {
    {"run", runner_cmd_run},
    {"compare", runner_cmd_compare},
    {"health", runner_cmd_health},
    {"suite", runner_cmd_suite},
    {"serve", runner_cmd_serve},
};

static void usage(FILE *f)
{
    fputs("usage: croq-runner run     --cubin FILE --shape MxNxK [--dtype f16|e4m3] [--seed S]\n"
          "                           [--warmup 10] [--warmup-ms 2000] [--iters 500] [--trials 5] [--no-time]\n"
          "                           [--no-verify] [--reference auto|cpu|cublas] [--device 0]\n"
          "       croq-runner compare --dtype f16|e4m3 --shape MxNxK [--cubin FILE] [--seed S]\n"
          "                           [--warmup W] [--iters N] [--trials T] [--reference R] [--device D]\n"
          "                           [--l2 warm|cold]   (every subject verified, then all timed\n"
          "                           interleaved: one warm-up, T rounds of one trial of each)\n"
          "                           [--slt-config ID [--slt-split-k K]]   (cuSPARSELt's searched plan\n"
          "                           made with that configuration instead: a search's result again)\n"
          "       croq-runner health  [--device 0]\n"
          "       croq-runner suite   --cubins LIST --dtype D --shape MxNxK [run's options]\n"
          "       croq-runner serve   --dtype D --shape MxNxK [--seed S] [--reference R] [--device D]\n"
          "                           (a worker: JSON requests on stdin, one reply line each)\n"
          "One JSON object on stdout (docs/runner-protocol.md); diagnostics on stderr.\n", f);
}

int main(int argc, char **argv)
{
    log_set_prefix("croq-runner");
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; argc >= 2 && i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    /* Still one JSON object, so the tuner's parser needs no special case. */
    runner_fail(RS_BAD_ARGS, "unknown command '%s' (run, compare, health, suite, serve)", argc >= 2 ? argv[1] : "");
    usage(stderr);
    return output_emit(output_new(argc >= 2 ? argv[1] : ""), RS_BAD_ARGS, runner_fail_message());
}
