#!/usr/bin/env bash
# tests/gpu/tools/sweep-chunk.sh — on the GPU machine: one chunk of the main job (issue 27):
# `croqtuner sweep --dtype all [--waves $WAVES]` (WAVES=1: the typical shapes only) into
# TUNING_DIR, cut after LIMIT seconds (default 480; a cut
# shape resumes where it stopped: the sweep is crash-safe), then `croqtuner compare` of each
# done shape's registered best beside cuSPARSELt (default and after search) and cuBLAS that
# has no vendor record yet (perf/<key>/vendor.json, `compare --mode` of the key's run; for a
# from-scratch key also the shape's perf/<dtype>_MxNxK/vendor.json when that measured its best), while
# COMPARE_UNTIL seconds of the call are not spent (default LIMIT + 90); with RECOMPARE_BLOCKS=1
# also, after those, the done shapes whose record was timed in blocks (written before compare
# interleaved its subjects: no "protocol" in vendor.json), so the report compares every shape
# under one protocol. The directory is
# packed without build/ and lock files into OUT_DIR/tuning.tgz, to be unpacked into the
# checkout, committed, and carried to the next chunk; packed once before the compares too, so
# a call cut during them still returns the sweep's work. The logs (sweep.log, each compare's
# output, status.txt) go into OUT_DIR/logs.tgz: the device tool returns at most 8 files, and a
# chunk with many compares once crowded tuning.tgz out (session 9).
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
L=$(mktemp -d)/logs # outside OUT_DIR, so that only the two archives ever lie there
mkdir -p "$L" "$OUT" "$T"
pack() {
    "$B/croqtuner" compact --tuning "$T" > /dev/null 2>&1
    tar czf "$OUT/tuning.tgz.tmp" --exclude=build --exclude='*.lock' --exclude=.lock \
        -C "$(dirname "$T")" "$(basename "$T")" && mv "$OUT/tuning.tgz.tmp" "$OUT/tuning.tgz"
}
echo "$(date -u +%FT%TZ) sweep chunk (limit $LIMIT s)"
timeout "$LIMIT" "$B/croqtuner" sweep --dtype all ${WAVES:+--waves "$WAVES"} --tuning "$T" > "$L/sweep.log" 2>&1
rc=$? # here: in the line below, $(date ...) runs first and $? would be date's 0 (124 is the cut)
echo "$(date -u +%FT%TZ) sweep rc=$rc after $(( $(date +%s) - start )) s"
grep -E ': done at iteration|final ladder' "$L/sweep.log" | tail -n 8
python3 - "$T" "${RECOMPARE_BLOCKS:-0}" <<'PY' > "$L/to-compare.txt"
import json, os, sys
d, again = sys.argv[1], sys.argv[2] == "1"
missing, blocks = [], []
for key, e in sorted(json.load(open(d + "/state.json"))["shapes"].items()):
    base = key[:-3] if key.endswith("_fs") else key
    if e["status"] != "done" or not e.get("best") or e["backend"] != "gpu":
        continue
    mode = "scratch" if key.endswith("_fs") else "best"
    row = f'{e["dtype"]} {e["m"]}x{e["n"]}x{e["k"]} {mode} {e["best"]["config"].split(",", 1)[1]}'
    vp = f"{d}/perf/{key}/vendor.json"
    if not os.path.exists(vp) and key != base:
        # the shape's record stands for a from-scratch key only when it measured this key's
        # best (written before compare --mode): one of the from-best run's best does not
        vp = f"{d}/perf/{base}/vendor.json"
        try:
            ours = json.load(open(vp)).get("ours_config")
        except (OSError, ValueError):
            ours = None
        if ours != e["best"]["config"]:
            vp = f"{d}/perf/{key}/vendor.json"
    if not os.path.exists(vp):
        missing.append(row)
    elif again and "protocol" not in json.load(open(vp)):
        blocks.append(row)
for row in missing + blocks:
    print(row)
PY
pack
while read -r dtype shape mode cfg; do
    [ $(( $(date +%s) - start )) -lt "$COMPARE_UNTIL" ] || { echo "compare of $dtype $shape left for the next chunk"; continue; }
    "$B/croqtuner" compare --dtype "$dtype" --shape "$shape" --set "$cfg" --tuning "$T" --mode "$mode" \
        > "$L/compare-${dtype}_$shape.txt" 2>&1
    echo "compare $dtype $shape rc=$?"; tail -n 6 "$L/compare-${dtype}_$shape.txt"
done < "$L/to-compare.txt"
"$B/croqtuner" status --tuning "$T" > "$L/status.txt" 2>&1; cat "$L/status.txt"
pack
tar czf "$OUT/logs.tgz" -C "$(dirname "$L")" logs
echo "chunk: $(( $(date +%s) - start )) s in all"
