/* runner/module.c — the runner's side of loading a module: the shared launch module
 * (src/launch) does the work; failures become runner statuses (check.h). */
#include "runner.h"

int runner_fail_kl(const struct kl_error *e)
{
    static const enum runner_status map[] = {
        [KL_OK] = RS_INTERNAL_ERROR, [KL_BAD_MODULE] = RS_BAD_MODULE,
        [KL_UNSUPPORTED_SHAPE] = RS_UNSUPPORTED_SHAPE, [KL_LAUNCH_ERROR] = RS_LAUNCH_ERROR,
        [KL_NO_DRIVER] = RS_NO_GPU,
    };
    runner_fail((unsigned)e->status < sizeof map / sizeof map[0] ? map[e->status] : RS_INTERNAL_ERROR, "%s",
                e->msg);
    return -1;
}

int module_load(const char *path, int want_dtype, struct kl_module *m)
{
    struct kl_error e;
    return kl_module_load_file(path, want_dtype, m, &e) ? runner_fail_kl(&e) : 0;
}

int module_check_shape(const struct kl_module *m, const struct croq_shape *s)
{
    char why[CROQ_WHY_MAX];
    struct kl_error e;
    if (!shape_validate((int)m->abi.dtype, s, why, sizeof why)) {
        runner_fail(RS_UNSUPPORTED_SHAPE, "%s", why);
        return -1;
    }
    return kl_module_check_k(m, s->k, &e) ? runner_fail_kl(&e) : 0;
}
