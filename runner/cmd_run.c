/* runner/cmd_run.c — `croq-runner run`: load, verify and time one kernel module. */
#include "ours.h"
#include "output.h"

#include <string.h>

struct run {
    struct runner_opts o;
    struct gpu g;
    struct ours k;
    struct operands ops;
    struct reference ref;
    struct subject s;
};

/* Everything before the first launch; the failure, if any, is the recorded one. */
static int run_prepare(struct run *r, json_t *out, int argc, char **argv)
{
    TRY(args_parse(argc, argv, &r->o));
    TRY(gpu_open(r->o.device, &r->g));
    gpu_json_identity(&r->g, out);
    TRY(gpu_require_sm90(&r->g));
    TRY(module_load(r->o.cubin, r->o.dtype, &r->k.m));
    output_module_id(out, "module_id", &r->k.m);
    int dtype = (int)r->k.m.abi.dtype;
    output_problem(out, dtype, &r->o.shape, r->o.seed);
    TRY(module_check_shape(&r->k.m, &r->o.shape));
    TRY(operands_make(dtype, &r->o.shape, r->o.seed, &r->ops));
    TRY(operands_upload(&r->g, &r->ops));
    if (r->o.scaled)
        TRY(operands_scale(&r->ops, r->o.seed));
    if (!r->o.no_verify)
        TRY(reference_compute(&r->g, &r->ops, r->o.reference, &r->ref));
    if (r->o.scaled) {
        reference_scale(&r->ops, &r->ref);
        json_object_set_new(out, "epilogue", json_pack("{s:f, s:s}", "alpha", r->ops.alpha, "scales",
                                                       "seeded, uniform in [0.25, 2]"));
    }
    return ours_prepare(&r->g, &r->k, &r->ops);
}

/* The subject's measurement fields go to the top level of `run` output. */
static void merge_measurement(json_t *out, json_t *subject)
{
    static const char *const keys[] = {"abi", "verify", "timing", "gpu_state", "peak"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(subject, keys[i]);
        if (v)
            json_object_set(out, keys[i], v);
    }
    json_decref(subject);
}

int runner_cmd_run(int argc, char **argv)
{
    struct run r;
    enum runner_status status;
    char error[1024];
    memset(&r, 0, sizeof r);
    json_t *out = output_new("run");
    if (run_prepare(&r, out, argc, argv) == 0) {
        struct bench_env env = {&r.g, &r.ops, r.o.no_verify ? NULL : &r.ref, {r.o.warmup, r.o.iters, r.o.trials, r.o.warmup_ms}, !r.o.no_time,
                                false};
        ours_measure(&env, &r.k, &r.s);
        merge_measurement(out, subject_json(&r.s, &env));
        status = r.s.status;
        snprintf(error, sizeof error, "%s", r.s.error);
    } else {
        status = runner_fail_status();
        snprintf(error, sizeof error, "%s", runner_fail_message());
    }
    int rc = output_emit(out, status, error);
    subject_release(&r.s);
    ours_release(&r.k);
    reference_release(&r.ref);
    operands_release(&r.ops);
    gpu_close(&r.g);
    return rc;
}
