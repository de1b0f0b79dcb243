/* src/cli/cmd_status.c — `croqtuner status`: where every shape stands, and what a
 * running tuner is doing right now. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "engine/engine.h"
#include "scale/scale.h"
#include "util/opts.h"
#include "util/atomicio.h"
#include "util/log.h"

static const char status_usage[] =
    "usage: croqtuner status [--json] [--tuning DIR]\n"
    "\n"
    "Every shape of the tuning directory (state.json): status, mode, phase,\n"
    "iteration/budget, baseline and best TFLOPS, why it stopped (for an active shape: its\n"
    "wait for a busy GPU, or the busy stop that ended its last run). For a shape a process\n"
    "is tuning now, a line 'now:' with its iteration, best, last decision, ETA, and a wait\n"
    "for a busy GPU. --json prints the same as one JSON object ('live' holds the\n"
    "progress of a running shape, null otherwise).\n"
    "\n"
    "Workers of a parallel sweep (docs/scale.md) are listed after the shapes: pid, host,\n"
    "GPU, the shape and its iteration; and claims whose process is gone (stale: the next\n"
    "worker takes them over). A recorded sweep that is not done: how many shapes of its\n"
    "plan have not started yet and how many are not finished (e.g. after it was killed);\n"
    "a sweep run with --waves N plans its waves 1..N only, and once they are done the\n"
    "line says so and how many shapes the later waves still hold ('sweep_plan' in --json:\n"
    "last_wave, waves_in_plan, pending_after_last_wave).\n"
    "--json: 'workers', 'stale_claims' and 'sweep_plan'.\n"
    "\n"
    "A shape whose state.json entry is refused (a number out of range, an unknown name:\n"
    "docs/artifacts.md) is named with the reason on stderr ('refused' in --json); the\n"
    "other shapes are shown as always.\n"
    "\n"
    "Exit status: 0, 1 the state or an entry cannot be read (the reason is printed), 2 bad\n"
    "usage.\n";

/* The engine's JSON with the workers added (src/scale): the engine writes one object,
 * read back here and printed with 'workers' and 'stale_claims' merged in. */
static int status_json(const char *dir)
{
    char *text = NULL, err[600];
    size_t len = 0;
    json_error_t je;
    FILE *mem = open_memstream(&text, &len);
    int rc = mem ? engine_status(dir, true, mem) : ENGINE_FAILED;
    if (mem)
        fclose(mem);
    /* printed even when an entry is refused (rc 1): the other shapes are shown as always */
    json_t *o = text && *text ? json_loads(text, 0, &je) : NULL;
    json_t *w = o ? scale_status_json(dir, err, sizeof err) : NULL;
    if (o && !w)
        log_error("%s", err);
    if (w) {
        json_object_update(o, w);
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
        printf("%s\n", s ? s : "{}");
        free(s);
    }
    json_decref(w);
    json_decref(o);
    free(text);
    return w && !rc ? 0 : 1;
}

int cmd_status(int argc, char **argv)
{
    const char *dir = "tuning";
    bool json = false;
    struct opt t[] = {
        {.name = "--json", .type = OPT_FLAG, .dst = &json},
        {.name = "--tuning", .type = OPT_OUTDIR, .dst = &dir},
    };
    struct opt_spec spec = {"status", status_usage, t, 2};
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    if (!is_dir(dir)) { /* a mistyped path is an error, not "no shapes" */
        log_error("status: no tuning directory '%s'", dir);
        return 1;
    }
    if (json)
        return status_json(dir);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    rc = mem ? engine_status(dir, false, mem) : ENGINE_FAILED;
    if (mem)
        fclose(mem);
    if (text)
        fputs(text, stdout);
    /* the table was printed (rc 1 with a table: an entry is refused, the others shown) */
    if (len && scale_status_print(dir, stdout)) /* the workers of a parallel sweep */
        rc = ENGINE_FAILED;
    free(text);
    return engine_exit_code(rc);
}
