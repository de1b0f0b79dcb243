/* tests/gpu/tools/library_shapes.c — the shape list of tests/gpu/library.sh's run on
 * shapes nobody tuned (issue 26: "20 shapes per dtype not in the pack, drawn from
 * shapes.json's scenario shapes with seed 7, plus the 28 typical ones"). Built as
 * build/bin/library-shapes; runs on the CPU (the GPU machine has no shared/):
 *
 *   LIB_SHAPES="$(build/bin/library-shapes ../shared/data/shapes.json PACK)" \
 *       bash tests/gpu/library.sh build/bin OUT
 *
 * Prints one "DTYPE:MxNxK" word per line, per dtype: its typical shapes (shapes.json, in
 * the file's order), then COUNT (default 20) scenario shapes that the shape rules accept,
 * that no tuned entry of PACK has at exactly that shape, and that are not typical, drawn
 * without replacement by a partial Fisher-Yates shuffle of the file's order with
 * src/format/rng's xoshiro256** seeded SEED (default 7): the same files give the same
 * list on any machine. Fewer when fewer qualify (said on stderr). Exit 0, 1 on a file
 * that does not load, 2 on bad usage. shapes.json is read by src/shapes (its one reader),
 * the pack by src/pack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/rng.h"
#include "knobs/knobs.h"
#include "pack/pack.h"
#include "shapes/shapes.h"
#include "util/atomicio.h"

static bool in_pack(const struct pack *p, int dtype, const struct croq_shape *s)
{
    for (size_t i = 0; i < p->n; i++)
        if (!p->e[i].fallback && p->e[i].dtype == dtype && p->e[i].m == s->m && p->e[i].n == s->n &&
            p->e[i].k == s->k)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    char err[1024];
    struct scenario_set set;
    struct pack p;
    size_t len;
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: library-shapes SHAPES_JSON PACK [COUNT [SEED]]\n");
        return 2;
    }
    long count = argc > 3 ? strtol(argv[3], NULL, 10) : 20;
    unsigned long long seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 7;
    if (scenarios_load(argv[1], &set, err, sizeof err)) {
        fprintf(stderr, "library-shapes: %s\n", err);
        return 1;
    }
    char *bytes = read_file(argv[2], &len);
    if (!bytes || pack_parse(bytes, len, &p, err, sizeof err)) {
        fprintf(stderr, "library-shapes: %s: %s\n", argv[2], bytes ? err : "cannot read");
        return 1;
    }
    struct croq_shape *pool = malloc((set.n_scenario + 1) * sizeof *pool);
    for (int d = CROQ_DTYPE_F16; d <= CROQ_DTYPE_E4M3; d++) {
        for (size_t i = 0; i < set.n_typical[d]; i++)
            printf("%s:%ldx%ldx%ld\n", croq_dtype_name(d), set.typical[d][i].m, set.typical[d][i].n,
                   set.typical[d][i].k);
        size_t n = 0;
        for (size_t i = 0; i < set.n_scenario; i++) {
            const struct croq_shape *s = &set.scenario[i];
            if (shape_validate(d, s, err, sizeof err) && !in_pack(&p, d, s) && !scenarios_is_typical(&set, d, s))
                pool[n++] = *s;
        }
        struct rng r;
        rng_seed(&r, seed);
        size_t take = (size_t)count < n ? (size_t)count : n;
        for (size_t i = 0; i < take; i++) { /* partial Fisher-Yates: pool[0..take) is the draw */
            size_t j = i + (size_t)(rng_next(&r) % (n - i));
            struct croq_shape t = pool[i];
            pool[i] = pool[j];
            pool[j] = t;
            printf("%s:%ldx%ldx%ld\n", croq_dtype_name(d), pool[i].m, pool[i].n, pool[i].k);
        }
        if (take < (size_t)count)
            fprintf(stderr, "library-shapes: only %zu %s scenario shapes qualify\n", take, croq_dtype_name(d));
    }
    free(pool);
    pack_release(&p);
    free(bytes);
    scenarios_release(&set);
    return 0;
}
