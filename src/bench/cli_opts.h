/* src/bench/cli_opts.h — the measurement options `croqtuner bench` and `compare`
 * share, as rows of their option tables (src/util/opts.h), stored into a struct
 * measure_opts:
 *   --seed S  --warmup N (0..100000, default 0)  --iters N (1..100000, default 500)
 *   --trials N (1..100, default 10): the measurement worker's defaults  --device N (0..63)
 *   --reference auto|cpu|cublas  --l2 warm|cold (default warm: o->cold_l2)
 *   --runner PATH  --timeout SECONDS (runner time limit; default from the shape)
 * Errors are printed by opts_parse ("croqtuner: option '--iters': ...").
 */
#ifndef CROQ_MEASURE_CLI_OPTS_H
#define CROQ_MEASURE_CLI_OPTS_H
#include <stddef.h>

#include "measure/measure.h"

struct opt;

#define CLI_MEASURE_OPTS_N 9
/* Writes the CLI_MEASURE_OPTS_N rows of the options above, storing into o, to t. */
size_t cli_measure_table(struct measure_opts *o, struct opt *t);

/* The help lines for these options. */
#define CLI_MEASURE_HELP                                                                                         \
    "  --seed S          operand seed (default 1)\n"                                                              \
    "  --warmup N        at least N launches in the warm-up, which lasts until the SM clock\n"                   \
    "                    and the power settle (default 0: settling alone, as the tuner)\n"                       \
    "  --iters N         at most N back-to-back launches per timed trial of >= 20 ms (default 500)\n"            \
    "  --trials N        timed trials; the median is reported (default 10, as the tuner)\n"                      \
    "  --reference R     auto (default), cpu (f64) or cublas (f32 accumulate)\n"                                 \
    "  --l2 warm|cold    warm (default, as the tuner): every launch reads the same operands, which\n"            \
    "                    stay in the L2 as far as they fit; cold: the timed launches rotate over\n"              \
    "                    copies of the operands that together move more than twice the L2\n"                    \
    "  --device N        CUDA device ordinal (default 0)\n"                                                      \
    "  --runner PATH     croq-runner to use (default $CROQ_RUNNER, else next to croqtuner)\n"                    \
    "  --timeout S       time limit of one runner process (default: 30 s + a bound from the shape)\n"

#endif
