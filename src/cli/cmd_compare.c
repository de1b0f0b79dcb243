/* src/cli/cmd_compare.c — `croqtuner compare`: our kernel next to the vendor
 * libraries on one shape, in one runner process on the same operands (croq-runner
 * compare): ours, cuSPARSELt (default algorithm and after its search), dense cuBLAS,
 * each verified against the same reference, then timed together in interleaved rounds,
 * with ratios of the medians and the paired per-round ratios ours / each vendor.
 * Exit: 0 ours verified (or --no-ours and the runner ran), 1 otherwise, 2 bad usage.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "artifacts/names.h"
#include "artifacts/vendor.h"
#include "bench/cli_opts.h"
#include "bench/kernel.h"
#include "measure/measure.h"
#include "util/opts.h"
#include "util/log.h"

#define COMPARE_MAX_SETS 64

static const char compare_usage[] =
    "usage: croqtuner compare --dtype f16|e4m3 --shape MxNxK [--set knob=value ...] [--config FILE]\n"
    "                         [--family] [--no-ours] [--warmup 0] [--iters 500] [--trials 10] [--seed S]\n"
    "                         [--l2 warm|cold] [--json] [--work DIR] [--tuning DIR [--mode scratch|best]]\n"
    "\n"
    "Build our kernel (the baseline, with --family the family's defaults, or --config FILE;\n"
    "then each --set) and measure it next to\n"
    "cuSPARSELt (default algorithm, and after cusparseLtMatmulSearch) and dense cuBLAS, in one\n"
    "runner process on the same operands; every result verified against the same reference.\n"
    "The subjects are timed interleaved, as the tuner pairs candidates: after every one is\n"
    "verified (and cuSPARSELt's search is done), one warm-up of all, then --trials rounds of one\n"
    "trial of each, in an order that changes every round; each subject's median over the rounds,\n"
    "its median SM clock, and per vendor the median of the per-round ratios ours / vendor with\n"
    "its 95% sign-test interval (10 rounds: 2nd smallest to 2nd largest; 6 rounds at least).\n"
    "With --l2 cold every subject's timed launches rotate over copies of its own operands.\n"
    "\n"
    "  --no-ours         vendors only (nothing is compiled)\n"
    "  --json            print the runner's JSON instead of the table\n"
    "  --work DIR        keep the generated source and cubin in DIR\n"
    "  --tuning DIR      also record the verified vendor numbers as\n"
    "                    DIR/perf/<dtype>_<M>x<N>x<K>/vendor.json for 'croqtuner report',\n"
    "                    with ours (ours_tflops, null unless verified, and ours_config), the\n"
    "                    L2 state (l2), how they were timed (protocol \"interleaved\", rounds)\n"
    "                    and the paired ratios (paired); a path there that cannot take it (a\n"
    "                    file as perf/, a directory or FIFO as vendor.json) is bad usage\n"
    "  --mode scratch    ours is the best of the shape's from-scratch run: record it as\n"
    "                    DIR/perf/<dtype>_<M>x<N>x<K>_fs/vendor.json, beside that run, so the\n"
    "                    compare of the from-best run's best does not replace it\n"
    "  --mode best       (default) DIR/perf/<dtype>_<M>x<N>x<K>/vendor.json, which the\n"
    "                    from-scratch run reads too when it has no record of its own\n"
    CLI_MEASURE_HELP
    "\nExit status: 0 ours verified (with --no-ours: the runner ran), 1 a build, run or\n"
    "verification failed, 2 bad usage.\n";

struct compare_args {
    const char *dtype, *config, *work, *tuning, *mode;
    struct cli_shape shape;
    bool json, no_ours, family;
    const char *sets[COMPARE_MAX_SETS];
    int nsets;
    struct measure_opts mo;
};

static int compare_parse(int argc, char **argv, struct compare_args *a)
{
    measure_opts_default(&a->mo);
    struct opt t[10 + CLI_MEASURE_OPTS_N] = {
        {.name = "--json", .type = OPT_FLAG, .dst = &a->json},
        {.name = "--no-ours", .type = OPT_FLAG, .dst = &a->no_ours},
        {.name = "--family", .type = OPT_FLAG, .dst = &a->family},
        {.name = "--dtype", .type = OPT_CUSTOM, .dst = &a->dtype, .check = cli_dtype_value},
        {.name = "--shape", .type = OPT_CUSTOM, .dst = &a->shape, .check = cli_shape_value},
        {.name = "--config", .type = OPT_STR, .dst = &a->config},
        {.name = "--work", .type = OPT_OUTDIR, .dst = &a->work},
        {.name = "--tuning", .type = OPT_OUTDIR, .dst = &a->tuning},
        {.name = "--set", .type = OPT_STR, .dst = a->sets, .max = COMPARE_MAX_SETS, .count = &a->nsets},
        {.name = "--mode", .type = OPT_CUSTOM, .dst = &a->mode, .check = cli_mode_value},
    };
    struct opt_spec spec = {"compare", compare_usage, t, 10};
    spec.n += cli_measure_table(&a->mo, t + spec.n);
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc;
    if (!a->dtype) {
        log_error("compare: missing dtype '--dtype' (f16 or e4m3)");
        return 2;
    }
    a->mo.dtype = croq_dtype_parse(a->dtype);
    if (!a->shape.text) {
        log_error("compare: '--shape MxNxK' is required");
        return 2;
    }
    a->mo.shape = a->shape.s;
    if (a->mode && !a->tuning) {
        log_error("compare: '--mode' says where --tuning's record goes: give --tuning DIR too");
        return 2;
    }
    return 0;
}

/* --mode scratch: the record of a from-scratch run's best (vendor.h). */
static bool for_scratch(const struct compare_args *a) { return a->mode && mode_parse(a->mode) == MODE_FROM_SCRATCH; }

/* The record's directory can be made and written: its nearest existing ancestor (lstat: a
 * dangling link counts as there) is a directory this process may write and search, and
 * the temp file atomic_write puts beside the record (".vendor.json.tmp.<pid>") fits
 * PATH_MAX. 0, or -1 with err. */
static int record_writable(const char *dir, const char *path, char *err, size_t errlen)
{
    char p[4096];
    struct stat st;
    if (strlen(path) + sizeof "/..tmp.4294967295" >= PATH_MAX) {
        snprintf(err, errlen, "the record's path is too long for its temp file");
        return -1;
    }
    snprintf(p, sizeof p, "%s", dir);
    while (lstat(p, &st) && errno == ENOENT) {
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) {
            snprintf(p, sizeof p, "%s", slash == p ? "/" : ".");
            break;
        }
        *slash = '\0';
    }
    if (access(p, W_OK | X_OK)) {
        snprintf(err, errlen, "'%.900s' cannot be written: %s", p, strerror(errno));
        return -1;
    }
    return 0;
}

/* Configuration and shape rules before any work. 0 or 2. */
static int compare_check(const struct compare_args *a, struct croq_config *cfg, char kernel[CROQ_LABEL_MAX])
{
    char err[1024] = "", why[CROQ_WHY_MAX];
    const struct croq_shape *s = &a->mo.shape;
    if (!shape_validate(a->mo.dtype, s, why, sizeof why)) {
        log_error("compare: %s", why);
        return 2;
    }
    /* where the record goes must take it, known before the GPU spends a minute on it */
    char key[96], dir[4096], path[4200], perf[4200];
    if (a->tuning) {
        snprintf(perf, sizeof perf, "%s/perf", a->tuning);
        if (vendor_record_paths(a->tuning, a->mo.dtype, &a->mo.shape, for_scratch(a), key, sizeof key, dir,
                                sizeof dir, path, sizeof path) ||
            opts_check_outdir(perf, err, sizeof err) || opts_check_outdir(dir, err, sizeof err) ||
            opts_check_outfile(path, err, sizeof err) || record_writable(dir, path, err, sizeof err)) {
            log_error("compare: --tuning: %s, where this compare's record goes",
                      err[0] ? err : "the tuning directory's path is too long");
            return 2;
        }
    }
    if (a->no_ours)
        return 0;
    if (kernel_config(cfg, a->mo.dtype, a->config, a->family, a->sets, a->nsets, err, sizeof err)) {
        log_error("compare: %s", err);
        return 2;
    }
    knobs_label(cfg, kernel);
    if (!knobs_validate(cfg, s, why, sizeof why)) {
        log_error("compare: kernel '%s' on %s: %s", kernel, a->shape.text, why);
        return 2;
    }
    return 0;
}

static const char *cell(char *buf, size_t len, double x, int decimals)
{
    if (isnan(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", decimals, x);
    return buf;
}

static void print_table(const struct compare_args *a, const struct measure_compare *c, const char *kernel)
{
    static const int order[] = {MEASURE_CMP_OURS, MEASURE_CMP_SLT_DEFAULT, MEASURE_CMP_SLT_SEARCH, MEASURE_CMP_CUBLAS};
    char t[32], ms[32], sp[32], clk[32], pk[32], r1[32], r2[32], r3[32], how[64];
    if (c->protocol == MEASURE_PROTO_INTERLEAVED)
        snprintf(how, sizeof how, "interleaved in %d rounds", c->rounds);
    else
        snprintf(how, sizeof how, "timed in blocks");
    printf("compare %s %s on %s (seed %llu, %d warmup, %d x %d launches, %s, %s L2)%s%s\n",
           croq_dtype_name(a->mo.dtype), a->shape.text, c->run.gpu[0] ? c->run.gpu : "?", a->mo.seed, a->mo.warmup,
           a->mo.iters, a->mo.trials, how, a->mo.cold_l2 ? "cold" : "warm", kernel ? ", ours = " : "",
           kernel ? kernel : "");
    printf("%-19s %-14s %-8s %9s %10s %8s %6s %6s  %s\n", "subject", "status", "verified", "TFLOPS", "ms", "spread%",
           "clock", "%peak", "note");
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const struct measure_cmp_entry *e = &c->e[order[i]];
        printf("%-19s %-14s %-8s %9s %10s %8s %6s %6s  %s\n", measure_cmp_names[order[i]],
               e->present ? e->status : "-", e->verified ? "yes" : "no", cell(t, sizeof t, e->tflops, 1),
               cell(ms, sizeof ms, e->median_ms, 4), cell(sp, sizeof sp, e->spread_pct, 2),
               cell(clk, sizeof clk, e->sm_clock_mhz, 0), cell(pk, sizeof pk, e->hw_eff_pct, 1),
               e->error[0] ? e->error : e->note);
    }
    printf("ratios: ours/cuSPARSELt-search %s  ours/cuSPARSELt-default %s  ours/cuBLAS %s\n",
           cell(r1, sizeof r1, c->ours_over_slt_search, 3), cell(r2, sizeof r2, c->ours_over_slt_default, 3),
           cell(r3, sizeof r3, c->ours_over_cublas, 3));
    if (c->protocol != MEASURE_PROTO_INTERLEAVED)
        return;
    static const struct { int i; const char *label; } vs[] = {
        {MEASURE_CMP_SLT_SEARCH, "cuSPARSELt-search"}, {MEASURE_CMP_SLT_DEFAULT, "cuSPARSELt-default"},
        {MEASURE_CMP_CUBLAS, "cuBLAS"}};
    printf("paired (median [95%% interval] of per-round ratios):");
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        const struct measure_cmp_paired *p = &c->paired[vs[i].i];
        if (p->n)
            printf(" ours/%s %.3f [%.3f, %.3f]", vs[i].label, p->median, p->lo, p->hi);
        else
            printf(" ours/%s -", vs[i].label);
    }
    printf("\n");
}

/* A subject's TFLOPS for the record, NAN when it was not measured or not verified: an
 * unverified number never reaches a report. */
static double verified_tflops(const struct measure_cmp_entry *e)
{
    return e->present && e->verified ? e->tflops : NAN;
}

/* perf/<key>/vendor.json (artifacts/vendor.h). Ours is recorded with its configuration
 * (cfg NULL: --no-ours) so the report can take its vendor ratios from this one run when
 * that configuration is the tuned best. 0 or -1. */
static int save_vendor(const struct compare_args *a, const struct croq_config *cfg, const struct measure_compare *c)
{
    static const int from[VENDOR_SUBJECTS] = {[VENDOR_SLT_DEFAULT] = MEASURE_CMP_SLT_DEFAULT,
                                              [VENDOR_SLT_SEARCH] = MEASURE_CMP_SLT_SEARCH,
                                              [VENDOR_CUBLAS] = MEASURE_CMP_CUBLAS};
    struct vendor_record r = {.dtype = a->mo.dtype, .shape = a->mo.shape, .cold_l2 = a->mo.cold_l2,
                              .sm_clock_mhz = c->e[MEASURE_CMP_SLT_SEARCH].sm_clock_mhz,
                              .timing = c->protocol == MEASURE_PROTO_INTERLEAVED ? VENDOR_TIMING_INTERLEAVED
                                                                                 : VENDOR_TIMING_BLOCKS,
                              .has_ours = cfg != NULL, .ours_tflops = verified_tflops(&c->e[MEASURE_CMP_OURS]),
                              .from_scratch = for_scratch(a)};
    char err[4400];
    snprintf(r.gpu, sizeof r.gpu, "%s", c->run.gpu);
    if (r.timing == VENDOR_TIMING_INTERLEAVED)
        r.rounds = c->rounds;
    for (int i = 0; i < VENDOR_SUBJECTS; i++) {
        const struct measure_cmp_paired *p = &c->paired[from[i]];
        r.tflops[i] = verified_tflops(&c->e[from[i]]);
        if (p->n)
            r.paired[i] = (struct vendor_ratio){p->median, p->lo, p->hi, p->n};
    }
    if (cfg)
        knobs_signature(cfg, r.ours_config);
    if (vendor_record_write(a->tuning, &r, err, sizeof err)) {
        log_error("compare: %s", err);
        return -1;
    }
    return 0;
}

/* Build ours (unless --no-ours), run the runner, print. 0 or 1. */
static int compare_execute(struct compare_args *a, const struct croq_config *cfg, const char *kernel)
{
    struct kernel_workdir wd;
    struct build_result br;
    struct measure_compare c;
    char err[1024];
    int rc = 1;
    memset(&br, 0, sizeof br);
    if (kernel_workdir_open(&wd, a->work, err, sizeof err)) {
        log_error("compare: %s", err);
        return 1;
    }
    if (!a->no_ours && kernel_build(cfg, wd.path, "compare", 0, &br)) {
        log_error("compare: building kernel '%s': %s", kernel, br.error);
        goto out;
    }
    a->mo.cubin = a->no_ours ? NULL : br.cubin_path;
    if (measure_compare_run(&a->mo, &c) == 0) {
        bool measured = false;
        for (int i = 0; i < MEASURE_CMP_COUNT; i++)
            measured |= c.e[i].present;
        if (a->json && c.run.raw_json)
            fputs(c.run.raw_json, stdout);
        else if (measured) /* else the runner stopped before measuring: the error says why */
            print_table(a, &c, a->no_ours ? NULL : kernel);
        if (c.run.status != MEASURE_OK)
            log_error("compare: %s: %s", measure_status_name(c.run.status), c.run.error);
        rc = c.run.status == MEASURE_OK ? 0 : 1;
        /* a reply that did not parse (a field the check refused, e.g. an unknown protocol)
         * says nothing reliable: nothing is recorded from it */
        if (a->tuning && measured && c.run.status != MEASURE_BAD_OUTPUT && save_vendor(a, a->no_ours ? NULL : cfg, &c))
            rc = 1;
    } else {
        log_error("compare: %s", c.run.error);
    }
    measure_compare_release(&c);
out:
    build_result_release(&br);
    kernel_workdir_release(&wd);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    struct compare_args a;
    struct croq_config cfg;
    char kernel[CROQ_LABEL_MAX] = "";
    int rc;
    memset(&a, 0, sizeof a);
    if ((rc = compare_parse(argc, argv, &a)))
        return rc == 1 ? 0 : rc;
    if (compare_check(&a, &cfg, kernel))
        return 2;
    return compare_execute(&a, &cfg, kernel);
}
