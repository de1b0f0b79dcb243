#!/usr/bin/env bash
# tests/gpu/tools/probe.sh — why is one variant slower than another: time the named prebuilt
# variants (tests/gpu/tools/prebuild-variants.sh) on one shape in one runner process, each
# verified first, then profile one launch of each under ncu and print, per variant,
# TFLOPS, resident CTAs (what the occupancy API allows at once), grid size, SM activity
# and tensor-pipe use.
# Usage (GPU machine, repo root): tests/gpu/tools/probe.sh BIN_DIR VARIANT_DIR DTYPE SHAPE OUT_DIR vNN...
set -u
B=${1:?bin dir}; V=${2:?variant dir}; DTYPE=${3:?dtype}; SHAPE=${4:?MxNxK}; OUT=${5:?out dir}; shift 5
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT"
list=$(mktemp); trap 'rm -f "$list"' EXIT
for v in "$@"; do echo "$V/$DTYPE/$v.cubin"; done > "$list"
"$B/croq-runner" suite --cubins "$list" --dtype "$DTYPE" --shape "$SHAPE" --iters 100 --trials 3 \
    > "$OUT/probe-$DTYPE-$SHAPE.jsonl" 2>> "$OUT/probe.err"
# Raw metrics, one CSV per variant, concatenated (the device tool returns at most 8 files).
for v in "$@"; do
  ncu --kernel-name croq_gemm_sp --launch-skip 1 --launch-count 1 --clock-control none \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
      --metrics sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active \
      --csv --page raw --print-units base \
      "$B/croq-runner" run --cubin "$V/$DTYPE/$v.cubin" --dtype "$DTYPE" --shape "$SHAPE" --warmup 1 --iters 1 --trials 1 \
      2>> "$OUT/probe.err" | grep -v '^==' | sed "s/^/$v,/" >> "$OUT/ncu-$DTYPE-$SHAPE.csv"
done
python3 - "$OUT/probe-$DTYPE-$SHAPE.jsonl" "$OUT/ncu-$DTYPE-$SHAPE.csv" "$V/index.txt" <<'PY'
import csv, json, os, sys
names = dict(l.rstrip('\n').split('|', 1) for l in open(sys.argv[3]))
runs = {os.path.basename(r['cubin'])[:-6]: r for r in map(json.loads, open(sys.argv[1])) if r.get('cubin')}
rows, header = {}, None
for rec in csv.reader(open(sys.argv[2])):
    v, rest = rec[0], rec[1:]
    if '"ID"' in ','.join(rest) or (rest and rest[0] == 'ID'):
        header = rest
    elif header and len(rest) == len(header) and rest[0].isdigit():
        rows[v] = dict(zip(header, rest))
def num(d, k):
    try: return float(d.get(k, 'nan').replace(',', ''))
    except ValueError: return float('nan')
print('%-4s %8s %6s %6s %9s %9s %8s %6s  %s' % ('var', 'TFLOPS', 'verif', 'grid', 'resident', 'smActAvg', 'gmma%', 'occ%', 'knobs'))
for v in sorted(runs):
    r, m = runs[v], rows.get(v, {})
    t = (r.get('timing') or {}).get('tflops', float('nan'))
    ok = 'yes' if (r.get('verify') or {}).get('passed') else 'NO'
    act = num(m, 'sm__cycles_active.avg') / max(num(m, 'sm__cycles_elapsed.max'), 1)
    print('%-4s %8.1f %6s %6s %9s %8.1f%% %7.1f%% %6.1f  %s' % (v, t, ok, (r.get('abi') or {}).get('grid', ['?'])[0],
          (r.get('abi') or {}).get('resident_ctas', '?'), 100 * act,
          num(m, 'sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active'),
          num(m, 'sm__warps_active.avg.pct_of_peak_sustained_active'), names.get(v, '?')))
    for k in sorted(m):
        if 'cluster' in k or 'occupancy_limit' in k:
            print('       %s = %s' % (k, m[k]))
PY
