/* src/util/jsonget.h — the one set of typed reads of JSON members (jansson underneath),
 * used by every reader of a JSON format of ours or of the runner: the artifacts
 * (checkpoints, the idea log, claims in state.json), the runner's replies (src/measure)
 * and the build cache's records (src/build).
 *
 * A struct jget collects the first problem as one message,
 *   "<ctx>'<pfx>.<key>' <what>"   e.g. "runner output: 'timing.median_ms' is not a number",
 * so a reader is a list of field reads followed by one check of g.failed. Later reads
 * still run after a failure (their results are then of no use) and never overwrite the
 * first message.
 *
 * Each getter takes the object o (anything not an object reads as one without members),
 * pfx, the path of o for messages ("" or NULL at the top), the key, and `required`:
 *   - absent or JSON null: *out is left unchanged; an error ("missing") only when required;
 *   - present with the wrong type: always an error, *out unchanged;
 *   - present and of the right type: *out set, true returned.
 * The _or_null variants want the member present but take null as "no value" (NaN for a
 * number, NULL for an object): the artifacts write null for an absent measurement.
 * Numbers are any JSON number or the strings "nan", "inf", "-inf" (JSON has no such
 * numbers; the runner writes them as text); jget_finite_or_null takes only a finite JSON
 * number or null (our own artifacts write null for "no value", so a "nan" or "inf" there
 * is an edit, not a measurement). jget_str refuses a string that does not fit
 * in len (with its NUL); jget_text cuts it to fit (free text: messages, names).
 *
 * Not thread-safe per struct jget; separate structs may be used from any thread.
 */
#ifndef CROQ_UTIL_JSONGET_H
#define CROQ_UTIL_JSONGET_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct jget {
    const char *ctx; /* message prefix, e.g. "runner output: " or "member "; never NULL */
    char *err;       /* first problem, "" while none */
    size_t errlen;
    bool failed;
};

/* ctx is kept by pointer (it must outlive g); NULL means "". */
void jget_init(struct jget *g, const char *ctx, char *err, size_t errlen);
/* Record a problem with member pfx.key (first wins): what is e.g. "is not a decision". */
void jget_fail(struct jget *g, const char *pfx, const char *key, const char *what);

json_t *jget_obj(struct jget *g, json_t *o, const char *pfx, const char *key, bool required);
/* Present (else "missing"); null gives NULL without error. */
json_t *jget_obj_or_null(struct jget *g, json_t *o, const char *pfx, const char *key);
json_t *jget_array(struct jget *g, json_t *o, const char *pfx, const char *key, bool required);
bool jget_num(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, double *out);
/* Present (else "missing"); null gives NaN; otherwise a finite JSON number (else "is not a
 * finite number": the strings "nan"/"inf" included). */
bool jget_finite_or_null(struct jget *g, json_t *o, const char *pfx, const char *key, double *out);
bool jget_int(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, long long *out);
/* An integer in [lo, hi] (else "is not in [lo, hi]"). */
bool jget_int_in(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, long long lo,
                 long long hi, long long *out);
bool jget_bool(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, bool *out);
bool jget_str(struct jget *g, json_t *o, const char *pfx, const char *key, bool required,
              char *out, size_t len);
bool jget_text(struct jget *g, json_t *o, const char *pfx, const char *key, bool required,
               char *out, size_t len);
/* A number (as above) from a value that is not inside an object (array elements). */
bool jget_value_num(json_t *v, double *out);

#endif
