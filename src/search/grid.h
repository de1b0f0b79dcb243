/* src/search/grid.h — grids over the knob table (src/knobs/knobs.def): the configurations
 * `croqtuner explore` measures (a declared grid), and the search strategies' knob space
 * walked point by point (grid_space_*, below).
 *
 * Without a grid file the grid is the whole table: the product of every knob's value
 * list (refused above GRID_MAX_POINTS: give a file). A grid file narrows it. Form, one
 * item per line, '#' starts a comment:
 *
 *   [name]                   starts a block (the first block needs no header)
 *   [name star]              starts a star block (below)
 *   knob=v1,v2,...           the values this block takes for knob (each from its list)
 *   knob=*                   every value of the knob's list
 *
 * A block is the product of its lines; a knob a block does not name is fixed at the
 * dtype's default (knobs_default), so a block names only what it varies, and a block of
 * single values is one hand-picked point. A star block is its anchor (the first value of
 * every line) plus every one-knob move from it to another listed value: the
 * neighbourhood a tuner walks from that point, at a sum instead of a product of sizes. The grid is the union of the blocks, each
 * configuration once (the first block that yields it keeps it), in block order; within a
 * block the product is visited in a seeded shuffled order, so a run cut short by its time
 * limit has measured a spread-out sample of each block rather than one corner of it.
 * Configurations knobs_validate rejects for the shape are counted, not kept.
 */
#ifndef CROQ_EXPLORE_GRID_H
#define CROQ_EXPLORE_GRID_H
#include <stddef.h>

#include "knobs/knobs.h"
#include "knobs/space.h"

#define GRID_MAX_POINTS 1000000L /* product points of one grid, before validation */

struct grid {
    struct croq_config *cfg; /* valid configurations, in visiting order */
    int *block;              /* block index of each */
    int n;
    int n_invalid;           /* product points knobs_validate rejected */
    int n_duplicate;         /* points an earlier block already had */
    int n_blocks;
};

/* Build the grid of dtype and shape from path (NULL: the whole table), visiting order
 * seeded by seed. 0, or -1 with the reason in err (file and line named): unreadable
 * file, unknown knob, a value not in its list, a knob twice in one block, more than
 * GRID_MAX_POINTS points. Release with grid_release in both cases. */
int grid_load(struct grid *g, const char *path, int dtype, const struct croq_shape *shape, unsigned long long seed,
              char *err, size_t errlen);
/* The same from the file's text (name is used in messages). */
int grid_parse(struct grid *g, const char *text, const char *name, int dtype, const struct croq_shape *shape,
               unsigned long long seed, char *err, size_t errlen);
void grid_release(struct grid *g);

/* The search strategies' knob space (src/search/search.h): the product of every early
 * knob's value list (knobs below KNOB_FIRST_LATE; a late knob is not walked, as the
 * heuristic proposer does not walk it: docs/proposer.md), each point x in
 * [0, grid_space_points(space)) in mixed-radix order, the first knob of the table varying
 * fastest (as a grid block's product). The value lists are space's (the shape's
 * generator's knobs and values, src/knobs/space.h); a NULL space is this binary's whole
 * table, 125,829,120 points. grid_space_point sets the early knobs of *out to point x
 * and copies dtype and the late knobs from base. Valid or not: the caller validates
 * for its shape (and checks the late knobs base carried against space). */
long grid_space_points(const struct knob_space *space);
void grid_space_point(const struct knob_space *space, long x, const struct croq_config *base, struct croq_config *out);
/* The inverse for the early knobs: the point x whose early knobs are cfg's, or -1 when a
 * value of cfg is not in space's list of its knob. */
long grid_space_index(const struct knob_space *space, const struct croq_config *cfg);
#endif
