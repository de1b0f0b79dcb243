/* runner/output.h — the one JSON object a runner command prints on stdout
 * (docs/runner-protocol.md): schema, command, status first, then the command's
 * fields; diagnostics go to stderr. Reals are printed with 7 significant digits. */
#ifndef CROQ_RUNNER_OUTPUT_H
#define CROQ_RUNNER_OUTPUT_H

#include "runner.h"

#define RUNNER_SCHEMA 1

/* {"schema": 1, "command": cmd, "status": "pending"} */
json_t *output_new(const char *cmd);
/* Set status (and "error" when not ok), print one line, free out; returns the exit
 * code for status. */
int output_emit(json_t *out, enum runner_status status, const char *error);

/* The top-level "dtype", "m", "n", "k", "seed" fields. */
void output_problem(json_t *out, int dtype, const struct croq_shape *s, uint64_t seed);
/* out[key] = the loaded module's identity (kl_module.module_id, kernels/module_id.h): 16
 * lowercase hex digits, or "" when the module carries none. */
void output_module_id(json_t *out, const char *key, const struct kl_module *m);

/* The commands (cmd_run.c, cmd_compare.c, cmd_health.c); argv[0] = the command. */
int runner_cmd_run(int argc, char **argv);
int runner_cmd_compare(int argc, char **argv);
int runner_cmd_health(int argc, char **argv);
int runner_cmd_suite(int argc, char **argv);
int runner_cmd_serve(int argc, char **argv);

#endif
