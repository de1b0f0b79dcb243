/* src/util/datafile.h — finding a shared data file (shared/data/NAME: shapes.json, the
 * vendor anchors) wherever croqtuner runs from: named by an environment variable, next
 * to the source tree the binary was built from, next to the binary itself (build/bin/
 * in a checkout, copied to another machine with it), or under the current directory.
 */
#ifndef CROQ_UTIL_DATAFILE_H
#define CROQ_UTIL_DATAFILE_H
#include <stddef.h>

/* The readable file shared/data/<name>, looked for in this order:
 *   $<env> when env is set and non-empty: the only place looked at (never a silent
 *   fallback); then for each root R of $CROQ_SOURCE_DIR, the checkout two levels above
 *   the running binary (/proc/self/exe), and the source tree it was built from:
 *   R/../shared/data/<name> and R/shared/data/<name>; then ./shared/data/<name> and
 *   ../shared/data/<name> (relative to the current directory).
 * 0 with its path, or -1 with err = "cannot find NAME (set ENV); tried 'a' 'b' ...".
 * Thread-safe (reads the environment). */
int datafile_find(const char *name, const char *env, char *path, size_t len, char *err, size_t errlen);

#endif
