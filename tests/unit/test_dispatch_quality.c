/* tests/unit/test_dispatch_quality.c — how good libcroqsparse's nearest-shape dispatch is
 * on the H200 ground truth, and the table bench/results/dispatch-nearest-h200.txt.
 *
 * The pool: the registered best of every shape of results/h200/sweep-typical (the default
 * pack's directory), plus the best configuration of each bench/explore dataset (as if it had
 * been tuned at that shape). For each dataset shape, the entries at that shape are left
 * out (the shape "not in the pack") and a rule picks one of the rest whose configuration
 * the knob rules accept for the shape; the pick's TFLOPS is looked up in the shape's
 * dataset ("-" when the dataset never measured that configuration) and divided by the
 * dataset's best. Rules: pack_choose itself (sum over M, N, K of |log2 ratio|), two
 * alternatives computed here (|log2| of the M*N ratio + |log2| of the K ratio; the
 * highest tuned TFLOPS, ignoring shape), and the oracle (the best measured pick).
 *
 * The test asserts that pack_choose's pick equals the "sum" rule computed here, that every
 * pick is valid for its shape, and that the table equals the committed file (so it cannot
 * go stale); `test_dispatch_quality --write` rewrites the file.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "artifacts/state.h"
#include "dataset/dataset.h"
#include "pack/pack.h"
#include "util/strbuf.h"

#define TABLE CROQ_SOURCE_DIR "/bench/results/dispatch-nearest-h200.txt"

static const char *const datasets[] = {"f16_1024x1024x4096", "f16_1024x8192x1024", "f16_12288x4096x4096",
                                       "e4m3_1024x1024x4096", "e4m3_1024x8192x1024", "e4m3_12288x4096x4096"};
#define NDS (sizeof datasets / sizeof datasets[0])
static const char *const tunings[] = {"sweep-typical"}; /* the default pack's directory (cmake/croqsparse.cmake) */

struct pool {
    struct pack_entry e[64];
    char from[64][48]; /* "tuned f16_..." or "dataset" */
    size_t n;
};

static void add(struct pool *p, int dtype, const struct croq_shape *s, const char *sig, double tflops,
                const char *from)
{
    assert_true(p->n < 64);
    struct pack_entry *e = &p->e[p->n];
    memset(e, 0, sizeof *e);
    e->dtype = dtype, e->m = s->m, e->n = s->n, e->k = s->k, e->tflops = tflops;
    snprintf(e->config, sizeof e->config, "%s", sig);
    snprintf(e->key, sizeof e->key, "%s", from);
    snprintf(p->from[p->n], sizeof p->from[0], "%s", from);
    p->n++;
}

static void load_tuned(struct pool *p)
{
    char dir[4096], err[1024];
    for (size_t t = 0; t < sizeof tunings / sizeof tunings[0]; t++) {
        snprintf(dir, sizeof dir, "%s/results/h200/%s", CROQ_SOURCE_DIR, tunings[t]);
        json_t *root = state_load(dir, err, sizeof err), *sh;
        const char *key;
        assert_non_null(root);
        json_object_foreach(json_object_get(root, "shapes"), key, sh) {
            json_t *best = json_object_get(sh, "best");
            struct croq_shape s = {(long)json_integer_value(json_object_get(sh, "m")),
                                   (long)json_integer_value(json_object_get(sh, "n")),
                                   (long)json_integer_value(json_object_get(sh, "k"))};
            char from[48];
            snprintf(from, sizeof from, "tuned:%s", key);
            add(p, croq_dtype_parse(json_string_value(json_object_get(sh, "dtype"))), &s,
                json_string_value(json_object_get(best, "config")), json_number_value(json_object_get(best, "tflops")),
                from);
        }
        json_decref(root);
    }
}

static bool valid_for(const struct pack_entry *e, const struct croq_shape *s)
{
    struct croq_config cfg;
    char why[CROQ_WHY_MAX];
    return knobs_parse_signature(&cfg, e->config, why, sizeof why) == 0 && knobs_validate(&cfg, s, why, sizeof why);
}

static double l2(double a, double b) { return fabs(log2(a / b)); }
static double d_sum(const struct pack_entry *e, const struct croq_shape *s)
{
    return l2((double)e->m, (double)s->m) + l2((double)e->n, (double)s->n) + l2((double)e->k, (double)s->k);
}
static double d_area(const struct pack_entry *e, const struct croq_shape *s)
{
    return l2((double)e->m * (double)e->n, (double)s->m * (double)s->n) + l2((double)e->k, (double)s->k);
}
static double d_none(const struct pack_entry *e, const struct croq_shape *s) { (void)e, (void)s; return 0; }

/* The entry of p (dtype, not at s, valid for s) with the least dist, ties the higher
 * tflops, then the earlier; -1 if none. */
static long pick(const struct pool *p, int dtype, const struct croq_shape *s,
                 double (*dist)(const struct pack_entry *, const struct croq_shape *))
{
    long best = -1;
    double bd = 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct pack_entry *e = &p->e[i];
        if (e->dtype != dtype || (e->m == s->m && e->n == s->n && e->k == s->k) || !valid_for(e, s))
            continue;
        double d = dist(e, s);
        if (best < 0 || d < bd || (d == bd && e->tflops > p->e[best].tflops))
            best = (long)i, bd = d;
    }
    return best;
}

/* The TFLOPS of entry i's configuration in ds, or NAN if never measured (or not ok). */
static double measured(const struct pool *p, long i, const struct dataset *ds)
{
    struct croq_config cfg;
    char why[CROQ_WHY_MAX];
    if (i < 0 || knobs_parse_signature(&cfg, p->e[i].config, why, sizeof why))
        return NAN;
    const struct ds_record *r = dataset_find(ds, &cfg);
    return r && !strcmp(r->status, "ok") ? r->tflops : NAN;
}

static void row(struct strbuf *sb, const char *shape, const char *rule, const struct pool *p, long i, double got,
                double best)
{
    char tflops[32] = "-", ratio[32] = "-", at[64];
    if (got == got)
        snprintf(tflops, sizeof tflops, "%.1f", got), snprintf(ratio, sizeof ratio, "%.3f", got / best);
    snprintf(at, sizeof at, "%ldx%ldx%ld", p->e[i].m, p->e[i].n, p->e[i].k);
    strbuf_addf(sb, "%-26s %-10s %-34s %-16s %8s %8.1f %6s\n", shape, rule, p->from[i], at, tflops, best, ratio);
}

/* The whole table into sb; pack_choose's pick is checked against the "sum" rule. */
static void build_table(struct strbuf *sb)
{
    struct pool p = {0};
    struct dataset ds[NDS];
    char path[4096], err[1024];
    static const char *const names[] = {"sum", "area+K", "max-tflops"};
    double (*const dists[])(const struct pack_entry *, const struct croq_shape *) = {d_sum, d_area, d_none};
    double logsum[4] = {0};
    int counted[4] = {0}, unmeasured[4] = {0};
    load_tuned(&p);
    for (size_t d = 0; d < NDS; d++) {
        snprintf(path, sizeof path, "%s/bench/explore/%s.jsonl", CROQ_SOURCE_DIR, datasets[d]);
        assert_int_equal(dataset_load(path, false, &ds[d], err, sizeof err), 0);
        const struct ds_record *b = dataset_best(&ds[d]);
        assert_non_null(b);
        add(&p, ds[d].dtype, &ds[d].shape, b->sig, b->tflops, "dataset");
    }
    strbuf_addf(sb, "# Nearest-shape dispatch on the H200 datasets: a shape left out of the pack, which kernel\n"
                    "# each rule picks and how fast that configuration ran there. Written by\n"
                    "# tests/unit/test_dispatch_quality.c (`build/test_dispatch_quality --write`); docs/library.md.\n"
                    "# Pool (%zu entries): the registered bests of results/h200/sweep-typical (the default pack's),\n"
                    "# and the best of each bench/explore dataset; TFLOPS from the left-out shape's dataset\n"
                    "# ('-': that configuration was never measured there); ratio = TFLOPS / the dataset's best.\n"
                    "# Rules: sum = pack_choose (sum over M,N,K of |log2 ratio|); area+K = |log2 MN ratio| +\n"
                    "# |log2 K ratio|; max-tflops = the highest tuned TFLOPS, shape ignored; oracle = the best\n"
                    "# measured pick of the pool.\n",
                p.n);
    strbuf_addf(sb, "%-26s %-10s %-34s %-16s %8s %8s %6s\n", "shape (left out)", "rule", "picked", "tuned at",
                "TFLOPS", "best", "ratio");
    for (size_t d = 0; d < NDS; d++) {
        const struct croq_shape *s = &ds[d].shape;
        double best = dataset_best(&ds[d])->tflops;
        char shape[64];
        snprintf(shape, sizeof shape, "%s %ldx%ldx%ld", croq_dtype_name(ds[d].dtype), s->m, s->n, s->k);
        /* pack_choose on the pool without the entries at s */
        struct pack without = {.n = 0, .e = calloc(p.n, sizeof(struct pack_entry))};
        long map[64];
        for (size_t i = 0; i < p.n; i++)
            if (!(p.e[i].m == s->m && p.e[i].n == s->n && p.e[i].k == s->k)) {
                map[without.n] = (long)i;
                without.e[without.n++] = p.e[i];
            }
        enum pack_match match;
        char why[256];
        long c = pack_choose(&without, ds[d].dtype, s, PACK_TRUST_HERE, &match, why, sizeof why);
        assert_true(c >= 0);
        assert_int_equal(match, PACK_NEAREST);
        for (int r = 0; r < 3; r++) {
            long i = pick(&p, ds[d].dtype, s, dists[r]);
            assert_true(i >= 0);
            assert_true(valid_for(&p.e[i], s));
            if (r == 0)
                assert_int_equal(map[c], i); /* the rule here is pack_choose's */
            double got = measured(&p, i, &ds[d]);
            row(sb, shape, names[r], &p, i, got, best);
            if (got == got)
                logsum[r] += log(got / best), counted[r]++;
            else
                unmeasured[r]++;
        }
        long o = -1;
        double og = NAN;
        for (size_t i = 0; i < p.n; i++) {
            double g = (p.e[i].dtype == ds[d].dtype && !(p.e[i].m == s->m && p.e[i].n == s->n && p.e[i].k == s->k) &&
                        valid_for(&p.e[i], s))
                           ? measured(&p, (long)i, &ds[d])
                           : NAN;
            if (g == g && !(og >= g))
                o = (long)i, og = g;
        }
        assert_true(o >= 0);
        row(sb, shape, "oracle", &p, o, og, best);
        logsum[3] += log(og / best), counted[3]++;
        free(without.e);
    }
    strbuf_addf(sb, "# per rule: geometric mean of the ratio over the shapes where it was measured\n");
    for (int r = 0; r < 4; r++)
        strbuf_addf(sb, "# %-10s %.3f over %d shape(s), %d pick(s) never measured at their shape\n",
                    r < 3 ? names[r] : "oracle", counted[r] ? exp(logsum[r] / counted[r]) : 0, counted[r],
                    unmeasured[r]);
    for (size_t d = 0; d < NDS; d++)
        dataset_release(&ds[d]);
}

static bool write_mode;

static void test_table(void **state)
{
    (void)state;
    struct strbuf sb = {0};
    build_table(&sb);
    fputs(strbuf_str(&sb), stdout);
    if (write_mode) {
        FILE *f = fopen(TABLE, "w");
        assert_non_null(f);
        fputs(strbuf_str(&sb), f);
        assert_int_equal(fclose(f), 0);
    } else {
        size_t n;
        FILE *f = fopen(TABLE, "r");
        assert_non_null(f);
        char *want = calloc(1, 1 << 16);
        n = fread(want, 1, (1 << 16) - 1, f);
        fclose(f);
        want[n] = '\0';
        assert_string_equal(strbuf_str(&sb), want); /* stale: rerun with --write and commit the table */
        free(want);
    }
    strbuf_release(&sb);
}

int main(int argc, char **argv)
{
    write_mode = argc > 1 && !strcmp(argv[1], "--write");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_table)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
