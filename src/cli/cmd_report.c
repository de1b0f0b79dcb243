/* src/cli/cmd_report.c — `croqtuner report`: tables, figures and one HTML page from a
 * tuning directory (src/report, docs/report.md). */
#include <stdio.h>

#include "commands.h"
#include "report/report.h"
#include "util/opts.h"
#include "util/log.h"

static const char report_usage[] =
    "usage: croqtuner report [--tuning DIR] [--out DIR] [--anchors FILE] [--gnuplot PROG]\n"
    "                        [--dygraphs DIR [--link-dygraphs]]\n"
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
    "  --link-dygraphs  put relative symbolic links to those two files into the report\n"
    "                   instead of copies: for a report kept in a repository beside one\n"
    "                   vendored copy (results/vendor/dygraphs)\n"
    "\n"
    "Exit status: 0 report written (possibly partial), 1 no tuning data or an output\n"
    "file could not be written, 2 bad usage.\n";

int cmd_report(int argc, char **argv)
{
    struct report_opts o = {.tuning_dir = "tuning"};
    /* --tuning and --dygraphs are the report's to read (it reads leniently: what is missing
     * is said in the page, and a tuning directory that is not one is exit 1) */
    struct opt t[] = {
        {.name = "--tuning", .type = OPT_STR, .dst = &o.tuning_dir},
        {.name = "--out", .type = OPT_OUTDIR, .dst = &o.out_dir},
        {.name = "--anchors", .type = OPT_FILE, .dst = &o.anchors},
        {.name = "--gnuplot", .type = OPT_STR, .dst = &o.gnuplot},
        {.name = "--dygraphs", .type = OPT_STR, .dst = &o.dygraphs_dir},
        {.name = "--link-dygraphs", .type = OPT_FLAG, .dst = &o.link_dygraphs},
    };
    struct opt_spec spec = {"report", report_usage, t, 6};
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    if (!o.anchors)
        o.anchors = report_default_anchors();
    /* the report's modules log without naming the command (their usage errors above do):
     * every message from here on says whose it is, as the other commands' do */
    log_set_prefix("croqtuner: report");
    return report_run(&o, stdout);
}
