#!/usr/bin/env bash
# tests/gpu/tools/sweep-chunk.sh — on the GPU machine: one chunk of the main job (issue 27):
# `croqtuner sweep --dtype all` into TUNING_DIR, cut after LIMIT seconds (default 480; a cut
# shape resumes where it stopped: the sweep is crash-safe), then `croqtuner compare` of each
# done shape's registered best beside cuSPARSELt (default and after search) and cuBLAS that
# has no vendor record yet (perf/<dtype>_MxNxK/vendor.json, for the report), while
# COMPARE_UNTIL seconds of the call are not spent (default LIMIT + 90); with RECOMPARE_BLOCKS=1
# also, after those, the done shapes whose record was timed in blocks (written before compare
# interleaved its subjects: no "protocol" in vendor.json), so the report compares every shape
# under one protocol. The directory is
# packed without build/ and lock files into OUT_DIR/tuning.tgz, to be unpacked into the
# checkout, committed, and carried to the next chunk.
# shapes.json: $CROQ_SHAPES, else ../shared/data/shapes.json, which the device tool does not
# send: copy shared/data into an ignored folder of the checkout (e.g. .devdata), carry it, and
# give CROQ_SHAPES=$PWD/.devdata/shapes.json.
# Usage (GPU machine, repo root): tests/gpu/tools/sweep-chunk.sh BIN_DIR TUNING_DIR OUT_DIR
set -u
B=${1:?bin dir}; T=${2:?tuning dir}; OUT=${3:?out dir}
LIMIT=${LIMIT:-480}; COMPARE_UNTIL=${COMPARE_UNTIL:-$((LIMIT + 90))}
export PATH=/usr/local/cuda/bin:$PATH CROQ_CUOBJDUMP=${CROQ_CUOBJDUMP:-$(command -v cuobjdump)}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
export CROQ_SHAPES=${CROQ_SHAPES:-$PWD/../shared/data/shapes.json}
start=$(date +%s)
mkdir -p "$OUT" "$T"
echo "$(date -u +%FT%TZ) sweep chunk (limit $LIMIT s)"
timeout "$LIMIT" "$B/croqtuner" sweep --dtype all --tuning "$T" > "$OUT/sweep.log" 2>&1
echo "$(date -u +%FT%TZ) sweep rc=$? after $(( $(date +%s) - start )) s"
grep -E ': done at iteration|final ladder' "$OUT/sweep.log" | tail -n 8
python3 - "$T" "${RECOMPARE_BLOCKS:-0}" <<'PY' > "$OUT/to-compare.txt"
import json, os, sys
d, again = sys.argv[1], sys.argv[2] == "1"
missing, blocks = [], []
for key, e in sorted(json.load(open(d + "/state.json"))["shapes"].items()):
    base = key[:-3] if key.endswith("_fs") else key
    if e["status"] != "done" or not e.get("best") or e["backend"] != "gpu":
        continue
    row = f'{e["dtype"]} {e["m"]}x{e["n"]}x{e["k"]} {e["best"]["config"].split(",", 1)[1]}'
    vp = f"{d}/perf/{base}/vendor.json"
    if not os.path.exists(vp):
        missing.append(row)
    elif again and "protocol" not in json.load(open(vp)):
        blocks.append(row)
for row in missing + blocks:
    print(row)
PY
while read -r dtype shape cfg; do
    [ $(( $(date +%s) - start )) -lt "$COMPARE_UNTIL" ] || { echo "compare of $dtype $shape left for the next chunk"; continue; }
    "$B/croqtuner" compare --dtype "$dtype" --shape "$shape" --set "$cfg" --tuning "$T" \
        > "$OUT/compare-${dtype}_$shape.txt" 2>&1
    echo "compare $dtype $shape rc=$?"; tail -n 6 "$OUT/compare-${dtype}_$shape.txt"
done < "$OUT/to-compare.txt"
"$B/croqtuner" status --tuning "$T" > "$OUT/status.txt" 2>&1; cat "$OUT/status.txt"
"$B/croqtuner" compact --tuning "$T" > /dev/null 2>&1
tar czf "$OUT/tuning.tgz" --exclude=build --exclude='*.lock' --exclude=.lock -C "$(dirname "$T")" "$(basename "$T")"
echo "chunk: $(( $(date +%s) - start )) s in all"
