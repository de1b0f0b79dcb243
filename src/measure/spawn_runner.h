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

struct spawn_result;
/* The outcome from the process facts alone, when they decide it: could not start
 * (NO_RUNNER), timed out (TIMEOUT), killed by a signal (CRASH, with the last stderr
 * line), the dynamic loader's exit 127 (NO_GPU). true with r->status and r->error set;
 * false when the output must be parsed. r->command must be set (named in NO_RUNNER). */
bool spawn_runner_classify(const struct spawn_result *s, struct measure_result *r);

/* Whether a parsed status should be replaced by what the process facts say (a
 * parse failure of a process that also exited non-zero is a crash, not bad output). */
void spawn_runner_reconcile(struct measure_result *r);

#endif
