/* src/profile/cache.c — profile results keyed by kernel signature, in
 * DIR/profile-cache.json: {"schema":1,"entries":{"<key>":<profile result>}}.
 *
 * Profiling costs ~30 replays of a launch; the engine profiles only the current best
 * and only again when the best changed, so a lookup by the best's key before each
 * PROFILE step saves a run on every iteration that discarded. Whole-file rewrite on
 * store (atomic): the file holds one entry per best kernel of one shape, a handful. */
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "profile_json.h"
#include "util/atomicio.h"

#define CACHE_SCHEMA 1

static void cache_path(const char *dir, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", dir, PROFILE_CACHE_FILE);
}

/* The cache object, a fresh empty one if the file does not exist, NULL with err if it
 * exists but cannot be used. */
static json_t *cache_load(const char *path, char *err, size_t errlen)
{
    json_error_t je;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return json_pack("{s:i, s:{}}", "schema", CACHE_SCHEMA, "entries");
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    json_t *j = json_loadf(f, 0, &je);
    fclose(f);
    if (!j) {
        snprintf(err, errlen, "'%s': line %d: %s", path, je.line, je.text);
        return NULL;
    }
    json_t *schema = json_object_get(j, "schema");
    if (!json_is_integer(schema) || json_integer_value(schema) != CACHE_SCHEMA ||
        !json_is_object(json_object_get(j, "entries"))) {
        snprintf(err, errlen, "'%s': not a schema %d profile cache", path, CACHE_SCHEMA);
        json_decref(j);
        return NULL;
    }
    return j;
}

int profile_cache_lookup(const char *dir, const char *key, struct profile_result *r, char *err,
                         size_t errlen)
{
    char path[4096];
    cache_path(dir, path, sizeof path);
    json_t *j = cache_load(path, err, errlen);
    if (!j)
        return -1;
    json_t *entry = json_object_get(json_object_get(j, "entries"), key);
    int rc = 0;
    if (entry) {
        char why[200];
        rc = profile_result_from_json(entry, r, why, sizeof why) ? -1 : 1;
        if (rc < 0)
            snprintf(err, errlen, "'%s': entry '%s': %s", path, key, why);
    }
    json_decref(j);
    return rc;
}

int profile_cache_store(const char *dir, const char *key, const struct profile_result *r,
                        char *err, size_t errlen)
{
    char path[4096];
    cache_path(dir, path, sizeof path);
    json_t *j = cache_load(path, err, errlen);
    if (!j)
        return -1;
    int rc = json_object_set_new(json_object_get(j, "entries"), key, profile_result_to_json(r));
    if (!rc)
        rc = mkdir_p(dir);
    if (!rc)
        rc = profile_json_write_atomic(path, j);
    if (rc)
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    json_decref(j);
    return rc ? -1 : 0;
}
