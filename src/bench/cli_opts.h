/* src/bench/cli_opts.h — the measurement options `croqtuner bench` and `compare`
 * share, parsed into a struct measure_opts:
 *   --seed S  --warmup N (0..100000, default 0)  --iters N (1..100000, default 500)
 *   --trials N (1..100, default 10): the measurement worker's defaults  --device N  --reference auto|cpu|cublas
 *   --l2 warm|cold (default warm: o->cold_l2)
 *   --runner PATH  --timeout SECONDS (runner time limit; default from the shape)
 * Errors are printed ("croqtuner: option '--iters': ..."), like src/util/args.h.
 */
#ifndef CROQ_MEASURE_CLI_OPTS_H
#define CROQ_MEASURE_CLI_OPTS_H

#include "measure/measure.h"

/* If argv[*i] is one of the options above, store it in o and move *i past its value:
 * 1. Not one of them: 0. Bad value: -1 (message printed). */
int cli_measure_opt(int argc, char **argv, int *i, struct measure_opts *o);

/* The help lines for these options. */
extern const char cli_measure_help[];

#endif
