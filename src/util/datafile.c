/* src/util/datafile.c — where shared/data files are (datafile.h). */
#include "datafile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATAFILE_CANDIDATES 8

/* The source tree: this file is <root>/src/util/datafile.c (CMake compiles it by
 * absolute path, so __FILE__ names it). "" when __FILE__ is relative. */
static void source_root(char *out, size_t len)
{
    const char *tail = "/src/util/datafile.c";
    size_t n = strlen(__FILE__), t = strlen(tail);
    out[0] = '\0';
    if (__FILE__[0] == '/' && n > t && !strcmp(__FILE__ + n - t, tail) && n - t < len)
        snprintf(out, len, "%.*s", (int)(n - t), __FILE__);
}

/* Two directories above the running binary: the checkout of build/bin/croqtuner. */
static void binary_root(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    out[0] = '\0';
    if (n <= 0)
        return;
    exe[n] = '\0';
    for (int up = 0; up < 3; up++) { /* the file, bin/, build/ */
        char *slash = strrchr(exe, '/');
        if (!slash || slash == exe)
            return;
        *slash = '\0';
    }
    snprintf(out, len, "%s", exe);
}

int datafile_find(const char *name, const char *env, char *path, size_t len, char *err, size_t errlen)
{
    char cand[DATAFILE_CANDIDATES][PATH_MAX], roots[3][PATH_MAX];
    const char *v = env ? getenv(env) : NULL, *src = getenv("CROQ_SOURCE_DIR");
    int n = 0;
    if (v && *v) {
        if (access(v, R_OK) == 0) {
            snprintf(path, len, "%s", v);
            return 0;
        }
        snprintf(err, errlen, "%s='%s' is not a readable file", env, v);
        return -1;
    }
    /* the binary's own checkout before the tree it was compiled in: a copied binary
     * belongs with the data copied beside it */
    snprintf(roots[0], PATH_MAX, "%.4000s", src && *src ? src : "");
    binary_root(roots[1], PATH_MAX);
    source_root(roots[2], PATH_MAX);
    for (int r = 0; r < 3; r++) {
        if (!roots[r][0] || (r == 2 && !strcmp(roots[2], roots[1])))
            continue;
        snprintf(cand[n++], PATH_MAX, "%.3800s/../shared/data/%.200s", roots[r], name);
        snprintf(cand[n++], PATH_MAX, "%.3800s/shared/data/%.200s", roots[r], name);
    }
    snprintf(cand[n++], PATH_MAX, "shared/data/%.200s", name);
    snprintf(cand[n++], PATH_MAX, "../shared/data/%.200s", name);
    for (int i = 0; i < n; i++)
        if (access(cand[i], R_OK) == 0) {
            snprintf(path, len, "%s", cand[i]);
            return 0;
        }
    size_t w = (size_t)snprintf(err, errlen, "cannot find %s%s%s%s; tried", name, env ? " (set " : "",
                                env ? env : "", env ? ")" : "");
    for (int i = 0; i < n && w < errlen; i++)
        w += (size_t)snprintf(err + w, errlen - w, " '%s'", cand[i]);
    return -1;
}
