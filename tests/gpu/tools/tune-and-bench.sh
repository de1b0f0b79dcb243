#!/usr/bin/env bash
# tests/gpu/tools/tune-and-bench.sh — on the GPU machine: (2) a real 20-iteration from-scratch
# tuning run of f16 768x768x768 with three candidates injected to trap, deadlock on an
# mbarrier and store out of bounds, then `croqtuner status`; (1) first, the baseline kernel
# benched on the reference, typical and odd shapes for both dtypes (CSV + Markdown).
# Usage: tests/gpu/tools/tune-and-bench.sh BIN_DIR OUT_DIR SHAPES_JSON
set -u
B=${1:?}; OUT=${2:?}; SHAPES=${3:?}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH CROQ_CUOBJDUMP=$(command -v cuobjdump) CROQ_SHAPES=$SHAPES
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
timeout ${BENCH_LIMIT:-200} "$B/croqtuner" bench --dtype all --shapes reference,typical,odd --iters 100 --trials 5 \
    --out "$OUT/baseline-h200" > "$OUT/bench.log" 2>&1
echo "bench rc=$?" >> "$OUT/bench.log"
T=$OUT/tuning
timeout ${TUNE_LIMIT:-330} "$B/croqtuner" tune --dtype f16 --shape 768x768x768 --mode scratch --iters 20 \
    --backend gpu --tuning "$T" --inject-fault trap@3,hang@5,oob@7 > "$OUT/tune.log" 2>&1
echo "tune rc=$?" >> "$OUT/tune.log"
"$B/croqtuner" status --tuning "$T" > "$OUT/status.txt" 2>&1
tar czf "$OUT/tuning.tgz" --exclude=build -C "$OUT" tuning && rm -rf "$T"
tail -n 45 "$OUT/bench.log"; tail -n 25 "$OUT/tune.log"; cat "$OUT/status.txt"
