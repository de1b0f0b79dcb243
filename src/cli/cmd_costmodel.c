/* src/cli/cmd_costmodel.c — `croqtuner costmodel`: the cost model across shapes
 * (src/costmodel) fitted on the measured rows of tuning directories, its leave-one-shape-out
 * error, and its serialized form (docs/proposer.md "The model across shapes"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "costmodel/costmodel.h"
#include "dataset/dataset.h"
#include "engine/engine.h"
#include "target/dtype.h"
#include "util/atomicio.h"
#include "util/jsonget.h"
#include "util/log.h"
#include "util/opts.h"
#include "util/regfile.h"

#define MAX_DIRS 16
#define MAX_SHAPES 512

static const char usage[] =
    "usage: croqtuner costmodel --tuning DIR [--tuning DIR ...] [--dataset FILE ...] [--backend NAME]\n"
    "                           [--dtype f16|e4m3] [--leave-out [--verbose]] [--oracle FILE] [--out FILE]\n"
    "       croqtuner costmodel --check FILE\n"
    "\n"
    "Fit one cost model per dtype on every measured row (verified, with a TFLOPS) of every\n"
    "shape of the tuning directories (costmodel_fit_shapes: src/costmodel/costmodel.h) and\n"
    "print what it was fitted on.\n"
    "\n"
    "  --dataset FILE  also the 'ok' records of an explore dataset (docs/explore.md; repeatable)\n"
    "  --backend NAME  only shapes tuned on this backend (default gpu; 'any' for all)\n"
    "  --dtype D       only this dtype (default: each dtype with rows)\n"
    "  --leave-out     each shape held out in turn: the model fitted on the other shapes predicts\n"
    "                  its rows. Per shape: rows, configurations, the median and worst\n"
    "                  |predicted / measured - 1| (err), the same for TFLOPS relative to the\n"
    "                  shape's best configuration (rel), the model's top configuration's\n"
    "                  measured TFLOPS over the best's (pick), the best of its top 8 (top8),\n"
    "                  and how many configurations it ranks above the best; then per dtype the\n"
    "                  line 'costmodel leave-out DTYPE: shapes S rows R err median X worst Y\n"
    "                  pick min A median B top8 min C' (S: held-out shapes with at least two\n"
    "                  configurations, which pick and top8 are over; R: every held-out row)\n"
    "  --verbose       with --leave-out: each held-out shape's pick and best configurations\n"
    "  --oracle FILE   rank measured kernels with the fitted model: FILE is croqsparse-check's JSON\n"
    "                  lines with ORACLE=1 (tests/gpu/library.sh's library.jsonl), whose 'oracle'\n"
    "                  object holds every candidate kernel's config and TFLOPS timed on its shape.\n"
    "                  Per shape: the model's first candidate's TFLOPS over the fastest's (pick);\n"
    "                  then per dtype 'costmodel oracle DTYPE: shapes S pick geomean G min M\n"
    "                  at-least-0.90 C' (lines without an 'oracle' member are skipped; a\n"
    "                  malformed one, a shape given twice or no ranked shape at all: exit 1)\n"
    "  --out FILE      write the models in the cost model's format (atomically)\n"
    "\n"
    "With --check: read a model written by --out as the library reads a pack's copy\n"
    "and print its models, or why it is refused.\n"
    "\n"
    "Exit status: 0 done, 1 a directory without a readable state.json or results.tsv, no model\n"
    "to write, a refused model or a refused --oracle file (then --out is not written), 2 bad\n"
    "usage (a missing directory or file among them).\n";

/* --check FILE: parse it as the library would. */
static int check_model(const char *path)
{
    size_t len, n;
    char err[512];
    static struct costmodel m[2];
    char *text = read_file(path, &len);
    if (!text) {
        log_error("costmodel: cannot read %s: %s", path, regfile_strerror(errno));
        return 1;
    }
    int rc = costmodel_parse(text, len, m, 2, &n, err, sizeof err);
    free(text);
    if (rc) {
        log_error("costmodel: %s: %s", path, err);
        return 1;
    }
    printf("%s: cost model format %d, %zu model%s\n", path, COSTMODEL_FORMAT, n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++)
        printf("  %s: fitted on %d rows of %d shapes, %d features, residual sigma %.3f\n", croq_dtype_name(m[i].dtype),
               m[i].n, m[i].n_groups, m[i].p, m[i].sigma);
    return 0;
}

static void print_heldout(const struct costmodel_heldout *h, bool verbose)
{
    char shape[64];
    snprintf(shape, sizeof shape, "%ldx%ldx%ld", h->shape.m, h->shape.n, h->shape.k);
    if (!h->fitted) {
        printf("  %-18s  (fewer than 2 other shapes: no model)\n", shape);
        return;
    }
    printf("  %-18s %5d %5d  %6.1f%% %6.1f%%  %6.1f%% %6.1f%%  %5.3f %5.3f  %4d  %8.1f\n", shape, h->rows, h->configs,
           100 * h->err_median, 100 * h->err_worst, 100 * h->rel_err_median, 100 * h->rel_err_worst, h->pick_ratio,
           h->top_ratio, h->best_rank, h->best_tflops);
    if (verbose) {
        char sig[CROQ_SIG_MAX];
        knobs_signature(&h->pick, sig);
        printf("      pick %8.1f  %s\n", h->pick_tflops, sig);
        knobs_signature(&h->best, sig);
        printf("      best %8.1f  %s\n", h->best_tflops, sig);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int leave_out(int dtype, const struct costmodel_sample *s, size_t n, bool verbose)
{
    static struct costmodel_heldout h[MAX_SHAPES];
    size_t nh;
    double *row_err = malloc((n ? n : 1) * sizeof *row_err), *picks = malloc(MAX_SHAPES * sizeof *picks);
    if (!row_err || !picks || costmodel_leave_out(dtype, s, n, h, MAX_SHAPES, &nh, row_err)) {
        log_error("costmodel: leave-out %s: out of memory or more than %d shapes", croq_dtype_name(dtype), MAX_SHAPES);
        free(row_err), free(picks);
        return 1;
    }
    printf("%s leave-one-shape-out:\n", croq_dtype_name(dtype));
    printf("  %-18s %5s %5s  %7s %7s  %7s %7s  %5s %5s  %4s  %8s\n", "held-out shape", "rows", "cfgs", "err med",
           "worst", "rel med", "worst", "pick", "top8", "above", "best TF");
    size_t ne = 0, np = 0, shapes = 0;
    double top_min = INFINITY;
    for (size_t i = 0; i < nh; i++) {
        print_heldout(&h[i], verbose);
        if (!h[i].fitted || h[i].configs < 2) /* one configuration: nothing to pick between */
            continue;
        shapes++;
        picks[np++] = h[i].pick_ratio;
        top_min = fmin(top_min, h[i].top_ratio);
    }
    for (size_t i = 0; i < n; i++)
        if (!isnan(row_err[i]))
            row_err[ne++] = row_err[i];
    if (!np) {
        printf("costmodel leave-out %s: nothing to judge (a held-out shape needs 2 other shapes to fit on and 2 "
               "measured configurations of its own)\n",
               croq_dtype_name(dtype));
    } else {
        qsort(row_err, ne, sizeof *row_err, cmp_double);
        qsort(picks, np, sizeof *picks, cmp_double);
        double med = ne % 2 ? row_err[ne / 2] : (row_err[ne / 2 - 1] + row_err[ne / 2]) / 2;
        double pmed = np % 2 ? picks[np / 2] : (picks[np / 2 - 1] + picks[np / 2]) / 2;
        printf("costmodel leave-out %s: shapes %zu rows %zu err median %.3f worst %.3f pick min %.3f median %.3f "
               "top8 min %.3f\n", croq_dtype_name(dtype), shapes, ne, med, row_err[ne - 1], picks[0], pmed, top_min);
    }
    free(row_err), free(picks);
    return 0;
}

/* One --oracle record (a line without an "oracle" member, or with null, is not one:
 * *is_oracle false): its dtype, shape and candidates, read with util/jsonget. The pick is
 * the candidate the model predicts fastest among the timed ones ("tflops" null or absent:
 * not timed, a kernel the shape cannot run); best the fastest measured (best_tf 0 when none
 * was timed, or the dtype has no model: then the configs are checked, not ranked). 0, or
 * -1 with the reason, naming the member, in err. */
struct oracle_pick {
    int dtype;
    struct croq_shape shape;
    char pick[64], best[64]; /* kernel names */
    double pick_tf, best_tf;
};

static int oracle_record(json_t *r, const struct costmodel *models, bool *is_oracle, struct oracle_pick *o,
                         char *err, size_t errlen)
{
    struct jget g;
    jget_init(&g, "", err, errlen);
    json_t *oracle = jget_obj(&g, r, "", "oracle", false);
    *is_oracle = oracle != NULL;
    if (!oracle)
        return g.failed ? -1 : 0;
    char dt[8] = "";
    long long dim[3] = {0, 0, 0};
    jget_str(&g, r, "", "dtype", true, dt, sizeof dt);
    jget_int(&g, r, "", "m", true, &dim[0]);
    jget_int(&g, r, "", "n", true, &dim[1]);
    jget_int(&g, r, "", "k", true, &dim[2]);
    json_t *cands = jget_array(&g, oracle, "oracle", "candidates", true);
    if (!g.failed && (o->dtype = croq_dtype_parse(dt)) < 0)
        jget_fail(&g, "", "dtype", "is not f16 or e4m3");
    if (g.failed)
        return -1;
    o->shape = (struct croq_shape){(long)dim[0], (long)dim[1], (long)dim[2]};
    if (!shape_validate(o->dtype, &o->shape, err, errlen)) /* it names the shape */
        return -1;
    const struct costmodel *m = &models[o->dtype];
    double pred = -INFINITY;
    o->pick[0] = o->best[0] = '\0', o->pick_tf = o->best_tf = 0;
    size_t i;
    json_t *c;
    json_array_foreach(cands, i, c) {
        char pfx[48], sig[CROQ_SIG_MAX], kernel[sizeof o->pick] = "?", why[256];
        struct croq_config cfg;
        double tf = NAN;
        snprintf(pfx, sizeof pfx, "oracle.candidates[%zu]", i);
        if (!json_is_object(c))
            jget_fail(&g, "oracle", "candidates", "holds an element that is not an object");
        jget_str(&g, c, pfx, "config", true, sig, sizeof sig);
        jget_text(&g, c, pfx, "kernel", false, kernel, sizeof kernel);
        jget_num(&g, c, pfx, "tflops", false, &tf);
        if (!g.failed && knobs_parse_signature(&cfg, sig, why, sizeof why))
            jget_fail(&g, pfx, "config", why);
        else if (!g.failed && cfg.dtype != o->dtype)
            jget_fail(&g, pfx, "config", "is of another dtype than the record's");
        else if (!g.failed && !isnan(tf) && !(isfinite(tf) && tf > 0 && tf <= 1e6))
            jget_fail(&g, pfx, "tflops", "is not a TFLOPS figure (a number in (0, 1e6], or null)");
        if (g.failed)
            return -1;
        if (isnan(tf) || !m->n)
            continue;
        int unseen;
        double p = costmodel_predict(m, &cfg, &o->shape, &unseen);
        if (tf > o->best_tf)
            o->best_tf = tf, snprintf(o->best, sizeof o->best, "%s", kernel);
        if (p > pred)
            pred = p, o->pick_tf = tf, snprintf(o->pick, sizeof o->pick, "%s", kernel);
    }
    return 0;
}

/* --oracle FILE: each record's candidates ranked by the model of its dtype. 0, or 1 with a
 * message naming the line: unreadable (read_file: a regular file only), a line that is not
 * one JSON object (blank lines are skipped; jansson refuses duplicate keys and bytes after
 * the object, a NUL included), a record oracle_record refuses, a shape given twice, or no
 * oracle record ranked at all. */
static int oracle_rank(const char *path, const struct costmodel *models, int only)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        log_error("costmodel: --oracle %s: %s", path, regfile_strerror(errno));
        return 1;
    }
    double lg[CROQ_DTYPE_COUNT] = {0}, worst[CROQ_DTYPE_COUNT];
    int shapes[CROQ_DTYPE_COUNT] = {0}, good[CROQ_DTYPE_COUNT] = {0}, rc = 0, total = 0;
    for (int d = 0; d < CROQ_DTYPE_COUNT; d++)
        worst[d] = INFINITY;
    struct seen { int dtype; struct croq_shape s; long line; } *seen = NULL;
    size_t nseen = 0;
    const char *p = text, *end = text + len;
    for (long lineno = 1; !rc && p < end; lineno++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
        const char *at = p;
        p += n + 1;
        if (strspn(at, " \t\r") >= n)
            continue; /* a blank line */
        json_error_t jerr;
        json_t *r = json_loadb(at, n, JSON_REJECT_DUPLICATES, &jerr);
        char err[512];
        bool is_oracle;
        struct oracle_pick o;
        if (!json_is_object(r)) {
            log_error("costmodel: --oracle %s:%ld: not a JSON object (%s)", path, lineno,
                      r ? "another JSON value" : jerr.text);
            rc = 1;
        } else if (oracle_record(r, models, &is_oracle, &o, err, sizeof err)) {
            log_error("costmodel: --oracle %s:%ld: %s", path, lineno, err);
            rc = 1;
        } else if (is_oracle) {
            for (size_t i = 0; i < nseen && !rc; i++)
                if (seen[i].dtype == o.dtype && !memcmp(&seen[i].s, &o.shape, sizeof o.shape)) {
                    log_error("costmodel: --oracle %s:%ld: %s %ldx%ldx%ld was already ranked at line %ld", path,
                              lineno, croq_dtype_name(o.dtype), o.shape.m, o.shape.n, o.shape.k, seen[i].line);
                    rc = 1;
                }
            seen = xrealloc(seen, (nseen + 1) * sizeof *seen);
            seen[nseen++] = (struct seen){o.dtype, o.shape, lineno};
            if (!rc && (only < 0 || o.dtype == only) && models[o.dtype].n) {
                if (o.best_tf > 0) {
                    double ratio = o.pick_tf / o.best_tf;
                    printf("oracle %-4s %ldx%ldx%ld pick %s %.1f best %s %.1f ratio %.3f\n",
                           croq_dtype_name(o.dtype), o.shape.m, o.shape.n, o.shape.k, o.pick, o.pick_tf, o.best,
                           o.best_tf, ratio);
                    lg[o.dtype] += log(ratio), shapes[o.dtype]++, good[o.dtype] += ratio >= 0.90;
                    worst[o.dtype] = fmin(worst[o.dtype], ratio);
                    total++;
                } else
                    printf("oracle %-4s %ldx%ldx%ld: no candidate timed, not ranked\n", croq_dtype_name(o.dtype),
                           o.shape.m, o.shape.n, o.shape.k);
            }
        }
        json_decref(r);
    }
    free(text), free(seen);
    if (!rc && !total) {
        log_error("costmodel: --oracle %s: no oracle record with a timed candidate%s", path,
                  only >= 0 ? " of this dtype" : " of a fitted dtype");
        rc = 1;
    }
    for (int d = 0; d < CROQ_DTYPE_COUNT && !rc; d++)
        if (shapes[d])
            printf("costmodel oracle %s: shapes %d pick geomean %.3f min %.3f at-least-0.90 %d\n", croq_dtype_name(d),
                   shapes[d], exp(lg[d] / shapes[d]), worst[d], good[d]);
    return rc;
}

int cmd_costmodel(int argc, char **argv)
{
    const char *dirs[MAX_DIRS], *datasets[MAX_DIRS], *backend = NULL, *out = NULL, *dtype_opt = NULL, *check = NULL,
               *oracle = NULL;
    int ndirs = 0, nds = 0;
    bool lo = false, verbose = false;
    struct opt t[] = {
        {.name = "--tuning", .type = OPT_DIR, .dst = dirs, .max = MAX_DIRS, .count = &ndirs},
        {.name = "--dataset", .type = OPT_FILE, .dst = datasets, .max = MAX_DIRS, .count = &nds},
        {.name = "--backend", .type = OPT_STR, .dst = &backend},
        {.name = "--dtype", .type = OPT_CUSTOM, .dst = &dtype_opt, .check = cli_dtype_value},
        {.name = "--leave-out", .type = OPT_FLAG, .dst = &lo},
        {.name = "--verbose", .type = OPT_FLAG, .dst = &verbose},
        {.name = "--out", .type = OPT_OUTFILE, .dst = &out},
        {.name = "--check", .type = OPT_FILE, .dst = &check},
        {.name = "--oracle", .type = OPT_FILE, .dst = &oracle},
    };
    struct opt_spec spec = {"costmodel", usage, t, sizeof t / sizeof t[0]};
    int prc = opts_parse(&spec, argc, argv);
    if (prc)
        return prc == 1 ? 0 : 2;
    int only = dtype_opt ? croq_dtype_parse(dtype_opt) : -1; /* cli_dtype_value checked it */
    if (check) {
        if (ndirs || nds || out || lo || oracle || backend || dtype_opt || verbose) {
            log_error("costmodel: option '--check' takes no other option");
            return 2;
        }
        return check_model(check);
    }
    if (!backend)
        backend = "gpu";
    if (cli_out_outside_tuning("costmodel", "--out", out, dirs, (size_t)ndirs))
        return 2;
    if (!ndirs && !nds) {
        log_error("costmodel: --tuning DIR or --dataset FILE is required (see 'croqtuner costmodel --help')");
        return 2;
    }
    struct costmodel_sample *all = NULL;
    size_t n = 0;
    for (int d = 0; d < ndirs; d++) {
        struct costmodel_sample *s;
        size_t ns;
        char err[1200];
        if (engine_tuning_samples(dirs[d], strcmp(backend, "any") ? backend : NULL, &s, &ns, err, sizeof err)) {
            log_error("costmodel: %s", err);
            free(all);
            return 1;
        }
        all = xrealloc(all, (n + ns + 1) * sizeof *all);
        memcpy(all + n, s, ns * sizeof *s);
        n += ns;
        free(s);
    }
    for (int d = 0; d < nds; d++) {
        struct dataset ds;
        char err[1200];
        if (dataset_load(datasets[d], false, &ds, err, sizeof err)) {
            log_error("costmodel: %s", err);
            free(all);
            return 1;
        }
        all = xrealloc(all, (n + (size_t)ds.n + 1) * sizeof *all);
        for (int i = 0; i < ds.n; i++)
            if (!strcmp(ds.r[i].status, "ok") && isfinite(ds.r[i].tflops) && ds.r[i].tflops > 0)
                all[n++] = (struct costmodel_sample){.cfg = ds.r[i].cfg, .shape = ds.shape, .tflops = ds.r[i].tflops};
        dataset_release(&ds);
    }
    static struct costmodel models[2];
    const struct costmodel *fitted[2];
    size_t nf = 0;
    int rc = 0;
    for (int dt = 0; dt < CROQ_DTYPE_COUNT && !rc; dt++) {
        if (only >= 0 && dt != only)
            continue;
        if (costmodel_fit_shapes(&models[dt], dt, all, n)) {
            log_error("costmodel: %s: out of memory", croq_dtype_name(dt));
            rc = 1;
            break;
        }
        if (!models[dt].n) {
            size_t rows = 0;
            for (size_t i = 0; i < n; i++)
                rows += all[i].cfg.dtype == dt;
            printf("%s: no model (%zu measured rows of backend %s; a fit needs 2 shapes and %d rows%s)\n",
                   croq_dtype_name(dt), rows, backend, COSTMODEL_MIN_SAMPLES,
                   strcmp(backend, "any") ? "; --backend any or sim reads the other backends' rows" : "");
            continue;
        }
        printf("%s: fitted on %d rows of %d shapes, residual sigma %.3f (ln TFLOPS)\n", croq_dtype_name(dt),
               models[dt].n, models[dt].n_groups, models[dt].sigma);
        fitted[nf++] = &models[dt];
        if (lo)
            rc = leave_out(dt, all, n, verbose);
    }
    if (!rc && oracle)
        rc = oracle_rank(oracle, models, only);
    if (!rc && out) {
        long len = costmodel_serialize(fitted, nf, NULL, 0);
        char *buf = len > 0 && nf ? malloc((size_t)len + 1) : NULL;
        if (!buf) {
            log_error("costmodel: --out %s: no model to write", out);
            rc = 1;
        } else {
            costmodel_serialize(fitted, nf, buf, (size_t)len + 1);
            if (atomic_write_out(out, buf, (size_t)len)) {
                log_error("costmodel: cannot write %s: %s", out, strerror(errno));
                rc = 1;
            } else
                printf("wrote %s (%ld bytes, %zu model%s)\n", out, len, nf, nf == 1 ? "" : "s");
            free(buf);
        }
    }
    free(all);
    return rc;
}
