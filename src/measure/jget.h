/* src/measure/jget.h — typed reads of the runner's JSON with one error message for
 * the first problem ("runner output: 'timing.median_ms' is not a number"). Internal
 * to src/measure.
 *
 * Each getter: a missing key (or JSON null) leaves *out unchanged and is an error only
 * when required; a present value of the wrong type is always an error. Numbers may be
 * the strings "nan", "inf", "-inf" (JSON has no such numbers; the runner writes them
 * as text). Returns true when *out was set.
 */
#ifndef CROQ_MEASURE_JGET_H
#define CROQ_MEASURE_JGET_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct jget {
    char *err;       /* first problem, "" while none */
    size_t errlen;
    bool failed;
};

void jget_init(struct jget *g, char *err, size_t errlen);
/* Record a problem (first wins). */
void jget_fail(struct jget *g, const char *pfx, const char *key, const char *what);

json_t *jget_obj(struct jget *g, json_t *o, const char *pfx, const char *key, bool required);
json_t *jget_array(struct jget *g, json_t *o, const char *pfx, const char *key, bool required);
bool jget_num(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, double *out);
bool jget_int(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, long long *out);
bool jget_bool(struct jget *g, json_t *o, const char *pfx, const char *key, bool required, bool *out);
bool jget_str(struct jget *g, json_t *o, const char *pfx, const char *key, bool required,
              char *out, size_t len);
/* A number (as above) from a value that is not inside an object (array elements). */
bool jget_value_num(json_t *v, double *out);

#endif
