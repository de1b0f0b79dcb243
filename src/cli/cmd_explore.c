/* src/cli/cmd_explore.c — `croqtuner explore`: measure every configuration of a grid on
 * one shape into a dataset (src/explore/explore.h, src/dataset/dataset.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "explore/explore.h"
#include "util/opts.h"
#include "util/log.h"

static const char explore_usage[] =
    "usage: croqtuner explore --dtype f16|e4m3 --shape MxNxK --out FILE.jsonl [--grid FILE]\n"
    "                         [--backend gpu|sim] [--jobs N] [--seed S] [--time-limit S]\n"
    "                         [--busy-limit MIN] [--work DIR] [--quiet] [--list]\n"
    "\n"
    "Build, verify and time every valid configuration of a grid over the knob table on one\n"
    "shape, and append one JSON line per configuration to FILE (docs/explore.md: the grid\n"
    "file, the record). Configurations already in FILE are skipped: running the same command\n"
    "again continues an interrupted run. Candidates are compiled ahead in N processes while\n"
    "the GPU measures.\n"
    "\n"
    "  --grid FILE      knob=v1,v2,... lines in [blocks]; a knob a block leaves out takes its\n"
    "                   default. Without it: the whole table (refused: far too large)\n"
    "  --backend B      gpu (default) or sim (the simulated GPU, for tests)\n"
    "  --jobs N         parallel builds (default: CPU cores)\n"
    "  --seed S         operand seed and the order blocks are visited in (default 1)\n"
    "  --time-limit S   start no measurement after S seconds (the rest on the next run)\n"
    "  --busy-limit MIN stop when another process kept the GPU busy this long (default 30)\n"
    "  --work DIR       keep sources and cubins in DIR (default: a temp dir, removed)\n"
    "  --quiet          no line per configuration\n"
    "  --list           print the configurations left to measure (block number, signature);\n"
    "                   measure nothing\n"
    "\n"
    "Exit status: 0 every configuration is in FILE, or the time limit stopped the run (said\n"
    "on stderr); 1 the GPU is unusable or stayed busy, or FILE cannot be written; 2 bad usage.\n";

static int bad(const char *msg)
{
    log_error("explore: %s (see 'croqtuner explore --help')", msg);
    return 2;
}

static int positive_seconds(const char *v, void *dst, char *err, size_t errlen)
{
    struct opt o = {.name = "--time-limit", .type = OPT_DOUBLE, .dst = dst};
    if (opts_value(&o, v, err, errlen))
        return -1;
    if (!(*(double *)dst > 0)) {
        snprintf(err, errlen, "expected seconds > 0");
        return -1;
    }
    return 0;
}

int cmd_explore(int argc, char **argv)
{
    struct explore_opts o;
    const char *dtype = NULL;
    struct cli_shape shape = {0};
    memset(&o, 0, sizeof o);
    o.be.name = "gpu";
    o.seed = 1;
    o.busy_limit_s = 30 * 60;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = cpus > 0 ? (int)cpus : 1;
    struct opt t[] = {
        {.name = "--dtype", .type = OPT_CUSTOM, .dst = &dtype, .check = cli_dtype_value},
        {.name = "--shape", .type = OPT_CUSTOM, .dst = &shape, .check = cli_shape_value},
        {.name = "--out", .type = OPT_OUTFILE, .dst = &o.out},
        {.name = "--grid", .type = OPT_FILE, .dst = &o.grid},
        {.name = "--backend", .type = OPT_ENUM, .dst = &o.be.name, .choices = "gpu|sim"},
        {.name = "--jobs", .type = OPT_INT, .dst = &o.jobs, .lo = 1, .hi = 256},
        {.name = "--seed", .type = OPT_U64, .dst = &o.seed},
        {.name = "--time-limit", .type = OPT_CUSTOM, .dst = &o.time_limit_s, .check = positive_seconds},
        {.name = "--busy-limit", .type = OPT_CUSTOM, .dst = &o.busy_limit_s, .check = cli_busy_minutes},
        {.name = "--work", .type = OPT_OUTDIR, .dst = &o.work},
        {.name = "--quiet", .type = OPT_FLAG, .dst = &o.quiet},
        {.name = "--list", .type = OPT_FLAG, .dst = &o.list},
    };
    struct opt_spec spec = {"explore", explore_usage, t, sizeof t / sizeof t[0]};
    int prc = opts_parse(&spec, argc, argv);
    if (prc)
        return prc == 1 ? 0 : 2;
    if (!dtype || !shape.text || !o.out)
        return bad("--dtype, --shape and --out are required");
    o.dtype = croq_dtype_parse(dtype);
    char why[CROQ_WHY_MAX];
    o.shape = shape.s;
    if (!shape_validate(o.dtype, &o.shape, why, sizeof why)) {
        log_error("explore: shape '%s': %s", shape.text, why);
        return 2;
    }
    struct explore_stats st;
    int rc = explore_run(&o, &st);
    if (rc != 2)
        printf("explore: %d configurations, %d measured now (%d ok, %d failed), %d were already in '%s', %d left\n",
               st.grid, st.measured, st.ok, st.failed, st.already, o.out, st.left);
    return rc;
}
