/* src/cli/cmd_audit.c — `croqtuner audit`: check a tuning directory's records against
 * their evidence (src/engine/audit.c). */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "engine/decide.h"
#include "engine/engine.h"
#include "util/opts.h"
#include "util/atomicio.h"
#include "util/log.h"

static const char audit_usage[] =
    "usage: croqtuner audit [--tuning DIR] [--key KEY] [--noise-floor PCT]\n"
    "\n"
    "Re-derive every row of every shape's results.tsv (or only KEY's) from the evidence\n"
    "the engine kept: the idea-log line, the kernel source and its hash, the raw\n"
    "measurement files under perf/ (the row's numbers must be theirs), the sanity and\n"
    "noise rules replayed from the baseline (each decision and best_tflops), no repeated\n"
    "configuration, and state.json's best and the published best kernel. Reads only.\n"
    "Prints one line per problem and one summary line per shape (docs/engine.md, Audit).\n"
    "\n"
    "  --noise-floor PCT  the smallest gain DECIDE took as real when the run was made (2 or\n"
    "                     2%)\n"
    "                     (default: the floor of the shape's decision rules: 2 for rules 1\n"
    "                     and 2, 1 for the paired rules 3); runs before 2026-11-29 12:23 UTC\n"
    "                     used 1\n"
    "\n"
    "Exit status: 0 every record is backed by its evidence, 1 problems found or the\n"
    "directory cannot be read, 2 bad usage.\n";

int cmd_audit(int argc, char **argv)
{
    const char *dir = "tuning", *key = NULL;
    double floor_pct = -1; /* the floor of each shape's rules version */
    struct opt t[] = {
        {.name = "--tuning", .type = OPT_OUTDIR, .dst = &dir},
        {.name = "--key", .type = OPT_CUSTOM, .dst = &key, .check = cli_key_value},
        {.name = "--noise-floor", .type = OPT_PERCENT, .dst = &floor_pct},
    };
    struct opt_spec spec = {"audit", audit_usage, t, 3};
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    if (!is_dir(dir)) {
        log_error("audit: no tuning directory '%s'", dir);
        return 1;
    }
    if (key && cli_key_held("audit", dir, key))
        return 2;
    int problems = engine_audit(dir, key, floor_pct, stdout);
    if (problems < 0)
        return 1;
    if (problems)
        printf("audit: %d problem(s)\n", problems);
    return problems ? 1 : 0;
}
