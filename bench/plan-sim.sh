#!/usr/bin/env bash
# Writes bench/results/plan-sim-h200.txt: the predicted wall time and idle share of a parallel
# sweep for 1, 2, 4 and 8 workers (croqtuner plan-sim, docs/scale.md), from the H200 runs
# committed under results/. Runs on the CPU in a second. Usage, from the repo root:
#   bash bench/plan-sim.sh [BIN_DIR (default build/bin)] [SHAPES_JSON (default ../shared/data/shapes.json)]
set -eu
bin=${1:-build/bin}/croqtuner
shapes=${2:-../shared/data/shapes.json}
out=bench/results/plan-sim-h200.txt
measured=(--measured results/h200/tuning-typical --measured results/h200-x2/tuning-one-worker)
run() { echo "\$ croqtuner plan-sim --shapes $shapes ${measured[*]} $*"; "$bin" plan-sim --shapes "$shapes" "${measured[@]}" "$@"; }
{
    echo "# Predicted wall time of a parallel sweep on H200s (croqtuner plan-sim, src/scale/plansim.h, docs/scale.md)."
    echo "# Durations fitted to the H200 runs of results/h200/tuning-typical and results/h200-x2/tuning-one-worker"
    echo "# (2026-11-29; f16 1024x1024x4096 includes ~285 s of health-check back-offs since fixed). Simulated"
    echo "# $(date -u +%F) on the CPU by croqtuner $(git rev-parse --short HEAD), with: bash bench/plan-sim.sh"
    echo
    echo "## 1. The typical sweep (issue 18): wave 1 of both dtypes, 28 shapes, 150 iterations from scratch,"
    echo "##    claims in plan order as 'croqtuner sweep --gpus' makes them"
    run --workers 1,2,4,8 --waves 1
    echo
    echo "## 2. The same with the longest claimable shape tuned first (a what-if: the sweep does not do this)"
    run --workers 1,2,4,8 --waves 1 --longest-first | sed -n '/^fit:/,$p'
    echo
    echo "## 3. The default plan's waves 1-3 (268 shapes; wave 4, the needs_scratch reruns, depends on results)"
    run --workers 1,2,4,8 --waves 3 | sed -n '/^fit:/,$p'
} >"$out"
echo "wrote $out"
