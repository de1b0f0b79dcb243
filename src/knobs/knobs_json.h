/* src/knobs/knobs_json.h — configurations as JSON objects and files, and the one place
 * the CLI's --dtype / --config FILE / --set k=v options become a struct croq_config.
 *
 * Form: {"dtype": "f16", "kernel": 1, "tile_m": 128, ...}: "dtype" is "f16" or "e4m3",
 * every other key is a knob name (src/knobs/knobs.def) with an integer value from that
 * knob's list. Knobs left out take the dtype's default (knobs_default). Unknown keys,
 * non-integer values (true, 128.0, "128") and values outside a knob's list are errors.
 * This is a syntax check only: knobs_validate still decides whether the combination works.
 */
#ifndef CROQ_KNOBS_JSON_H
#define CROQ_KNOBS_JSON_H
#include <stddef.h>

#include <jansson.h>

#include "knobs.h"

/* Every knob in table order, dtype first. New reference. */
json_t *knobs_to_json(const struct croq_config *cfg);

/* 0, or -1 with the reason in err (the key named). cfg is unspecified on error. */
int knobs_from_json(struct croq_config *cfg, const json_t *obj, char *err, size_t errlen);

/* Read / write a config file (the write is atomic). 0 or -1 with the reason in err,
 * which names the file. knobs_load takes every file the tool writes that holds one
 * configuration: a configuration object, a checkpoint (checkpoints/<key>.json: its best
 * configuration), the output of 'knobs --check --json' (its "config"), or a text file
 * whose first line is a signature ("dtype=f16,kernel=1,..."). A status file (several
 * shapes) is refused with the reason. */
int knobs_load(const char *path, struct croq_config *cfg, char *err, size_t errlen);
int knobs_save(const char *path, const struct croq_config *cfg, char *err, size_t errlen);

/* Build a config from the CLI's pieces, in this order: the defaults of the dtype, the
 * config file (if any), then each "name=value" in sets (an entry may hold several,
 * separated by blanks or commas: "kernel=0 tile_m=64", or a whole signature). dtype_name
 * may be NULL when the file or a signature in sets names the dtype; when both are given
 * they must agree. 0 or -1 with err. */
int knobs_from_args(struct croq_config *cfg, const char *dtype_name, const char *config_path,
                    const char *const *sets, int nsets, char *err, size_t errlen);
#endif
