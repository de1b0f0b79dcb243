#!/usr/bin/env bash
# tests/gpu/explore.sh — on the GPU machine: the ground-truth datasets of issue 19.
# `croqtuner explore` of bench/explore/grids/<dtype>.txt on three typical shapes per dtype
# (small 1024x1024x4096, medium 1024x8192x1024, large 12288x4096x4096), one JSONL dataset
# each in OUT_DIR/<dtype>_<shape>.jsonl (commit them under bench/explore/), plus
# OUT_DIR/explore.log (a dataset there as <name>.jsonl.gz is unpacked first and compressed
# again at the end, so a committed compressed dataset continues in its form). Each run is cut by a time limit (LIMITS="small medium large"
# seconds, default "55 60 110": ~7.5 min for all six) so the call ends inside the device
# tool's 10 minutes; a run cut short has the grid's first blocks (hand-picked points and
# neighbourhoods) and a random part of the rest, and running this again with the same
# OUT_DIR continues every dataset where it stopped (refused, exit 2, in a directory holding a
# FROZEN.txt: bench/explore/wide-h100, frozen for issue 25). GRID=NAME uses
# bench/explore/grids/<dtype>-NAME.txt instead (GRID=dispatch: the configurations the
# library's dispatch can pick, bench/results/dispatch-nearest-h200.txt; with OUT_DIR a
# copy of bench/explore, only those the datasets lack are measured). Compiles run in JOBS processes
# (default: cores - 2) while the GPU measures. BACKEND=sim tries the script without a GPU.
# Usage (GPU machine, repo root): tests/gpu/explore.sh BIN_DIR OUT_DIR
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
export PATH=/usr/local/cuda/bin:$PATH CROQ_CUOBJDUMP=${CROQ_CUOBJDUMP:-$(command -v cuobjdump)}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
G=$(dirname "$0")/../../bench/explore/grids
read -r L_SMALL L_MEDIUM L_LARGE <<<"${LIMITS:-55 60 110}"
JOBS=${JOBS:-$(( $(nproc) > 3 ? $(nproc) - 2 : 1 ))}
mkdir -p "$OUT"
# A frozen directory (FROZEN.txt: the datasets strategies are tuned and judged on) takes
# nothing more: a record added would move every score measured on it.
[ ! -e "$OUT/FROZEN.txt" ] || { echo "explore.sh: $OUT is frozen ($OUT/FROZEN.txt): give another OUT_DIR"; exit 2; }
# One dataset, one GPU model: the records of an H200 and an H100 are not one ground truth
# (a failed record's "gpu" is "unknown": no measurement named it). Checked first, in either
# form, so a refusal leaves OUT_DIR as it was.
if [ "${BACKEND:-gpu}" = gpu ] && command -v nvidia-smi >/dev/null; then
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
    for f in "$OUT"/*.jsonl "$OUT"/*.jsonl.gz; do
        [ -f "$f" ] || continue
        other=$(gzip -dcf "$f" | grep -o '"gpu":"[^"]*"' | sort -u | grep -vF -e "\"gpu\":\"$gpu\"" -e '"gpu":"unknown"' | head -n 1)
        [ -z "$other" ] || { echo "explore.sh: $f holds records of $other, this GPU is $gpu: give another OUT_DIR"; exit 2; }
    done
fi
# A dataset committed gzip-compressed (bench/explore/wide-*/) continues from a plain copy
# (explore appends to plain JSONL only), compressed again at the end (packed). A plain copy
# beside it (a call cut before the end) is the continuation when it holds at least the
# compressed one's lines; otherwise the two disagree and the run stops.
packed=()
for z in "$OUT"/*.jsonl.gz; do
    [ -f "$z" ] || continue
    p=${z%.gz}
    if [ -e "$p" ]; then
        [ "$(wc -l < "$p")" -ge "$(gzip -dc "$z" | wc -l)" ] ||
            { echo "explore.sh: $p has fewer records than $z: keep one"; exit 2; }
    else
        gzip -dc "$z" > "$p.part" && mv "$p.part" "$p" || exit 1
    fi
    packed+=("$p")
done
log=$OUT/explore.log
summary=()
for dtype in f16 e4m3; do
    for sl in 1024x1024x4096:$L_SMALL 1024x8192x1024:$L_MEDIUM 12288x4096x4096:$L_LARGE; do
        shape=${sl%%:*}; limit=${sl#*:}
        start=$(date +%s)
        echo "$(date -u +%FT%TZ) explore $dtype $shape (limit $limit s, $JOBS build jobs)" | tee -a "$log"
        "$B/croqtuner" explore --dtype "$dtype" --shape "$shape" --grid "$G/$dtype${GRID:+-$GRID}.txt" --backend "${BACKEND:-gpu}" \
            --jobs "$JOBS" --time-limit "$limit" --out "$OUT/${dtype}_$shape.jsonl" >>"$log" 2>&1
        rc=$?
        summary+=("$dtype $shape rc=$rc $(( $(date +%s) - start ))s")
        tail -n 1 "$log"
        [ $rc -eq 1 ] && { echo "explore stopped (GPU unusable or busy): see $log"; break 2; }
    done
done
echo
echo "dataset                    rc    wall  records  ok  failed  best TFLOPS  best config"
for s in "${summary[@]}"; do
    set -- $s
    python3 - "$OUT/${1}_$2.jsonl" "$1 $2" "$3" "$4" <<'EOF'
import json, sys
path, name, rc, wall = sys.argv[1:5]
recs = []
try:
    recs = [json.loads(l) for l in open(path) if l.endswith("\n")]
except OSError:
    pass
ok = [r for r in recs if r["status"] == "ok"]
best = max(ok, key=lambda r: r["tflops"]) if ok else None
cfg = ",".join(p for p in best["config"].split(",")[1:]) if best else "-"
print("%-26s %-5s %5s %8d %3d %7d %12s  %s" % (name, rc[3:], wall, len(recs), len(ok), len(recs) - len(ok),
      "%.1f" % best["tflops"] if best else "-", cfg))
EOF
done
for p in "${packed[@]}"; do
    gzip -9c "$p" > "$p.gz.part" && mv "$p.gz.part" "$p.gz" && rm "$p" || { echo "explore.sh: cannot compress $p"; exit 1; }
done
