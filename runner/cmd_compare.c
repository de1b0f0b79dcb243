/* runner/cmd_compare.c — `croq-runner compare`: ours (with --cubin), cuSPARSELt
 * default and searched, dense cuBLAS; one process, one set of operands, one
 * reference, one timing method. Vendors run first so that a fault in our kernel
 * (which poisons the CUDA context) cannot cost their numbers, and so ours is timed
 * on a GPU at least as warm as theirs (the ratios never flatter ours). With --l2 cold every
 * subject's timed launches rotate over copies of its own operands (coldl2.h). */
#include "ours.h"
#include "output.h"

#include <stdio.h>
#include <string.h>

enum { S_SLT_DEFAULT, S_SLT_SEARCH, S_CUBLAS, S_OURS, S_COUNT };

struct cmp {
    struct runner_opts o;
    struct gpu g;
    struct ours k;
    struct operands ops;
    struct reference ref;
    struct subject s[S_COUNT];
};

static int check_shape(const struct cmp *c)
{
    char why[CROQ_WHY_MAX];
    if (c->o.cubin)
        return module_check_shape(&c->k.m, &c->o.shape);
    if (!shape_validate(c->o.dtype, &c->o.shape, why, sizeof why)) {
        runner_fail(RS_UNSUPPORTED_SHAPE, "%s", why);
        return -1;
    }
    return 0;
}

static int compare_prepare(struct cmp *c, json_t *out, int argc, char **argv)
{
    TRY(args_parse(argc, argv, &c->o));
    TRY(gpu_open(c->o.device, &c->g));
    gpu_json_identity(&c->g, out);
    output_problem(out, c->o.dtype, &c->o.shape, c->o.seed);
    json_object_set_new(out, "l2", json_string(c->o.cold_l2 ? "cold" : "warm"));
    if (c->o.cubin) {
        TRY(gpu_require_sm90(&c->g));
        TRY(module_load(c->o.cubin, c->o.dtype, &c->k.m));
        output_module_id(out, "module_id", &c->k.m);
    }
    TRY(check_shape(c));
    TRY(operands_make(c->o.dtype, &c->o.shape, c->o.seed, &c->ops));
    TRY(operands_upload(&c->g, &c->ops));
    TRY(operands_upload_dense(&c->g, &c->ops));
    return reference_compute(&c->g, &c->ops, c->o.reference, &c->ref);
}

static void measure_ours(const struct bench_env *env, struct cmp *c)
{
    struct subject *s = &c->s[S_OURS];
    if (!c->o.cubin) {
        memset(s, 0, sizeof *s);
        s->name = "ours";
        snprintf(s->note, sizeof s->note, "no --cubin given");
        return;
    }
    if (ours_prepare(&c->g, &c->k, &c->ops) == 0) {
        ours_measure(env, &c->k, s);
        return;
    }
    memset(s, 0, sizeof *s);
    s->name = "ours";
    s->available = true;
    subject_take_failure(s);
}

static bool usable(const struct subject *s) { return s->available && s->status == RS_OK && s->timed; }

static json_t *ratio(const struct subject *a, const struct subject *b)
{
    if (!usable(a) || !usable(b) || b->t.tflops <= 0)
        return json_null();
    return json_real(a->t.tflops / b->t.tflops);
}

static json_t *ratios_json(const struct cmp *c)
{
    const struct subject *s = c->s;
    return json_pack("{s:o, s:o, s:o, s:o}", "ours_over_cusparselt_search", ratio(&s[S_OURS], &s[S_SLT_SEARCH]),
                     "ours_over_cusparselt_default", ratio(&s[S_OURS], &s[S_SLT_DEFAULT]),
                     "ours_over_cublas", ratio(&s[S_OURS], &s[S_CUBLAS]),
                     "cusparselt_search_over_cublas", ratio(&s[S_SLT_SEARCH], &s[S_CUBLAS]));
}

static void compare_measure(struct cmp *c, json_t *out)
{
    struct bench_env env = {&c->g, &c->ops, &c->ref, {c->o.warmup, c->o.iters, c->o.trials, c->o.warmup_ms}, true,
                            c->o.cold_l2};
    vendor_cusparselt(&env, &c->s[S_SLT_DEFAULT], &c->s[S_SLT_SEARCH]);
    vendor_cublas(&env, &c->s[S_CUBLAS]);
    measure_ours(&env, c);
    json_t *results = json_object();
    for (int i = 0; i < S_COUNT; i++)
        json_object_set_new(results, c->s[i].name, subject_json(&c->s[i], &env));
    json_object_set_new(out, "results", results);
    json_object_set_new(out, "ratios", ratios_json(c));
}

int runner_cmd_compare(int argc, char **argv)
{
    struct cmp c;
    enum runner_status status = RS_OK;
    char error[1024] = "";
    memset(&c, 0, sizeof c);
    json_t *out = output_new("compare");
    if (compare_prepare(&c, out, argc, argv) == 0) {
        compare_measure(&c, out);
        /* Vendor failures are reported per entry; ours decides the command's status. */
        if (c.o.cubin) {
            status = c.s[S_OURS].status;
            snprintf(error, sizeof error, "%s", c.s[S_OURS].error);
        }
    } else {
        status = runner_fail_status();
        snprintf(error, sizeof error, "%s", runner_fail_message());
    }
    int rc = output_emit(out, status, error);
    for (int i = 0; i < S_COUNT; i++)
        subject_release(&c.s[i]);
    ours_release(&c.k);
    reference_release(&c.ref);
    operands_release(&c.ops);
    gpu_close(&c.g);
    return rc;
}
