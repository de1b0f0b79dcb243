/* runner/cmd_compare.c — `croq-runner compare`: ours (with --cubin), cuSPARSELt
 * default and searched, dense cuBLAS; one process, one set of operands, one
 * reference, one timing. Every subject is set up and verified first (vendors first, so
 * that their verification is on record should our kernel fault and poison the CUDA
 * context; cuSPARSELt's search runs inside its set-up), then all verified subjects are
 * timed together in interleaved rounds, as `serve` pairs candidates: one warm-up over
 * all of them, then --trials rounds of one trial of each, in a balanced order
 * (pairtime.h rounds_time, ROUND_BALANCED), so the SM clock, which the H200's power cap
 * moves with load, is the same for every subject of a round and the per-round ratios
 * ours / vendor cancel its drift (reported as "paired", src/util/paired.h). Then each
 * subject's output is checked again. With --l2 cold every subject's timed launches rotate
 * over copies of its own operands (coldl2.h). */
#include "ours.h"
#include "output.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/paired.h"

enum { S_SLT_DEFAULT, S_SLT_SEARCH, S_CUBLAS, S_OURS, S_COUNT };

struct cmp {
    struct runner_opts o;
    struct gpu g;
    struct ours k;
    struct operands ops;
    struct reference ref;
    struct subject s[S_COUNT];
    struct subject_kernel sk[S_COUNT]; /* fn NULL: the subject cannot run */
    struct slt *slt;
    struct dense *dense;
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

static void open_ours(const struct bench_env *env, struct cmp *c)
{
    struct subject *s = &c->s[S_OURS];
    if (!c->o.cubin) {
        memset(s, 0, sizeof *s);
        s->name = "ours";
        snprintf(s->note, sizeof s->note, "no --cubin given");
        return;
    }
    if (ours_prepare(&c->g, &c->k, &c->ops) == 0) {
        ours_open(env, &c->k, s, &c->sk[S_OURS]);
        return;
    }
    memset(s, 0, sizeof *s);
    s->name = "ours";
    s->available = true;
    subject_take_failure(s);
}

static bool ready(const struct cmp *c, int i)
{
    return c->s[i].available && c->s[i].status == RS_OK && c->sk[i].fn;
}

/* Verify each subject that can run; after a failure that left the context unusable (a
 * fault is sticky: every later call fails), the rest are not run. Returns false then. */
static bool verify_all(const struct bench_env *env, struct cmp *c)
{
    for (int i = 0; i < S_COUNT; i++) {
        if (!ready(c, i) || subject_verify(env, &c->sk[i], &c->s[i]) == 0)
            continue;
        if (cuCtxSynchronize() == CUDA_SUCCESS)
            continue; /* refused or wrong, but the context is fine: the others go on */
        for (int j = 0; j < S_COUNT; j++)
            if (ready(c, j))
                subject_not_timed(&c->s[j], RS_LAUNCH_ERROR,
                          "%s failed on its first launch and the CUDA context is unusable (%s)", c->s[i].name,
                          c->s[i].error);
        return false;
    }
    return true;
}

/* The interleaved rounds over every subject still ok, then each one's output again. */
static void time_all(const struct bench_env *env, struct cmp *c, json_t *out)
{
    struct pair_kernel pk[S_COUNT];
    int idx[S_COUNT], n = 0;
    for (int i = 0; i < S_COUNT; i++)
        if (ready(c, i) && subject_timed_kernel(env, &c->sk[i], &c->s[i], &pk[n]) == 0)
            idx[n++] = i;
    json_t *names = json_array();
    for (int j = 0; j < n; j++)
        json_array_append_new(names, json_string(c->s[idx[j]].name));
    json_t *il = json_pack("{s:s, s:i, s:s, s:o}", "protocol", "interleaved", "rounds", env->topts.trials, "order",
                           "balanced: round r orders the subjects by the Williams design (src/util/paired.h)",
                           "subjects", names);
    json_object_set_new(out, "interleave", il);
    if (!n)
        return;
    struct ladder_timing *lt = xmalloc(sizeof *lt);
    if (subjects_time_rounds(env, c->sk, c->s, idx, pk, n, env->topts.trials, ROUND_BALANCED, lt) == 0)
        json_object_set_new(il, "warmup", pair_warmup_json(&lt->w));
    free(lt);
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

/* Per round, a's speed over b's (b's time / a's: above 1 a is faster), their median and
 * the sign-test interval, as `serve` reports a pairing (src/util/paired.h, on the printed
 * trial times); null unless both were timed in the same rounds, at least PAIRED_MIN_PAIRS. */
static json_t *paired(const struct subject *a, const struct subject *b)
{
    struct paired_stats st;
    if (!usable(a) || !usable(b) || a->t.trials != b->t.trials ||
        paired_stats_compute(a->t.trial_ms, b->t.trial_ms, a->t.trials, &st))
        return json_null();
    json_t *r = json_array();
    for (int i = 0; i < st.n; i++)
        json_array_append_new(r, json_real(st.ratio[i]));
    return json_pack("{s:o, s:f, s:f, s:f, s:f}", "ratios", r, "median", st.median, "lo", st.lo, "hi", st.hi,
                     "confidence", st.coverage);
}

static json_t *paired_json(const struct cmp *c)
{
    const struct subject *s = c->s;
    return json_pack("{s:o, s:o, s:o}", "ours_over_cusparselt_search", paired(&s[S_OURS], &s[S_SLT_SEARCH]),
                     "ours_over_cusparselt_default", paired(&s[S_OURS], &s[S_SLT_DEFAULT]),
                     "ours_over_cublas", paired(&s[S_OURS], &s[S_CUBLAS]));
}

static void compare_measure(struct cmp *c, json_t *out)
{
    struct bench_env env = {&c->g, &c->ops, &c->ref, {c->o.warmup, c->o.iters, c->o.trials, c->o.warmup_ms}, true,
                            c->o.cold_l2};
    c->slt = vendor_cusparselt_open(&env, c->o.slt_config, c->o.slt_split_k, &c->s[S_SLT_DEFAULT],
                                    &c->s[S_SLT_SEARCH], &c->sk[S_SLT_DEFAULT], &c->sk[S_SLT_SEARCH]);
    c->dense = vendor_cublas_open(&env, &c->s[S_CUBLAS], &c->sk[S_CUBLAS]);
    open_ours(&env, c);
    if (verify_all(&env, c))
        time_all(&env, c, out);
    json_t *results = json_object();
    for (int i = 0; i < S_COUNT; i++)
        json_object_set_new(results, c->s[i].name, subject_json(&c->s[i], &env));
    json_object_set_new(out, "results", results);
    json_object_set_new(out, "ratios", ratios_json(c));
    json_object_set_new(out, "paired", paired_json(c));
}

int runner_cmd_compare(int argc, char **argv)
{
    struct cmp c;
    enum runner_status status = RS_OK;
    char error[1024] = "";
    memset(&c, 0, sizeof c);
    json_t *out = output_new("compare");
    json_object_set_new(out, "protocol", json_string("interleaved")); /* how the subjects are timed */
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
    vendor_cublas_close(c.dense);
    vendor_cusparselt_close(c.slt);
    ours_release(&c.k);
    reference_release(&c.ref);
    operands_release(&c.ops);
    gpu_close(&c.g);
    return rc;
}
