/* src/codegen/embedded.h — kernel source files compiled into the binary
 * (cmake/embed.cmake). Names are relative to kernels/ ("abi.h", "ptx/wgmma.cuh",
 * "parts/mainloop.cuh", "knobs.def"). The table ends with a {NULL, NULL, 0} row. */
#ifndef CROQ_CODEGEN_EMBEDDED_H
#define CROQ_CODEGEN_EMBEDDED_H
#include <stddef.h>

struct croq_embedded_file {
    const char *name;
    const char *text; /* NUL-terminated */
    size_t size;      /* bytes, without the NUL */
};

extern const struct croq_embedded_file croq_embedded_files[];

/* The file called name, or NULL. */
const struct croq_embedded_file *embedded_find(const char *name);
#endif
