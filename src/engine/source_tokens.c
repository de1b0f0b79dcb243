/* src/engine/source_tokens.c — the token hash (util/srcnorm.h) of recorded candidate
 * sources: what agent mode deduplicates submissions by (propose.c) and the audit checks
 * agent rows against (audit.c), so both read a source the same way. */
#include "run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifacts/srcstore.h"
#include "util/log.h"
#include "util/regfile.h"
#include "util/srcnorm.h"

/* A source is read only when it is a regular file of kernel-source size: a FIFO or
 * /dev/zero in srcs/ must not hang or exhaust the process. */
#define SOURCE_TOKENS_MAX (8u << 20)

int source_token_hash_file(const char *path, char out[BACKEND_HASH_MAX])
{
    size_t len = 0;
    char *src = regfile_read(path, SOURCE_TOKENS_MAX, &len);
    out[0] = '\0';
    if (!src)
        return -1;
    srcnorm_hash_hex(src, len, out);
    free(src);
    return 0;
}

/* A generated source kept only as its recipe (src/artifacts/srcstore.h): its regenerated
 * bytes, so an agent cannot resubmit an engine candidate whose whole file was dropped. */
static void source_token_hash_recipe(const char *dir, const char *rel, char out[BACKEND_HASH_MAX])
{
    char err[700];
    char *src = NULL;
    size_t len;
    if (srcstore_read(dir, rel, &src, &len, err, sizeof err))
        return;
    srcnorm_hash_hex(src, len, out);
    free(src);
}

char (*source_token_hashes(const char *dir, const struct result_log *log))[BACKEND_HASH_MAX]
{
    char (*h)[BACKEND_HASH_MAX] = xmalloc((log->n + 1) * sizeof *h);
    char path[ENGINE_PATH_MAX];
    for (size_t i = 0; i < log->n; i++) {
        h[i][0] = '\0';
        if (log->rows[i].kernel[0] && !path_fmt(path, "%s/%s", dir, log->rows[i].kernel) &&
            source_token_hash_file(path, h[i]) && access(path, F_OK))
            source_token_hash_recipe(dir, log->rows[i].kernel, h[i]);
    }
    return h;
}
