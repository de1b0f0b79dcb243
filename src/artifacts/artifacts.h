/* src/artifacts/artifacts.h — every on-disk format of a tuning directory, owned by this
 * module (docs/artifacts.md): names (keys, modes, phases, decisions), paths,
 * results/attempts rows, the idea log, checkpoints, state.json. Each header can be
 * included alone; this one is for code that uses most of them. */
#ifndef CROQ_ARTIFACTS_H
#define CROQ_ARTIFACTS_H
#include "artifacts/checkpoint.h"
#include "artifacts/claim.h"
#include "artifacts/ideas.h"
#include "artifacts/names.h"
#include "artifacts/paths.h"
#include "artifacts/results.h"
#include "artifacts/state.h"
#endif
