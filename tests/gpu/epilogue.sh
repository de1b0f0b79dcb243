#!/usr/bin/env bash
# tests/gpu/epilogue.sh — the ABI-2 epilogue (alpha 0.75 with seeded per-row and per-column
# scale vectors in [0.25, 2]: `croq-runner run --scaled`) of every variant of
# kernels/variants.txt, both dtypes, verified on every output element against the reference:
# both epilogues (direct, TMA) and every schedule (baseline, cooperative, ping-pong,
# persistent, clusters, split-K). The shapes' last tiles are partial along M and N (the
# epilogue clamps its scale indices there instead of bounds-checking them, kernels/common.cuh)
# and one is the tuned shape whose epilogue cost the time (docs/library.md). No timing:
# tests/gpu/library.sh times the library's kernels with and without the epilogue.
# Builds nothing: compile the variants on the CPU machine first,
#   tests/gpu/tools/prebuild-variants.sh build/bin build/variants
# Usage (GPU machine, repo root): tests/gpu/epilogue.sh BIN_DIR OUT_DIR
#   env: VARIANTS (prebuilt dir, default BIN_DIR/../variants), SHAPES (MxNxK list, default
#   "1400x776x1024 200x2056x512 1024x8192x1024"), DTYPES ("f16 e4m3").
# Writes OUT_DIR/epilogue.jsonl (one `run` record per variant and shape) and epilogue.err;
# prints one line per variant and dtype, then the count. Exit 1 if any run failed or did
# not verify, 77 without a GPU.
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
V=${VARIANTS:-$B/../variants}
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skip: no NVIDIA GPU here"; exit 77; fi
[ -s "$V/index.txt" ] || { echo "no prebuilt variants in $V (run tests/gpu/tools/prebuild-variants.sh)" >&2; exit 1; }
mkdir -p "$OUT"
J=$OUT/epilogue.jsonl; : > "$J"; : > "$OUT/epilogue.err"
for dtype in ${DTYPES:-f16 e4m3}; do
  for shape in ${SHAPES:-1400x776x1024 200x2056x512 1024x8192x1024}; do
    while IFS='|' read -r name line; do
      "$B/croqtuner" knobs --check --dtype "$dtype" --shape "$shape" --set "$line" >/dev/null 2>&1 || continue
      "$B/croq-runner" run --cubin "$V/$dtype/$name.cubin" --shape "$shape" --scaled --no-time --seed 5 2>> "$OUT/epilogue.err" |
        python3 -c "
import json, sys
r = json.loads(sys.stdin.read() or '{}')  # nothing: the runner died, counted as a failure
r['variant'] = sys.argv[1]; r.setdefault('dtype', sys.argv[2]); r['shape'] = sys.argv[3]
print(json.dumps(r))" "$name" "$dtype" "$shape" >> "$J"
    done < "$V/index.txt"
    echo "$(date -u +%H:%M:%S) $dtype $shape done" >&2
  done
done
python3 - "$J" "$V/index.txt" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
names = dict(l.rstrip('\n').split('|', 1) for l in open(sys.argv[2]))
by = {}
for r in rows:
    by.setdefault((r.get('variant'), r.get('dtype', '?')), []).append(r)
bad = 0
print(f"{'var':4} {'dtype':5} {'shapes':6} {'passed':6} {'max err/tol':11}  config")
for (v, dt), rs in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][0] or '')):
    ok = [r for r in rs if r.get('status') == 'ok' and (r.get('verify') or {}).get('passed')
          and r.get('epilogue')]
    bad += len(rs) - len(ok)
    errs = [(r.get('verify') or {}).get('max_err_over_tol') for r in rs]
    worst = max((e for e in errs if e is not None), default=None)
    why = lambda r: (r.get('status', 'no output') if r.get('status') != 'ok' else
                     'not verified' if not (r.get('verify') or {}).get('passed') else 'unscaled')
    fails = ' '.join(f"{r['shape']}:{why(r)}" for r in rs if r not in ok)
    print(f"{v:4} {dt:5} {len(rs):6} {len(ok):6} {worst if worst is not None else '-':11}  {names.get(v, '?')}"
          + (f"  FAILED {fails}" if fails else ''))
print(f"{len(rows) - bad} of {len(rows)} scaled runs verified on every element")
sys.exit(1 if bad or not rows else 0)
PY
