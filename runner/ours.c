/* runner/ours.c — our kernel as a measurement subject: C buffer, launch geometry and
 * tensor maps prepared once, then the common procedure (subject.h). */
#include "ours.h"

#include <string.h>

static int ours_launch(void *ctx) { return launch_once(&((struct ours *)ctx)->l); }

int ours_prepare(const struct gpu *g, struct ours *k, const struct operands *o)
{
    TRY(gpu_alloc(&k->d_c, (size_t)o->m * o->n * 2, "C"));
    return launch_prepare(g, &k->m, o, k->d_c, &k->l);
}

int ours_measure(const struct bench_env *env, struct ours *k, struct subject *s)
{
    memset(s, 0, sizeof *s);
    s->name = "ours";
    s->available = true;
    s->extra = json_pack("{s:o}", "abi", launch_abi_json(&k->m, &k->l));
    return subject_measure(env, ours_launch, k, k->d_c, s);
}

void ours_release(struct ours *k)
{
    launch_release(&k->l);
    gpu_free(&k->d_c);
    kl_module_unload(&k->m);
}
