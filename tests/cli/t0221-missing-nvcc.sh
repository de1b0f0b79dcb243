#!/usr/bin/env bash
# A CUDA compiler that cannot run is the toolchain's failure, not the candidate's: tune
# stops with exit 1, the shape stays active (resumable), nothing is marked done.
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
CROQ_NVCC=/nonexistent/nvcc CROQ_CACHE_DIR=$T/cache "$CROQ_BIN/croqtuner" tune --dtype f16 --shape 1024x1024x1024 \
    --mode scratch --backend gpu --tuning "$T/t" --shapes "$CROQ_SOURCE_DIR/tests/fixtures/shapes.json" > "$T/log" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$T/log"; echo "exit $rc, expected 1"; exit 1; }
grep -q "CUDA compiler cannot run" "$T/log" || { cat "$T/log"; echo "no reason given"; exit 1; }
"$CROQ_BIN/croqtuner" status --tuning "$T/t" --json > "$T/status" || { echo "status failed"; exit 1; }
grep -q '"status": *"active"' "$T/status" || { cat "$T/status"; echo "shape not left active"; exit 1; }
exit 0
