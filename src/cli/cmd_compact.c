/* src/cli/cmd_compact.c — `croqtuner compact`: generated sources of a tuning directory
 * kept as recipes (src/engine/compact.c, src/codegen/srcstore.h). */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/generator.h"
#include "commands.h"
#include "engine/engine.h"
#include "util/opts.h"
#include "util/atomicio.h"
#include "util/log.h"

static const char compact_usage[] =
    "usage: croqtuner compact [--tuning DIR] [--generator-tree ROOT ...] [--verbose]\n"
    "\n"
    "Keep the generated candidate sources of a tuning directory as recipes: for each\n"
    "srcs/<key>/iterNNN.cu that its recipe (iterNNN.gen.json: configuration, generator\n"
    "identity, hash) regenerates byte for byte, the whole file is removed; `croqtuner source`\n"
    "and the audit regenerate it on demand. The engine does this itself when a shape\n"
    "completes; this is for directories written before recipes existed, and for a shape\n"
    "stopped midway. A generated source without a recipe gets one from the first generator\n"
    "that reproduces it: this croqtuner's, then each --generator-tree, a source tree holding\n"
    "kernels/ and src/knobs/knobs.def as of the commit that wrote it (for example\n"
    "`git archive COMMIT kernels src/knobs | tar -x -C ROOT`); the generator's inputs are\n"
    "kept once in generators/<identity>.json. Whole sources stay for an agent's candidates,\n"
    "for the best and pending candidate of a shape still tuning, and for anything no\n"
    "generator reproduces. A shape a tuner holds is skipped (named). Run it again at will:\n"
    "it changes nothing the second time. Prints one summary of all shapes (sources, recipes,\n"
    "whole files and why); --verbose adds a line per shape and per file kept whole.\n"
    "\n"
    "Exit status: 0 done, 1 a file could not be read or written, 2 bad usage.\n";

int cmd_compact(int argc, char **argv)
{
    const char *dir = "tuning";
    struct generator gens[COMPACT_GENS_MAX];
    const char *trees[COMPACT_GENS_MAX] = {NULL};
    int ntrees = 0;
    size_t n = 1;
    bool verbose = false;
    char err[512];
    struct opt t[] = {
        {.name = "--tuning", .type = OPT_OUTDIR, .dst = &dir},
        {.name = "--generator-tree", .type = OPT_DIR, .dst = trees + 1, .max = COMPACT_GENS_MAX - 1,
         .count = &ntrees},
        {.name = "--verbose", .alias = "-v", .type = OPT_FLAG, .dst = &verbose},
    };
    struct opt_spec spec = {"compact", compact_usage, t, 3};
    int rc = opts_parse(&spec, argc, argv);
    if (rc)
        return rc == 1 ? 0 : 2;
    generator_current(&gens[0]);
    for (; (int)n <= ntrees && !rc; n++)
        if (generator_from_tree(trees[n], &gens[n], err, sizeof err)) {
            log_error("compact: --generator-tree %s: %s", trees[n], err);
            rc = 2;
            break;
        }
    if (!rc && !is_dir(dir)) {
        log_error("compact: no tuning directory '%s'", dir);
        rc = 1;
    }
    if (!rc) {
        printf("generator %s: this croqtuner's\n", gens[0].id);
        for (size_t g = 1; g < n; g++)
            printf("generator %s: %s\n", gens[g].id, trees[g]);
        int errors = engine_compact(dir, gens, n, verbose, stdout);
        rc = errors ? 1 : 0;
    }
    for (size_t g = 0; g < n; g++)
        generator_release(&gens[g]);
    return rc < 0 ? 0 : rc;
}
