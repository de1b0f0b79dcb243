#!/usr/bin/env bash
# tests/gpu/tools/tune-run.sh — on the GPU machine: a tuning run of one shape (MODE=scratch, the
# default, or MODE=best: from the best configuration of the nearest tuned shape)
# (continued where it stopped if TUNING_DIR already holds it), then, once the shape is
# done, `croqtuner compare` of its best configuration next to cuSPARSELt and cuBLAS in
# the same call, which also records the vendor numbers in TUNING_DIR for the report.
# The tune is cut off after LIMIT seconds (default 540) so the call ends inside the
# device tool's 10 minutes; the tuning directory is then packed (without cubins) into
# OUT_DIR/tuning.tgz, to be carried to the next call and resumed there.
# Usage (GPU machine, repo root): tests/gpu/tools/tune-run.sh BIN_DIR TUNING_DIR OUT_DIR DTYPE SHAPE [ITERS]
set -u
B=${1:?bin dir}; T=${2:?tuning dir}; OUT=${3:?out dir}; DTYPE=${4:?dtype}; SHAPE=${5:?MxNxK}
ITERS=${6:-$([ "${MODE:-scratch}" = scratch ] && echo 150 || echo 30)}
export PATH=/usr/local/cuda/bin:$PATH CROQ_CUOBJDUMP=${CROQ_CUOBJDUMP:-$(command -v cuobjdump)}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
MODE=${MODE:-scratch}
mkdir -p "$OUT"
key=${DTYPE}_${SHAPE}$([ "$MODE" = scratch ] && echo _fs)
start=$(date +%s)
echo "$(date -u +%FT%TZ) tune $key (limit ${LIMIT:-540} s)"
timeout "${LIMIT:-540}" "$B/croqtuner" tune --dtype "$DTYPE" --shape "$SHAPE" --mode "$MODE" \
    --iters "$ITERS" --backend gpu --tuning "$T" --quiet > "$OUT/tune-$key.log" 2>&1
rc=$?
echo "$(date -u +%FT%TZ) tune rc=$rc after $(( $(date +%s) - start )) s (this call)"
state=$(python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['shapes'][sys.argv[2]]; print(s['status'], s['best']['config'])" \
        "$T/state.json" "$key" 2>/dev/null)
if [ "${state%% *}" = done ]; then
    best=$(echo "${state#* }" | sed 's/^dtype=[a-z0-9]*,//')
    "$B/croqtuner" compare --dtype "$DTYPE" --shape "$SHAPE" --set "$best" --tuning "$T" --mode "$MODE" \
        > "$OUT/compare-$key.txt" 2>&1
    echo "compare rc=$?"
    cat "$OUT/compare-$key.txt"
fi
"$B/croqtuner" status --tuning "$T" > "$OUT/status.txt" 2>&1
# a shape stopped midway (LIMIT) left whole sources: keep them as recipes (docs/engine.md,
# "Sources as recipes"; its best and pending candidate stay whole for the next call)
"$B/croqtuner" compact --tuning "$T" > "$OUT/compact.txt" 2>&1
tar czf "$OUT/tuning.tgz" --exclude=build -C "$(dirname "$T")" "$(basename "$T")"
tail -n 5 "$OUT/tune-$key.log"; cat "$OUT/status.txt"
