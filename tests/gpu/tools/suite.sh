#!/usr/bin/env bash
# tests/gpu/tools/suite.sh — the GPU verification suite: every variant of kernels/variants.txt
# (compiled ahead by tests/gpu/tools/prebuild-variants.sh) verified on every typical shape of
# shapes.json plus the reference shape, both dtypes, every output element checked on
# fresh seeded data (croq-runner suite --no-time). Prints one line per variant.
# Usage (GPU machine, repo root): tests/gpu/tools/suite.sh BIN_DIR VARIANT_DIR SHAPES_JSON OUT_DIR
set -u
B=${1:?bin dir}; V=${2:?variant dir}; SHAPES=${3:?shapes.json}; OUT=${4:?out dir}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT"
# Only suite.jsonl, suite.err and the summary go to OUT (the device tool returns at most
# 8 files); the per-shape cubin lists live in a private directory.
LISTS=$(mktemp -d); trap 'rm -rf "$LISTS"' EXIT
ref=$(python3 -c "import json,sys; print('x'.join(map(str, json.load(open(sys.argv[1]))['reference_shape'])))" "$SHAPES")
# DTYPES and SKIP ("dtype:MxNxK ...") let a run cut off by a time limit be completed
for dtype in ${DTYPES:-f16 e4m3}; do
  shapes=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join('x'.join(map(str,s)) for s in d['typical_shapes_for_scratch'][sys.argv[2]]))" "$SHAPES" $dtype)
  for shape in $ref $shapes; do
    case " ${SKIP:-} " in *" $dtype:$shape "*) continue ;; esac
    list=$LISTS/list-$dtype-$shape.txt; : > "$list"
    while IFS='|' read -r name line; do
      "$B/croqtuner" knobs --check --dtype $dtype --shape $shape --set "$line" >/dev/null 2>&1 &&
        echo "$V/$dtype/$name.cubin" >> "$list"
    done < "$V/index.txt"
    "$B/croq-runner" suite --cubins "$list" --dtype $dtype --shape $shape --no-time --seed 7 \
        >> "$OUT/suite.jsonl" 2>> "$OUT/suite.err"
    # progress, so a run cut off by a time limit still says how far it got
    echo "$(date -u +%H:%M:%S) $dtype $shape: $(grep -c . "$list") variants, $(grep -c '"passed":true' "$OUT/suite.jsonl") verified so far"
  done
done
{
echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(date -u +%FT%TZ)"
echo "# command: ${DTYPES:+DTYPES=\"$DTYPES\" }${SKIP:+SKIP=... }${PRIOR:+PRIOR=$PRIOR }tests/gpu/tools/suite.sh $*"
python3 - "$OUT/suite.jsonl" "$V/index.txt" ${PRIOR:-} <<'PY'
import json, sys, collections, os
rows = [json.loads(l) for f in [sys.argv[1]] + sys.argv[3:] for l in open(f) if l.strip()]
names = dict(l.rstrip('\n').split('|', 1) for l in open(sys.argv[2]))
by = collections.defaultdict(list)
for r in rows:
    by[(r.get('dtype'), os.path.basename(r.get('cubin', '?'))[:-6])].append(r)
bad = 0
for (dtype, name), rs in sorted(by.items()):
    ok = [r for r in rs if r.get('status') == 'ok' and r.get('verify', {}).get('passed')]
    worst = max((r.get('verify', {}).get('max_err_over_tol') or 0) for r in rs)
    fails = ['%dx%dx%d:%s' % (r['m'], r['n'], r['k'], r.get('status')) for r in rs if r not in ok]
    bad += len(fails)
    print('%-5s %-4s %2d/%2d shapes verified  max err/tol %.3f  [%s] %s' % (dtype, name, len(ok), len(rs), worst, names.get(name, '?'), ' '.join(fails)))
print('suite: %d verifications, %d failed' % (len(rows), bad))
PY
} 2>&1 | tee "$OUT/suite-summary.txt"
