/* src/cli/cmd_knobs.c — `croqtuner knobs`: list the knob table, or check one
 * configuration against every rule (src/knobs/knobs.c, knobs_validate); with --tuning and
 * --key, as the shape's generator has them (its knob space, src/knobs/space.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "engine/engine.h"
#include "knobs/knobs.h"
#include "knobs/knobs_json.h"
#include "util/atomicio.h"
#include "util/opts.h"
#include "util/log.h"

#define KNOBS_MAX_SETS 64

static const char knobs_usage[] =
    "usage: croqtuner knobs [--tuning DIR --key KEY] [--json]\n"
    "       croqtuner knobs --check --dtype f16|e4m3 [--shape MxNxK] [--config FILE]\n"
    "                       [--set knob=value ...] [--tuning DIR --key KEY] [--json]\n"
    "\n"
    "Without --check: list the kernel family's compile-time knobs (src/knobs/knobs.def):\n"
    "name, default, allowed values, idea category and meaning.\n"
    "\n"
    "With --tuning DIR --key KEY: as the generator that writes that shape's candidates has\n"
    "them (the directory pins each shape's generator: its baseline's, else the directory's;\n"
    "a generator older than a knob or a value lacks it, and the shape is tuned without it).\n"
    "A first line names the generator, why it is the shape's, and what it lacks. With\n"
    "--check, the configuration must also lie in those knobs, and --dtype and --shape\n"
    "are the key's (another one given is bad usage).\n"
    "\n"
    "With --check: build a configuration from the dtype's defaults, then --config FILE\n"
    "(JSON: {\"dtype\": \"f16\", \"tile_m\": 128, ...}, a checkpoint file: its best, the\n"
    "output of 'knobs --check --json', or a signature line), then each --set (repeatable;\n"
    "one --set may hold several assignments separated by blanks or commas, or a whole\n"
    "signature 'dtype=f16,kernel=1,...' as status prints it, which also names the dtype,\n"
    "or the 'valid: ...' or '  config: ...' line this command prints, pasted whole),\n"
    "and say whether it is valid: every rule that would make it fail to compile, launch\n"
    "or compute correctly, and with --shape the rules that depend on the problem size.\n"
    "\n"
    "An invalid configuration gets every rule it breaks at once, each with a 'change:' line\n"
    "in --set form.\n"
    "\n"
    "Prints 'valid: SIGNATURE', 'invalid: REASON' or 'bad usage: REASON'.\n"
    "Exit status: 0 listed / valid, 1 invalid (a rule rejects it), 2 bad usage (no such\n"
    "knob or value, a dtype= or --dtype that disagrees with the configuration's dtype, an\n"
    "unreadable --config): not a configuration at all, so no rule was checked.\n";

struct knobs_args {
    bool json, check;
    const char *dtype, *config, *tuning, *key;
    struct cli_shape shape;
    const char *sets[KNOBS_MAX_SETS];
    int nsets;
};

/* 0 parsed, 1 --help shown, 2 bad usage. */
static int knobs_parse(int argc, char **argv, struct knobs_args *a)
{
    struct opt t[] = {
        {.name = "--json", .type = OPT_FLAG, .dst = &a->json},
        {.name = "--check", .type = OPT_FLAG, .dst = &a->check},
        {.name = "--dtype", .type = OPT_STR, .dst = &a->dtype},
        {.name = "--shape", .type = OPT_CUSTOM, .dst = &a->shape, .check = cli_shape_value},
        {.name = "--config", .type = OPT_STR, .dst = &a->config},
        {.name = "--set", .type = OPT_STR, .dst = a->sets, .max = KNOBS_MAX_SETS, .count = &a->nsets},
        {.name = "--tuning", .type = OPT_OUTDIR, .dst = &a->tuning},
        {.name = "--key", .type = OPT_CUSTOM, .dst = &a->key, .check = cli_key_value},
    };
    struct opt_spec spec = {"knobs", knobs_usage, t, sizeof t / sizeof t[0]};
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc;
    if (!a->check && (a->dtype || a->shape.text || a->config || a->nsets)) {
        log_error("knobs: --dtype, --shape, --config and --set need --check");
        return 2;
    }
    if (!a->tuning != !a->key) {
        log_error("knobs: --tuning and --key go together (the shape KEY of the tuning directory DIR)");
        return 2;
    }
    return 0;
}

/* The knobs of the shape's generator (--tuning, --key): 0 with *pin (its space is
 * pin->space when pin->pinned, else this binary's table), or 1 with the reason printed. */
static int shape_generator(const struct knobs_args *a, struct engine_pin *pin)
{
    char err[900];
    if (!is_dir(a->tuning)) {
        log_error("knobs: no tuning directory '%s'", a->tuning);
        return 1;
    }
    if (engine_shape_generator(a->tuning, a->key, pin, err, sizeof err)) {
        log_error("knobs: %s", err);
        return 1;
    }
    if (pin->warning[0])
        log_warn("%s", pin->warning);
    return 0;
}

static const struct knob_space *pin_space(const struct engine_pin *pin)
{
    return pin && pin->pinned ? &pin->space : NULL;
}

/* "# KEY: generator ID (its baseline's); it lacks stages=8, knob schedule (held at 0)" */
static void print_pin_line(const struct knobs_args *a, const struct engine_pin *pin)
{
    char lacks[KNOB_SPACE_DESCRIBE_MAX];
    knob_space_describe(pin_space(pin), lacks, sizeof lacks);
    printf("# %s: generator %s (%s); it lacks %s\n", a->key, pin->id, pin->rule, lacks);
}

/* ---- listing ------------------------------------------------------------------ */

/* The default under dtype: knobs_default may differ from the table (e4m3 tile_k), and in
 * a generator's space it is moved inside it as a start configuration is (space.h). */
static int default_for(int id, int dtype, const struct knob_space *space)
{
    struct croq_config c;
    knobs_default(&c, dtype);
    knob_space_clamp(space, &c);
    return c.v[id];
}

static json_t *knob_json(int id, const struct knob_space *space)
{
    const struct croq_knob *k = &knob_space_table(space)[id];
    json_t *vals = json_array();
    for (int j = 0; j < k->n_values; j++)
        json_array_append_new(vals, json_integer(k->values[j]));
    return json_pack("{s:s, s:s, s:i, s:{s:i, s:i}, s:o, s:s, s:s}", "name", k->name, "macro", k->macro,
                     "default", k->default_value, "defaults", "f16", default_for(id, CROQ_DTYPE_F16, space), "e4m3",
                     default_for(id, CROQ_DTYPE_E4M3, space), "values", vals, "category", k->category, "meaning",
                     k->meaning);
}

static void list_json(const struct knobs_args *a, const struct engine_pin *pin)
{
    const struct knob_space *space = pin_space(pin);
    json_t *arr = json_array();
    for (int i = 0; i < KNOB_COUNT; i++) {
        json_t *k = knob_json(i, space);
        if (pin) /* a knob the generator lacks lists its default alone */
            json_object_set_new(k, "declared", json_boolean(!space || space->declared[i]));
        json_array_append_new(arr, k);
    }
    json_t *root = json_pack("{s:i, s:o}", "schema", 1, "knobs", arr);
    if (pin) {
        char lacks[KNOB_SPACE_DESCRIBE_MAX];
        knob_space_describe(space, lacks, sizeof lacks);
        json_object_set_new(root, "shape", json_pack("{s:s, s:s, s:s, s:s}", "key", a->key, "generator", pin->id,
                                                     "rule", pin->rule, "lacks", lacks));
    }
    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(root);
}

static void list_text(const struct knobs_args *a, const struct engine_pin *pin)
{
    if (pin)
        print_pin_line(a, pin);
    printf("%-11s %-14s %-20s %-11s %s\n", "knob", "default", "values", "category", "meaning");
    for (int i = 0; i < KNOB_COUNT; i++) {
        const struct croq_knob *k = &knob_space_table(pin_space(pin))[i];
        char def[32], vals[64];
        int f16 = default_for(i, CROQ_DTYPE_F16, pin_space(pin)), e4m3 = default_for(i, CROQ_DTYPE_E4M3, pin_space(pin));
        if (f16 == e4m3)
            snprintf(def, sizeof def, "%d", f16);
        else
            snprintf(def, sizeof def, "%d (e4m3 %d)", f16, e4m3);
        size_t n = 0;
        vals[0] = '\0';
        for (int j = 0; j < k->n_values && n < sizeof vals; j++)
            n += (size_t)snprintf(vals + n, sizeof vals - n, "%s%d", j ? "," : "", k->values[j]);
        printf("%-11s %-14s %-20s %-11s %s\n", k->name, def, vals, k->category, k->meaning);
    }
}

/* ---- check -------------------------------------------------------------------- */

#define KNOBS_MAX_VIOLATIONS 16

/* Every violated rule at once, each with what to change, so one round of edits fixes
 * the configuration (knobs_violations). */
static void check_report(const struct croq_config *cfg, const struct croq_shape *shape, const struct knob_space *space,
                         bool json)
{
    char sig[CROQ_SIG_MAX];
    struct knobs_violation vs[KNOBS_MAX_VIOLATIONS];
    int nv = 0;
    /* outside the shape's generator's knobs first: what its kernels do not implement */
    if (!knob_space_allows(space, cfg, vs[0].reason, sizeof vs[0].reason)) {
        struct croq_config in = *cfg;
        size_t w = 0;
        knob_space_clamp(space, &in);
        vs[0].change[0] = '\0';
        for (int k = 0; k < KNOB_COUNT && w < sizeof vs[0].change; k++)
            if (in.v[k] != cfg->v[k])
                w += (size_t)snprintf(vs[0].change + w, sizeof vs[0].change - w, "%s%s=%d", w ? " " : "",
                                      croq_knobs[k].name, in.v[k]);
        nv = 1;
    }
    nv += knobs_violations(cfg, shape, vs + nv, KNOBS_MAX_VIOLATIONS - nv);
    int shown = nv < KNOBS_MAX_VIOLATIONS ? nv : KNOBS_MAX_VIOLATIONS;
    knobs_signature(cfg, sig);
    if (json) {
        json_t *arr = json_array();
        for (int i = 0; i < shown; i++)
            json_array_append_new(arr, json_pack("{s:s, s:s}", "reason", vs[i].reason, "change", vs[i].change));
        json_t *o = json_pack("{s:i, s:b, s:o, s:o, s:s, s:o, s:I, s:i, s:i}", "schema", 1, "valid", nv == 0,
                              "reason", nv ? json_string(vs[0].reason) : json_null(), "violations", arr,
                              "signature", sig, "config", knobs_to_json(cfg), "smem_bytes",
                              (json_int_t)knobs_smem_bytes(cfg), "threads", knobs_threads(cfg), "acc_regs",
                              knobs_acc_regs(cfg));
        if (shape)
            json_object_set_new(o, "shape", json_pack("[I, I, I]", (json_int_t)shape->m, (json_int_t)shape->n,
                                                      (json_int_t)shape->k));
        json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
        json_decref(o);
        return;
    }
    if (!nv) {
        printf("valid: %s\n  %ld B shared memory, %d threads, %d accumulator registers per thread\n", sig,
               knobs_smem_bytes(cfg), knobs_threads(cfg), knobs_acc_regs(cfg));
        return;
    }
    for (int i = 0; i < shown; i++)
        printf("invalid: %s\n  change: %s\n", vs[i].reason, vs[i].change);
    printf("  config: %s\n", sig);
}

static int knobs_check_in(const struct knobs_args *a, const char *dtype, const struct croq_shape *shape,
                          const struct engine_pin *pin)
{
    struct croq_config cfg;
    char err[512];
    if (dtype && croq_dtype_parse(dtype) < 0) {
        log_error("knobs --check: unknown dtype '%s' (f16 or e4m3)", dtype);
        return 2;
    }
    /* No such knob or value, a dtype clash, an unreadable --config: bad usage (exit 2, as
     * for build), printed on stdout beside the rule answers but never as "invalid:", which
     * means a rule rejected a configuration (exit 1); JSON says it by "usage_error". */
    if (knobs_from_args(&cfg, dtype, a->config, a->sets, a->nsets, err, sizeof err)) {
        if (a->json) {
            json_t *o = json_pack("{s:i, s:b, s:b, s:s}", "schema", 1, "valid", 0, "usage_error", 1, "reason", err);
            json_dumpf(o, stdout, JSON_INDENT(2));
            fputc('\n', stdout);
            json_decref(o);
        } else {
            printf("bad usage: %s\n", err);
        }
        return 2;
    }
    bool valid = knobs_validate(&cfg, shape, NULL, 0) && knob_space_allows(pin_space(pin), &cfg, NULL, 0);
    if (pin && !a->json)
        print_pin_line(a, pin);
    check_report(&cfg, shape, pin_space(pin), a->json);
    return valid ? 0 : 1;
}

static int knobs_check(const struct knobs_args *a)
{
    const struct croq_shape *shape = a->shape.text ? &a->shape.s : NULL;
    const char *dtype = a->dtype;
    char err[512];
    struct engine_pin pin;
    struct shape_key sk;
    if (a->key) { /* the key's dtype and shape unless given */
        if (key_parse(a->key, &sk, err, sizeof err)) {
            log_error("knobs: --key: %s", err);
            return 2;
        }
        /* the knobs are those of the key's shape: another dtype or shape is another shape,
         * whose generator may be another one */
        if (dtype && croq_dtype_parse(dtype) != sk.dtype) {
            log_error("knobs: --dtype %s is not the dtype of --key %s (leave it out: it is the key's)", dtype, a->key);
            return 2;
        }
        if (shape && (shape->m != sk.shape.m || shape->n != sk.shape.n || shape->k != sk.shape.k)) {
            log_error("knobs: --shape %s is not the shape of --key %s (leave it out: it is the key's)", a->shape.text,
                      a->key);
            return 2;
        }
        dtype = croq_dtype_name(sk.dtype);
        shape = &sk.shape;
        if (shape_generator(a, &pin))
            return 1;
    }
    int rc = knobs_check_in(a, dtype, shape, a->key ? &pin : NULL);
    if (a->key)
        engine_pin_release(&pin);
    return rc;
}

int cmd_knobs(int argc, char **argv)
{
    struct knobs_args a = {0};
    int rc = knobs_parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (a.check)
        return knobs_check(&a);
    struct engine_pin pin;
    if (a.key && shape_generator(&a, &pin))
        return 1;
    if (a.json)
        list_json(&a, a.key ? &pin : NULL);
    else
        list_text(&a, a.key ? &pin : NULL);
    if (a.key)
        engine_pin_release(&pin);
    return 0;
}
