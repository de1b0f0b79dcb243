/* src/knobs/space.h — the knob space of one code generator: which of this binary's knobs
 * and values the generator's kernels implement, read from the text of its knobs.def.
 *
 * A tuning directory pins the generator each shape began with (src/engine/generator_pin.c),
 * but the knob table this binary proposes from, validates against and writes #defines
 * from is the one compiled in (knobs.def through the X-macro, knobs.h). When the binary's
 * table has a knob or a value the pinned generator's knobs.def lacks (one added since),
 * the generator's kernels ignore the #define it would get, so such a configuration is
 * another one under a false name. struct knob_space is the part of this binary's table
 * that the generator's knobs.def also declares:
 *   - a knob of both tables keeps the values both list, in this binary's order, and
 *     its default when the generator lists it, else the nearest value it lists (where
 *     knob_space_clamp moves a configuration's default);
 *   - a knob only this binary has ("undeclared") keeps one value, its default: the value
 *     the generator's kernels implicitly use. Rows are only appended and every row from
 *     KNOB_FIRST_LATE on is late (knobs.h), so an undeclared knob is a late one, and a
 *     late knob at its default behaves as before it existed and is written nowhere (no
 *     signature item, no #define: KNOB_OMITTED). A knobs.def that lacks an early knob is
 *     refused: it is not an older form of this binary's table;
 *   - a knob only the generator has is not in this binary's configurations at all (its
 *     kernels default it, as they default every late knob: kernels/common.cuh).
 * The two tables must agree where they overlap: a knob of the same name with another
 * macro, or a late knob (KNOB_FIRST_LATE) with another default (at its default a late
 * knob is written nowhere, so its default must mean the same to both), is refused.
 *
 * knobs.def is an X-macro compiled into the binary; knob_space_parse is the one reader of
 * its text (a generator snapshot's "knobs.def", src/codegen/generator.h), strict about its
 * form: comments, `#ifndef`/`#define`/`#endif` lines (a `#define NAME <integer>` names a
 * value constant, CROQ_V_*), and KNOB(id, "name", "macro", default, "category",
 * "meaning" "...", values...) rows whose defaults and values are integers or those
 * constants, the default among the values, at most CROQ_KNOB_MAX_VALUES values, ids, names
 * and macros unique, and none of this binary's macros under another name. The reader does
 * not preprocess, so what the compiler would read otherwise is refused too: a NUL byte, a
 * line ending in a backslash (a splice), an integer with a leading 0 (octal), a control
 * character in a string literal, a #ifndef other than one include guard (nested, of a
 * name defined above, without its #endif; an #endif without one), a '#' after a row on
 * its line, a #define of a knob's macro. Anything else is an error naming the line.
 *
 * A NULL space everywhere below means this binary's whole table. Pure; a space is plain
 * data, shareable between threads once built.
 */
#ifndef CROQ_KNOBS_SPACE_H
#define CROQ_KNOBS_SPACE_H
#include <stdbool.h>
#include <stddef.h>

#include "knobs/knobs.h"

#define KNOB_SPACE_OWNER_MAX 48

struct knob_space {
    char owner[KNOB_SPACE_OWNER_MAX]; /* whose space, for messages: "generator 0123456789abcdef" */
    bool restricted;                  /* some knob or value of this binary's table is left out */
    bool declared[KNOB_COUNT];        /* the generator's knobs.def has a row of this knob's name */
    /* this binary's rows (names, macros, categories, meanings are croq_knobs'), values cut
     * as above; an undeclared knob: n_values 1, its table default */
    struct croq_knob knobs[KNOB_COUNT];
};

/* This binary's whole table under owner (a space where nothing is left out). */
void knob_space_full(struct knob_space *s, const char *owner);

/* Read the text of a knobs.def (len bytes, need not be NUL-terminated) into s, against
 * this binary's table. 0, or -1 with err naming the line and what is wrong (the form
 * above, or a disagreement with this binary's table); s is then undefined. */
int knob_space_parse(struct knob_space *s, const char *owner, const char *text, size_t len, char *err,
                     size_t errlen);

/* The rows to walk: s->knobs, or croq_knobs when s is NULL. */
const struct croq_knob *knob_space_table(const struct knob_space *s);

/* True when every knob of cfg holds a value of s (an undeclared knob: the dtype's
 * default, knobs_default). Otherwise false with why naming the first knob outside and
 * the owner ("stages=9: generator 0123456789abcdef does not list this value of 'stages'
 * (it has 1, 2, 3, 4)"); nothing written when whylen is 0. A NULL s allows everything. */
bool knob_space_allows(const struct knob_space *s, const struct croq_config *cfg, char *why, size_t whylen);

/* What s leaves out of this binary's table, for messages, in table order: each value as
 * name=value, each undeclared knob as "knob NAME (held at DEFAULT)" ("stages=8,
 * group=16, knob schedule (held at 0)"); "nothing" when s is not restricted; cut to len
 * ending in "..." when longer. */
#define KNOB_SPACE_DESCRIBE_MAX 512
void knob_space_describe(const struct knob_space *s, char *out, size_t len);

/* Move cfg into s: an undeclared knob to the dtype's default, a value s does not list to
 * the nearest one it lists (the lower of two as near). Returns how many knobs changed.
 * The result may be invalid for a shape (knobs_validate): the caller checks. */
int knob_space_clamp(const struct knob_space *s, struct croq_config *cfg);
#endif
