#!/usr/bin/env bash
# tests/gpu/tools/perf.sh — time every prebuilt variant (tests/gpu/tools/prebuild-variants.sh) on one
# shape in one runner process per dtype (each verified before timing), then run
# `croqtuner compare` with the fastest configuration of each dtype: ours, cuSPARSELt
# (default and after search) and cuBLAS in one process on the same data.
# Usage (GPU machine, repo root): tests/gpu/tools/perf.sh BIN_DIR VARIANT_DIR SHAPE OUT_DIR
set -u
B=${1:?bin dir}; V=${2:?variant dir}; SHAPE=${3:?MxNxK}; OUT=${4:?out dir}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH CROQ_CUOBJDUMP=$(command -v cuobjdump)
mkdir -p "$OUT"
for dtype in f16 e4m3; do
  list=$OUT/perf-list-$dtype.txt; : > "$list"
  while IFS='|' read -r name line; do
    "$B/croqtuner" knobs --check --dtype $dtype --shape $SHAPE --set "$line" >/dev/null 2>&1 &&
      echo "$V/$dtype/$name.cubin" >> "$list"
  done < "$V/index.txt"
  "$B/croq-runner" suite --cubins "$list" --dtype $dtype --shape $SHAPE --iters 200 --trials 5 \
      > "$OUT/perf-$dtype.jsonl" 2>> "$OUT/perf.err"
  best=$(python3 - "$OUT/perf-$dtype.jsonl" "$V/index.txt" <<'PY'
import json, sys, os
names = dict(l.rstrip('\n').split('|', 1) for l in open(sys.argv[2]))
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if r.get('status') == 'ok' and r.get('timing')]
rows.sort(key=lambda r: -r['timing']['tflops'])
for r in rows:
    n = os.path.basename(r['cubin'])[:-6]
    print('%-4s %8.1f TFLOPS %7.4f ms spread %5.2f%% clock %4s MHz  %s' % (n, r['timing']['tflops'], r['timing']['median_ms'],
          r['timing']['spread_pct'], r.get('gpu_state', {}).get('sm_clock_median_mhz'), names[n]), file=sys.stderr)
print(names[os.path.basename(rows[0]['cubin'])[:-6]] if rows else '')
PY
  )
  echo "== $dtype best: $best"
  "$B/croqtuner" compare --family --dtype $dtype --shape $SHAPE --set "$best" --iters 200 --trials 5 2>&1 | tee "$OUT/compare-$dtype.txt"
done
