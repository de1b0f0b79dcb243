/* src/backend/backend.c — choosing a backend, and what every backend shares. */
#include "backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomicio.h"
#include "util/hash.h"

struct backend *sim_open(const struct backend_opts *o, char *err, size_t errlen);
struct backend *gpu_open(const struct backend_opts *o, char *err, size_t errlen);

struct backend *backend_open(const struct backend_opts *o, char *err, size_t errlen)
{
    if (o->name && !strcmp(o->name, "sim"))
        return sim_open(o, err, errlen);
    if (o->name && !strcmp(o->name, "gpu"))
        return gpu_open(o, err, errlen);
    snprintf(err, errlen, "unknown backend '%s' (gpu or sim)", o->name ? o->name : "");
    return NULL;
}

void backend_close(struct backend *b)
{
    if (b)
        b->release(b);
}

static const char *const status_names[] = {
    [CAND_OK] = "ok",           [CAND_COMPILE_ERROR] = "compile_error", [CAND_INCORRECT] = "incorrect",
    [CAND_CRASH] = "crash",     [CAND_TIMEOUT] = "timeout",             [CAND_UNUSABLE] = "unusable",
};

const char *cand_status_name(enum cand_status s)
{
    return (unsigned)s < sizeof status_names / sizeof *status_names ? status_names[s] : "?";
}

int cand_status_parse(const char *s)
{
    for (size_t i = 0; s && i < sizeof status_names / sizeof *status_names; i++)
        if (!strcmp(s, status_names[i]))
            return (int)i;
    return -1;
}

double backend_peak_tflops(int dtype, double sm_clock_mhz)
{
    double at_boost = dtype == CROQ_DTYPE_E4M3 ? 3958.0 : 1979.0;
    return at_boost * sm_clock_mhz / 1980.0;
}

int backend_hash_file(const char *path, char out[BACKEND_HASH_MAX])
{
    size_t len;
    char *data = read_file(path, &len);
    if (!data)
        return -1;
    hash_hex(hash_fnv1a64(HASH_FNV1A64_INIT, data, len), out);
    free(data);
    return 0;
}
