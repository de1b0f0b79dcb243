/* src/measure/spawn_runner.h — start croq-runner with the options of a measurement and
 * classify how it ended (internal to src/measure; the mapping is in measure.h). */
#ifndef CROQ_MEASURE_SPAWN_RUNNER_H
#define CROQ_MEASURE_SPAWN_RUNNER_H

#include "measure.h"

/* Run `croq-runner <command> ...` built from o. Fills r's process facts, raw_json,
 * stderr_text and command. When the process left no usable output, r->status and
 * r->error say what happened and *parse is false; otherwise *parse is true and the
 * caller parses r->raw_json. 0, or -1 on a local failure (errno set). */
int spawn_runner(const char *command, const struct measure_opts *o, double timeout_s,
                 struct measure_result *r, bool *parse);

/* Whether a parsed status should be replaced by what the process facts say (a
 * parse failure of a process that also exited non-zero is a crash, not bad output). */
void spawn_runner_reconcile(struct measure_result *r);

#endif
