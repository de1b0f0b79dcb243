#!/usr/bin/env bash
# tests/gpu/explore.sh — time many hand-picked variants on one shape, both dtypes, each
# verified first, then the vendors in one runner process; prints one table at the end.
# Usage (GPU machine, repo root): tests/gpu/explore.sh BIN_DIR OUT_DIR VARIANTS_FILE SHAPE
# Compile ahead on a CPU machine with the same CROQ_CACHE_DIR to save GPU time
# (tests/gpu/prebuild.sh).
set -u
B=${1:?bin dir}; OUT=${2:?out dir}; VARIANTS=${3:?variants file}; SHAPE=${4:?MxNxK}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
export CROQ_CUOBJDUMP=$(command -v cuobjdump)
: "${CROQ_CACHE_DIR:=$OUT/cache}"; export CROQ_CACHE_DIR
mkdir -p "$OUT"
table=$OUT/explore-table.txt; : > "$table"
n=0
for dtype in f16 e4m3; do
  while IFS= read -r line; do
    case "$line" in ''|'#'*) continue ;; esac
    n=$((n + 1))
    "$B/croqtuner" bench --family --dtype $dtype --set "$line" --shape "$SHAPE" --iters 100 --trials 5 \
        --out "$OUT/v$n" > "$OUT/v$n.log" 2>&1 || tail -n 2 "$OUT/v$n.log" | sed "s|^|[$line] |" >> "$table"
    tail -n +2 "$OUT/v$n.csv" 2>/dev/null | sed "s|\$|,$line|" >> "$table"
  done < "$VARIANTS"
  "$B/croqtuner" compare --family --dtype $dtype --shape "$SHAPE" --iters 100 --trials 5 > "$OUT/compare-$dtype.txt" 2>&1
done
cat "$OUT"/compare-*.txt
cut -d, -f1-9,13 --output-delimiter=' ' "$table" | column -t 2>/dev/null || cat "$table"
