/* src/knobs/knobs_json.c — config <-> JSON, and the CLI's config options (knobs_json.h). */
#include "knobs_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicio.h"
#include "util/regfile.h"

json_t *knobs_to_json(const struct croq_config *cfg)
{
    json_t *o = json_object();
    json_object_set_new(o, "dtype", json_string(croq_dtype_name(cfg->dtype)));
    for (int i = 0; i < KNOB_COUNT; i++)
        if (!KNOB_OMITTED(cfg, i)) /* the form configurations had before late knobs existed */
            json_object_set_new(o, croq_knobs[i].name, json_integer(cfg->v[i]));
    return o;
}

static int dtype_of(const json_t *obj, char *err, size_t errlen)
{
    const json_t *d = json_object_get(obj, "dtype");
    if (!d) {
        snprintf(err, errlen, "missing \"dtype\" (\"f16\" or \"e4m3\")");
        return -1;
    }
    int dtype = croq_dtype_parse(json_string_value(d));
    if (dtype < 0)
        snprintf(err, errlen, "\"dtype\" must be \"f16\" or \"e4m3\"");
    return dtype;
}

static int knob_from_json(struct croq_config *cfg, const char *key, const json_t *v, char *err, size_t errlen)
{
    int id = knobs_find(key);
    if (id < 0) {
        snprintf(err, errlen, "unknown key \"%s\" (not a knob; see 'croqtuner knobs')", key);
        return -1;
    }
    if (!json_is_integer(v)) {
        snprintf(err, errlen, "knob \"%s\" must be an integer", key);
        return -1;
    }
    json_int_t x = json_integer_value(v);
    if (x < -1000000 || x > 1000000 || !knobs_value_allowed(id, (int)x)) {
        snprintf(err, errlen, "knob \"%s\": value %lld is not one of its allowed values", key, (long long)x);
        return -1;
    }
    cfg->v[id] = (int)x;
    return 0;
}

int knobs_from_json(struct croq_config *cfg, const json_t *obj, char *err, size_t errlen)
{
    if (!json_is_object(obj)) {
        snprintf(err, errlen, "a configuration must be a JSON object");
        return -1;
    }
    int dtype = dtype_of(obj, err, errlen);
    if (dtype < 0)
        return -1;
    knobs_default(cfg, dtype);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        if (!strcmp(key, "dtype"))
            continue;
        if (knob_from_json(cfg, key, v, err, errlen))
            return -1;
    }
    return 0;
}

/* The configuration a file the tool wrote carries: a checkpoint or one shape of
 * 'status --json' (its "best" object's "config" signature; a checkpoint's final ladder
 * winner when the ladder timed its entries: the registered best), the output of
 * 'knobs --check --json' (its "config" object), or a configuration object itself. */
static int config_of_document(struct croq_config *cfg, const json_t *obj, char *err, size_t errlen)
{
    const json_t *best = json_object_get(obj, "best");
    const json_t *inner = json_object_get(obj, "config");
    if (json_is_array(json_object_get(obj, "shapes"))) {
        snprintf(err, errlen, "a status file holds every shape's configuration; pass one shape's best.config "
                 "with --set, or its checkpoint with --config");
        return -1;
    }
    /* a checkpoint whose final ladder timed its entries: the registered best is the
     * ladder's winner (checkpoint_registered, src/artifacts/checkpoint.h), which status,
     * the report and export show, not the tuning's own best */
    const json_t *ladder = json_object_get(obj, "ladder"), *win = json_object_get(ladder, "winner");
    const json_t *won = json_is_true(json_object_get(ladder, "ok")) && json_is_integer(win)
                            ? json_array_get(json_object_get(ladder, "entries"), (size_t)json_integer_value(win))
                            : NULL;
    if (json_is_string(json_object_get(won, "config")))
        return knobs_parse_signature(cfg, json_string_value(json_object_get(won, "config")), err, errlen);
    if (json_is_object(best)) {
        const char *sig = json_string_value(json_object_get(best, "config"));
        if (sig && *sig)
            return knobs_parse_signature(cfg, sig, err, errlen);
        snprintf(err, errlen, "the shape has no best configuration yet (its baseline is not measured)");
        return -1;
    }
    if (json_is_string(inner))
        return knobs_parse_signature(cfg, json_string_value(inner), err, errlen);
    if (json_is_object(inner))
        return knobs_from_json(cfg, inner, err, errlen);
    return knobs_from_json(cfg, obj, err, errlen);
}

/* A file's text holding one signature line ("dtype=f16,kernel=1,...", as results.tsv and
 * status print it) rather than JSON: 1 parsed (rc in *rc), 0 not a signature file. */
static int signature_text(const char *text, struct croq_config *cfg, char *err, size_t errlen, int *rc)
{
    char line[CROQ_SIG_MAX + 2];
    if (strncmp(text, "dtype=", 6))
        return 0;
    snprintf(line, sizeof line, "%.*s", (int)strcspn(text, "\r\n"), text);
    *rc = knobs_parse_signature(cfg, line, err, errlen);
    return 1;
}

int knobs_load(const char *path, struct croq_config *cfg, char *err, size_t errlen)
{
    json_error_t je;
    char why[256];
    int rc;
    /* read once, O_NONBLOCK and fstat'ed (regfile.h): a FIFO or a device, even one put in
     * its place after a check, is never read */
    char *text = regfile_read(path, REGFILE_MAX, NULL);
    if (!text) {
        snprintf(err, errlen, "cannot read '%s': %s", path, regfile_strerror(errno));
        return -1;
    }
    if (signature_text(text, cfg, why, sizeof why, &rc)) {
        free(text);
        if (rc)
            snprintf(err, errlen, "bad configuration in '%s': %s", path, why);
        return rc;
    }
    json_t *obj = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!obj) {
        snprintf(err, errlen, "cannot parse '%s' line %d: %s", path, je.line, je.text);
        return -1;
    }
    rc = json_is_object(obj) ? config_of_document(cfg, obj, why, sizeof why)
                             : knobs_from_json(cfg, obj, why, sizeof why);
    if (rc)
        snprintf(err, errlen, "bad configuration in '%s': %s", path, why);
    json_decref(obj);
    return rc;
}

int knobs_save(const char *path, const struct croq_config *cfg, char *err, size_t errlen)
{
    json_t *obj = knobs_to_json(cfg);
    char *text = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(obj);
    int rc = -1;
    if (text) {
        size_t n = strlen(text);
        char *line = malloc(n + 2);
        if (line) {
            memcpy(line, text, n);
            memcpy(line + n, "\n", 2);
            rc = atomic_write(path, line, n + 1);
            free(line);
        }
    }
    if (rc)
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    free(text);
    return rc;
}

/* The dtype a pasted signature in --set names ("dtype=e4m3,kernel=1,..."), or -1. */
static int dtype_in_sets(const char *const *sets, int nsets)
{
    for (int i = 0; i < nsets; i++) {
        const char *d = strstr(sets[i], "dtype=");
        if (d && (d == sets[i] || strchr(" ,\t\n", d[-1]))) {
            char name[8];
            size_t n = strcspn(d + 6, " ,\t\n");
            if (n < sizeof name) {
                memcpy(name, d + 6, n);
                name[n] = '\0';
                return croq_dtype_parse(name);
            }
        }
    }
    return -1;
}

static int base_config(struct croq_config *cfg, const char *dtype_name, const char *config_path,
                       const char *const *sets, int nsets, char *err, size_t errlen)
{
    int dtype = -1;
    if (dtype_name && (dtype = croq_dtype_parse(dtype_name)) < 0) {
        snprintf(err, errlen, "unknown dtype '%s' (f16 or e4m3)", dtype_name);
        return -1;
    }
    if (!config_path) {
        if (dtype < 0)
            dtype = dtype_in_sets(sets, nsets);
        if (dtype < 0) {
            snprintf(err, errlen, "--dtype is required (f16 or e4m3)");
            return -1;
        }
        knobs_default(cfg, dtype);
        return 0;
    }
    if (knobs_load(config_path, cfg, err, errlen))
        return -1;
    if (dtype >= 0 && dtype != cfg->dtype) {
        snprintf(err, errlen, "--dtype %s disagrees with '%s' (dtype %s)", dtype_name, config_path,
                 croq_dtype_name(cfg->dtype));
        return -1;
    }
    return 0;
}

int knobs_from_args(struct croq_config *cfg, const char *dtype_name, const char *config_path,
                    const char *const *sets, int nsets, char *err, size_t errlen)
{
    if (base_config(cfg, dtype_name, config_path, sets, nsets, err, errlen))
        return -1;
    for (int i = 0; i < nsets; i++)
        if (knobs_set_list(cfg, sets[i], err, errlen))
            return -1;
    return 0;
}
