/* src/report/model.c — decision names and shape keys (both src/artifacts'), and freeing
 * the model (model.h). */
#include "report/model.h"

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

int shape_key_parse(const char *key, struct report_shape *s)
{
    struct shape_key k;
    char why[160];
    if (strlen(key) >= sizeof s->key || key_parse(key, &k, why, sizeof why))
        return -1; /* the artifacts' keys only (names.h): a name it refuses is no shape */
    bool fs = k.mode == MODE_FROM_SCRATCH;
    snprintf(s->dtype, sizeof s->dtype, "%s", croq_dtype_name(k.dtype));
    snprintf(s->key, sizeof s->key, "%s", key);
    snprintf(s->base_key, sizeof s->base_key, "%.*s", (int)(strlen(key) - (fs ? 3 : 0)), key);
    s->m = k.shape.m;
    s->n = k.shape.n;
    s->k = k.shape.k;
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
    notes_release(&sw->notes);
    memset(sw, 0, sizeof *sw);
}
