/* src/cli/cmd_source.c — `croqtuner source`: one candidate's source, whole or
 * regenerated from its recipe (src/artifacts/srcstore.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts/checkpoint.h"
#include "artifacts/srcstore.h"
#include "commands.h"
#include "engine/engine.h"
#include "util/opts.h"
#include "util/atomicio.h"
#include "util/log.h"

static const char source_usage[] =
    "usage: croqtuner source [--tuning DIR] --key KEY --iter N [--attempt A] [--out FILE]\n"
    "\n"
    "The exact bytes of iteration N's kernel source of shape KEY (srcs/KEY/iterNNN.cu;\n"
    "--attempt A: the A-th failed compile of that iteration, iterNNN-attemptA.cu): the file\n"
    "when it is kept whole, else regenerated from its recipe with the generator that wrote\n"
    "it (this croqtuner's, or the snapshot in generators/) and checked against the recorded\n"
    "hash. Printed on stdout, or written to FILE atomically.\n"
    "\n"
    "Exit status: 0 written, 1 it cannot be read or regenerated, or DIR or iteration N does\n"
    "not exist (the reason is printed: for N, the iterations the shape ran), 2 bad usage\n"
    "(KEY names no shape of DIR among them).\n";

int cmd_source(int argc, char **argv)
{
    const char *dir = "tuning", *key = NULL, *outp = NULL;
    long iter = -1, attempt = 0;
    struct opt t[] = {
        {.name = "--tuning", .type = OPT_OUTDIR, .dst = &dir},
        {.name = "--key", .type = OPT_CUSTOM, .dst = &key, .check = cli_key_value},
        {.name = "--out", .type = OPT_OUTFILE, .dst = &outp},
        {.name = "--iter", .type = OPT_LONG, .dst = &iter, .lo = 0, .hi = 999},
        {.name = "--attempt", .type = OPT_LONG, .dst = &attempt, .lo = 1, .hi = 100000},
    };
    struct opt_spec spec = {"source", source_usage, t, 5};
    int prc = opts_parse(&spec, argc, argv);
    if (prc)
        return prc == 1 ? 0 : 2;
    char err[600], rel[SRCSTORE_REL_MAX];
    if (cli_out_outside_tuning("source", "--out", outp, &dir, 1))
        return 2;
    if (!key || iter < 0) {
        log_error("source: --key and --iter are required (see 'croqtuner source --help')");
        return 2;
    }
    if (attempt)
        snprintf(rel, sizeof rel, "srcs/%s/iter%03ld-attempt%ld.cu", key, iter, attempt);
    else
        snprintf(rel, sizeof rel, "srcs/%s/iter%03ld.cu", key, iter);
    if (!is_dir(dir)) {
        log_error("source: no tuning directory '%s'", dir);
        return 1;
    }
    if (cli_key_held("source", dir, key))
        return 2;
    char *src;
    size_t len;
    if (srcstore_read(dir, rel, &src, &len, err, sizeof err)) {
        /* Say what does not exist before what cannot be read: a shape the directory never
         * held, an iteration past the last one committed. Asked only after the read failed,
         * since a candidate being measured has a source before its iteration is committed. */
        struct checkpoint ck;
        char ckerr[256];
        int lrc = checkpoint_load(dir, key, &ck, ckerr, sizeof ckerr);
        if (lrc > 0)
            log_error("source: shape %s has no checkpoint in '%s'", key, dir);
        else if (!lrc && iter > ck.iteration && ck.iteration < 0)
            log_error("source: shape %s has no iteration %ld: it has not measured its baseline yet", key, iter);
        else if (!lrc && iter > ck.iteration)
            log_error("source: shape %s has no iteration %ld: it ran iterations 0..%d", key, iter, ck.iteration);
        else
            log_error("source: %s", err);
        checkpoint_release(&ck);
        return 1;
    }
    int rc = 0;
    if (outp ? atomic_write_out(outp, src, len) != 0 : fwrite(src, 1, len, stdout) != len || fflush(stdout)) {
        log_error("source: cannot write %s: %s", outp ? outp : "stdout", strerror(errno));
        rc = 1;
    }
    free(src);
    return rc;
}
