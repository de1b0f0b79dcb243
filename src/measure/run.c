/* src/measure/run.c — measure_run: one `croq-runner run` and its parsed result. */
#include "measure.h"

#include <stdlib.h>
#include <string.h>

#include "parse_common.h"
#include "spawn_runner.h"

static void result_reset(struct measure_result *r)
{
    memset(r, 0, sizeof *r);
    measure_result_clear_fields(r);
    r->exit_code = -1;
}

int measure_run(const struct measure_opts *o, struct measure_result *r)
{
    bool parse;
    result_reset(r);
    double limit = o->timeout_s > 0 ? o->timeout_s : measure_default_timeout(o, false);
    if (spawn_runner("run", o, limit, r, &parse))
        return -1;
    if (parse) {
        measure_parse(r->raw_json, r);
        spawn_runner_reconcile(r);
    }
    return 0;
}

void measure_result_release(struct measure_result *r)
{
    free(r->raw_json);
    free(r->stderr_text);
    r->raw_json = r->stderr_text = NULL;
}
