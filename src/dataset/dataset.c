/* src/dataset/dataset.c — read and append explore datasets (dataset.h). */
#include "dataset.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicio.h"
#include "util/gunzip.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/regfile.h"

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *num_array(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

static json_t *int_or_null(int v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

int dataset_append(const char *path, const struct ds_record *rec, int dtype, const struct croq_shape *shape,
                   const json_t *raw, char *err, size_t errlen)
{
    char shp[64];
    snprintf(shp, sizeof shp, "%ldx%ldx%ld", shape->m, shape->n, shape->k);
    json_t *v = json_pack("{s:b, s:s, s:o}", "passed", rec->verify_passed, "reference", rec->verify_reference,
                          "max_err_over_tol", num_or_null(rec->max_err_over_tol));
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_integer(1));
    json_object_set_new(j, "dtype", json_string(croq_dtype_name(dtype)));
    json_object_set_new(j, "shape", json_string(shp));
    json_object_set_new(j, "config", json_string(rec->sig));
    json_object_set_new(j, "status", json_string(rec->status));
    json_object_set_new(j, "reason", json_string(rec->reason));
    json_object_set_new(j, "tflops", num_or_null(rec->tflops));
    json_object_set_new(j, "median_ms", num_or_null(rec->median_ms));
    json_object_set_new(j, "spread_pct", num_or_null(rec->spread_pct));
    json_object_set_new(j, "sm_clock_mhz", num_or_null(rec->sm_clock_mhz));
    json_object_set_new(j, "hw_eff_pct", num_or_null(rec->hw_eff_pct));
    json_object_set_new(j, "max_err_over_tol", num_or_null(rec->max_err_over_tol));
    json_object_set_new(j, "trials_ms", num_array(rec->trial_ms, rec->n_trials));
    json_object_set_new(j, "trial_clock_mhz", num_array(rec->trial_clock_mhz, rec->n_trial_clocks));
    json_object_set_new(j, "verify", v);
    json_object_set_new(j, "regs", int_or_null(rec->regs));
    json_object_set_new(j, "smem_bytes", int_or_null(rec->smem_bytes));
    json_object_set_new(j, "compile_s", json_real(rec->compile_s));
    json_object_set_new(j, "backend", json_string(rec->backend));
    json_object_set_new(j, "gpu", json_string(rec->gpu));
    json_object_set_new(j, "date", json_string(rec->date));
    json_object_set_new(j, "seed", json_integer((json_int_t)rec->seed));
    json_object_set(j, "raw", raw ? (json_t *)raw : json_null());
    /* compact, 17 digits: a replayed number is the very double that was measured */
    char *line = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(j);
    int rc = line && !append_record(path, line, strlen(line)) ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "cannot append to '%.200s': %s", path, strerror(errno));
    free(line);
    return rc;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int nums(const json_t *o, const char *key, double *out, int max)
{
    const json_t *a = json_object_get(o, key);
    int n = 0;
    for (size_t i = 0; json_is_array(a) && i < json_array_size(a) && n < max; i++)
        if (json_is_number(json_array_get(a, i)))
            out[n++] = json_number_value(json_array_get(a, i));
    return n;
}

static void str(const json_t *o, const char *key, char *out, size_t len)
{
    const char *s = json_string_value(json_object_get(o, key));
    snprintf(out, len, "%s", s ? s : "");
}

int dataset_record_parse(const json_t *obj, struct ds_record *rec, int *dtype, struct croq_shape *shape, char *err,
                         size_t errlen)
{
    memset(rec, 0, sizeof *rec);
    if (!json_is_object(obj) || json_integer_value(json_object_get(obj, "schema")) != 1) {
        snprintf(err, errlen, "not a schema-1 dataset record");
        return -1;
    }
    const char *dt = json_string_value(json_object_get(obj, "dtype"));
    const char *sh = json_string_value(json_object_get(obj, "shape"));
    const char *sig = json_string_value(json_object_get(obj, "config"));
    const char *st = json_string_value(json_object_get(obj, "status"));
    if ((*dtype = croq_dtype_parse(dt)) < 0 || !sh || shape_parse(sh, shape) || !sig || !st) {
        snprintf(err, errlen, "record without a valid dtype, shape, config or status");
        return -1;
    }
    if (knobs_parse_signature(&rec->cfg, sig, err, errlen))
        return -1;
    if (rec->cfg.dtype != *dtype) {
        snprintf(err, errlen, "config '%.100s' is not of dtype %s", sig, dt);
        return -1;
    }
    knobs_signature(&rec->cfg, rec->sig);
    snprintf(rec->status, sizeof rec->status, "%s", st);
    str(obj, "reason", rec->reason, sizeof rec->reason);
    rec->tflops = num(obj, "tflops");
    rec->median_ms = num(obj, "median_ms");
    rec->spread_pct = num(obj, "spread_pct");
    rec->sm_clock_mhz = num(obj, "sm_clock_mhz");
    rec->hw_eff_pct = num(obj, "hw_eff_pct");
    rec->max_err_over_tol = num(obj, "max_err_over_tol");
    rec->n_trials = nums(obj, "trials_ms", rec->trial_ms, DS_MAX_TRIALS);
    rec->n_trial_clocks = nums(obj, "trial_clock_mhz", rec->trial_clock_mhz, DS_MAX_TRIALS);
    const json_t *v = json_object_get(obj, "verify");
    rec->verify_passed = json_is_true(json_object_get(v, "passed"));
    str(v, "reference", rec->verify_reference, sizeof rec->verify_reference);
    rec->regs = json_is_integer(json_object_get(obj, "regs")) ? (int)json_integer_value(json_object_get(obj, "regs")) : -1;
    rec->smem_bytes = json_is_integer(json_object_get(obj, "smem_bytes"))
                          ? (int)json_integer_value(json_object_get(obj, "smem_bytes")) : -1;
    rec->compile_s = num(obj, "compile_s");
    rec->seed = (unsigned long long)json_integer_value(json_object_get(obj, "seed"));
    str(obj, "backend", rec->backend, sizeof rec->backend);
    str(obj, "gpu", rec->gpu, sizeof rec->gpu);
    str(obj, "date", rec->date, sizeof rec->date);
    if (!strcmp(rec->status, "ok") && (!isfinite(rec->tflops) || !isfinite(rec->median_ms) || rec->n_trials < 1)) {
        snprintf(err, errlen, "an ok record without tflops, median_ms and trials_ms");
        return -1;
    }
    /* A time or a rate is positive: a negative or zero one would replay as a kernel faster
     * than any real one (or a ratio above 1 in replay-bench). */
    bool positive = !(rec->tflops <= 0) && !(rec->median_ms <= 0);
    for (int i = 0; i < rec->n_trials; i++)
        positive = positive && isfinite(rec->trial_ms[i]) && rec->trial_ms[i] > 0;
    if (!strcmp(rec->status, "ok") && !positive) {
        snprintf(err, errlen, "an ok record with a time or TFLOPS that is not a positive number");
        return -1;
    }
    return 0;
}

int dataset_load(const char *path, bool missing_ok, struct dataset *ds, char *err, size_t errlen)
{
    memset(ds, 0, sizeof *ds);
    ds->dtype = -1;
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        if (errno == ENOENT && missing_ok)
            return 0;
        snprintf(err, errlen, "cannot read dataset '%.200s': %s", path, regfile_strerror(errno));
        return -1;
    }
    if (gunzip_is(text, len)) {
        char why[256];
        char *plain = gunzip_mem(text, len, REGFILE_MAX, &len, why, sizeof why);
        free(text);
        if (!plain) {
            snprintf(err, errlen, "%.200s: gzip: %s", path, why);
            return -1;
        }
        text = plain;
        ds->compressed = true;
    }
    /* JSONL is text: a NUL byte would end the scan early and silently drop every later record. */
    if (memchr(text, '\0', len)) {
        snprintf(err, errlen, "%.200s: holds a NUL byte at offset %zu%s: not a JSONL dataset", path,
                 (size_t)((char *)memchr(text, '\0', len) - text), ds->compressed ? " of its inflated text" : "");
        free(text);
        return -1;
    }
    size_t whole = len; /* up to the last newline: a torn tail is no record */
    while (whole && text[whole - 1] != '\n')
        whole--;
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, text, whole), ds->hash);
    int lineno = 0, rc = 0;
    char why[512];
    for (char *p = text, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl) { /* torn tail: ignored */
            ds->torn = true;
            break;
        }
        *nl = '\0';
        lineno++;
        ds->valid_bytes = (size_t)(nl + 1 - text);
        if (!*p)
            continue;
        json_error_t je;
        json_t *o = json_loads(p, 0, &je);
        struct ds_record rec;
        int dt;
        struct croq_shape sh;
        if (!o) {
            snprintf(err, errlen, "%.200s:%d: not JSON: %s", path, lineno, je.text);
            rc = -1;
        } else if (dataset_record_parse(o, &rec, &dt, &sh, why, sizeof why)) {
            snprintf(err, errlen, "%.200s:%d: %s", path, lineno, why);
            rc = -1;
        } else if (ds->dtype >= 0 && (dt != ds->dtype || memcmp(&sh, &ds->shape, sizeof sh))) {
            snprintf(err, errlen, "%.200s:%d: a record of %s %ldx%ldx%ld in a dataset of %s %ldx%ldx%ld", path,
                     lineno, croq_dtype_name(dt), sh.m, sh.n, sh.k, croq_dtype_name(ds->dtype), ds->shape.m,
                     ds->shape.n, ds->shape.k);
            rc = -1;
        } else if (ds->dtype >= 0 && strcmp(rec.backend, ds->backend)) {
            /* a simulated record among measured ones would be scored as a GPU's */
            snprintf(err, errlen, "%.200s:%d: a record of backend '%s' in a dataset of backend '%s'", path, lineno,
                     rec.backend, ds->backend);
            rc = -1;
        } else if (dataset_find(ds, &rec.cfg)) {
            snprintf(err, errlen, "%.200s:%d: config measured twice: %.200s", path, lineno, rec.sig);
            rc = -1;
        } else {
            ds->dtype = dt;
            ds->shape = sh;
            memcpy(ds->backend, rec.backend, sizeof ds->backend);
            ds->r = xrealloc(ds->r, (size_t)(ds->n + 1) * sizeof *ds->r);
            ds->r[ds->n++] = rec;
        }
        json_decref(o);
        if (rc)
            break;
    }
    free(text);
    if (rc)
        dataset_release(ds);
    return rc;
}

size_t dataset_file_suffix(const char *name)
{
    size_t len = strlen(name);
    if (len >= 6 && !strcmp(name + len - 6, ".jsonl"))
        return 6;
    if (len >= 9 && !strcmp(name + len - 9, ".jsonl.gz"))
        return 9;
    return 0;
}

void dataset_release(struct dataset *ds)
{
    free(ds->r);
    ds->r = NULL;
    ds->n = 0;
}

const struct ds_record *dataset_find(const struct dataset *ds, const struct croq_config *cfg)
{
    for (int i = 0; i < ds->n; i++)
        if (!memcmp(&ds->r[i].cfg, cfg, sizeof *cfg))
            return &ds->r[i];
    return NULL;
}

int dataset_check_baseline(const struct dataset *ds, char *err, size_t errlen)
{
    struct croq_config base;
    char sig[CROQ_SIG_MAX];
    knobs_baseline(&base, ds->dtype);
    const struct ds_record *b = dataset_find(ds, &base);
    if (b && !strcmp(b->status, "ok"))
        return 0;
    knobs_signature(&base, sig);
    snprintf(err, errlen,
             "it does not hold the baseline configuration measured ok (%s%s%s), where every run starts; "
             "re-run 'croqtuner explore' on it with a grid of bench/explore/grids/ (every grid adds the baseline)",
             sig, b ? ": status " : "", b ? b->status : "");
    return -1;
}

const struct ds_record *dataset_best(const struct dataset *ds)
{
    const struct ds_record *b = NULL;
    for (int i = 0; i < ds->n; i++)
        if (!strcmp(ds->r[i].status, "ok") && (!b || ds->r[i].tflops > b->tflops))
            b = &ds->r[i];
    return b;
}
