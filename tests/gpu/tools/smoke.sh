#!/usr/bin/env bash
# tests/gpu/tools/smoke.sh — first look on the GPU machine: NVML health, then the baseline and
# the default warp-specialized kernel verified on small shapes of both dtypes.
# Usage (on the GPU machine, repo root): tests/gpu/tools/smoke.sh BIN_DIR OUT_DIR
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
export CROQ_CUOBJDUMP=$(command -v cuobjdump) CROQ_CACHE_DIR=$OUT/cache
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
"$B/croq-runner" health
for set in "kernel=0" "kernel=1,tile_m=128,tile_n=256,consumers=2,stages=4"; do
  "$B/croqtuner" bench --dtype all --set $set --shape 64x256x128 --shape 256x256x512 --shape 128x256x256 \
     --shape 1024x1024x1024 --shape 1000x1000x1024 --iters 20 --trials 3 --work "$OUT/work" \
     --json > "$OUT/smoke-${set%%[=,]*}${set:7:1}.json" 2> "$OUT/smoke-${set%%[=,]*}${set:7:1}.err"
  echo "== $set rc=$?"; tail -n 14 "$OUT/smoke-${set%%[=,]*}${set:7:1}.err"
done
