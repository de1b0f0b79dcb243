/* src/util/paired.c — ratios, median and the sign-test interval (paired.h). */
#include "paired.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double sorted_median(const double *s, int n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double paired_median(const double *v, int n)
{
    double s[PAIRED_MAX];
    if (n < 1 || n > PAIRED_MAX)
        return NAN;
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return sorted_median(s, n);
}

/* P(Binomial(n, 1/2) <= j), exactly enough for n <= 100 in doubles. */
static double binom_cdf_half(int n, int j)
{
    double c = 1.0, sum = 0.0; /* c = C(n, i) */
    for (int i = 0; i <= j; i++) {
        sum += c;
        c = c * (n - i) / (i + 1);
    }
    return sum * pow(0.5, n);
}

int paired_stats_compute(const double *cand, const double *inc, int n, struct paired_stats *out)
{
    double sorted[PAIRED_MAX];
    memset(out, 0, sizeof *out);
    if (n < PAIRED_MIN_PAIRS || n > PAIRED_MAX)
        return -1;
    for (int i = 0; i < n; i++) {
        if (!(isfinite(cand[i]) && cand[i] > 0 && isfinite(inc[i]) && inc[i] > 0)) {
            memset(out, 0, sizeof *out);
            return -1;
        }
        out->ratio[i] = sorted[i] = inc[i] / cand[i];
    }
    out->n = n;
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_double);
    out->median = sorted_median(sorted, n);
    double tail = (1.0 - PAIRED_CONFIDENCE) / 2.0;
    int k = 1; /* n >= 6 gives P(X <= 0) = 2^-n <= 1/64 < tail */
    while (k + 1 <= n / 2 && binom_cdf_half(n, k) <= tail)
        k++;
    out->k = k;
    out->lo = sorted[k - 1];
    out->hi = sorted[n - k];
    out->coverage = 1.0 - 2.0 * binom_cdf_half(n, k - 1);
    return 0;
}

/* Williams (1949): the first row 0, 1, n-1, 2, n-2, ... and its n cyclic shifts; for an
 * odd n also their mirror images, without which a pair follows in one direction only. */
void paired_round_order(int n, int round, int *order)
{
    if (n < 1)
        return;
    int period = n % 2 ? 2 * n : n;
    int r = (round % period + period) % period, shift = r % n;
    bool mirrored = r >= n;
    for (int pos = 0; pos < n; pos++) {
        int j = mirrored ? n - 1 - pos : pos;
        int first = j == 0 ? 0 : j % 2 ? (j + 1) / 2 : n - j / 2;
        order[pos] = (first + shift) % n;
    }
}
