/* src/cli/cmd_build.c — `croqtuner build`: generate the self-contained source of one
 * configuration (src/codegen), compile it for sm_90a (src/build) and report the static
 * check (registers, spills, sparse tensor-core MMA in the SASS). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "build/nvcc.h"
#include "codegen/codegen.h"
#include "commands.h"
#include "knobs/knobs.h"
#include "knobs/knobs_json.h"
#include "util/opts.h"
#include "util/atomicio.h"
#include "util/log.h"

#define BUILD_MAX_SETS 64

static const char build_usage[] =
    "usage: croqtuner build --dtype f16|e4m3 [--set knob=value ...] [--config FILE] --out DIR\n"
    "                       [--name NAME] [--shape MxNxK] [--json] [--strict] [--no-compile]\n"
    "                       [--no-cache] [--cache-dir DIR] [--timeout SECONDS]\n"
    "\n"
    "Generate the self-contained kernel source of one configuration (the dtype's defaults,\n"
    "then --config FILE, then each --set; see 'croqtuner knobs'), compile it with nvcc for\n"
    "sm_90a, and check the result statically. Writes, in DIR:\n"
    "  NAME.cu           the generated source (NAME defaults to 'kernel')\n"
    "  NAME.config.json  the configuration\n"
    "  NAME.cubin        the compiled module (loaded by croq-runner)\n"
    "  NAME.build.json   the static-check record: ptxas registers / spills / stack / smem,\n"
    "                    SASS tensor-core MMA mnemonics, compiler log\n"
    "Prints the cubin path and the record (JSON with --json).\n"
    "\n"
    "  --shape MxNxK   also apply the shape-dependent rules before compiling\n"
    "  --strict        fail (exit 1) when the cubin spills or uses local memory, ptxas\n"
    "                  serialized its wgmmas (C7515), its SASS rewrites the metadata register\n"
    "                  of a sparse wgmma still in flight, or has no sparse tensor-core MMA\n"
    "  --no-compile    write the source and configuration only\n"
    "  --no-cache      always run nvcc; --cache-dir DIR: where compiled cubins are kept\n"
    "                  (default $CROQ_CACHE_DIR, else ~/.cache/croqtuner)\n"
    "  --timeout S     nvcc time limit (default 600)\n"
    "Environment: CROQ_NVCC (nvcc), CROQ_CUOBJDUMP (cuobjdump for the SASS check).\n"
    "\n"
    "Exit status: 0 built, 1 a configuration the knob rules reject, or a failed build / strict\n"
    "check, 2 bad usage (also a knob or value the knob table does not have).\n";

struct build_args {
    bool json, strict, no_compile, no_cache;
    const char *dtype, *config, *out, *name, *cache_dir, *fault;
    struct cli_shape shape;
    double timeout_s;
    const char *sets[BUILD_MAX_SETS];
    int nsets;
};

static bool plain_name(const char *s)
{
    if (!*s || *s == '.' || strlen(s) > 100)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-' || *s == '.'))
            return false;
    return true;
}

/* 0 parsed, 1 --help shown, 2 bad usage. */
static int build_parse(int argc, char **argv, struct build_args *a)
{
    struct opt t[] = {
        {.name = "--dtype", .type = OPT_STR, .dst = &a->dtype},
        {.name = "--config", .type = OPT_STR, .dst = &a->config},
        {.name = "--out", .type = OPT_OUTDIR, .dst = &a->out},
        {.name = "--name", .type = OPT_STR, .dst = &a->name},
        {.name = "--shape", .type = OPT_CUSTOM, .dst = &a->shape, .check = cli_shape_value},
        {.name = "--cache-dir", .type = OPT_OUTDIR, .dst = &a->cache_dir},
        {.name = "--timeout", .type = OPT_DOUBLE, .dst = &a->timeout_s},
        {.name = "--set", .type = OPT_STR, .dst = a->sets, .max = BUILD_MAX_SETS, .count = &a->nsets},
        {.name = "--json", .type = OPT_FLAG, .dst = &a->json},
        {.name = "--strict", .type = OPT_FLAG, .dst = &a->strict},
        {.name = "--no-compile", .type = OPT_FLAG, .dst = &a->no_compile},
        {.name = "--no-cache", .type = OPT_FLAG, .dst = &a->no_cache},
        {.name = "--inject-fault", .type = OPT_STR, .dst = &a->fault, .flags = OPT_HIDDEN},
    };
    struct opt_spec spec = {"build", build_usage, t, sizeof t / sizeof t[0]};
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc;
    if (!a->out) {
        log_error("build: --out DIR is required");
        return 2;
    }
    if (a->name && !plain_name(a->name)) {
        log_error("build: bad --name '%s' (letters, digits, '_', '-', '.'; not starting with '.')", a->name);
        return 2;
    }
    return 0;
}

/* The configuration, validated. 0, 1 invalid, 2 bad usage. */
static int build_config(const struct build_args *a, struct croq_config *cfg, int *fault)
{
    char err[512], why[CROQ_WHY_MAX];
    *fault = a->fault ? codegen_fault_parse(a->fault) : CODEGEN_FAULT_NONE;
    if (*fault < 0) {
        log_error("build: unknown fault kind '%s' (trap, hang, oob, skipk, elem, meta)", a->fault);
        return 2;
    }
    if (knobs_from_args(cfg, a->dtype, a->config, a->sets, a->nsets, err, sizeof err)) {
        log_error("build: %s", err);
        return 2;
    }
    if (!knobs_validate(cfg, a->shape.text ? &a->shape.s : NULL, why, sizeof why)) {
        log_error("build: invalid configuration: %s", why);
        return 1;
    }
    return 0;
}

struct build_paths {
    char src[4096], config[4096], record[4096];
};

static int build_write_sources(const struct build_args *a, const struct croq_config *cfg, int fault,
                               struct build_paths *p)
{
    const char *name = a->name ? a->name : "kernel";
    char err[1024];
    snprintf(p->src, sizeof p->src, "%.4000s/%s.cu", a->out, name);
    snprintf(p->config, sizeof p->config, "%.4000s/%s.config.json", a->out, name);
    snprintf(p->record, sizeof p->record, "%.4000s/%s.build.json", a->out, name);
    if (mkdir_p(a->out)) {
        log_error("build: cannot create '%s': %s", a->out, strerror(errno));
        return 1;
    }
    struct codegen_opts co = {.inject_fault = fault, .note = "croqtuner build", .err = err, .errlen = sizeof err};
    if (codegen_write(cfg, &co, p->src)) {
        log_error("build: %s", err);
        return 1;
    }
    if (knobs_save(p->config, cfg, err, sizeof err)) {
        log_error("build: %s", err);
        return 1;
    }
    return 0;
}

static bool strict_ok(const struct build_result *r, char *why, size_t len)
{
    if (r->ptxas.spills) {
        snprintf(why, len, "'%.512s' spills or uses local memory (%d B spill stores, %d B spill loads, %d B stack)",
                 r->cubin_path, r->ptxas.spill_store_bytes, r->ptxas.spill_load_bytes, r->ptxas.stack_frame_bytes);
        return false;
    }
    if (r->sass.meta_hazard) {
        snprintf(why, len, "SASS of '%.400s': %.500s", r->cubin_path, r->sass.hazard);
        return false;
    }
    if (r->ptxas.wgmma_serialized) {
        snprintf(why, len, "ptxas serialized the wgmmas of '%.512s' (C7515): no overlap between them", r->cubin_path);
        return false;
    }
    if (!r->sass.checked) {
        snprintf(why, len, "SASS of '%.400s' not checked: %.500s", r->cubin_path, r->sass.note);
        return false;
    }
    if (!r->sass.has_sparse_gmma) {
        snprintf(why, len, "SASS of '%.400s' has no sparse tensor-core MMA (GMMA mnemonics: %.500s)", r->cubin_path,
                 r->sass.mnemonics[0] ? r->sass.mnemonics : "none");
        return false;
    }
    return true;
}

static void print_text(const struct build_paths *p, const struct build_result *r)
{
    printf("source  %s\n", p->src);
    if (r->cache_hit)
        printf("cubin   %s (cache hit)\n", r->cubin_path);
    else
        printf("cubin   %s (compiled in %.1f s)\n", r->cubin_path, r->compile_s);
    const struct build_ptxas *x = &r->ptxas;
    if (x->parsed)
        printf("ptxas   %s: %d registers, %d B spill stores, %d B spill loads, %d B stack, %d B static smem%s\n",
               x->function, x->registers, x->spill_store_bytes, x->spill_load_bytes, x->stack_frame_bytes,
               x->smem_bytes, x->spills ? "  SPILLS" : "");
    else
        printf("ptxas   no resource report found in the compiler output\n");
    if (r->sass.checked)
        printf("sass    sparse tensor-core MMA: %s (%d of %d GMMA; %s)%s\n", r->sass.has_sparse_gmma ? "yes" : "NO",
               r->sass.sparse_gmma_count, r->sass.gmma_count, r->sass.mnemonics[0] ? r->sass.mnemonics : "no GMMA",
               r->sass.has_hmma ? "  HMMA present" : "");
    else
        printf("sass    not checked: %s\n", r->sass.note);
    printf("record  %s\n", p->record);
}

static void print_json(const struct build_paths *p, const struct croq_config *cfg, const struct build_result *r)
{
    char sig[CROQ_SIG_MAX];
    knobs_signature(cfg, sig);
    json_t *o = json_pack("{s:i, s:s, s:s, s:o, s:s, s:o}", "schema", 1, "source", p->src, "config_file", p->config,
                          "config", knobs_to_json(cfg), "signature", sig, "build",
                          r ? build_result_json(r, false) : json_null());
    json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(o);
}

static void write_record(const char *path, const struct build_result *r)
{
    json_t *rec = build_result_json(r, true);
    char *text = json_dumps(rec, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!text || atomic_write_str(path, text))
        log_warn("cannot write '%s': %s", path, strerror(errno));
    free(text);
    json_decref(rec);
}

static int build_compile_report(const struct build_args *a, const struct croq_config *cfg,
                                const struct build_paths *p)
{
    struct build_opts bo = {.out_dir = a->out, .cache_dir = a->no_cache ? "" : a->cache_dir,
                            .timeout_s = a->timeout_s};
    struct build_result r;
    int rc = build_compile(p->src, &bo, &r) ? 1 : 0;
    write_record(p->record, &r);
    if (rc)
        log_error("build: %s", r.error);
    else if (a->json)
        print_json(p, cfg, &r);
    else
        print_text(p, &r);
    char why[1024];
    if (!rc && !strict_ok(&r, why, sizeof why)) {
        if (a->strict) {
            log_error("build: %s", why);
            rc = 1;
        } else {
            log_warn("%s", why);
        }
    }
    build_result_release(&r);
    return rc;
}

int cmd_build(int argc, char **argv)
{
    struct build_args a = {0};
    struct croq_config cfg;
    struct build_paths p;
    int fault, rc = build_parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    if ((rc = build_config(&a, &cfg, &fault)) || (rc = build_write_sources(&a, &cfg, fault, &p)))
        return rc;
    if (!a.no_compile)
        return build_compile_report(&a, &cfg, &p);
    if (a.json)
        print_json(&p, &cfg, NULL);
    else
        printf("source  %s\nconfig  %s\n", p.src, p.config);
    return 0;
}
