/* src/codegen/embedded.c — lookup in the table cmake/embed.cmake generates. */
#include "embedded.h"

#include <string.h>

const struct croq_embedded_file *embedded_find(const char *name)
{
    for (const struct croq_embedded_file *f = croq_embedded_files; f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}
