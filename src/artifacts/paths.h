/* src/artifacts/paths.h — paths inside a tuning directory and timestamps. */
#ifndef CROQ_ARTIFACTS_PATHS_H
#define CROQ_ARTIFACTS_PATHS_H

#define ENGINE_PATH_MAX 4096

/* ---- paths (paths.c) --------------------------------------------------------------- */

/* snprintf into out (ENGINE_PATH_MAX); -1 when it does not fit: a truncated path would
 * name another file. */
int path_fmt(char out[ENGINE_PATH_MAX], const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The published best kernel of a done shape, relative to the tuning directory:
 * "kernels/gemm_sp_<dtype>/<key>_best.cu" (written at SHAPE_COMPLETE, step_complete.c).
 * -1 when it does not fit. */
int path_published_best(char out[ENGINE_PATH_MAX], const char *dtype, const char *key);
#endif
