/* src/util/regfile_json.c — regfile_load_json (see regfile.h): apart from regfile.c so that
 * the croqsparse library, which links regfile.c for its atomic writes, needs no jansson. */
#include "regfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *regfile_load_json(const char *path, size_t flags, char *err, size_t errlen)
{
    json_error_t je;
    char *text = regfile_read(path, REGFILE_MAX, NULL);
    if (!text) {
        int saved = errno;
        snprintf(err, errlen, "cannot read '%s': %s", path, regfile_strerror(saved));
        errno = saved;
        return NULL;
    }
    json_t *j = json_loads(text, flags, &je);
    free(text);
    if (!j) {
        snprintf(err, errlen, "cannot read '%s': %s at line %d", path, je.text, je.line);
        errno = EINVAL;
    }
    return j;
}

json_t *regfile_load_json_je(const char *path, size_t flags, json_error_t *je)
{
    char *text = regfile_read(path, REGFILE_MAX, NULL);
    if (!text) {
        int saved = errno;
        memset(je, 0, sizeof *je);
        je->line = je->column = je->position = -1;
        snprintf(je->text, sizeof je->text, "%s", regfile_strerror(saved));
        snprintf(je->source, sizeof je->source, "%s", path);
        errno = saved;
        return NULL;
    }
    json_t *j = json_loads(text, flags, je);
    free(text);
    if (!j)
        errno = EINVAL;
    return j;
}
