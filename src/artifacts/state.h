/* src/artifacts/state.h — state.json (docs/artifacts.md): every shape's entry, shared by every
 * croqtuner process on a tuning directory (read-modify-write under a flock), and
 * RESUME.md rendered from it. */
#ifndef CROQ_ARTIFACTS_STATE_H
#define CROQ_ARTIFACTS_STATE_H
#include <stddef.h>

#include <jansson.h>

#include "artifacts/checkpoint.h"

/* ---- state.json (state.c) ------------------------------------------------------- */

/* Read-modify-write of state.json under an exclusive flock on <dir>/.lock, then
 * RESUME.md. fn edits root in place; returning -1 aborts without writing; returning 1
 * (nothing changed) writes nothing and state_update returns 1. */
typedef int (*state_edit_fn)(json_t *root, void *arg, char *err, size_t errlen);
int state_update(const char *dir, state_edit_fn fn, void *arg, char *err, size_t errlen);
/* Validated load; a missing file gives an empty state. NULL with err. */
json_t *state_load(const char *dir, char *err, size_t errlen);
/* Validate a parsed state (schema, every key strict, fields typed). */
int state_validate(json_t *root, char *err, size_t errlen);
/* The shape's entry from its checkpoint (status from its phase). */
json_t *state_entry(const struct checkpoint *c, const char *status);
/* Put the checkpoint's entry into state.json. */
int state_put(const char *dir, const struct checkpoint *c, const char *status, char *err, size_t errlen);
/* The keys of a JSON object in strcmp order (NULL-terminated; free() the array, not the
 * keys, which belong to obj): state.json is walked in this order everywhere, so no result
 * depends on the order of a file. */
const char **json_sorted_keys(json_t *obj, size_t *n);
/* Render RESUME.md from a state. */
char *resume_md_render(json_t *state);
#endif
