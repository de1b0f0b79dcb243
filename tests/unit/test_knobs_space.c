/* tests/unit/test_knobs_space.c — a generator's knob space (src/knobs/space.h): this
 * binary's knobs.def reads back as its own table; a knobs.def that lacks a late knob
 * (schedule) and two values (stages 8, group 16), as an older generator's would, gives
 * the space without them; the reader's strictness, line by line; the tables' disagreements
 * refused; every search strategy keeps to the space over many seeds (while the same runs
 * without it do reach what it leaves out), and given a space of this binary's own table
 * proposes exactly what it proposes without one; codegen with the older generator's files
 * refuses a configuration outside its space, naming the knob and the generator's
 * identity, and a configuration printed for it reads back; the snapshots committed under
 * results/ read. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "codegen/generator.h"
#include "knobs/space.h"
#include "search/grid.h"
#include "search/search.h"

/* text with the first `from` replaced by `to` (malloc'd); `from` must be there. */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    size_t a = (size_t)(at - text), nf = strlen(from), nt = strlen(to), n = strlen(text);
    char *out = malloc(n - nf + nt + 1);
    assert_non_null(out);
    memcpy(out, text, a);
    memcpy(out + a, to, nt);
    memcpy(out + a + nt, at + nf, n - a - nf + 1);
    return out;
}

/* text without the KNOB row of id (from "KNOB(id," up to and including its ")\n"). */
static char *without_row(const char *text, const char *id)
{
    char head[64];
    snprintf(head, sizeof head, "KNOB(%s,", id);
    const char *a = strstr(text, head);
    assert_non_null(a);
    const char *b = strstr(a, ")\n");
    assert_non_null(b);
    char *row = strndup(a, (size_t)(b + 2 - a));
    char *out = edit(text, row, "");
    free(row);
    return out;
}

static const char *current_def(void)
{
    const struct croq_embedded_file *f = embedded_find("knobs.def");
    assert_non_null(f);
    return f->text;
}

/* The knobs.def of an older generator: no schedule row, stages without 8, group without 16. */
static char *older_def(void)
{
    char *a = without_row(current_def(), "SCHEDULE");
    char *b = edit(a, "1, 2, 3, 4, 5, 6, 7, 8)", "1, 2, 3, 4, 5, 6, 7)");
    char *c = edit(b, "1, 2, 4, 8, 16)", "1, 2, 4, 8)");
    free(a), free(b);
    return c;
}

static void parse_ok(struct knob_space *s, const char *text)
{
    char err[512] = "";
    if (knob_space_parse(s, "generator 00000000000000aa", text, strlen(text), err, sizeof err))
        fail_msg("%s", err);
}

static void test_current_reads_as_table(void **state)
{
    (void)state;
    struct knob_space s;
    parse_ok(&s, current_def());
    assert_false(s.restricted);
    for (int k = 0; k < KNOB_COUNT; k++) {
        assert_true(s.declared[k]);
        assert_string_equal(s.knobs[k].name, croq_knobs[k].name);
        assert_int_equal(s.knobs[k].n_values, croq_knobs[k].n_values);
        assert_memory_equal(s.knobs[k].values, croq_knobs[k].values, sizeof croq_knobs[k].values);
    }
    /* the current generator trivially has its own table */
    struct generator g;
    char err[512];
    generator_current(&g);
    assert_int_equal(generator_knob_space(g.files, g.codegen_version, &s, err, sizeof err), 0);
    assert_false(s.restricted);
    char owner[64];
    snprintf(owner, sizeof owner, "generator %s", g.id);
    assert_string_equal(s.owner, owner);
    struct croq_config c;
    knobs_default(&c, CROQ_DTYPE_F16);
    c.v[KNOB_STAGES] = 8;
    c.v[KNOB_SCHEDULE] = CROQ_V_PINGPONG;
    assert_true(knob_space_allows(&s, &c, NULL, 0));
    assert_true(knob_space_allows(NULL, &c, NULL, 0));
    assert_ptr_equal(knob_space_table(NULL), croq_knobs);
    char d[KNOB_SPACE_DESCRIBE_MAX];
    knob_space_describe(&s, d, sizeof d);
    assert_string_equal(d, "nothing");
}

static void test_older_generator_space(void **state)
{
    (void)state;
    char *text = older_def();
    struct knob_space s;
    parse_ok(&s, text);
    free(text);
    assert_true(s.restricted);
    assert_false(s.declared[KNOB_SCHEDULE]);
    assert_int_equal(s.knobs[KNOB_SCHEDULE].n_values, 1);
    assert_int_equal(s.knobs[KNOB_SCHEDULE].values[0], CROQ_V_COOPERATIVE);
    assert_int_equal(s.knobs[KNOB_STAGES].n_values, 7);
    assert_int_equal(s.knobs[KNOB_STAGES].values[6], 7);
    assert_int_equal(s.knobs[KNOB_GROUP].n_values, 4);
    assert_int_equal(s.knobs[KNOB_TILE_N].n_values, croq_knobs[KNOB_TILE_N].n_values);
    char d[KNOB_SPACE_DESCRIBE_MAX];
    knob_space_describe(&s, d, sizeof d);
    assert_string_equal(d, "stages=8, group=16, knob schedule (held at 0)");

    struct croq_config c;
    char why[CROQ_WHY_MAX];
    knobs_default(&c, CROQ_DTYPE_E4M3);
    assert_true(knob_space_allows(&s, &c, why, sizeof why)); /* e4m3's default tile_k is not the table's */
    c.v[KNOB_STAGES] = 8;
    assert_false(knob_space_allows(&s, &c, why, sizeof why));
    assert_string_equal(why, "stages=8: generator 00000000000000aa does not list this value of 'stages' (it has "
                             "1, 2, 3, 4, 5, 6, 7)");
    c.v[KNOB_STAGES] = 4;
    c.v[KNOB_SCHEDULE] = CROQ_V_PINGPONG;
    assert_false(knob_space_allows(&s, &c, why, sizeof why));
    assert_string_equal(why, "schedule=1: generator 00000000000000aa has no knob 'schedule' (its kernels "
                             "implement only schedule=0)");
    /* clamp: the undeclared knob to its default, a missing value to the nearest listed */
    c.v[KNOB_STAGES] = 8;
    c.v[KNOB_GROUP] = 16;
    assert_int_equal(knob_space_clamp(&s, &c), 3);
    assert_int_equal(c.v[KNOB_STAGES], 7);
    assert_int_equal(c.v[KNOB_GROUP], 8);
    assert_int_equal(c.v[KNOB_SCHEDULE], CROQ_V_COOPERATIVE);
    assert_true(knob_space_allows(&s, &c, NULL, 0));
    assert_int_equal(knob_space_clamp(&s, &c), 0);
}

/* Each bad text is refused with the line and the problem named. */
static void test_reader_strict(void **state)
{
    (void)state;
    static const struct {
        const char *text, *err;
    } bad[] = {
        {"#include \"x.h\"\n", "knobs.def line 1: '#include' (a knobs.def has only #ifndef, #define and #endif lines)"},
        {"#define A 1\n#define A 2\n", "knobs.def line 2: macro 'A' defined twice"},
        {"#define A zero\n", "knobs.def line 1: expected an integer"},
        {"/* open\n\n", "knobs.def line 1: a comment that does not end"},
        {"\nknob(X, \"x\", \"CROQ_X\", 1, \"micro\", \"m\", 1)\n",
         "knobs.def line 2: 'knob' (expected a KNOB(...) row, a comment or a preprocessor line)"},
        {"KNOB(X, \"x\", \"CROQ_X\", 3, \"micro\", \"m\", 1, 2)\n", "knobs.def line 1: knob 'x': the default 3 is not "
                                                                    "among its values"},
        {"KNOB(X, \"x\", \"CROQ_X\", CROQ_V_NOPE, \"micro\", \"m\", 1)\n",
         "knobs.def line 1: 'CROQ_V_NOPE' is not a constant defined above it"},
        {"KNOB(X, \"x\", \"CROQ_X\", 1, \"micro\", \"m\", 1, 1)\n", "knobs.def line 1: knob 'x' lists the value 1 twice"},
        {"KNOB(X, \"x\", \"CROQ_X\", 1, \"micro\", \"m\", 1, 2, 3, 4, 5, 6, 7, 8, 9)\n",
         "knobs.def line 1: knob 'x' has more than 8 values"},
        {"KNOB(X, \"x\", \"CROQ_X\", 1, \"micro\", \"m\", 1)\nKNOB(Y, \"x\", \"CROQ_Y\", 1, \"micro\", \"m\", 1)\n",
         "knobs.def line 2: knob 'x' (id Y, macro CROQ_Y) repeats the id, name or macro of line 1"},
        {"KNOB(X, \"x\", \"CROQ_X\", 1, \"micro\", \"m\\n\", 1)\n",
         "knobs.def line 1: escape '\\n' in a string literal (only \\\" and \\\\ are read)"},
        {"KNOB(X, \"x\", \"CROQ_X\", 1, \"micro\", \"m\", 1\n", "knobs.def line 2: expected ',' after a value"},
        {"KNOB(X, \"x\", \"CROQ_X\", 1, \"mic\" \"ro\", \"m\", 1) junk\n",
         "knobs.def line 1: 'junk' (expected a KNOB(...) row, a comment or a preprocessor line)"},
        {"KNOB(X, x, \"CROQ_X\", 1, \"micro\", \"m\", 1)\n", "knobs.def line 1: expected the knob's name (a string "
                                                              "literal)"},
        /* what the compiler reads otherwise than a reader that did not check it would */
        {"KNOB(X, \"x\", \"CROQ_X\", 1, \"micro\", \"m\", 1)\nKNOB(X, \"y\", \"CROQ_Y\", 1, \"micro\", \"m\", 1)\n",
         "knobs.def line 2: knob 'y' (id X, macro CROQ_Y) repeats the id, name or macro of line 1"},
        {"#define A 010\n", "knobs.def line 1: an integer with a leading 0 (the compiler reads it as octal, this reader "
                             "would not)"},
        {"\n// a comment \\\nKNOB(X, \"x\", \"CROQ_X\", 1, \"micro\", \"m\", 1)\n",
         "knobs.def line 2: a backslash at the end of the line (a line splice, which this reader does not follow)"},
        {"#define A 1 /* \\\r\n */\n", "knobs.def line 1: a backslash at the end of the line (a line splice, which "
                                          "this reader does not follow)"},
        {"#ifndef G\n#define G\n", "knobs.def line 1: this #ifndef has no #endif"},
        {"#define A 1\n#endif\n", "knobs.def line 2: '#endif' without a #ifndef"},
        {"#define G\n#ifndef G\n#endif\n", "knobs.def line 2: '#ifndef G' after line 1 defines it (the compiler would "
                                           "skip what it guards)"},
        {"#ifndef G\n#ifndef H\n#endif\n#endif\n", "knobs.def line 2: '#ifndef H' inside the #ifndef of line 1 (a "
                                                   "knobs.def has one include guard)"},
        {"#define CROQ_X 1\nKNOB(X, \"x\", \"CROQ_X\", 1, \"micro\", \"m\", 1)\n",
         "knobs.def line 1: '#define CROQ_X' defines a knob's macro (the kernels would read it, not the configuration's)"},
        {"#define CROQ_STAGES 3\n", "knobs.def line 1: '#define CROQ_STAGES' defines a knob's macro (the kernels would "
                                     "read it, not the configuration's)"},
        {"KNOB(X, \"x\", \"CROQ_X\", 1, \"micro\", \"m\", 1) #define A 1\n",
         "knobs.def line 1: '#' after a KNOB row on its line (a preprocessor line begins its line)"},
        {"KNOB(X, \"x\", \"CROQ_X\", 1, \"micro\", \"\x1b[2Jm\", 1)\n",
         "knobs.def line 1: a control character (0x1b) in a string literal"},
        {"#define G\nKNOB(X, \"x\", \"CROQ_X\", G, \"micro\", \"m\", 1)\n",
         "knobs.def line 2: 'G' is not a constant defined above it"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct knob_space s;
        char err[512] = "";
        assert_int_equal(knob_space_parse(&s, "g", bad[i].text, strlen(bad[i].text), err, sizeof err), -1);
        if (strcmp(err, bad[i].err))
            fail_msg("text %zu: got \"%s\", want \"%s\"", i, err, bad[i].err);
    }
    /* a NUL byte: the string "stages\0x" would read as "stages" */
    struct knob_space s;
    char err[512] = "", *t = edit(current_def(), "\"stages\",", "\"stages@x\",");
    char *at = strchr(strstr(t, "\"stages@x\""), '@'), want[64];
    int line = 1;
    for (const char *q = t; q < at; q++)
        line += *q == '\n';
    *at = '\0';
    size_t len = strlen(t) + strlen(t + strlen(t) + 1) + 1;
    assert_int_equal(knob_space_parse(&s, "g", t, len, err, sizeof err), -1);
    snprintf(want, sizeof want, "knobs.def line %d: a NUL byte (a knobs.def is text)", line);
    assert_string_equal(err, want);
    free(t);
    /* CRLF line ends and tabs are blanks: this binary's table with them reads as itself */
    const char *c = current_def();
    char *crlf = malloc(2 * strlen(c) + 1), *w = crlf;
    assert_non_null(crlf);
    for (const char *q = c; *q; q++) {
        if (*q == '\n')
            *w++ = '\r';
        *w++ = *q == ' ' && q[1] == ' ' ? '\t' : *q;
    }
    *w = '\0';
    assert_int_equal(knob_space_parse(&s, "g", crlf, strlen(crlf), err, sizeof err), 0);
    assert_false(s.restricted);
    free(crlf);
}

/* Where the tables overlap they must agree; an early knob cannot be missing. */
static void test_tables_disagree(void **state)
{
    (void)state;
    struct knob_space s;
    char err[512];
    char *t = edit(current_def(), "\"CROQ_TILE_M\"", "\"CROQ_TILE_ROWS\"");
    assert_int_equal(knob_space_parse(&s, "generator g", t, strlen(t), err, sizeof err), -1);
    assert_non_null(strstr(err, "generator g declares knob 'tile_m' with macro CROQ_TILE_ROWS, this croqtuner "
                                "with CROQ_TILE_M"));
    free(t);
    t = edit(current_def(), "\"CROQ_SCHEDULE\",   CROQ_V_COOPERATIVE", "\"CROQ_SCHEDULE\",   CROQ_V_PINGPONG");
    assert_int_equal(knob_space_parse(&s, "generator g", t, strlen(t), err, sizeof err), -1);
    assert_non_null(strstr(err, "declares late knob 'schedule' with default 1, this croqtuner with 0"));
    free(t);
    t = without_row(current_def(), "RASTER");
    assert_int_equal(knob_space_parse(&s, "generator g", t, strlen(t), err, sizeof err), -1);
    assert_non_null(strstr(err, "generator g has no knob 'raster', which every configuration of this croqtuner sets"));
    free(t);
    char *u = edit(current_def(), "1, 2, 4, 8, 16)", "3)");
    t = edit(u, "\"CROQ_GROUP\",      1,", "\"CROQ_GROUP\",      3,");
    free(u);
    assert_int_equal(knob_space_parse(&s, "generator g", t, strlen(t), err, sizeof err), -1);
    assert_non_null(strstr(err, "generator g's knob 'group' shares no value with this croqtuner's"));
    free(t);
    /* a generator without this binary's default of an early knob: the space's default is
     * the value a start configuration is moved to, one of the values it lists */
    char *u2 = edit(current_def(), "\"CROQ_STAGES\",     4,", "\"CROQ_STAGES\",     2,");
    t = edit(u2, "1, 2, 3, 4, 5, 6, 7, 8)", "1, 2, 3)");
    free(u2);
    assert_int_equal(knob_space_parse(&s, "generator g", t, strlen(t), err, sizeof err), 0);
    assert_int_equal(s.knobs[KNOB_STAGES].n_values, 3);
    assert_int_equal(s.knobs[KNOB_STAGES].default_value, 3);
    struct croq_config d;
    knobs_default(&d, CROQ_DTYPE_F16);
    assert_int_equal(knob_space_clamp(&s, &d), 1);
    assert_int_equal(d.v[KNOB_STAGES], s.knobs[KNOB_STAGES].default_value);
    free(t);
    /* what a generator lacks, cut to the buffer: ends in "..." */
    t = edit(current_def(), "1, 2, 3, 4, 5, 6, 7, 8)", "4)");
    assert_int_equal(knob_space_parse(&s, "generator g", t, strlen(t), err, sizeof err), 0);
    char lacks[24];
    knob_space_describe(&s, lacks, sizeof lacks);
    assert_string_equal(lacks, "stages=1, stages=2, ...");
    free(t);
    /* one of this binary's macros under another name: its kernels read CROQ_SCHEDULE at
     * their default for 'sched', which this binary would hold 'schedule' at unwritten */
    t = edit(current_def(), "\"schedule\",", "\"sched\",");
    assert_int_equal(knob_space_parse(&s, "generator g", t, strlen(t), err, sizeof err), -1);
    assert_non_null(strstr(err, "generator g declares macro CROQ_SCHEDULE as knob 'sched', this croqtuner as knob "
                                "'schedule': one macro under two names"));
    free(t);
}

/* ---- the strategies keep to the space ---- */

struct hist {
    struct idea_history_entry e[64];
    size_t n;
};

static void hist_add(struct hist *h, const struct croq_config *c, bool start)
{
    memset(&h->e[h->n], 0, sizeof h->e[h->n]);
    knobs_signature(c, h->e[h->n].signature);
    h->e[h->n].category = IDEA_MACRO;
    h->e[h->n].start = start;
    h->n++;
}

/* What a run of the strategy reached: any stages=8, group=16 or schedule=1; and a hash
 * of the ideas' signatures in order (two runs that proposed the same). */
struct reached {
    int stages8, group16, schedule1, ideas;
    uint64_t order;
};

/* n ideas of strategy s from a best near the edge the space cuts (stages 7, group 8),
 * every one discarded, with another shape's best that sets schedule=1 to port (from the
 * 10th discard on the heuristic jumps: radical jumps and ports). */
static void run_strategy(const struct search_strategy *s, const struct knob_space *space, unsigned long long seed,
                         int n, struct reached *r)
{
    static const struct croq_shape shape = {4096, 8192, 8192};
    static struct hist h;
    struct croq_config best, port;
    char why[CROQ_WHY_MAX], err[256];
    knobs_default(&best, CROQ_DTYPE_F16);
    assert_int_equal(knobs_set_list(&best, "tile_n=128 stages=7 group=8", err, sizeof err), 0);
    assert_true(knobs_validate(&best, &shape, why, sizeof why));
    knobs_default(&port, CROQ_DTYPE_F16);
    assert_int_equal(knobs_set_list(&port, "tile_n=128 stages=3 persistent=1 schedule=1 epilogue=1", err, sizeof err),
                     0);
    assert_true(knobs_validate(&port, &shape, why, sizeof why));
    h.n = 0;
    hist_add(&h, &best, true);
    for (int i = 0; i < n; i++) {
        struct proposer_ctx ctx = {.shape = shape, .best = best, .best_tflops = 500, .bottleneck = BN_UNKNOWN,
                                   .history = h.e, .n_history = h.n, .iteration = (int)h.n, .budget = 150,
                                   .consecutive_discards = (int)h.n - 1,
                                   .other_bests = &port, .n_other_bests = 1, .seed = seed, .space = space};
        struct idea id;
        int rc = s->next(&ctx, &id);
        assert_int_equal(rc, 0);
        assert_true(knobs_validate(&id.cfg, &shape, why, sizeof why));
        if (!knob_space_allows(space, &id.cfg, why, sizeof why))
            fail_msg("%s seed %llu idea %d: %s (%s)", s->name, seed, i, why, id.text);
        r->stages8 += id.cfg.v[KNOB_STAGES] == 8;
        r->group16 += id.cfg.v[KNOB_GROUP] == 16;
        r->schedule1 += id.cfg.v[KNOB_SCHEDULE] == CROQ_V_PINGPONG;
        r->ideas++;
        char sig[CROQ_SIG_MAX];
        knobs_signature(&id.cfg, sig);
        for (const char *q = sig; *q; q++)
            r->order = (r->order ^ (unsigned char)*q) * 1099511628211ull;
        assert_true(h.n < sizeof h.e / sizeof *h.e);
        hist_add(&h, &id.cfg, false);
    }
}

static void test_strategies_keep_to_space(void **state)
{
    (void)state;
    char *text = older_def();
    struct knob_space older;
    parse_ok(&older, text);
    free(text);
    /* the space the grid and random strategies walk point by point is the older one's:
     * 7 of 8 stages, 4 of 5 groups, and every point of it is inside */
    assert_int_equal(grid_space_points(&older), grid_space_points(NULL) / 8 * 7 / 5 * 4);
    struct croq_config base, p;
    knobs_default(&base, CROQ_DTYPE_F16);
    for (long x = 0; x < grid_space_points(&older); x += 997) {
        grid_space_point(&older, x, &base, &p);
        assert_true(knob_space_allows(&older, &p, NULL, 0));
    }
    struct knob_space mine;
    parse_ok(&mine, current_def());
    static const char *const names[] = {"heuristic", "grid", "random"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const struct search_strategy *s = search_open(names[i]);
        assert_non_null(s);
        struct reached in = {0}, full = {0}, whole = {0};
        int seeds = strcmp(names[i], "grid") ? 12 : 1; /* the grid uses no seed */
        for (int seed = 1; seed <= seeds; seed++) {
            run_strategy(s, &older, (unsigned long long)seed * 7919, 24, &in);
            run_strategy(s, NULL, (unsigned long long)seed * 7919, 24, &full);
            run_strategy(s, &mine, (unsigned long long)seed * 7919, 24, &whole);
        }
        /* a generator with this binary's table proposes exactly what no space does */
        assert_true(whole.order == full.order);
        assert_int_equal(in.stages8 + in.group16 + in.schedule1, 0);
        /* the runs do reach what the space leaves out when it is not given (the grid
         * walks from the table's first corner and gets nowhere near it in 24 ideas) */
        if (strcmp(names[i], "grid"))
            assert_true(full.stages8 > 0 && full.group16 > 0);
        if (!strcmp(names[i], "heuristic"))
            assert_true(full.schedule1 > 0); /* a port of the other shape's best */
        print_message("%s: %d ideas in the older generator's space; without it %d reached stages=8, %d group=16, "
                      "%d schedule=1\n", names[i], in.ideas, full.stages8, full.group16, full.schedule1);
    }
}

/* ---- codegen ---- */

/* This binary's kernel files with knobs.def replaced by def (malloc'd table; texts shared). */
static struct croq_embedded_file *files_with_def(const char *def)
{
    size_t n = 0;
    while (croq_embedded_files[n].name)
        n++;
    struct croq_embedded_file *t = calloc(n + 1, sizeof *t);
    assert_non_null(t);
    for (size_t i = 0; i < n; i++) {
        t[i] = croq_embedded_files[i];
        if (!strcmp(t[i].name, "knobs.def"))
            t[i] = (struct croq_embedded_file){"knobs.def", def, strlen(def)};
    }
    return t;
}

static void test_codegen_refuses_by_name(void **state)
{
    (void)state;
    char *def = older_def();
    struct croq_embedded_file *files = files_with_def(def);
    char id[GENERATOR_ID_MAX], err[600] = "", want[200], sig[CROQ_SIG_MAX];
    generator_identity(CODEGEN_VERSION, files, id);
    struct codegen_opts o = {.files = files, .err = err, .errlen = sizeof err};
    struct croq_config c;
    char *src = NULL;
    knobs_default(&c, CROQ_DTYPE_F16);
    c.v[KNOB_TILE_N] = 128;
    c.v[KNOB_STAGES] = 8;
    assert_int_equal(codegen_emit(&c, &o, &src), -1);
    assert_null(src);
    snprintf(want, sizeof want, "configuration outside its generator's knobs: stages=8: generator %s does not list "
             "this value of 'stages'", id);
    assert_non_null(strstr(err, want));
    c.v[KNOB_STAGES] = 4;
    c.v[KNOB_PERSISTENT] = 1;
    c.v[KNOB_SCHEDULE] = CROQ_V_PINGPONG;
    assert_int_equal(codegen_emit(&c, &o, &src), -1);
    snprintf(want, sizeof want, "schedule=1: generator %s has no knob 'schedule'", id);
    assert_non_null(strstr(err, want));
    /* the same configuration with this binary's own files is written (its table has schedule) */
    struct codegen_opts mine = {.err = err, .errlen = sizeof err};
    assert_int_equal(codegen_emit(&c, &mine, &src), 0);
    assert_non_null(strstr(src, "#define CROQ_SCHEDULE 1\n"));
    free(src);
    /* regenerating a stored candidate is not refused (its bytes are what they were) */
    o.regenerate = true;
    assert_int_equal(codegen_emit(&c, &o, &src), 0);
    free(src);
    o.regenerate = false;
    /* inside the space: written, no #define of the knob the generator lacks, and the
     * configuration it prints reads back as itself, inside the space */
    c.v[KNOB_SCHEDULE] = CROQ_V_COOPERATIVE;
    c.v[KNOB_STAGES] = 7;
    assert_int_equal(codegen_emit(&c, &o, &src), 0);
    *strstr(src, "/* ==== begin") = '\0'; /* the header and the defines (the kernels default it) */
    assert_null(strstr(src, "#define CROQ_SCHEDULE"));
    assert_non_null(strstr(src, "#define CROQ_STAGES 7\n"));
    knobs_signature(&c, sig);
    assert_null(strstr(sig, "schedule"));
    char line[CROQ_SIG_MAX + 16];
    snprintf(line, sizeof line, " * config: %s\n", sig);
    assert_non_null(strstr(src, line));
    free(src);
    struct croq_config back;
    assert_int_equal(knobs_parse_signature(&back, sig, err, sizeof err), 0);
    assert_memory_equal(&back, &c, sizeof c);
    struct knob_space sp;
    assert_int_equal(generator_knob_space(files, CODEGEN_VERSION, &sp, err, sizeof err), 0);
    assert_true(knob_space_allows(&sp, &back, NULL, 0));
    /* a generator whose knobs.def does not read is refused by what is wrong */
    free(files);
    files = files_with_def("KNOB(\n");
    o.files = files;
    assert_int_equal(codegen_emit(&c, &o, &src), -1);
    assert_non_null(strstr(err, "the generator's knob table: knobs.def line 2: expected the knob's id"));
    free(files);
    free(def);
}

/* The snapshots committed with the H200 results read: the typical sweep's generator has
 * this binary's whole table but `stream_k` and the value 4 of `cluster_m` (added after
 * it: a croqtuner of this tree resuming it proposes as before, stream_k held at 0,
 * cluster_m in 1 and 2), and one from before `schedule` lacks those and `schedule`. */
static void test_committed_snapshots(void **state)
{
    (void)state;
    static const struct {
        const char *dir, *id, *lacks;
    } snaps[] = {
        {"results/h200/sweep-typical", "bf864aace8b80df1", "cluster_m=4, knob stream_k (held at 0)"},
        {"results/h200/tuning-typical", "660dcf0c7e886d77",
         "cluster_m=4, knob schedule (held at 0), knob stream_k (held at 0)"},
    };
    for (size_t i = 0; i < sizeof snaps / sizeof *snaps; i++) {
        char dir[1024], err[700], d[KNOB_SPACE_DESCRIBE_MAX];
        struct generator g;
        struct knob_space s;
        snprintf(dir, sizeof dir, "%s/%s", CROQ_SOURCE_DIR, snaps[i].dir);
        if (generator_load(dir, snaps[i].id, &g, err, sizeof err))
            fail_msg("%s/generators/%s.json: %s", dir, snaps[i].id, err);
        if (generator_knob_space(g.files, g.codegen_version, &s, err, sizeof err))
            fail_msg("%s: %s", snaps[i].id, err);
        knob_space_describe(&s, d, sizeof d);
        assert_string_equal(d, snaps[i].lacks);
        generator_release(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_current_reads_as_table),
        cmocka_unit_test(test_older_generator_space),
        cmocka_unit_test(test_reader_strict),
        cmocka_unit_test(test_tables_disagree),
        cmocka_unit_test(test_strategies_keep_to_space),
        cmocka_unit_test(test_codegen_refuses_by_name),
        cmocka_unit_test(test_committed_snapshots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
