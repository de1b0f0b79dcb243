/* src/cli/cmd_export.c — `croqtuner export`: the registered bests of tuning directories
 * as a kernel pack (src/pack/pack.h) for the croqsparse library.
 *
 * Each best is regenerated from its configuration with the current kernel sources
 * (src/codegen) and compiled for sm_90a (src/build), so the pack speaks the current
 * ABI even when the tuning ran against an older one. The regenerated source carries the
 * note line of the measured one, so an unchanged generator gives the same bytes: the
 * index records the hash of both (pack.h), and export says on stderr which bests were
 * regenerated into another source than the one whose speed the index quotes. Per dtype, one fallback configuration (valid for every shape the
 * format accepts) is added, so the library has a kernel for any shape.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "bench/kernel.h"
#include "commands.h"
#include "artifacts/results.h"
#include "artifacts/state.h"
#include "artifacts/srcstore.h"
#include "costmodel/costmodel.h"
#include "engine/engine.h"
#include "target/dtype.h"
#include "knobs/knobs.h"
#include "pack/pack.h"
#include "util/opts.h"
#include "util/atomicio.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/version.h"

#define EXPORT_MAX_DIRS 16

/* Valid for every shape with K % 64 == 0 and N % 8 == 0, both dtypes (knobs rules):
 * tile_k 64 divides every K, no split-K, a direct epilogue. */
static const char fallback_sets[] =
    "kernel=1 tile_m=128 tile_n=128 tile_k=64 stages=4 consumers=2 epilogue=0 persistent=1 "
    "split_k=1 cluster_m=1 cluster_n=1";

static const char export_usage[] =
    "usage: croqtuner export --tuning DIR [--tuning DIR ...] --out PACK [--driver VERSION]\n"
    "                        [--gpu NAME] [--work DIR] [--regenerate]\n"
    "\n"
    "Turn the registered best of every shape of the tuning directories into a kernel pack\n"
    "for the croqsparse library: each best's measured source (whole, or regenerated from its\n"
    "recipe by the generator that wrote it) compiled for sm_90a, so the pack holds the module\n"
    "that was measured, plus one fallback configuration per dtype. A best measured with\n"
    "kernels of another ABI than this library's (kernels/abi.h CROQ_ABI_VERSION) cannot be\n"
    "loaded by it and is refused; --regenerate compiles such a directory's configurations\n"
    "with this build's kernel sources instead (its TFLOPS were then not measured for those\n"
    "cubins, and export says so). The index\n"
    "records shape, dtype, configuration, measured TFLOPS, source hash, the GPU the bests\n"
    "were measured on (from their runner records, or --gpu), the CUDA version of this\n"
    "build, and the driver (--driver; the tuning records do not hold it). Only shapes\n"
    "tuned on the GPU backend go into a pack: a sim or replay tuning directory is refused.\n"
    "  --work DIR   keep the generated sources and cubins there (default: a temporary dir)\n"
    "The TFLOPS of a best is its results.tsv row's; a best that is not the one results.tsv\n"
    "committed, a best whose source is outside the tuning directory, behind a symbolic link\n"
    "or does not hash to the row's source_hash, or a shape key found in two directories, is\n"
    "refused.\n"
    "Exit status: 0 written, 1 a best could not be compiled, is refused, or its GPU is unknown\n"
    "or differs between bests, 2 bad usage.\n";

struct export_args {
    const char *dirs[EXPORT_MAX_DIRS];
    int ndirs;
    const char *out, *driver, *gpu, *work;
    bool regenerate;
};

/* --driver: an NVIDIA driver version as nvidia-smi and NVML print it, "580.95.05" (two or
 * three dot-separated numbers). */
static int driver_value(const char *v, void *dst, char *err, size_t errlen)
{
    int parts = 0;
    const char *p = v;
    for (;;) {
        size_t n = strspn(p, "0123456789");
        if (!n || n > 6)
            break;
        parts++;
        p += n;
        if (*p != '.')
            break;
        p++;
    }
    if (*p || parts < 2 || parts > 3) {
        snprintf(err, errlen, "'%s' is not a driver version like 580.95.05 (as nvidia-smi prints it)", v);
        return -1;
    }
    *(const char **)dst = v;
    return 0;
}

/* 0 parsed, 1 help shown, 2 bad usage. */
static int export_parse(int argc, char **argv, struct export_args *a)
{
    a->driver = "unrecorded";
    struct opt t[] = {
        {.name = "--tuning", .type = OPT_OUTDIR, .dst = a->dirs, .max = EXPORT_MAX_DIRS, .count = &a->ndirs},
        {.name = "--out", .type = OPT_OUTFILE, .dst = &a->out},
        {.name = "--driver", .type = OPT_CUSTOM, .dst = &a->driver, .check = driver_value},
        {.name = "--gpu", .type = OPT_STR, .dst = &a->gpu},
        {.name = "--work", .type = OPT_OUTDIR, .dst = &a->work},
        {.name = "--regenerate", .type = OPT_FLAG, .dst = &a->regenerate},
    };
    struct opt_spec spec = {"export", export_usage, t, sizeof t / sizeof t[0]};
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc;
    if (!a->ndirs || !a->out) {
        log_error("export: '--tuning DIR' and '--out PACK' are required (see --help)");
        return 2;
    }
    if (cli_out_outside_tuning("export", "--out", a->out, a->dirs, (size_t)a->ndirs))
        return 2;
    if (a->gpu && strpbrk(a->gpu, "\n")) {
        log_error("export: --gpu must be one line");
        return 2;
    }
    return 0;
}

/* What export collects: the pack, and the cubin bytes its entries point at. */
struct export {
    struct pack p;
    size_t cap;
    struct kernel_workdir w;
    bool regenerate;
};

/* The CROQ_ABI_VERSION a self-contained source defines (its embedded kernels/abi.h), -1
 * when it defines none. */
static long source_abi(const char *src)
{
    const char *p = strstr(src, "#define CROQ_ABI_VERSION ");
    return p ? strtol(p + strlen("#define CROQ_ABI_VERSION "), NULL, 10) : -1;
}

/* "gpu" of the runner record of the best (perf/<key>/iterNNN-cand.json), or "". */
static void best_gpu(const char *dir, const char *key, long iter, char *out, size_t len)
{
    char path[4096];
    size_t n;
    out[0] = '\0';
    snprintf(path, sizeof path, "%s/perf/%s/iter%03ld-cand.json", dir, key, iter);
    char *text = read_file(path, &n);
    json_t *j = text ? json_loadb(text, n, 0, NULL) : NULL;
    const char *g = json_string_value(json_object_get(j, "gpu"));
    if (g)
        snprintf(out, len, "%s", g);
    json_decref(j);
    free(text);
}

/* Compile the recorded source (measured: its bytes, len) or, for a fallback (measured
 * NULL), cfg's source generated now with the note line note, and append it as an entry.
 * Why the recorded bytes: a best's recipe regenerates them with the generator that wrote
 * them (its snapshot in the tuning directory), so the pack ships the module that was
 * measured even after kernels/ changed; today's generator would make another one. */
static int add_entry(struct export *x, const struct croq_config *cfg, const char *key, const char *note,
                     const char *measured, size_t len, struct pack_entry *e)
{
    struct build_result r;
    char path[4200];
    size_t n;
    int rc;
    snprintf(path, sizeof path, "%.4000s/%.100s.cu", x->w.path, key);
    if (measured) {
        struct build_opts bo = {.out_dir = x->w.path};
        memset(&r, 0, sizeof r);
        rc = atomic_write_volatile(path, measured, len) ? -1 : build_compile(path, &bo, &r);
        if (rc && !r.error[0])
            snprintf(r.error, sizeof r.error, "cannot write '%.1900s': %s", path, strerror(errno));
    } else {
        rc = kernel_build_noted(cfg, x->w.path, key, note, 0, &r);
    }
    if (rc || !r.ok) {
        log_error("export: '%s' does not compile: %s", key, r.error);
        build_result_release(&r);
        return -1;
    }
    unsigned char *cubin = (unsigned char *)read_file(r.cubin_path, &e->cubin_bytes);
    char *src = read_file(path, &n);
    build_result_release(&r);
    if (!cubin || !src) {
        log_error("export: cannot read back the cubin or source of '%s'", key);
        free(cubin);
        free(src);
        return -1;
    }
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, src, n), e->hash);
    free(src);
    e->cubin = cubin;
    e->dtype = cfg->dtype;
    knobs_signature(cfg, e->config);
    snprintf(e->key, sizeof e->key, "%s", key);
    if (x->p.n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 16;
        x->p.e = xrealloc(x->p.e, x->cap * sizeof *x->p.e);
    }
    x->p.e[x->p.n++] = *e;
    fprintf(stderr, "export: %s %s (%zu B cubin%s)\n", key, e->config, e->cubin_bytes,
            measured ? ", its measured source" : "");
    if (measured && strcmp(e->tuned_hash, e->hash)) { /* the bytes were checked: a bug here */
        log_error("export: '%s': compiled source %s, measured %s", key, e->hash, e->tuned_hash);
        x->p.n--;
        return -1;
    }
    if (!measured && strcmp(e->tuned_hash, "-") && strcmp(e->tuned_hash, e->hash))
        fprintf(stderr, "export: %s: regenerated with this build's kernel sources into source %s (--regenerate); the "
                "%.1f TFLOPS of the index were measured with source %s: not measured for this cubin\n",
                key, e->hash, e->tflops, e->tuned_hash);
    return 0;
}

/* The measured source of a best (state.json best.kernel, whole or a recipe), taken only
 * from inside the tuning directory (no symlink, a regular file: srcstore_check_inside)
 * and only when its bytes hash to row_hash, the source hash results.tsv recorded for the
 * best's row: a pack quotes that row's TFLOPS for it, so any other file is refused; a
 * generated source must also have been generated from the best's configuration (its
 * header's config line), or the entry's config would not be its cubin's. Its hash into
 * e->tuned_hash and its note line into note (empty if none). 0, or -1 logged. */
static int measured_source(const char *dir, const struct state_shape *shape, const char *row_hash,
                           struct pack_entry *e, char *note, size_t cap, char **bytes, size_t *nbytes)
{
    const char *key = shape->key, *rel = shape->best.kernel;
    char err[1024];
    char *src;
    size_t len;
    if (!*rel) {
        log_error("export: '%s' in %s: the best names no kernel source", key, dir);
        return -1;
    }
    if (srcstore_check_inside(dir, rel, err, sizeof err) || srcstore_read(dir, rel, &src, &len, err, sizeof err)) {
        log_error("export: '%s' in %s: the best's source: %s", key, dir, err);
        return -1;
    }
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, src, len), e->tuned_hash);
    if (strcmp(e->tuned_hash, row_hash)) {
        log_error("export: '%s' in %s: the best's source %s hashes to %s, results.tsv recorded %s for iteration %d: "
                  "not the source that was measured", key, dir, rel, e->tuned_hash, row_hash, shape->best.iter);
        free(src);
        return -1;
    }
    char cfg[CROQ_SIG_MAX];
    if (srcstore_config(src, cfg, sizeof cfg) && strcmp(cfg, shape->best.config)) {
        log_error("export: '%s' in %s: the best's source %s was generated from %s, not from the best's configuration "
                  "%s", key, dir, rel, cfg, shape->best.config);
        free(src);
        return -1;
    }
    if (!srcstore_note(src, note, cap))
        note[0] = '\0';
    *bytes = src;
    *nbytes = len;
    return 0;
}

static int set_gpu(struct export *x, const char *gpu, const char *key)
{
    for (const char *p = gpu; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            log_error("export: the GPU name of '%s' holds a control character", key);
            return -1;
        }
    if (!gpu[0]) {
        log_error("export: no runner record names the GPU of '%s' (give --gpu NAME)", key);
        return -1;
    }
    if (x->p.gpu[0] && strcmp(x->p.gpu, gpu)) {
        log_error("export: '%s' was measured on '%s', others on '%s': one pack per GPU model", key, gpu, x->p.gpu);
        return -1;
    }
    snprintf(x->p.gpu, sizeof x->p.gpu, "%s", gpu);
    return 0;
}

/* The checkpoint's ladder clock (NaN: not known) and state.json's (NaN or 0: not recorded)
 * say the same. */
static bool same_clock(double checkpoint_mhz, double state_mhz)
{
    bool state_known = isfinite(state_mhz) && state_mhz > 0;
    return isnan(checkpoint_mhz) ? !state_known : checkpoint_mhz == state_mhz;
}

/* A best registered by the final ladder: the checkpoint (the engine's record, whose own
 * best must be results.tsv's) must register exactly it; the index quotes the ladder's
 * TFLOPS. 0, or -1 with err. */
static int ladder_tflops(const char *dir, const struct state_shape *shape, const struct result_log *res, double *out,
                         char *err, size_t errlen)
{
    struct checkpoint ck;
    struct registered_best rb;
    char why[900];
    int rc = checkpoint_load(dir, shape->key, &ck, why, sizeof why);
    if (rc) {
        snprintf(err, errlen, "%s", rc > 0 ? "state.json's best is a final ladder's winner, but there is no checkpoint"
                                           : why);
        return -1;
    }
    rc = checkpoint_check_best(&ck, res, why, sizeof why) || checkpoint_check_ladder(&ck, res, why, sizeof why) ? -1 : 0;
    checkpoint_registered(&ck, &rb);
    if (rc)
        snprintf(err, errlen, "checkpoint: %s", why);
    else if (!rb.from_ladder || rb.iter != shape->best.iter || strcmp(rb.config, shape->best.config) ||
             strcmp(rb.kernel, shape->best.kernel) || !(rb.tflops == shape->best.tflops)) {
        snprintf(err, errlen, "state.json's best is not the final ladder's winner the checkpoint records");
        rc = -1;
    } else if (ck.cold_l2 != shape->cold_l2 || !same_clock(rb.sm_clock_mhz, shape->best.sm_clock_mhz)) {
        /* the pack quotes both beside the TFLOPS: they are the checkpoint's, or nothing */
        snprintf(err, errlen, "state.json's best clock or L2 mode is not what the checkpoint records for the ladder");
        rc = -1;
    } else if ((size_t)rb.iter >= res->n || !res->rows[rb.iter].measured) {
        snprintf(err, errlen, "the final ladder's winner, iteration %d, has no measured results.tsv row", rb.iter);
        rc = -1;
    } else {
        *out = rb.tflops;
    }
    checkpoint_release(&ck);
    return rc;
}

/* The TFLOPS the index quotes: the best's own results.tsv row (the measurement of that
 * source), once state.json's best has been found to be the one results.tsv committed
 * (results_check_best): a best edited into state.json is refused, never published. A
 * final ladder's winner is quoted at the ladder's number (ladder_tflops). The row's source
 * hash into hash. 0, or -1 logged. */
static int measured_tflops(const char *dir, const struct state_shape *shape, double *out,
                           char hash[BACKEND_HASH_MAX])
{
    char path[4200], err[1024];
    struct result_log res;
    struct best_claim b = {"state.json's", true, shape->best.iter, shape->best.config, shape->best.kernel, NULL,
                           shape->best.tflops};
    snprintf(path, sizeof path, "%s/logs/%s/results.tsv", dir, shape->key);
    int rc = result_log_read(path, &res, err, sizeof err);
    if (rc) {
        log_error("export: '%s' in %s: %s", shape->key, dir, rc > 0 ? "no results.tsv to take its TFLOPS from" : err);
        return -1;
    }
    if (shape->best.from_ladder)
        rc = ladder_tflops(dir, shape, &res, out, err, sizeof err);
    else if (!(rc = results_check_best(&res, shape->iteration, &b, err, sizeof err)))
        *out = res.rows[shape->best.iter].tflops;
    if (rc)
        log_error("export: '%s' in %s: %s ('croqtuner audit --tuning %s --key %s' says more)", shape->key, dir, err,
                  dir, shape->key);
    else
        snprintf(hash, BACKEND_HASH_MAX, "%s", res.rows[shape->best.iter].source_hash);
    result_log_release(&res);
    return rc;
}

static int add_best(struct export *x, const char *dir, const struct state_shape *shape, const char *gpu_opt)
{
    const char *key = shape->key, *sig = shape->best.config, *backend = shape->backend;
    struct croq_config cfg;
    struct pack_entry e = {0};
    char err[CROQ_WHY_MAX], gpu[128], note[SRCSTORE_NOTE_MAX], row_hash[BACKEND_HASH_MAX];
    if (!shape->have_best || !*sig)
        return 0; /* no best registered (yet): nothing to export */
    if (!state_shape_done(shape)) { /* its best may still change (and a reopened shape has no ladder yet) */
        fprintf(stderr, "export: '%s' in %s is still being tuned: left out\n", key, dir);
        return 0;
    }
    if (strcmp(backend, "gpu")) {
        log_error("export: '%s' in %s was tuned on the '%s' backend: only GPU measurements go into a pack",
                  key, dir, backend);
        return -1;
    }
    if (knobs_parse_signature(&cfg, sig, err, sizeof err)) {
        log_error("export: '%s' in %s: best config: %s", key, dir, err);
        return -1;
    }
    e.m = shape->sk.shape.m; /* a loaded entry's m, n, k are its key's (state_load) */
    e.n = shape->sk.shape.n;
    e.k = shape->sk.shape.k;
    /* how its TFLOPS was measured (pack.h): the final ladder's number, or the tuning's pair */
    e.measured = shape->best.from_ladder ? PACK_MEASURED_LADDER : PACK_MEASURED_PAIR;
    e.clock_mhz = isfinite(shape->best.sm_clock_mhz) && shape->best.sm_clock_mhz > 0 ? shape->best.sm_clock_mhz : 0;
    e.l2 = shape->cold_l2 ? PACK_L2_COLD : PACK_L2_WARM;
    /* one entry per key: two directories holding one key are two records of one shape,
     * and which of them is the truth is not export's to guess */
    for (size_t i = 0; i < x->p.n; i++)
        if (!strcmp(x->p.e[i].key, key)) {
            log_error("export: '%s' is in more than one --tuning directory (again in %s): give each shape from one",
                      key, dir);
            return -1;
        }
    if (measured_tflops(dir, shape, &e.tflops, row_hash))
        return -1;
    if (gpu_opt)
        snprintf(gpu, sizeof gpu, "%s", gpu_opt);
    else
        best_gpu(dir, key, shape->best.iter, gpu, sizeof gpu);
    char *src = NULL;
    size_t len = 0;
    if (set_gpu(x, gpu, key) || measured_source(dir, shape, row_hash, &e, note, sizeof note, &src, &len))
        return -1;
    long abi = source_abi(src);
    if (abi != CROQ_ABI_VERSION && !x->regenerate) {
        log_error("export: '%s' in %s was measured with kernels of ABI %ld; this library loads ABI %u: its measured "
                  "module cannot go into the pack (tune it again, or give --regenerate to compile its configuration "
                  "with this build's kernel sources, unmeasured)", key, dir, abi, CROQ_ABI_VERSION);
        free(src);
        return -1;
    }
    /* one kernel per shape (pack.h): of a shape tuned in both modes (_fs and not) the
     * faster goes in, as the library took the faster when a pack held both */
    long twin = -1;
    for (size_t i = 0; i < x->p.n; i++)
        if (!x->p.e[i].fallback && x->p.e[i].dtype == cfg.dtype && x->p.e[i].m == e.m && x->p.e[i].n == e.n &&
            x->p.e[i].k == e.k)
            twin = (long)i;
    if (twin >= 0 && x->p.e[twin].tflops >= e.tflops) {
        fprintf(stderr, "export: '%s' (%.3f TFLOPS) left out: '%s' is the same shape, faster (%.3f); a pack holds "
                "one kernel per shape\n", key, e.tflops, x->p.e[twin].key, x->p.e[twin].tflops);
        free(src);
        return 0;
    }
    int rc = add_entry(x, &cfg, key, note[0] ? note : NULL, x->regenerate ? NULL : src, len, &e);
    free(src);
    if (rc == 0 && twin >= 0) {
        fprintf(stderr, "export: '%s' (%.3f TFLOPS) left out: '%s' is the same shape, faster (%.3f); a pack holds "
                "one kernel per shape\n", x->p.e[twin].key, x->p.e[twin].tflops, key, e.tflops);
        free((void *)x->p.e[twin].cubin);
        memmove(&x->p.e[twin], &x->p.e[twin + 1], (x->p.n - (size_t)twin - 1) * sizeof *x->p.e);
        x->p.n--;
    }
    return rc;
}

static int add_dir(struct export *x, const char *dir, const char *gpu_opt)
{
    char err[1024], path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/state.json", dir);
    if (stat(path, &st)) {
        log_error("export: '%s' has no state.json: not a tuning directory", dir);
        return -1;
    }
    json_t *root = state_load(dir, err, sizeof err);
    int rc = 0;
    if (!root) {
        log_error("export: %s: %s", dir, err);
        return -1;
    }
    size_t n;
    /* a shape whose entry is refused cannot be read, and a pack must not silently lack it */
    const char **keys = state_refused_keys(root, &n);
    for (size_t i = 0; i < n; i++) {
        state_shape_refused(root, keys[i], err, sizeof err);
        log_error("export: %s/state.json: %s: this shape's entry is refused; correct it (or delete it and run "
                  "'croqtuner resume', which restores it from its checkpoint), then export again", dir, err);
        rc = -1;
    }
    free(keys);
    keys = state_shape_keys(root, &n); /* the file's order: it is written sorted */
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct state_shape shape;
        state_shape_get(root, keys[i], &shape);
        rc = add_best(x, dir, &shape, gpu_opt);
    }
    free(keys);
    json_decref(root);
    return rc;
}

static int add_fallbacks(struct export *x)
{
    for (int dtype = 0; dtype < CROQ_DTYPE_COUNT; dtype++) {
        struct croq_config cfg;
        struct pack_entry e = {0};
        char err[CROQ_WHY_MAX], name[32];
        knobs_default(&cfg, dtype);
        if (knobs_set_list(&cfg, fallback_sets, err, sizeof err)) {
            log_error("export: fallback configuration: %s", err);
            return -1;
        }
        e.fallback = true;
        snprintf(e.tuned_hash, sizeof e.tuned_hash, "-"); /* never measured */
        snprintf(name, sizeof name, "fallback_%s", croq_dtype_name(dtype));
        if (add_entry(x, &cfg, name, "croqtuner export: fallback", NULL, 0, &e))
            return -1;
        snprintf(x->p.e[x->p.n - 1].key, PACK_KEY_MAX, "-");
    }
    return 0;
}

/* The pack's model section (pack.h; src/costmodel's format): one model per dtype fitted
 * on the measured rows of every GPU-tuned shape of the directories (costmodel_fit_shapes
 * on engine_tuning_samples), for the
 * library to rank kernels for shapes nobody tuned. A dtype with too few rows or shapes
 * gets none (said on stderr). *text malloc'd, NULL when no dtype has a model. */
static int export_model(const struct export_args *a, char **text, size_t *len)
{
    struct costmodel_sample *s = NULL;
    size_t n = 0, cap = 0, k = 0;
    struct costmodel *m = xmalloc(2 * sizeof *m);
    const struct costmodel *fitted[2];
    int rc = 0;
    *text = NULL;
    *len = 0;
    /* the rows `croqtuner costmodel --leave-out` judges the model on (engine_tuning_samples),
     * so its numbers are this model's */
    for (int i = 0; i < a->ndirs && rc == 0; i++) {
        struct costmodel_sample *d;
        size_t nd;
        char err[1200];
        if (engine_tuning_samples(a->dirs[i], "gpu", &d, &nd, err, sizeof err)) {
            log_error("export: the cost model's rows: %s", err);
            rc = -1;
            break;
        }
        if (n + nd > cap) {
            cap = n + nd;
            s = xrealloc(s, (cap ? cap : 1) * sizeof *s);
        }
        if (nd)
            memcpy(s + n, d, nd * sizeof *d);
        n += nd;
        free(d);
    }
    for (int dtype = CROQ_DTYPE_F16; dtype <= CROQ_DTYPE_E4M3 && rc == 0; dtype++) {
        struct costmodel *c = &m[dtype - CROQ_DTYPE_F16];
        if (costmodel_fit_shapes(c, dtype, s, n)) {
            log_error("export: the %s cost model: out of memory", croq_dtype_name(dtype));
            rc = -1;
        } else if (c->n > 0) {
            fitted[k++] = c;
            fprintf(stderr, "export: %s cost model fitted on %d rows of %d shapes (residual %.3f in ln TFLOPS)\n",
                    croq_dtype_name(dtype), c->n, c->n_groups, c->sigma);
        } else {
            fprintf(stderr, "export: no %s cost model (its rows: fewer than %d, or of fewer than 2 shapes): its "
                    "untuned shapes run the nearest tuned shape's kernel\n", croq_dtype_name(dtype),
                    COSTMODEL_MIN_SAMPLES);
        }
    }
    if (rc == 0 && k) {
        long need = costmodel_serialize(fitted, k, NULL, 0);
        if (need < 0) {
            log_error("export: the cost model does not serialize");
            rc = -1;
        } else {
            *text = xmalloc((size_t)need + 1);
            costmodel_serialize(fitted, k, *text, (size_t)need + 1);
            *len = (size_t)need;
        }
    }
    free(m);
    free(s);
    return rc;
}

static int export_write(struct export *x, const struct export_args *a)
{
    unsigned char *img;
    size_t len;
    char err[256];
    snprintf(x->p.driver, sizeof x->p.driver, "%s", a->driver);
    if (sscanf(croq_cuda_version, "%d.%d", &x->p.cuda_major, &x->p.cuda_minor) != 2) {
        log_error("export: this build's CUDA version '%s' is not <major>.<minor>", croq_cuda_version);
        return -1;
    }
    char *model;
    if (export_model(a, &model, &x->p.model_bytes))
        return -1;
    x->p.model = (const unsigned char *)model;
    int ser = pack_serialize(&x->p, &img, &len, err, sizeof err);
    free(model);
    x->p.model = NULL;
    x->p.model_bytes = 0;
    if (ser) {
        log_error("export: %s", err);
        return -1;
    }
    int rc = atomic_write_out(a->out, img, len);
    if (rc)
        log_error("export: cannot write '%s'", a->out);
    else
        printf("%s: %zu kernels for '%s' (CUDA %d.%d), %zu B\n", a->out, x->p.n, x->p.gpu, x->p.cuda_major,
               x->p.cuda_minor, len);
    free(img);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    struct export_args a = {0};
    struct export x = {0};
    char err[256];
    int rc = export_parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
    x.regenerate = a.regenerate;
    if (kernel_workdir_open(&x.w, a.work, err, sizeof err)) {
        log_error("export: %s", err);
        return 1;
    }
    for (int i = 0; i < a.ndirs && rc == 0; i++)
        rc = add_dir(&x, a.dirs[i], a.gpu);
    if (rc == 0 && !x.p.gpu[0])
        rc = set_gpu(&x, a.gpu ? a.gpu : "", "the fallback kernels");
    if (rc == 0)
        rc = add_fallbacks(&x);
    if (rc == 0)
        rc = export_write(&x, &a);
    for (size_t i = 0; i < x.p.n; i++)
        free((void *)x.p.e[i].cubin);
    pack_release(&x.p);
    kernel_workdir_release(&x.w);
    return rc ? 1 : 0;
}
