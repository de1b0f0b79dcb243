/* src/report/model.c — decision names, shape keys, and freeing the model (model.h). */
#include "report/model.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifacts/names.h"

/* The names are the artifacts module's (one owner of the format); the report's enum is
 * the same list plus OTHER for a name this version does not know. */
_Static_assert((int)RD_BASELINE == (int)DEC_BASELINE && (int)RD_KEEP == (int)DEC_KEEP &&
                   (int)RD_DISCARD == (int)DEC_DISCARD && (int)RD_INCORRECT == (int)DEC_DISCARD_INCORRECT &&
                   (int)RD_CRASH == (int)DEC_DISCARD_RUNTIME_CRASH && (int)RD_TIMEOUT == (int)DEC_DISCARD_TIMEOUT &&
                   (int)RD_OTHER == (int)DEC_DISCARD_TIMEOUT + 1,
               "enum report_decision follows enum decision (src/artifacts/names.h)");

const char *report_decision_name(enum report_decision d)
{
    return d >= 0 && d < RD_OTHER ? decision_name((enum decision)d) : "OTHER";
}

enum report_decision report_decision_parse(const char *s)
{
    int d = decision_parse(s); /* COMPILE_ERROR (attempts.tsv only) is OTHER here */
    return d >= 0 && d < (int)RD_OTHER ? (enum report_decision)d : RD_OTHER;
}

bool report_decision_failed(enum report_decision d)
{
    return d == RD_INCORRECT || d == RD_CRASH || d == RD_TIMEOUT || d == RD_OTHER;
}

/* Parse a positive decimal at *p (no sign, no leading zero run beyond "0"), advance. */
static int parse_dim(const char **p, long *out)
{
    const char *s = *p;
    long v = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    for (; isdigit((unsigned char)*s); s++) {
        if (v > 100000000L)
            return -1;
        v = v * 10 + (*s - '0');
    }
    if (v <= 0)
        return -1;
    *out = v;
    *p = s;
    return 0;
}

int shape_key_parse(const char *key, struct report_shape *s)
{
    size_t len = strlen(key);
    if (len == 0 || len >= sizeof s->key)
        return -1;
    const char *p = key;
    size_t dl = 0;
    while (islower((unsigned char)p[dl]) || isdigit((unsigned char)p[dl]))
        dl++;
    if (dl == 0 || dl >= sizeof s->dtype || p[dl] != '_')
        return -1;
    p += dl + 1;
    long dims[3];
    for (int i = 0; i < 3; i++) {
        if (parse_dim(&p, &dims[i]))
            return -1;
        if (i < 2 && *p++ != 'x')
            return -1;
    }
    bool fs = false;
    if (!strcmp(p, "_fs"))
        fs = true;
    else if (*p)
        return -1;
    memcpy(s->dtype, key, dl);
    s->dtype[dl] = '\0';
    snprintf(s->key, sizeof s->key, "%s", key);
    snprintf(s->base_key, sizeof s->base_key, "%.*s", (int)(len - (fs ? 3 : 0)), key);
    s->m = dims[0];
    s->n = dims[1];
    s->k = dims[2];
    s->from_scratch = fs;
    return 0;
}

bool shape_finished(const struct report_shape *s)
{
    return !strcmp(s->status, "done") || !strcmp(s->status, "complete");
}

bool shape_running(const struct report_shape *s)
{
    return !strcmp(s->status, "active") || !strcmp(s->status, "running");
}

const char *shape_idea_justification(const struct report_shape *s, int iter)
{
    for (size_t i = 0; i < s->n_ideas; i++)
        if (s->ideas[i].iter == iter && s->ideas[i].justification)
            return s->ideas[i].justification;
    return NULL;
}

static void row_release(struct report_row *r)
{
    char **fields[] = {&r->decision_text, &r->kernel, &r->config, &r->bottleneck, &r->category,
                       &r->idea, &r->timestamp, &r->command, &r->note};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        free(*fields[i]);
        *fields[i] = NULL;
    }
}

void shape_release(struct report_shape *s)
{
    for (size_t i = 0; i < s->n_rows; i++)
        row_release(&s->rows[i]);
    free(s->rows);
    for (size_t i = 0; i < s->n_ideas; i++) {
        free(s->ideas[i].justification);
        free(s->ideas[i].idea);
    }
    free(s->ideas);
    free(s->vendor.path);
    free(s->vendor.ours_config);
    free(s->st.best_so_far);
    memset(s, 0, sizeof *s);
}

void sweep_release(struct report_sweep *sw)
{
    for (size_t i = 0; i < sw->n_shapes; i++)
        shape_release(&sw->shapes[i]);
    free(sw->shapes);
    free(sw->tuning_dir);
    free(sw->info.shapes);
    notes_release(&sw->notes);
    memset(sw, 0, sizeof *sw);
}
