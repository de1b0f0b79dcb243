/* src/search/agent.c — the agent strategy: ideas (and their sources) come from an external
 * agent through 'croqtuner propose' (src/engine/propose.c, docs/agent.md); IDEATE stops and
 * waits for them, so there is no next. */
#include "search.h"

const struct search_strategy search_agent = {
    .name = "agent",
    .summary = "an external agent's ideas ('croqtuner propose'); IDEATE waits for them",
    .next = NULL,
};
