/* runner/verify.c — poison C, then compare EVERY element with the reference.
 *
 * An element passes when |got - ref| <= reference_tolerance(dtype, K, ref, absref)
 * (src/format/reference.h). NaN or inf in C fails: NaN is what the poison leaves in
 * an element the kernel never wrote, so it is also counted as nan_or_unwritten.
 */
#include "runner.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "format/numeric.h"
#include "format/reference.h"
#include "util/log.h"

/* f16 quiet NaN: exponent all ones, top mantissa bit set. */
#define POISON_F16 0x7E00u

int verify_poison(const struct gpu *g, CUdeviceptr d_c, long m, long n)
{
    CU_CHECK(RS_INTERNAL_ERROR, cuMemsetD16Async(d_c, POISON_F16, (size_t)m * n, g->stream));
    return 0;
}

static void note_mismatch(struct verify_result *v, long row, long col, double got, double want, double tol)
{
    if (v->listed < VERIFY_LIST)
        v->first[v->listed++] = (struct mismatch){row, col, got, want, tol};
    v->mismatches++;
}

static void compare_rows(const uint16_t *c, const struct operands *o, const struct reference *r, long r0, long r1,
                         struct verify_result *v)
{
    for (long i = r0; i < r1; i++) {
        for (long j = 0; j < o->n; j++) {
            size_t at = (size_t)i * o->n + j;
            double got = numeric_f16_to_f32(c[at]);
            double want = r->ref64 ? r->ref64[at] : r->ref32[at];
            double abs = r->abs64 ? r->abs64[at] : r->abs32[at];
            double tol = reference_tolerance(o->dtype, o->k, want, abs);
            double err = fabs(got - want);
            if (isnan(got))
                v->nan_or_unwritten++;
            if (!isfinite(got) || !(err <= tol)) {
                note_mismatch(v, i, j, got, want, tol);
                if (!isfinite(got))
                    continue;
            }
            v->max_abs_err = err > v->max_abs_err ? err : v->max_abs_err;
            if (tol > 0 && err / tol > v->max_err_over_tol)
                v->max_err_over_tol = err / tol;
        }
    }
}

/* Row blocks compared by up to VERIFY_THREADS threads, merged in row order, so the result
 * (counts, maxima, the first mismatches in row-major order) is the one-thread result. A
 * 4096x8192 C took ~0.25 s per comparison on one core (H200 host, 2026-12-01), twice per
 * measurement. */
#define VERIFY_THREADS 8
#define VERIFY_MIN_ROWS_PER_THREAD 64
struct compare_job {
    const uint16_t *c;
    const struct operands *o;
    const struct reference *r;
    long r0, r1;
    struct verify_result v;
};

static void *compare_job_run(void *arg)
{
    struct compare_job *j = arg;
    compare_rows(j->c, j->o, j->r, j->r0, j->r1, &j->v);
    return NULL;
}

static void compare(const uint16_t *c, const struct operands *o, const struct reference *r,
                    struct verify_result *v)
{
    long nt = o->m / VERIFY_MIN_ROWS_PER_THREAD;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    nt = nt > VERIFY_THREADS ? VERIFY_THREADS : nt;
    nt = cores > 0 && nt > cores ? cores : nt;
    if (nt <= 1) {
        compare_rows(c, o, r, 0, o->m, v);
        return;
    }
    struct compare_job job[VERIFY_THREADS];
    pthread_t th[VERIFY_THREADS];
    bool started[VERIFY_THREADS] = {false};
    for (long t = 0; t < nt; t++) {
        job[t] = (struct compare_job){c, o, r, o->m * t / nt, o->m * (t + 1) / nt, {0}};
        started[t] = t > 0 && pthread_create(&th[t], NULL, compare_job_run, &job[t]) == 0;
    }
    for (long t = 0; t < nt; t++)
        if (!started[t]) /* block 0, and any block whose thread could not start: here */
            compare_job_run(&job[t]);
    for (long t = 0; t < nt; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        const struct verify_result *b = &job[t].v;
        for (int i = 0; i < b->listed && v->listed < VERIFY_LIST; i++)
            v->first[v->listed++] = b->first[i];
        v->mismatches += b->mismatches;
        v->nan_or_unwritten += b->nan_or_unwritten;
        v->max_abs_err = b->max_abs_err > v->max_abs_err ? b->max_abs_err : v->max_abs_err;
        v->max_err_over_tol = b->max_err_over_tol > v->max_err_over_tol ? b->max_err_over_tol : v->max_err_over_tol;
    }
}

int verify_output(const struct gpu *g, CUdeviceptr d_c, const struct operands *o,
                  const struct reference *r, struct verify_result *v)
{
    size_t mn = (size_t)o->m * o->n;
    memset(v, 0, sizeof *v);
    uint16_t *c = xmalloc(mn * sizeof *c);
    CUresult rc = cuStreamSynchronize(g->stream);
    if (rc == CUDA_SUCCESS)
        rc = cuMemcpyDtoH(c, d_c, mn * sizeof *c);
    if (rc != CUDA_SUCCESS) {
        free(c);
        runner_fail_cu(RS_LAUNCH_ERROR, rc, "copying C back", __FILE__, __LINE__);
        return -1;
    }
    compare(c, o, r, v);
    v->checked = (long long)mn;
    v->passed = v->mismatches == 0;
    free(c);
    return 0;
}

/* JSON has no NaN or inf: write those as strings. */
static json_t *num(double x)
{
    if (isnan(x))
        return json_string("nan");
    if (isinf(x))
        return json_string(x > 0 ? "inf" : "-inf");
    return json_real(x);
}

static json_t *mismatch_json(const struct mismatch *m)
{
    return json_pack("{s:I, s:I, s:o, s:o, s:o}", "row", (json_int_t)m->row, "col", (json_int_t)m->col,
                     "got", num(m->got), "want", num(m->want), "tol", num(m->tol));
}

json_t *verify_json(const struct verify_result *v, const char *reference)
{
    json_t *list = json_array();
    for (int i = 0; i < v->listed; i++)
        json_array_append_new(list, mismatch_json(&v->first[i]));
    return json_pack("{s:b, s:s, s:I, s:I, s:o, s:o, s:I, s:o, s:o}", "passed", v->passed,
                     "reference", reference, "checked", (json_int_t)v->checked, "mismatches",
                     (json_int_t)v->mismatches, "max_abs_err", num(v->max_abs_err),
                     "max_err_over_tol", num(v->max_err_over_tol), "nan_or_unwritten",
                     (json_int_t)v->nan_or_unwritten, "first_mismatch",
                     v->listed ? mismatch_json(&v->first[0]) : json_null(), "first_mismatches", list);
}
