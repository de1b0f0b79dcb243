/* src/artifacts/ideas.h — idea-log.jsonl (docs/artifacts.md): one JSON line per idea. */
#ifndef CROQ_ARTIFACTS_IDEAS_H
#define CROQ_ARTIFACTS_IDEAS_H
#include <stdbool.h>
#include <stddef.h>

#include "artifacts/names.h"
#include "backend/backend.h"
#include "proposer/proposer.h"

/* ---- idea-log.jsonl (ideas.c) ---------------------------------------------------- */

struct idea_record {
    int iter;
    char idea[IDEA_TEXT_MAX];
    char category[16];
    char bottleneck[32];
    char justification[256];
    char config[CROQ_SIG_MAX];
    char source_hash[BACKEND_HASH_MAX];
    char origin[8];        /* "engine" / "agent" */
    enum decision decision;
    double tflops, best_tflops; /* NAN when not measured / no best */
    char timestamp[32];
    char backend[8];
};
char *idea_format(const struct idea_record *r); /* one JSON line with '\n' */
int idea_parse(const char *line, struct idea_record *r, char *err, size_t errlen);
/* Lenient (the report's): the iteration, idea text and justification of one line, also
 * under the names early logs used ("text"; "justification_metric", "metric"); nothing
 * else is checked. idea and justification are malloc'd, NULL when absent. 0; -1 not
 * JSON (err: the parser's message); -2 not an object with an integer "iter". */
struct idea_brief {
    int iter;
    char *idea, *justification;
};
int idea_parse_lenient(const char *line, struct idea_brief *out, char *err, size_t errlen);
/* Read every record; torn tail apart like result_log_read. */
struct idea_log {
    struct idea_record *recs;
    size_t n;
    char *torn;
    size_t complete_len;
};
int idea_log_read(const char *path, struct idea_log *out, char *err, size_t errlen);
void idea_log_release(struct idea_log *l);

/* Make text safe for one line of an artifact: valid UTF-8 (else -1 with err), at most
 * IDEA_TEXT_MAX-1 bytes. Tabs, newlines, quotes stay; the writers escape them. */
int idea_text_check(const char *s, size_t max, char *err, size_t errlen);
/* Replace every byte that is not part of valid UTF-8 with '?' (text from tools, e.g. a
 * compiler message, must never make a JSON line unwritable). */
void idea_text_sanitize(char *s);
#endif
