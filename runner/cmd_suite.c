/* runner/cmd_suite.c — `croq-runner suite`: many kernel modules on one problem.
 *
 * Operands and the reference are made once; then each module listed in --cubins (one
 * path per line) is loaded, checked and, unless --no-time, timed exactly as `run` does,
 * and one `run`-shaped JSON object per module is printed (with "command": "suite" and
 * "cubin"). A fault poisons the CUDA context, so after a launch error the remaining
 * modules are reported as not run. Used by the GPU suite to verify every variant on
 * every shape without regenerating data per variant. Exit code: the worst status.
 */
#include "ours.h"
#include "output.h"

#include <stdio.h>
#include <string.h>

#include "util/atomicio.h"

struct suite {
    struct runner_opts o;
    struct gpu g;
    struct operands ops;
    struct reference ref;
};

static int suite_prepare(struct suite *s, int argc, char **argv)
{
    TRY(args_parse(argc, argv, &s->o));
    TRY(gpu_open(s->o.device, &s->g));
    TRY(gpu_require_sm90(&s->g));
    TRY(operands_make(s->o.dtype, &s->o.shape, s->o.seed, &s->ops));
    TRY(operands_upload(&s->g, &s->ops));
    return reference_compute(&s->g, &s->ops, s->o.reference, &s->ref);
}

/* One module: the same fields as `run`. Returns its exit code. */
static int suite_one(struct suite *s, const char *cubin, bool poisoned)
{
    json_t *out = output_new("suite");
    json_object_set_new(out, "cubin", json_string(cubin));
    gpu_json_identity(&s->g, out);
    output_problem(out, s->o.dtype, &s->o.shape, s->o.seed);
    if (poisoned)
        return output_emit(out, RS_LAUNCH_ERROR, "not run: an earlier module faulted the CUDA context");
    struct ours k;
    struct subject sub;
    memset(&k, 0, sizeof k);
    memset(&sub, 0, sizeof sub);
    enum runner_status status;
    char error[1024];
    int loaded = module_load(cubin, s->o.dtype, &k.m);
    if (!loaded)
        output_module_id(out, "module_id", &k.m);
    if (loaded || module_check_shape(&k.m, &s->o.shape) || ours_prepare(&s->g, &k, &s->ops)) {
        status = runner_fail_status();
        snprintf(error, sizeof error, "%s", runner_fail_message());
    } else {
        struct bench_env env = {&s->g, &s->ops, &s->ref, {s->o.warmup, s->o.iters, s->o.trials, s->o.warmup_ms}, !s->o.no_time,
                                false};
        ours_measure(&env, &k, &sub);
        json_t *m = subject_json(&sub, &env);
        json_object_update(out, m);
        json_decref(m);
        status = sub.status;
        snprintf(error, sizeof error, "%s", sub.error);
    }
    int rc = output_emit(out, status, error);
    subject_release(&sub);
    ours_release(&k);
    return rc;
}

int runner_cmd_suite(int argc, char **argv)
{
    struct suite s;
    memset(&s, 0, sizeof s);
    int worst = 0;
    char *list = NULL;
    if (suite_prepare(&s, argc, argv) == 0 && !(list = read_file(s.o.cubins, NULL)))
        runner_fail(RS_BAD_ARGS, "suite: cannot read '%s'", s.o.cubins);
    if (!list) {
        worst = output_emit(output_new("suite"), runner_fail_status(), runner_fail_message());
    } else {
        bool poisoned = false;
        for (char *save = NULL, *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            if (!line[0] || line[0] == '#')
                continue;
            int rc = suite_one(&s, line, poisoned);
            poisoned |= rc == runner_status_exit(RS_LAUNCH_ERROR);
            worst = rc > worst ? rc : worst;
        }
    }
    free(list);
    reference_release(&s.ref);
    operands_release(&s.ops);
    gpu_close(&s.g);
    return worst;
}
