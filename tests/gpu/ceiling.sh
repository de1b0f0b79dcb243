#!/usr/bin/env bash
# tests/gpu/ceiling.sh — issue 14's table: on each shape (reference + typical of shapes.json,
# which include the nine large ones), every prebuilt variant of tests/gpu/ceiling-variants.txt
# verified on every element then timed in one runner process (`croq-runner suite`), then the
# fastest verified one timed again next to cuSPARSELt (default, and after
# cusparseLtMatmulSearch) and cuBLAS in one process on the same operands (`croq-runner
# compare`, interleaved: TRIALS rounds of one trial of each, at most ITERS launches a trial).
# One row per shape: ours best, its variant, each vendor, ratio ours / best vendor, the SM
# clock; the geometric mean of the ratios over the nine large shapes of issue 14 last.
# Builds nothing: the cubins are compiled ahead on the CPU machine:
#   tests/gpu/tools/prebuild-variants.sh build/bin build/ceiling-variants tests/gpu/ceiling-variants.txt
# Usage (GPU machine, repo root): tests/gpu/ceiling.sh BIN_DIR OUT_DIR
#   env: VARIANTS (prebuilt dir, default BIN_DIR/../ceiling-variants), SHAPES (shapes.json,
#   default shared/data/shapes.json), DTYPES ("f16 e4m3"; one per GPU call fits ~8 min),
#   ONLY ("MxNxK ..." to run a subset), ITERS/TRIALS (200/5, the compare step),
#   VERIFY_SHAPES (verification only, default "1400x776x1024 200x2056x512": odd, partial tiles),
#   SCREEN_ITERS/SCREEN_TRIALS (100/3, the suite step that picks the best variant).
# Writes OUT_DIR/ceiling-<dtype>-suite.jsonl, -compare.jsonl and ceiling-<dtype>.txt (the
# table, meant for bench/results/ceiling-h200-<dtype>.txt). Exit 1 if any variant failed
# verification or a compare step did not verify ours.
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
V=${VARIANTS:-$B/../ceiling-variants}; SHAPES=${SHAPES:-shared/data/shapes.json}
ITERS=${ITERS:-200}; TRIALS=${TRIALS:-5}; SI=${SCREEN_ITERS:-100}; ST=${SCREEN_TRIALS:-3}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skip: no NVIDIA GPU here"; exit 77; fi
[ -s "$V/index.txt" ] || { echo "no prebuilt variants in $V (run tests/gpu/tools/prebuild-variants.sh)" >&2; exit 1; }
[ -s "$SHAPES" ] || { echo "no shapes file $SHAPES" >&2; exit 1; }
mkdir -p "$OUT"
LISTS=$(mktemp -d); trap 'rm -rf "$LISTS"' EXIT
bad=0
for dtype in ${DTYPES:-f16 e4m3}; do
  suite=$OUT/ceiling-$dtype-suite.jsonl; cmp=$OUT/ceiling-$dtype-compare.jsonl; : > "$suite"; : > "$cmp"
  # Verification only, on shapes whose tile counts are odd along M and N and whose last
  # tiles are partial: a cluster's last unit overhangs M (cluster_m=2) or N, and ping-pong
  # CTAs get odd tile counts; the 15 shapes below have even tile counts along M.
  for shape in ${VERIFY_SHAPES:-1400x776x1024 200x2056x512}; do
    list=$LISTS/$dtype-$shape.txt; : > "$list"
    while IFS='|' read -r name line; do
      "$B/croqtuner" knobs --check --dtype $dtype --shape $shape --set "$line" >/dev/null 2>&1 &&
        echo "$V/$dtype/$name.cubin" >> "$list"
    done < "$V/index.txt"
    "$B/croq-runner" suite --cubins "$list" --dtype $dtype --shape $shape --seed 9 --no-time >> "$suite" 2>> "$OUT/ceiling.err"
    echo "$(date -u +%H:%M:%S) $dtype $shape: $(grep -c . "$list") variants verified (no timing)" >&2
  done
  shapes=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join('x'.join(map(str,s)) for s in [d['reference_shape']] + d['typical_shapes_for_scratch'][sys.argv[2]]))" "$SHAPES" $dtype)
  for shape in $shapes; do
    [ -z "${ONLY:-}" ] || case " $ONLY " in *" $shape "*) ;; *) continue ;; esac
    list=$LISTS/$dtype-$shape.txt; : > "$list"
    while IFS='|' read -r name line; do
      "$B/croqtuner" knobs --check --dtype $dtype --shape $shape --set "$line" >/dev/null 2>&1 &&
        echo "$V/$dtype/$name.cubin" >> "$list"
    done < "$V/index.txt"
    "$B/croq-runner" suite --cubins "$list" --dtype $dtype --shape $shape --seed 7 --iters $SI --trials $ST \
        > "$LISTS/one.jsonl" 2>> "$OUT/ceiling.err"
    cat "$LISTS/one.jsonl" >> "$suite"
    best=$(python3 -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ok = [r for r in rows if r.get('status') == 'ok' and r.get('verify', {}).get('passed') and r.get('timing')]
print(max(ok, key=lambda r: r['timing']['tflops'])['cubin'] if ok else '')" "$LISTS/one.jsonl")
    if [ -n "$best" ]; then
      "$B/croq-runner" compare --cubin "$best" --dtype $dtype --shape $shape --seed 8 --iters $ITERS \
          --trials $TRIALS | python3 -c "import json,sys; r=json.loads(sys.stdin.read()); r['cubin']=sys.argv[1]; print(json.dumps(r))" "$best" \
          >> "$cmp" 2>> "$OUT/ceiling.err"
    fi
    echo "$(date -u +%H:%M:%S) $dtype $shape: $(grep -c . "$list") variants, best ${best##*/}" >&2
  done
  CEIL_SCREEN="${SI}x$ST" CEIL_TIMED="${ITERS}x$TRIALS" \
  python3 - "$suite" "$cmp" "$V/index.txt" "$dtype" <<'PY' > "$OUT/ceiling-$dtype.txt" || bad=1
import json, sys, os, math
suite = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
cmps = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
names = dict(l.rstrip('\n').split('|', 1) for l in open(sys.argv[3]))
dtype = sys.argv[4]
large = {'4096x8192x8192', '12288x12288x12288', '512x8192x8192', '16384x8192x8192', '4096x32768x8192',
         '4096x8192x32768', '12288x12288x4096', '12288x8192x12288', '12288x4096x4096'}
def name(cubin): return os.path.basename(cubin)[:-6]
def tf(sub):
    ok = sub and sub.get('status') == 'ok' and sub.get('verify', {}).get('passed') and sub.get('timing')
    return sub['timing']['tflops'] if ok else None
def fmt(x): return '%7.1f' % x if x else '    n/a'
failed = [r for r in suite if not (r.get('status') == 'ok' and r.get('verify', {}).get('passed'))]
print('# %s, %s, %s: tests/gpu/ceiling.sh (suite %s to pick the best variant; it then timed %s next to the vendors, '
      'one process per shape)' % (dtype, cmps[0].get('gpu', '?') if cmps else '?', cmps[0].get('driver', '?') if cmps else '?',
                                  os.environ['CEIL_SCREEN'], os.environ['CEIL_TIMED']))
print('# %d suite verifications, %d failed%s' % (len(suite), len(failed),
      ''.join('\n#   FAILED %s %dx%dx%d %s: %s' % (name(r.get('cubin', '?')), r['m'], r['n'], r['k'], names.get(name(r.get('cubin', '?')), '?'), r.get('status')) for r in failed)))
print('| shape | ours | slt default | slt search | cublas | ratio | clock MHz | variant |')
print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
logs, bad = [], len(failed)
for c in cmps:
    shape = '%dx%dx%d' % (c['m'], c['n'], c['k'])
    res = c.get('results', {})
    ours = tf(res.get('ours'))
    vend = [tf(res.get(k)) for k in ('cusparselt_default', 'cusparselt_search', 'cublas')]
    best_v = max([v for v in vend if v] or [0])
    ratio = ours / best_v if ours and best_v else None
    if not ours:
        bad += 1
    if ratio and shape in large:
        logs.append(math.log(ratio))
    clock = (res.get('ours') or {}).get('gpu_state', {}).get('sm_clock_median_mhz')
    print('| %s%s | %s | %s | %s | %s | %s | %s | %s %s |' % (shape, ' (large)' if shape in large else '', fmt(ours), fmt(vend[0]), fmt(vend[1]),
          fmt(vend[2]), '%.3f' % ratio if ratio else 'n/a', clock, name(c['cubin']), names.get(name(c['cubin']), '?')))
if logs:
    print('geomean ours/best vendor over %d large shapes: %.3f' % (len(logs), math.exp(sum(logs) / len(logs))))
sys.exit(1 if bad else 0)
PY
  cat "$OUT/ceiling-$dtype.txt"
done
exit $bad
