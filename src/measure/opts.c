/* src/measure/opts.c — defaults, the runner's location and the default time limit. */
#include "measure.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void measure_opts_default(struct measure_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dtype = -1;
    o->seed = 1;
    /* the measurement worker's defaults (docs/runner-protocol.md, "serve"), so that bench,
     * compare and tune time a kernel alike: a warm-up until clock and power settle with no
     * launch minimum, then trials of at least 20 ms and at most 500 launches, 10 of them */
    o->warmup = 0;
    o->iters = 500;
    o->trials = 10;
}

double measure_default_timeout(const struct measure_opts *o, bool compare)
{
    double m = (double)o->shape.m, n = (double)o->shape.n, k = (double)o->shape.k;
    double launches = o->no_time ? 1 : (double)o->warmup + (double)o->iters * o->trials;
    double gpu_s = 2.0 * m * n * k * (launches + 3) / 100e12;
    double host_s = (m * k + n * k + 2 * m * n) / 50e6;
    double variable = 4 * (gpu_s + host_s);
    return 30.0 + (compare ? 5 * variable : variable);
}

static bool is_executable(const char *path) { return access(path, X_OK) == 0; }

void measure_runner_path(const char *override, char *out, size_t len)
{
    const char *env = getenv("CROQ_RUNNER");
    char exe[PATH_MAX];
    if (override && *override) {
        snprintf(out, len, "%s", override);
        return;
    }
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return;
    }
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            if ((size_t)snprintf(out, len, "%s/%s", exe, CROQ_RUNNER_NAME) < len && is_executable(out))
                return;
        }
    }
    /* spawn looks a name without '/' up in PATH. */
    snprintf(out, len, "%s", CROQ_RUNNER_NAME);
}
