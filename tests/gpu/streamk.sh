#!/usr/bin/env bash
# tests/gpu/streamk.sh — stream-K (knob stream_k, issue 23 step 3; kernels/streamk.h) on the
# GPU machine, in one call of about 4 minutes:
#   1  build, for f16 and e4m3, two persistent configurations (A: direct epilogue, B: TMA
#      epilogue, today's e4m3 best of 12288x4096x4096) with stream_k=0 and stream_k=1
#      (`croqtuner build --strict`: no spills, sparse MMA in the SASS);
#   2  verify every output element of each on shapes chosen for the decomposition's edge
#      cases (VERIFY_SHAPES: partial tiles along M and N, fewer tiles than SMs so every tile
#      is split, 2 tiles over 132 CTAs so one owner waits for ~65 partials, one k-iteration
#      per tile), with `croq-runner suite --no-time`, and with the scaled epilogue
#      (`run --scaled`) for the stream-K ones;
#   3  time stream_k 0 against 1 interleaved in one worker (`croq-runner serve`, op `ladder`:
#      ROUNDS rounds of one trial of every kernel, each verified before and after, so the
#      hundreds of launches between reuse one workspace without a memset: the kernel traps
#      if a launch finds a flag not reset) on the timed shapes (SHAPES: partial last waves);
#   4  compute-sanitizer memcheck and racecheck on one small stream-K launch (and the same
#      configuration without stream-K, for racecheck's baseline: it does not model the
#      TMA/mbarrier async proxy, so what counts is no hazard beyond the baseline's).
# Prints a table last: per dtype, shape and pair, tiles and waves on the SMs, the median ms
# of both, the paired speedup (median over rounds of stream_k=0 / stream_k=1 trial time).
# Usage (GPU machine, repo root): tests/gpu/streamk.sh BIN_DIR OUT_DIR
#   env: SHAPES (timed; default "12288x4096x4096 4096x1024x8192 1024x8192x1024 2048x8192x4096"),
#   VERIFY_SHAPES, DTYPES ("f16 e4m3"), ROUNDS (12), SAN_SHAPE (256x256x1024: 2 tiles of 16
#   k-iterations over 32 CTAs, so both owners wait for 15 partials), SAN_BUDGET (200).
# Writes OUT_DIR/streamk-verify.jsonl, streamk-ladder-<dtype>-<shape>.jsonl, sanitizer logs,
# streamk.err and streamk.txt (the table). Exit 1 on any build, verification, fault, hang
# or sanitizer error; 77 without a GPU. Speedups below 1 are reported, not failures.
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
SHAPES=${SHAPES:-12288x4096x4096 4096x1024x8192 1024x8192x1024 2048x8192x4096}
VERIFY_SHAPES=${VERIFY_SHAPES:-1400x776x1024 200x2056x512 2048x2048x2048 256x256x8192 4096x4096x128 128x256x1024}
DTYPES=${DTYPES:-f16 e4m3}; ROUNDS=${ROUNDS:-12}; SAN_SHAPE=${SAN_SHAPE:-256x256x1024}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
[ -n "${CROQ_CUOBJDUMP:-}" ] || export CROQ_CUOBJDUMP=$(command -v cuobjdump)
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skip: no NVIDIA GPU here"; exit 77; fi
mkdir -p "$OUT"
W=$(mktemp -d /tmp/croq-streamk.XXXXXX); trap 'rm -rf "$W"' EXIT
export CROQ_CACHE_DIR=$W/cache
ERR=$OUT/streamk.err; : > "$ERR"
bad=0
fail() { echo "FAIL: $*" | tee -a "$ERR" >&2; bad=1; }
t0=$(date +%s)
stamp() { echo "$(date -u +%H:%M:%S) (+$(( $(date +%s) - t0 )) s) $*" >&2; }

# ---- 1: build ------------------------------------------------------------------------
# NAME|SETS (e4m3 doubles tile_k: 128x256x128). A0/A1 and B0/B1 differ only in stream_k.
PAIRS="A|persistent=1 group=8 meta_path=0 stages=4
B|persistent=1 group=8 meta_path=0 epilogue=1 stages=3"
for dtype in $DTYPES; do
  while IFS='|' read -r p sets; do
    for sk in 0 1; do
      ( out=$("$B/croqtuner" build --strict --dtype $dtype --set "$sets stream_k=$sk" --out "$W/$dtype" \
              --name $p$sk 2>&1) || { echo "FAIL: build $dtype $p$sk ($sets stream_k=$sk): $out" >> "$ERR"; exit 1; }
        echo "$dtype $p$sk: $(grep -E '^ptxas' <<<"$out")" >&2 ) &
    done
  done <<<"$PAIRS"
done
wait
for dtype in $DTYPES; do for k in A0 A1 B0 B1; do
  [ -s "$W/$dtype/$k.cubin" ] || fail "no cubin $dtype $k (build failed: $ERR)"
done; done
[ $bad = 0 ] || { cat "$ERR" >&2; exit 1; }
stamp "built $(for d in $DTYPES; do ls "$W/$d"/*.cubin; done | wc -l) cubins"

# ---- 2: verify every element on the edge-case shapes ------------------------------------
V=$OUT/streamk-verify.jsonl; : > "$V"
for dtype in $DTYPES; do
  printf '%s\n' "$W/$dtype/A0.cubin" "$W/$dtype/A1.cubin" "$W/$dtype/B0.cubin" "$W/$dtype/B1.cubin" > "$W/$dtype.list"
  for shape in $VERIFY_SHAPES; do
    timeout 300 "$B/croq-runner" suite --cubins "$W/$dtype.list" --dtype $dtype --shape $shape --seed 9 --no-time \
        2>> "$ERR" | python3 -c "
import json, sys
for l in sys.stdin:
    if l.strip():
        r = json.loads(l); r['shape'] = sys.argv[1]; r['check'] = 'suite'; print(json.dumps(r))" $shape >> "$V" ||
      fail "$dtype $shape: suite exited non-zero or hung (timeout 300 s)"
    for k in A1 B1; do
      timeout 120 "$B/croq-runner" run --cubin "$W/$dtype/$k.cubin" --shape $shape --scaled --no-time --seed 5 \
          2>> "$ERR" | python3 -c "
import json, sys
r = json.loads(sys.stdin.read() or '{}'); r['shape'] = sys.argv[1]; r['check'] = 'scaled'; r['cubin'] = sys.argv[2]
print(json.dumps(r))" $shape "$W/$dtype/$k.cubin" >> "$V" || fail "$dtype $shape $k --scaled: exited non-zero or hung"
    done
  done
  stamp "$dtype: verified on $VERIFY_SHAPES"
done
python3 - "$V" <<'PY' || bad=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bad = [r for r in rows if r.get('status') != 'ok' or not (r.get('verify') or {}).get('passed')]
for r in bad:
    v = r.get('verify') or {}
    print("FAIL: verify %s %s %s %s: status %s, %s mismatches, first %s" % (
        r.get('check'), r.get('dtype'), r.get('shape'), (r.get('cubin') or '?').rsplit('/', 1)[-1],
        r.get('status'), v.get('mismatches'), v.get('first_mismatch') or r.get('error')), file=sys.stderr)
print("verify: %d of %d runs passed on every element" % (len(rows) - len(bad), len(rows)), file=sys.stderr)
sys.exit(1 if bad or not rows else 0)
PY

# ---- 3: stream_k 0 vs 1, interleaved in one worker ---------------------------------------
for dtype in $DTYPES; do
  for shape in $SHAPES; do
    L=$OUT/streamk-ladder-$dtype-$shape.jsonl
    { printf '{"op":"ladder","id":1,"rounds":%d,"cubins":["%s","%s","%s","%s"]}\n' "$ROUNDS" \
        "$W/$dtype/A0.cubin" "$W/$dtype/A1.cubin" "$W/$dtype/B0.cubin" "$W/$dtype/B1.cubin"
      echo '{"op":"quit"}'; } > "$W/req"
    timeout 240 "$B/croq-runner" serve --dtype $dtype --shape $shape --seed 7 < "$W/req" > "$L" 2>> "$ERR" ||
      fail "$dtype $shape: serve exited non-zero or hung (timeout 240 s)"
    stamp "$dtype $shape: ladder done"
  done
done

# ---- 4: compute-sanitizer on one small launch --------------------------------------------
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
san_note=""
if [ -x "$SAN" ]; then
  d=$(echo $DTYPES | cut -d' ' -f1)
  : > "$W/san.txt"
  # stream-K first; the stream_k=0 baselines only while the call has time left (SAN_BUDGET
  # seconds since the start, default 200), each run at most 90 s
  for run in "memcheck A1" "racecheck A1" "memcheck A0" "racecheck A0"; do
    set -- $run; tool=$1; k=$2; log=$OUT/streamk-$tool-$k.log
    if [ $k = A0 ] && [ $(( $(date +%s) - t0 )) -gt ${SAN_BUDGET:-200} ]; then
      echo "$tool $k: skipped (out of time)" >> "$W/san.txt"; continue
    fi
    timeout 90 "$SAN" --tool $tool --error-exitcode 3 "$B/croq-runner" run --cubin "$W/$d/$k.cubin" \
        --shape $SAN_SHAPE --no-time --seed 3 > "$log" 2>&1
    rc=$?
    n=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
    h=$(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | grep -Eo '[0-9]+' | head -1)
    echo "$tool $k: rc=$rc errors=${n:-?} hazards=${h:--}" >> "$W/san.txt"
    [ $rc = 124 ] && fail "$tool $k ($d $SAN_SHAPE): did not finish in 90 s (a slow tool: compare A0; or one that serializes CTAs, so an owner waits forever), see $log"
    grep -q '"passed": *true' "$log" || [ $rc = 124 ] || fail "$tool $k: the run under $tool did not verify (see $log)"
    stamp "$tool $k done (rc $rc)"
  done
  cat "$W/san.txt" >&2
  m1=$(awk '$1=="memcheck" && $2=="A1:"' "$W/san.txt"); m0=$(awk '$1=="memcheck" && $2=="A0:"' "$W/san.txt")
  grep -q 'errors=0' <<<"$m1" || fail "memcheck stream_k=1: $m1"
  grep -q 'errors=0\|skipped' <<<"$m0" || fail "memcheck stream_k=0: $m0"
  # racecheck prints hazards, not errors (the errors field stays '?'): compare those
  r1=$(awk '$1=="racecheck" && $2=="A1:" {sub("hazards=","",$5); print $5}' "$W/san.txt")
  r0=$(awk '$1=="racecheck" && $2=="A0:" {sub("hazards=","",$5); print $5}' "$W/san.txt")
  # no hazard, or no more than the baseline's (racecheck does not model the async proxy)
  [ "${r1:-x}" = 0 ] || { [[ "${r1:-x}" =~ ^[0-9]+$ && "${r0:-y}" =~ ^[0-9]+$ ]] && [ "$r1" -le "$r0" ]; } ||
    fail "racecheck: stream_k=1 reports ${r1:-?} hazards, stream_k=0 ${r0:-not run} (logs in $OUT)"
  san_note="sanitizer ($d $SAN_SHAPE): $(tr '\n' ';' < "$W/san.txt")"
else
  fail "no compute-sanitizer ($SAN)"
fi

# ---- the table ---------------------------------------------------------------------------
python3 - "$OUT" "$DTYPES" "$SHAPES" "$san_note" <<'PY' > "$OUT/streamk.txt" || bad=1
import json, os, statistics as st, sys
out, dtypes, shapes, san = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4]
SMS = 132
tiles_of = lambda m, n, tm, tn: -(-m // tm) * -(-n // tn)
bad = 0
gpu = '?'
for d in dtypes:
    for s in shapes:
        path = os.path.join(out, f"streamk-ladder-{d}-{s}.jsonl")
        for l in (open(path) if os.path.exists(path) else []):
            gpu = json.loads(l).get('gpu') or gpu
print(f"stream-K vs persistent, interleaved ladder (one worker), {gpu}; speedup = median over rounds of t(sk=0)/t(sk=1)")
print(f"{'dtype':5} {'shape':16} {'tiles':>5} {'waves':>6} {'pair':4} {'ms sk=0':>8} {'ms sk=1':>8} "
      f"{'TF sk=0':>8} {'TF sk=1':>8} {'speedup':>7} {'MHz':>5}")
for d in dtypes:
    for s in shapes:
        path = os.path.join(out, f"streamk-ladder-{d}-{s}.jsonl")
        rep = None
        for l in (open(path) if os.path.exists(path) else []):
            j = json.loads(l)
            if j.get('ladder') is not None or j.get('id') == 1:
                rep = j
        if not rep or rep.get('status') != 'ok':
            print(f"{d:5} {s:16} FAILED: {(rep or {}).get('status', 'no reply')} {(rep or {}).get('error', '')}")
            bad = 1
            continue
        ks = rep['ladder']['kernels']
        for k in ks:
            for v in ('verify_first', 'verify'):
                if not (k.get(v) or {}).get('passed'):
                    print(f"{d:5} {s:16} FAILED: {os.path.basename(k['cubin'])} {v} did not pass")
                    bad = 1
        m, n, _ = map(int, s.split('x'))
        for i, pair in ((0, 'A'), (2, 'B')):
            k0, k1 = ks[i], ks[i + 1]
            t = tiles_of(m, n, k0['abi']['tile_m'], k0['abi']['tile_n'])
            r = st.median(a / b for a, b in zip(k0['trial_ms'], k1['trial_ms']))
            mhz = st.median(c for c in k0['sm_clock_mhz'] + k1['sm_clock_mhz'] if c) if any(
                k0['sm_clock_mhz'] + k1['sm_clock_mhz']) else 0
            print(f"{d:5} {s:16} {t:5} {t / SMS:6.2f} {pair:4} {k0['median_ms']:8.4f} {k1['median_ms']:8.4f} "
                  f"{k0['tflops']:8.1f} {k1['tflops']:8.1f} {r:7.3f} {mhz:5.0f}")
print("A = persistent=1 group=8 meta_path=0 stages=4; B = the same with epilogue=1 stages=3; e4m3 tile_k 128")
if san:
    print(san)
sys.exit(bad)
PY
cat "$OUT/streamk.txt"
[ -s "$ERR" ] && { echo "--- $ERR (tail)"; tail -n 15 "$ERR"; }
stamp "done"
[ $bad = 0 ] && echo "streamk.sh: PASS" || echo "streamk.sh: FAIL"
exit $bad
