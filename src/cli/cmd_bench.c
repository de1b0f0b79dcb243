/* src/cli/cmd_bench.c — `croqtuner bench`: for each dtype and shape, generate and
 * compile one kernel configuration, then verify and time it in a measurement worker
 * (`croq-runner serve`, src/measure/service.h: the way the tuner measures a candidate),
 * one line per result; optionally a CSV + Markdown table.
 *
 * Everything the user typed is checked before any work starts (dtype, shapes, knob
 * values, the configuration against every shape), so a mistake costs no compile.
 * Exit: 0 every kernel verified, 1 something did not build / verify / run, 2 bad usage.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "commands.h"
#include "knobs/knobs_json.h"
#include "bench/cli_opts.h"
#include "bench/kernel.h"
#include "measure/measure.h"
#include "measure/service.h"
#include "bench/shapeset.h"
#include "bench/table.h"
#include "util/opts.h"
#include "util/log.h"

#define BENCH_MAX_SETS 64
#define BENCH_MAX_SPECS 32

static const char bench_usage[] =
    "usage: croqtuner bench [--dtype f16|e4m3|all] (--shape MxNxK [--shape ...] |\n"
    "                       --shapes typical|reference|odd|MxNxK,...) [--set knob=value ...]\n"
    "                       [--family] [--config FILE] [--warmup 0] [--iters 500] [--trials 10] [--seed S]\n"
    "                       [--l2 warm|cold] [--json] [--out PREFIX] [--work DIR]\n"
    "\n"
    "Build one kernel configuration per dtype (the baseline, with --family the family's\n"
    "defaults, or --config FILE; then each\n"
    "--set; see 'croqtuner knobs'), then for every shape verify every element of C against\n"
    "a reference and time it in a croq-runner measurement worker, as the tuner times a\n"
    "candidate. One line per result: shape, dtype, kernel,\n"
    "verified, TFLOPS (2MNK/t), median ms, max error / tolerance, SM clock (MHz), % of the\n"
    "sparse tensor-core peak at that clock, the L2 state it was timed with. The first shape's worker starts before the\n"
    "compile: without a usable GPU or runner nothing is compiled, and the last line counts\n"
    "every shape asked for ('0 of 4 verified (3 not run)').\n"
    "\n"
    "  --dtype D         f16, e4m3 or all (default all)\n"
    "  --shapes SET      typical (the dtype's 14 shapes from shapes.json: $CROQ_SHAPES, else\n"
    "                    ../shared/data/shapes.json of the source tree or the current dir),\n"
    "                    reference (4096x8192x8192), odd (1000x1000x1024, 3000x2056x4096,\n"
    "                    777x1032x512) or a comma-separated list\n"
    "  --json            one JSON document on stdout (runner output included); lines on stderr\n"
    "  --out PREFIX      also write PREFIX.csv and PREFIX.md\n"
    "  --work DIR        keep generated sources and cubins in DIR (default: a temp dir, removed)\n"
    CLI_MEASURE_HELP
    "\n"
    "Exit status: 0 every kernel verified, 1 a build, run or verification failed, 2 bad usage.\n";

struct bench_args {
    const char *dtype, *config, *out, *work;
    int fault; /* --inject-fault trap|hang|oob|skipk|elem|meta: test-only, not in --help */
    bool json, family;
    const char *sets[BENCH_MAX_SETS];
    int nsets;
    const char *specs[BENCH_MAX_SPECS]; /* --shape and --shapes values, in order */
    int nspecs;
    struct measure_opts mo;
    int argc;    /* the command line, for the table's "Command:" line */
    char **argv;
};

/* One dtype's work: its configuration and shapes. */
struct bench_job {
    int dtype;
    struct croq_config cfg;
    char kernel[CROQ_LABEL_MAX];
    struct shape_list shapes;
};

static int fault_value(const char *v, void *dst, char *err, size_t errlen)
{
    if ((*(int *)dst = codegen_fault_parse(v)) < 0) {
        snprintf(err, errlen, "unknown fault kind '%s' (trap, hang, oob, skipk, elem, meta)", v);
        return -1;
    }
    return 0;
}

/* 0 parsed, 1 help shown, 2 bad usage. */
static int bench_parse(int argc, char **argv, struct bench_args *a)
{
    measure_opts_default(&a->mo);
    a->dtype = "all";
    /* --shape and --shapes fill one list, in order: they are two spellings of one option */
    struct opt t[10 + CLI_MEASURE_OPTS_N] = {
        {.name = "--json", .type = OPT_FLAG, .dst = &a->json},
        {.name = "--family", .type = OPT_FLAG, .dst = &a->family},
        {.name = "--dtype", .type = OPT_CUSTOM, .dst = &a->dtype, .check = cli_dtype_all_value},
        {.name = "--config", .type = OPT_STR, .dst = &a->config},
        {.name = "--out", .type = OPT_STR, .dst = &a->out},
        {.name = "--work", .type = OPT_OUTDIR, .dst = &a->work},
        {.name = "--set", .type = OPT_STR, .dst = a->sets, .max = BENCH_MAX_SETS, .count = &a->nsets},
        {.name = "--shape", .type = OPT_STR, .dst = a->specs, .max = BENCH_MAX_SPECS, .count = &a->nspecs},
        {.name = "--shapes", .type = OPT_STR, .dst = a->specs, .max = BENCH_MAX_SPECS, .count = &a->nspecs},
        {.name = "--inject-fault", .type = OPT_CUSTOM, .dst = &a->fault, .check = fault_value, .flags = OPT_HIDDEN},
    };
    struct opt_spec spec = {"bench", bench_usage, t, 10};
    spec.n += cli_measure_table(&a->mo, t + spec.n);
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc;
    if (!a->nspecs) {
        log_error("bench: no shapes: give --shape MxNxK or --shapes typical|reference|odd|LIST");
        return 2;
    }
    return 0;
}

/* Shapes, configuration and every (configuration, shape) rule for one dtype. 0 or 2. */
static int bench_plan_job(const struct bench_args *a, int dtype, struct bench_job *j)
{
    char err[1024], why[CROQ_WHY_MAX];
    j->dtype = dtype;
    j->shapes.n = 0;
    for (int i = 0; i < a->nspecs; i++)
        if (shapeset_add(&j->shapes, a->specs[i], dtype, err, sizeof err)) {
            log_error("bench: %s", err);
            return 2;
        }
    if (kernel_config(&j->cfg, dtype, a->config, a->family, a->sets, a->nsets, err, sizeof err)) {
        log_error("bench: %s", err);
        return 2;
    }
    knobs_label(&j->cfg, j->kernel);
    for (int i = 0; i < j->shapes.n; i++) {
        const struct croq_shape *s = &j->shapes.s[i];
        if (!knobs_validate(&j->cfg, s, why, sizeof why)) {
            log_error("bench: %ldx%ldx%ld %s with kernel '%s': %s", s->m, s->n, s->k, croq_dtype_name(dtype),
                      j->kernel, why);
            return 2;
        }
    }
    return 0;
}

static int bench_plan(const struct bench_args *a, struct bench_job jobs[2], int *njobs)
{
    int d = croq_dtype_parse(a->dtype);
    *njobs = 0;
    for (int dt = CROQ_DTYPE_F16; dt <= CROQ_DTYPE_E4M3; dt++) {
        if (d >= 0 && dt != d)
            continue;
        if (bench_plan_job(a, dt, &jobs[*njobs]))
            return 2;
        (*njobs)++;
    }
    return 0;
}

/* ---- execution ---- */

struct bench_out {
    struct bench_row *rows;
    int n, cap;
    int requested;   /* kernel x shape pairs asked for; n of them were tried */
    json_t *results; /* --json */
};

static struct bench_row *new_row(struct bench_out *o)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 32;
        o->rows = xrealloc(o->rows, (size_t)o->cap * sizeof *o->rows);
    }
    return &o->rows[o->n++];
}

static void row_from_measure(struct bench_row *row, const struct measure_result *m)
{
    if (m->l2[0])
        snprintf(row->l2, sizeof row->l2, "%s", m->l2);
    snprintf(row->status, sizeof row->status, "%s", measure_status_name(m->status));
    snprintf(row->error, sizeof row->error, "%s", m->error);
    snprintf(row->gpu, sizeof row->gpu, "%s", m->gpu);
    row->verified = m->status == MEASURE_OK && m->verify.passed;
    row->max_err_over_tol = m->verify.present ? m->verify.max_err_over_tol : NAN;
    if (m->timing.present) {
        row->tflops = m->timing.tflops;
        row->median_ms = m->timing.median_ms;
        row->spread_pct = m->timing.spread_pct;
    }
    row->sm_clock_mhz = m->gpu_state.sm_clock_median_mhz;
    row->pct_peak = m->peak.present ? m->peak.hw_eff_pct : NAN;
}

/* br NULL: nothing was built (the GPU was found unusable first): "build" is null. */
static json_t *result_json(const struct bench_job *j, const struct bench_row *row, const struct build_result *br,
                           const struct measure_result *m)
{
    char sig[CROQ_SIG_MAX], shape[64];
    knobs_signature(&j->cfg, sig);
    snprintf(shape, sizeof shape, "%ldx%ldx%ld", row->shape.m, row->shape.n, row->shape.k);
    json_t *runner = m && m->raw_json ? json_loads(m->raw_json, 0, NULL) : NULL;
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:b, s:s, s:s, s:o, s:s, s:o}", "shape", shape, "dtype",
                     croq_dtype_name(j->dtype), "kernel", j->kernel, "signature", sig, "config", knobs_to_json(&j->cfg),
                     "status", row->status, "verified", row->verified, "error", row->error, "l2", row->l2, "build",
                     br ? build_result_json(br, false) : json_null(), "command", m ? m->command : "",
                     "runner", runner ? runner : json_null());
}

static void report(const struct bench_args *a, struct bench_out *out, const struct bench_job *j,
                   struct bench_row *row, const struct build_result *br, const struct measure_result *m)
{
    bench_table_line(a->json ? stderr : stdout, row);
    if (!row->verified)
        log_error("bench: %ldx%ldx%ld %s: %s: %s", row->shape.m, row->shape.n, row->shape.k,
                  croq_dtype_name(row->dtype), row->status, row->error);
    else if (m && m->peak.present && !m->peak.plausible)
        log_warn("bench: %ldx%ldx%ld %s: %.1f TFLOPS is above the physical peak: the measurement is broken",
                 row->shape.m, row->shape.n, row->shape.k, croq_dtype_name(row->dtype), row->tflops);
    if (out->results)
        json_array_append_new(out->results, result_json(j, row, br, m));
}

static bool unusable(const struct measure_result *m)
{
    return m->status == MEASURE_NO_GPU || m->status == MEASURE_NO_RUNNER;
}

static struct measure_service *service_for(const struct bench_args *a, const struct bench_job *j,
                                           const struct croq_shape *s)
{
    struct service_opts so = {.runner = a->mo.runner, .dtype = j->dtype, .shape = *s, .seed = a->mo.seed,
                              .device = a->mo.device, .reference = a->mo.reference};
    return service_new(&so);
}

/* Measured as the tuner measures a candidate: a measurement worker for the shape
 * (src/measure/service.h; svc, maybe already started), the same request but unpaired.
 * Returns true when no shape can run (no GPU, no runner): the rest are not tried. */
static bool run_shape(const struct bench_args *a, const struct bench_job *j, const struct build_result *br,
                      const struct croq_shape *s, struct measure_service *svc, struct bench_out *out)
{
    struct bench_row *row = new_row(out);
    struct measure_result m;
    const char *l2 = a->mo.cold_l2 ? "cold" : "warm";
    bench_row_init(row, j->dtype, s, j->kernel);
    snprintf(row->l2, sizeof row->l2, "%s", l2);
    if (!br->ok) {
        snprintf(row->status, sizeof row->status, "compile_error");
        snprintf(row->error, sizeof row->error, "%s", br->error);
        report(a, out, j, row, br, NULL);
        return false;
    }
    struct service_req q = {.cubin = br->cubin_path, .verify_seed = a->mo.seed, .pairs = a->mo.trials,
                            .max_iters = a->mo.iters, .warmup_launches = a->mo.warmup,
                            .cold_l2 = a->mo.cold_l2, .timeout_s = a->mo.timeout_s};
    if (service_measure(svc, &q, &m)) {
        char why[sizeof m.error];
        snprintf(why, sizeof why, "%s", m.error);
        snprintf(m.error, sizeof m.error, "cannot run the measurement worker: %.400s", why);
        m.status = MEASURE_INTERNAL_ERROR;
    } else if ((m.status == MEASURE_OK || m.status == MEASURE_INCORRECT) && strcmp(m.module_id, br->module_id)) {
        /* the worker measured another module than the one built (kernels/module_id.h):
         * none of its numbers are this kernel's */
        snprintf(m.error, sizeof m.error, "the worker measured module '%s', not the build's '%s': refused",
                 m.module_id, br->module_id);
        m.status = MEASURE_BAD_OUTPUT;
    } else if (m.status == MEASURE_OK && strcmp(m.l2[0] ? m.l2 : "?", l2)) {
        /* a number timed with the other L2 state is not what the command line asked for */
        snprintf(m.error, sizeof m.error, "the worker timed with l2 '%s', asked for '%s': refused", m.l2, l2);
        m.status = MEASURE_BAD_OUTPUT;
    }
    row_from_measure(row, &m);
    report(a, out, j, row, br, &m);
    bool stop = unusable(&m);
    measure_result_release(&m);
    return stop;
}

/* The first shape's worker, started before the compile: a machine without a usable GPU
 * (or runner) costs no compile. Its row is the answer then (the same as a measurement
 * that found no GPU), and true is returned; otherwise the started worker is kept for
 * the first shape's measurement. */
static bool probe_gpu(const struct bench_args *a, const struct bench_job *j, struct measure_service *svc,
                      struct bench_out *out)
{
    struct measure_result m;
    if (service_start(svc, &m) || !unusable(&m)) {
        measure_result_release(&m); /* a local failure or another outcome: the measurement says it */
        return false;
    }
    struct bench_row *row = new_row(out);
    bench_row_init(row, j->dtype, &j->shapes.s[0], j->kernel);
    row_from_measure(row, &m);
    report(a, out, j, row, NULL, &m);
    log_error("bench: cannot measure (%s): nothing was compiled and no shape is run", measure_status_name(m.status));
    measure_result_release(&m);
    return true;
}

/* false when the GPU (or the runner) is unusable and nothing more should be tried. */
static bool run_job(const struct bench_args *a, const struct bench_job *j, const char *workdir, struct bench_out *out)
{
    struct build_result br;
    char name[48];
    struct measure_service *svc = service_for(a, j, &j->shapes.s[0]);
    if (probe_gpu(a, j, svc, out)) {
        service_free(svc);
        return false;
    }
    /* A faulty variant gets its own name so it never overwrites the clean cubin. */
    snprintf(name, sizeof name, "bench_%s%s%s", croq_dtype_name(j->dtype), a->fault ? "_fault_" : "",
             a->fault ? codegen_fault_name(a->fault) : "");
    kernel_build(&j->cfg, workdir, name, a->fault, &br);
    if (!br.ok)
        log_error("bench: building kernel '%s' (%s): %s", j->kernel, croq_dtype_name(j->dtype), br.error);
    bool usable = true;
    for (int i = 0; i < j->shapes.n && usable; i++) {
        if (i)
            svc = service_for(a, j, &j->shapes.s[i]);
        if (run_shape(a, j, &br, &j->shapes.s[i], svc, out)) {
            usable = false;
            log_error("bench: the GPU cannot be used (above): no further shape is run");
        }
        service_free(svc);
    }
    if (!j->shapes.n)
        service_free(svc);
    build_result_release(&br);
    return usable;
}

/* "croqtuner bench ARGS" on one line, for the Markdown table (a newline, CR or backtick
 * in an argument is shown as a space so the line and its code span stay intact). */
static void command_line(const struct bench_args *a, struct strbuf *sb)
{
    strbuf_adds(sb, "croqtuner bench");
    for (int i = 0; i < a->argc; i++) {
        strbuf_adds(sb, " ");
        for (const char *s = a->argv[i]; *s; s++)
            strbuf_addf(sb, "%c", *s == '\n' || *s == '\r' || *s == '`' ? ' ' : *s);
    }
}

static int bench_finish(const struct bench_args *a, struct bench_out *out)
{
    int verified = 0, rc;
    char err[1024];
    for (int i = 0; i < out->n; i++)
        verified += out->rows[i].verified;
    rc = verified == out->requested ? 0 : 1;
    struct strbuf cmd = STRBUF_INIT;
    command_line(a, &cmd);
    if (a->out && bench_table_write(a->out, strbuf_str(&cmd), out->rows, out->n, err, sizeof err)) {
        log_error("bench: %s", err);
        rc = 1;
    }
    strbuf_release(&cmd);
    if (out->results) {
        json_t *doc = json_pack("{s:i, s:s, s:s, s:b, s:i, s:o}", "schema", 1, "command", "bench", "l2",
                                a->mo.cold_l2 ? "cold" : "warm", "all_verified", verified == out->requested,
                                "requested", out->requested, "results", out->results);
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(7));
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        /* of what was asked for: a shape never tried (the GPU was unusable) is not verified */
        if (out->n < out->requested)
            printf("%d of %d verified (%d not run)\n", verified, out->requested, out->requested - out->n);
        else
            printf("%d of %d verified\n", verified, out->requested);
    }
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    struct bench_args a;
    struct bench_job jobs[2];
    struct bench_out out = {0};
    struct kernel_workdir wd;
    char err[1024];
    int njobs, rc;
    memset(&a, 0, sizeof a);
    a.argc = argc - 1, a.argv = argv + 1; /* argv[0] is "bench" */
    if ((rc = bench_parse(argc, argv, &a)))
        return rc == 1 ? 0 : rc;
    if (bench_plan(&a, jobs, &njobs))
        return 2;
    if (kernel_workdir_open(&wd, a.work, err, sizeof err)) {
        log_error("bench: %s", err);
        return 1;
    }
    if (a.json)
        out.results = json_array();
    for (int i = 0; i < njobs; i++)
        out.requested += jobs[i].shapes.n;
    bench_table_header(a.json ? stderr : stdout);
    for (int i = 0; i < njobs && run_job(&a, &jobs[i], wd.path, &out); i++)
        ;
    rc = bench_finish(&a, &out);
    kernel_workdir_release(&wd);
    free(out.rows);
    return rc;
}
