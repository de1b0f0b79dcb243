/* src/bench/kernel.c — bench's kernel: configuration, short name, work dir, build. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "kernel.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "knobs/knobs_json.h"
#include "util/atomicio.h"

int kernel_config(struct croq_config *cfg, int dtype, const char *config_path, bool from_default,
                  const char *const *sets, int nsets, char *err, size_t errlen)
{
    if (config_path)
        return knobs_from_args(cfg, croq_dtype_name(dtype), config_path, sets, nsets, err, errlen);
    if (from_default)
        knobs_default(cfg, dtype);
    else
        knobs_baseline(cfg, dtype);
    for (int i = 0; i < nsets; i++)
        if (knobs_set_list(cfg, sets[i], err, errlen))
            return -1;
    return 0;
}

int kernel_workdir_open(struct kernel_workdir *w, const char *dir, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    memset(w, 0, sizeof *w);
    if (dir) {
        snprintf(w->path, sizeof w->path, "%s", dir);
        if (mkdir_p(dir)) {
            snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
            return -1;
        }
        return 0;
    }
    snprintf(w->path, sizeof w->path, "%.4000s/croqtuner-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(w->path)) {
        snprintf(err, errlen, "cannot create a work directory '%s': %s", w->path, strerror(errno));
        return -1;
    }
    w->temporary = true;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0; /* keep going: remove what can be removed */
}

void kernel_workdir_release(struct kernel_workdir *w)
{
    if (w->temporary && w->path[0])
        nftw(w->path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    w->temporary = false;
}

int kernel_build(const struct croq_config *cfg, const char *dir, const char *name, int fault,
                 struct build_result *r)
{
    return kernel_build_noted(cfg, dir, name, "croqtuner bench", fault, r);
}

int kernel_build_noted(const struct croq_config *cfg, const char *dir, const char *name, const char *note, int fault,
                       struct build_result *r)
{
    char src[4096], err[1024];
    struct codegen_opts co = {.inject_fault = fault, .note = note, .err = err, .errlen = sizeof err};
    struct build_opts bo = {.out_dir = dir};
    memset(r, 0, sizeof *r);
    snprintf(src, sizeof src, "%.3900s/%.100s.cu", dir, name);
    if (codegen_write(cfg, &co, src)) {
        snprintf(r->error, sizeof r->error, "code generation: %s", err);
        return -1;
    }
    return build_compile(src, &bo, r);
}
