/* src/bench/shapeset.h — named sets of GEMM shapes for `croqtuner bench`.
 *
 *   typical    the 14 "typical_shapes_for_scratch" of the dtype in shapes.json
 *   reference  4096x8192x8192 (shapes.json "reference_shape"; fixed here so it needs
 *              no file)
 *   odd        M and N off the 128/256 tile grid, N still a multiple of 8 (the C row
 *              stride rule): 1000x1000x1024, 3000x2056x4096, 777x1032x512
 *   LIST       comma-separated MxNxK ("512x512x1024,1024x256x512")
 *
 * "typical" reads shapes.json through src/shapes (found as shapes_find_file says).
 */
#ifndef CROQ_BENCH_SHAPESET_H
#define CROQ_BENCH_SHAPESET_H

#include <stddef.h>

#include "knobs/knobs.h"

#define SHAPESET_MAX 128

struct shape_list {
    int n;
    struct croq_shape s[SHAPESET_MAX];
};

/* Append the shapes of spec (a set name or a LIST) for dtype to out (duplicates are
 * skipped). 0, or -1 with the reason in err: unknown/malformed entry (quoted), list
 * full, shapes.json missing or unreadable (with the places tried). Shapes are only
 * parsed here; validate them with shape_validate. */
int shapeset_add(struct shape_list *out, const char *spec, int dtype, char *err, size_t errlen);
/* Append one shape unless already present. 0 or -1 (list full). */
int shapeset_push(struct shape_list *out, const struct croq_shape *s);

#endif
