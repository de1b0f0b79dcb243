#!/usr/bin/env bash
# tests/gpu/defects.sh — on the GPU machine: issue 17 items 5 and 9 on the real H200 (the
# CPU tests use a fake runner and a fake ncu).
#   a  a 4-iteration `tune --backend gpu` of f16 1024x1024x1024, stopped (crash point) after
#      iteration 2: the checkpoint records the GPU model the runner reports (`"gpu":
#      "NVIDIA H200, 132 SMs"`), no NVML warning, the profile's outcome (ok, or the one
#      ERR_NVGPUCTRPERM message)
#   b  resumed under a wrapper of the runner that claims another model: refused, nothing
#      recorded (the row count is unchanged)
#   c  resumed with the real runner: finishes (5 rows), audit clean
# Usage (GPU machine, repo root): tests/gpu/defects.sh BIN_DIR OUT_DIR. Under 2 minutes.
# Prints a table last.
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
export PATH=/usr/local/cuda/bin:$PATH CROQ_CUOBJDUMP=${CROQ_CUOBJDUMP:-$(command -v cuobjdump)}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
W=$(mktemp -d /tmp/croq-defects.XXXXXX)
export CROQ_CACHE_DIR=$W/cache
mkdir -p "$OUT"
key=f16_1024x1024x1024_fs T=$W/t
CROQ_CRASHPOINT=ideate.saved@3 "$B/croqtuner" tune --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 4 \
    --backend gpu --tuning "$T" --quiet >"$OUT/tune.log" 2>&1
rc_a=$?
gpu=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("gpu", "(none)"))' "$T/checkpoints/$key.json" 2>&1)
nvml=$(grep -c "NVML is not available" "$OUT/tune.log")
perm=$(grep -c "ERR_NVGPUCTRPERM" "$OUT/tune.log")
prof=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["profile"]; print("ok" if p["ok"] else p["reason"][:120])' \
       "$T/checkpoints/$key.json" 2>&1)
rows=$(($(wc -l <"$T/logs/$key/results.tsv") - 2))

# b: the real runner's reply with another model's name and SM count
cat > "$W/other" <<EOF2
#!/bin/bash
"$B/croq-runner" "\$@" | sed -u -E 's/"gpu": ?"[^"]*"/"gpu": "NVIDIA H100 80GB HBM3"/; s/"sm_count": ?[0-9]+/"sm_count": 114/'
EOF2
chmod +x "$W/other"
err=$("$B/croqtuner" resume --tuning "$T" --runner "$W/other" --quiet 2>&1); rc_b=$?
echo "$err" >"$OUT/other-model.log"
rows_b=$(($(wc -l <"$T/logs/$key/results.tsv") - 2))
refused=$(grep -c "is measured on '$gpu'" <<<"$err")
"$B/croqtuner" resume --tuning "$T" --quiet >>"$OUT/tune.log" 2>&1; rc_c=$?
rows_c=$(($(wc -l <"$T/logs/$key/results.tsv") - 2))
audit=$("$B/croqtuner" audit --tuning "$T" 2>&1); rc_audit=$?
cp "$T/logs/$key/results.tsv" "$OUT/results.tsv" 2>/dev/null
rm -rf "$W"
printf '%-46s %s\n' "a tune rc (want 137: the crash point)" "$rc_a" \
    "a checkpoint gpu (want NVIDIA H200, 132 SMs)" "$gpu" "a NVML warnings (want 0)" "$nvml" \
    "a ERR_NVGPUCTRPERM lines (0, or 1)" "$perm" "a profile" "$prof" "a rows (want 3)" "$rows" \
    "b other model rc (want 1)" "$rc_b" "b refusal names the first model (want 1)" "$refused" \
    "b rows after (want $rows)" "$rows_b" "c resume rc (want 0)" "$rc_c" "c rows (want 5)" "$rows_c" \
    "c audit rc (want 0)" "$rc_audit: $(tail -n 1 <<<"$audit")"
