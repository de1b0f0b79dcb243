/* runner/ours.c — our kernel as a measurement subject: C buffer, launch geometry and
 * tensor maps prepared once, then the common procedure (subject.h). */
#include "ours.h"

#include <string.h>

#include "format/sparse24.h"

static int ours_launch(void *ctx) { return launch_once(&((struct ours *)ctx)->l); }

static int ours_cold_launch(void *ctx)
{
    struct ours *k = ctx;
    return launch_once(&k->rl[cold_rot_next(&k->rot)]);
}

/* The rotation of A values, metadata, B and C, and a launch on each copy. */
static int ours_cold_prepare(const struct bench_env *env, struct ours *k)
{
    const struct operands *o = env->o;
    if (o->d_scale_a || o->d_scale_b) {
        runner_fail(RS_INTERNAL_ERROR, "cold L2 timing of a scaled operand set is not supported");
        return -1;
    }
    const struct cold_buf bufs[4] = {
        {o->d_values, sparse24_values_bytes(o->dtype, o->m, o->k), "rotated A values"},
        {o->d_meta, sparse24_wgmma_meta_words(o->m, o->k) * 4, "rotated A metadata"},
        {o->d_b, (size_t)o->n * o->k * o->esz, "rotated B"},
        {0, (size_t)o->m * o->n * 2, "rotated C"},
    };
    TRY(cold_rot_make(env->g, bufs, 4, &k->rot));
    for (int i = 0; i < k->rot.n; i++) {
        struct operands c = {.dtype = o->dtype, .m = o->m, .n = o->n, .k = o->k, .esz = o->esz, .alpha = o->alpha,
                             .d_values = k->rot.b[i][0], .d_meta = k->rot.b[i][1], .d_b = k->rot.b[i][2]};
        TRY(launch_prepare(env->g, &k->m, &c, k->rot.b[i][3], &k->rl[i]));
    }
    return 0;
}

int ours_prepare(const struct gpu *g, struct ours *k, const struct operands *o)
{
    TRY(gpu_alloc(&k->d_c, (size_t)o->m * o->n * 2, "C"));
    return launch_prepare(g, &k->m, o, k->d_c, &k->l);
}

int ours_open(const struct bench_env *env, struct ours *k, struct subject *s, struct subject_kernel *sk)
{
    memset(s, 0, sizeof *s);
    memset(sk, 0, sizeof *sk);
    s->name = "ours";
    s->available = true;
    s->extra = json_pack("{s:o}", "abi", launch_abi_json(&k->m, &k->l));
    if (env->cold_l2 && env->time_it && ours_cold_prepare(env, k)) {
        subject_take_failure(s);
        return -1;
    }
    *sk = (struct subject_kernel){ours_launch, k, k->d_c, ours_cold_launch, k, k->rot.b[0][3], &k->rot};
    return 0;
}

int ours_measure(const struct bench_env *env, struct ours *k, struct subject *s)
{
    struct subject_kernel sk;
    TRY(ours_open(env, k, s, &sk));
    return subject_measure(env, &sk, s);
}

void ours_release(struct ours *k)
{
    for (int i = 0; i < k->rot.n; i++)
        launch_release(&k->rl[i]);
    cold_rot_release(&k->rot);
    launch_release(&k->l);
    gpu_free(&k->d_c);
    kl_module_unload(&k->m);
}
