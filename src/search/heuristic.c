/* src/search/heuristic.c — the heuristic strategy: the profile-guided proposer
 * (src/proposer, docs/proposer.md), the default. */
#include "search.h"

const struct search_strategy search_heuristic = {
    .name = "heuristic",
    .summary = "the profile-guided proposer (docs/proposer.md); the default",
    .next = proposer_next,
};
