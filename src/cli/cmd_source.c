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
#include "util/args.h"
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
    "Exit status: 0 written, 1 it cannot be read or regenerated, or DIR, KEY or iteration N\n"
    "does not exist (the reason is printed: for N, the iterations the shape ran), 2 bad usage.\n";

int cmd_source(int argc, char **argv)
{
    const char *dir = "tuning", *key = NULL, *outp = NULL, *v;
    long iter = -1, attempt = 0;
    for (int i = 1; i < argc; i++) {
        int r;
        if (args_flag(argv, i, "--help") || args_flag(argv, i, "-h")) {
            fputs(source_usage, stdout);
            return 0;
        } else if ((r = args_value(argc, argv, &i, "--tuning", &v)) > 0) {
            dir = v;
        } else if (!r && (r = args_value(argc, argv, &i, "--key", &v)) > 0) {
            key = v;
        } else if (!r && (r = args_value(argc, argv, &i, "--out", &v)) > 0) {
            outp = v;
        } else if (!r && (r = args_value(argc, argv, &i, "--iter", &v)) > 0) {
            if (args_long("--iter", v, &iter) || iter < 0 || iter > 999) {
                log_error("source: --iter: '%s' is not an iteration (0..999)", v);
                return 2;
            }
        } else if (!r && (r = args_value(argc, argv, &i, "--attempt", &v)) > 0) {
            if (args_long("--attempt", v, &attempt) || attempt < 1 || attempt > 100000) {
                log_error("source: --attempt: '%s' is not an attempt number (1, 2, ...)", v);
                return 2;
            }
        } else {
            if (r == 0)
                log_error("source: unknown option '%s' (see 'croqtuner source --help')", argv[i]);
            return 2;
        }
    }
    struct shape_key sk;
    char err[600], rel[SRCSTORE_REL_MAX];
    if (!key || iter < 0) {
        log_error("source: --key and --iter are required (see 'croqtuner source --help')");
        return 2;
    }
    if (key_parse(key, &sk, err, sizeof err)) {
        log_error("source: --key: %s", err);
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
            log_error("source: no shape %s in '%s' (keys come from 'croqtuner status')", key, dir);
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
    if (outp ? atomic_write(outp, src, len) != 0 : fwrite(src, 1, len, stdout) != len || fflush(stdout)) {
        log_error("source: cannot write %s: %s", outp ? outp : "stdout", strerror(errno));
        rc = 1;
    }
    free(src);
    return rc;
}
