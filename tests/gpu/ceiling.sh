#!/usr/bin/env bash
# tests/gpu/ceiling.sh — issue 23's table: how close the kernel family comes to the vendors on
# the nine large typical shapes. Two steps per dtype:
#   1  every prebuilt variant of tests/gpu/ceiling-variants.txt verified on every element on
#      shapes whose tiles are partial along M and N and whose tile counts are odd (a
#      cluster's last unit overhangs, ping-pong CTAs get odd tile counts), no timing;
#   2  tests/gpu/variants-ladder.sh on each shape: all variants the knob rules accept raced
#      in one interleaved ladder (each verified before and after), the fastest then timed by
#      `croq-runner compare` beside cuSPARSELt (default, and after cusparseLtMatmulSearch)
#      and cuBLAS, interleaved trial by trial; its last table is ours / best vendor per shape
#      (paired median) and the geomean per dtype.
# Builds nothing: the cubins are compiled ahead on the CPU machine:
#   tests/gpu/tools/prebuild-variants.sh build/bin build/ceiling-variants tests/gpu/ceiling-variants.txt
# Usage (GPU machine, repo root): tests/gpu/ceiling.sh BIN_DIR OUT_DIR
#   env: VARIANTS (prebuilt dir, default BIN_DIR/../ceiling-variants), DTYPES ("f16 e4m3"; one
#   dtype's nine shapes take about 6 minutes), ONLY ("MxNxK ..." instead of the nine large
#   shapes), ROUNDS (ladder rounds, 10), ITERS/TRIALS (compare, 200/10), SKIP (variants-ladder.sh),
#   VERIFY_SHAPES (step 1, default "1400x776x1024 200x2056x512").
# Writes OUT_DIR/ceiling-verify-<dtype>.jsonl and OUT_DIR/<dtype>/ (variants-ladder.sh's files; its
# ladder.txt is the table meant for bench/results/ceiling-<gpu>-<dtype>.txt). Exit 1 if a
# variant failed verification or a ladder or compare failed.
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
V=${VARIANTS:-$B/../ceiling-variants}
LARGE="4096x8192x8192 12288x12288x12288 512x8192x8192 16384x8192x8192 4096x32768x8192 4096x8192x32768
12288x12288x4096 12288x8192x12288 12288x4096x4096"
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skip: no NVIDIA GPU here"; exit 77; fi
[ -s "$V/index.txt" ] || { echo "no prebuilt variants in $V (run tests/gpu/tools/prebuild-variants.sh)" >&2; exit 1; }
mkdir -p "$OUT"
LISTS=$(mktemp -d); trap 'rm -rf "$LISTS"' EXIT
bad=0
for dtype in ${DTYPES:-f16 e4m3}; do
  verify=$OUT/ceiling-verify-$dtype.jsonl; : > "$verify"
  for shape in ${VERIFY_SHAPES:-1400x776x1024 200x2056x512}; do
    list=$LISTS/$dtype-$shape.txt; : > "$list"
    while IFS='|' read -r name line; do
      [ -n "${SKIP:-}" ] && grep -Eq -- "$SKIP" <<<"$line" && continue
      rc=0; "$B/croqtuner" knobs --check --dtype $dtype --shape $shape --set "$line" >/dev/null 2>&1 || rc=$?
      [ $rc -le 1 ] || { echo "$V: $name is not a configuration ($line)" >&2; exit 2; }
      [ $rc = 0 ] && echo "$V/$dtype/$name.cubin" >> "$list"
    done < "$V/index.txt"
    timeout 300 "$B/croq-runner" suite --cubins "$list" --dtype $dtype --shape $shape --seed 9 --no-time \
        >> "$verify" 2>> "$OUT/ceiling.err" || { echo "FAIL: $dtype $shape: suite failed or hung" >&2; bad=1; }
    echo "$(date -u +%H:%M:%S) $dtype $shape: $(grep -c . "$list") variants verified (no timing)" >&2
  done
  python3 - "$verify" <<'PY' || bad=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bad = [r for r in rows if not (r.get('status') == 'ok' and (r.get('verify') or {}).get('passed'))]
for r in bad:
    print('FAILED %s %sx%sx%s: %s' % (r.get('cubin'), r.get('m'), r.get('n'), r.get('k'), r.get('status')), file=sys.stderr)
print('%d verifications on partial tiles, %d failed' % (len(rows), len(bad)), file=sys.stderr)
sys.exit(1 if bad or not rows else 0)
PY
  DTYPES=$dtype SHAPES="${ONLY:-$LARGE}" ROUNDS=${ROUNDS:-10} VENDORS=1 \
    bash "$(dirname "$0")/variants-ladder.sh" "$B" "$OUT/$dtype" "$V" || bad=1
done
exit $bad
