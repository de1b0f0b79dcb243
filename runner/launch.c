/* runner/launch.c — our kernel's launch in the runner: geometry, tensor maps and the
 * launch come from the shared launch module (src/launch); the runner adds the
 * split-K / stream-K workspace, its stream and the "abi" JSON record. */
#include "runner.h"

#include <string.h>

int launch_prepare(const struct gpu *g, const struct kl_module *m, const struct operands *o,
                   CUdeviceptr d_c, struct launch *l)
{
    struct kl_error e;
    const struct kl_operands ko = {o->dtype, o->m, o->n, o->k, o->d_values, o->d_meta, o->d_b, d_c,
                                   o->alpha, o->d_scale_a, o->d_scale_b};
    memset(l, 0, sizeof *l);
    l->stream = g->stream;
    if (kl_prepare(m, g->sm_count, &ko, &l->k, &e))
        return runner_fail_kl(&e);
    if (l->k.workspace_bytes) {
        TRY(gpu_alloc(&l->workspace, l->k.workspace_bytes, "split-K workspace"));
        /* Zeroed once: the kernel leaves its counters at zero for the next launch. */
        CU_CHECK(RS_LAUNCH_ERROR, cuMemsetD8(l->workspace, 0, l->k.workspace_bytes));
        l->k.args.workspace = (void *)l->workspace;
    }
    return 0;
}

int launch_once(struct launch *l)
{
    struct kl_error e;
    return kl_launch(&l->k, &l->k.args, l->stream, &e) ? runner_fail_kl(&e) : 0;
}

void launch_release(struct launch *l) { gpu_free(&l->workspace); }

json_t *launch_abi_json(const struct kl_module *m, const struct launch *l)
{
    const struct croq_kernel_abi *a = &m->abi;
    const struct kl_launch *k = &l->k;
    json_t *o = json_object();
#define ABI_JSON(name, what) json_object_set_new(o, #name, json_integer(a->name));
    CROQ_ABI_LAUNCH_FIELDS(ABI_JSON)
#undef ABI_JSON
    json_object_set_new(o, "cluster", json_integer(k->cluster));
    json_object_set_new(o, "workspace_bytes", json_integer((json_int_t)k->workspace_bytes));
    json_object_set_new(o, "grid", json_pack("[i,i,i]", k->grid[0], k->grid[1], k->grid[2]));
    json_object_set_new(o, "regs", json_integer(m->regs));
    json_object_set_new(o, "local_bytes", json_integer(m->local_bytes));
    json_object_set_new(o, "tiles_m", json_integer(k->tiles_m));
    json_object_set_new(o, "tiles_n", json_integer(k->tiles_n));
    json_object_set_new(o, "resident_ctas", json_integer(k->resident_ctas));
    return o;
}
