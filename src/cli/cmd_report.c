/* src/cli/cmd_report.c — `croqtuner report`: tables, figures and one HTML page from a
 * tuning directory (src/report, docs/report.md). */
#include <stdio.h>

#include "commands.h"
#include "report/report.h"
#include "util/args.h"
#include "util/log.h"

static const char report_usage[] =
    "usage: croqtuner report [--tuning DIR] [--out DIR] [--anchors FILE] [--gnuplot PROG]\n"
    "                        [--dygraphs DIR]\n"
    "\n"
    "Read the tuning artifacts in DIR (default ./tuning; docs/artifacts.md) and write a\n"
    "report into --out (default DIR/report): per shape a convergence figure, the\n"
    "optimization progression and the bottlenecks by phase; a sweep summary with\n"
    "speed-ups and their geometric mean; from-scratch vs from-current-best comparisons.\n"
    "Figures as SVG, PDF and PNG (gnuplot) with their .gp scripts and .dat data; tables\n"
    "as CSV, Markdown and LaTeX; index.html opens from disk. A partial tuning directory\n"
    "gives a partial report: what is missing is listed in the page and in notes.txt.\n"
    "\n"
    "  --anchors FILE   vendor reference numbers used where perf/<key>/vendor.json is\n"
    "                   absent (default $CROQ_ANCHORS, else\n"
    "                   shared/data/vendor-anchors-h200.json here or in ..)\n"
    "  --gnuplot PROG   gnuplot to run (default gnuplot from PATH)\n"
    "  --dygraphs DIR   where dygraph.min.js and dygraph.css are (default\n"
    "                   $CROQ_DYGRAPHS_DIR, else /usr/share/javascript/dygraphs)\n"
    "\n"
    "Exit status: 0 report written (possibly partial), 1 no tuning data or an output\n"
    "file could not be written, 2 bad usage.\n";

/* An option with a value: 1 taken, 0 not one of ours, -1 bad (message printed). */
static int report_value_opt(int argc, char **argv, int *i, struct report_opts *o)
{
    const struct {
        const char *name;
        const char **dst;
    } opts[] = {
        {"--tuning", &o->tuning_dir}, {"--out", &o->out_dir}, {"--anchors", &o->anchors},
        {"--gnuplot", &o->gnuplot},   {"--dygraphs", &o->dygraphs_dir},
    };
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        int r = args_value(argc, argv, i, opts[k].name, opts[k].dst);
        if (r)
            return r;
    }
    return 0;
}

int cmd_report(int argc, char **argv)
{
    struct report_opts o = {.tuning_dir = "tuning"};
    for (int i = 1; i < argc; i++) {
        int r;
        if (args_flag(argv, i, "--help") || args_flag(argv, i, "-h")) {
            fputs(report_usage, stdout);
            return 0;
        } else if ((r = report_value_opt(argc, argv, &i, &o)) < 0) {
            return 2;
        } else if (r == 0) {
            log_error("report: unknown option '%s' (see 'croqtuner report --help')", argv[i]);
            return 2;
        }
    }
    if (!o.anchors)
        o.anchors = report_default_anchors();
    return report_run(&o, stdout);
}
