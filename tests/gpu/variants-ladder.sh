#!/usr/bin/env bash
# tests/gpu/variants-ladder.sh — race prebuilt kernel variants against each other, interleaved,
# on a few shapes (issue 23: is a kernel change, or a structure, faster than today's best?).
# Every set is a directory written by tests/gpu/tools/prebuild-variants.sh (index.txt and
# <dtype>/vNN.cubin), e.g. one built before and one after a change to kernels/. Per dtype and
# shape, every variant of every set that the knob rules accept for the shape (croqtuner knobs
# --check) goes into one `croq-runner serve` ladder: each verified on every element, then
# ROUNDS rounds of one trial of each kernel in rotating order, each output verified again.
# With VENDORS=1 the fastest one is then timed beside cuSPARSELt (default and searched) and
# cuBLAS by `croq-runner compare` (interleaved) on the same shape.
# Prints one table per shape, last: each kernel's median TFLOPS and median SM clock, and its
# paired ratio to the REF kernel (median over rounds of ref trial time / its trial time, and
# the lowest and highest round), so > 1 is faster than REF.
# Usage (GPU machine, repo root): tests/gpu/variants-ladder.sh BIN_DIR OUT_DIR SET_DIR...
#   env: DTYPES ("e4m3"), SHAPES ("4096x8192x32768 12288x12288x12288"), ROUNDS (12),
#   REF (the reference kernel, SET:vNN of the first set's name, default the first kernel),
#   VENDORS (0), ITERS/TRIALS (compare, 200/10: the paired ratios need at least 6 rounds), SKIP (an extended regex: variants whose line
#   matches are left out, e.g. 'stream_k=1').
# Writes OUT_DIR/ladder-<dtype>-<shape>.jsonl, compare-<dtype>-<shape>.json, ladder.err and
# ladder.txt (the tables). Exit 1 when a kernel fails verification or the worker fails.
set -u
B=${1:?bin dir}; OUT=${2:?out dir}; shift 2
[ $# -ge 1 ] || { echo "usage: $0 BIN_DIR OUT_DIR SET_DIR..." >&2; exit 2; }
DTYPES=${DTYPES:-e4m3}; SHAPES=${SHAPES:-4096x8192x32768 12288x12288x12288}; ROUNDS=${ROUNDS:-12}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skip: no NVIDIA GPU here"; exit 77; fi
mkdir -p "$OUT"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
ERR=$OUT/ladder.err; : > "$ERR"; : > "$OUT/ladder.txt"; : > "$OUT/summary.tsv"
bad=0
for dtype in $DTYPES; do
  for shape in $SHAPES; do
    : > "$W/kernels.txt"
    for set in "$@"; do
      [ -s "$set/index.txt" ] || { echo "no index.txt in $set" >&2; exit 2; }
      while IFS='|' read -r name line; do
        [ -n "${SKIP:-}" ] && grep -Eq -- "$SKIP" <<<"$line" && continue
        rc=0; "$B/croqtuner" knobs --check --dtype $dtype --shape $shape --set "$line" >/dev/null 2>&1 || rc=$?
        [ $rc -le 1 ] || { echo "$set: $name is not a configuration ($line)" >&2; exit 2; }
        [ $rc = 0 ] && printf '%s|%s|%s\n' "$(basename "$set"):$name" "$set/$dtype/$name.cubin" "$line" >> "$W/kernels.txt"
      done < "$set/index.txt"
    done
    n=$(grep -c . "$W/kernels.txt")
    [ "$n" -ge 1 ] && [ "$n" -le 16 ] || { echo "$dtype $shape: $n kernels (1..16 per ladder)" >&2; bad=1; continue; }
    L=$OUT/ladder-$dtype-$shape.jsonl
    python3 - "$W/kernels.txt" "$ROUNDS" > "$W/req" <<'PY'
import json, sys
cubins = [l.split('|')[1] for l in open(sys.argv[1]) if l.strip()]
print(json.dumps({"op": "ladder", "id": 1, "rounds": int(sys.argv[2]), "cubins": cubins}))
print(json.dumps({"op": "quit"}))
PY
    timeout 300 "$B/croq-runner" serve --dtype $dtype --shape $shape --seed 7 < "$W/req" > "$L" 2>> "$ERR" || {
      echo "FAIL: $dtype $shape: serve exited non-zero or hung" | tee -a "$ERR" >&2; bad=1; }
    best=$(python3 - "$L" "$W/kernels.txt" "$dtype" "$shape" "${REF:-}" "$OUT/ladder.txt" <<'PY'
import json, sys, statistics as st
reply = next((r for r in (json.loads(l) for l in open(sys.argv[1]) if l.strip()) if r.get('op') == 'ladder'), None)
ks = [l.rstrip('\n').split('|', 2) for l in open(sys.argv[2]) if l.strip()]
dtype, shape, ref = sys.argv[3], sys.argv[4], sys.argv[5]
table = open(sys.argv[6], 'a')
def show(*a):
    print(*a, file=table)
if not reply or reply.get('status') != 'ok':
    failed = (reply or {}).get('failed')
    show('## %s %s: ladder failed%s: %s' % (dtype, shape, '' if failed is None else ' on %s' % ks[failed][0],
                                            (reply or {}).get('error', 'no reply')))
    sys.exit(1)
rows = reply['ladder']['kernels']
if ref and not any(k[0] == ref for k in ks):
    show('## %s %s: REF %s is not among this shape\'s kernels' % (dtype, shape, ref))
    sys.exit(1)
r0 = next((i for i, k in enumerate(ks) if k[0] == ref), 0)
show('## %s %s, %s, %d rounds (ratio: paired, ref %s)' % (dtype, shape, reply.get('gpu', '?'),
     reply['ladder']['rounds'], ks[r0][0]))
show('| kernel | TFLOPS | clock MHz | ratio to ref | lo | hi | config |')
show('| --- | ---: | ---: | ---: | ---: | ---: | --- |')
out = []
for i, (k, row) in enumerate(zip(ks, rows)):
    ratios = [a / b for a, b in zip(rows[r0]['trial_ms'], row['trial_ms'])]
    clk = [c for c in row['sm_clock_mhz'] if c]
    out.append((row['tflops'], k[0], st.median(clk) if clk else 0, st.median(ratios), min(ratios), max(ratios), k[2], k[1]))
for t, name, clk, med, lo, hi, cfg, _ in sorted(out, reverse=True):
    show('| %s | %.1f | %.0f | %.3f | %.3f | %.3f | %s |' % (name, t, clk, med, lo, hi, cfg))
show()
print(max(out)[7])
PY
    ) || bad=1
    if [ "${VENDORS:-0}" = 1 ] && [ -n "$best" ]; then
      "$B/croq-runner" compare --cubin "$best" --dtype $dtype --shape $shape --seed 8 --iters ${ITERS:-200} \
          --trials ${TRIALS:-10} > "$OUT/compare-$dtype-$shape.json" 2>> "$ERR"
      python3 - "$OUT/compare-$dtype-$shape.json" "$best" "$W/kernels.txt" >> "$OUT/summary.tsv" <<'PY' || bad=1
import json, sys
r = json.loads(open(sys.argv[1]).read() or '{}')
res = r.get('results', {})
cfg = next((l.rstrip('\n').split('|', 2)[2] for l in open(sys.argv[3]) if l.split('|')[1] == sys.argv[2]), '?')
def tf(k):
    s = res.get(k) or {}
    ok = s.get('status') == 'ok' and (s.get('verify') or {}).get('passed') and s.get('timing')
    return s['timing']['tflops'] if ok else 0.0
paired = r.get('paired') or {}
def pm(k):
    return (paired.get('ours_over_' + k) or {}).get('median') or 0.0
def clk(k):  # the median SM clock of the subject's trials (NVML, sampled while each ran)
    return ((res.get(k) or {}).get('gpu_state') or {}).get('sm_clock_median_mhz') or 0
if not tf('ours'):
    sys.exit(1)  # no row: the table and the geomean are of verified, timed kernels only
print('\t'.join(str(x) for x in (r.get('dtype', '?'), '%dx%dx%d' % (r.get('m', 0), r.get('n', 0), r.get('k', 0)),
      tf('ours'), tf('cusparselt_default'), tf('cusparselt_search'), tf('cublas'),
      pm('cusparselt_default'), pm('cusparselt_search'), pm('cublas'),
      clk('ours'), clk('cusparselt_default'), clk('cusparselt_search'), clk('cublas'), r.get('gpu', '?'), cfg)))
PY
    fi
    echo "$(date -u +%H:%M:%S) $dtype $shape: $n kernels" >&2
  done
done
# The vendors' table: per shape, ours (the ladder's fastest, timed again in compare) and each
# vendor, and ours / best vendor as the paired median over compare's rounds (per round ours /
# that vendor; the best vendor is the one with the most TFLOPS); geomean per dtype. Beside
# it the median SM clock of ours' and the best vendor's trials in those same interleaved
# rounds, and the cycles per product ours / best vendor (time x clock): under the power cap
# a kernel can lose at the clock its own draw allows while it needs fewer cycles
# (bench/results/profile-vs-vendor-h100.md).
[ -s "$OUT/summary.tsv" ] && python3 - "$OUT/summary.tsv" >> "$OUT/ladder.txt" <<'PY'
import sys, math
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if l.strip()]
print('## ours (fastest of the ladder) beside the vendors: croq-runner compare, interleaved, %s' % rows[0][13])
print('| dtype | shape | ours | slt default | slt search | cublas | ours / best vendor (paired) | clock MHz ours / best vendor | cycles ours / best vendor | config |')
print('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
logs = {}
for d, shape, o, sd, ss, cb, pd, ps, pc, co, cd, cs, cc, gpu, cfg in rows:
    v = [float(sd), float(ss), float(cb)]
    best = max(range(3), key=lambda i: v[i])
    vclk = int((cd, cs, cc)[best])
    cycles = '%.3f' % (v[best] / float(o) * int(co) / vclk) if int(co) > 0 and vclk > 0 and float(o) > 0 else '-'
    clk = '%s / %s' % (co, vclk if vclk else '-')
    ratio = float((pd, ps, pc)[best])
    mark = ''
    if ratio <= 0 and v[best] > 0:  # compare gave no paired statistic: the ratio of medians
        ratio, mark = float(o) / v[best], ' (medians)'
    if ratio > 0:
        logs.setdefault(d, []).append(math.log(ratio))
    print('| %s | %s | %.1f | %.1f | %.1f | %.1f | %.3f%s | %s | %s | %s |' % (d, shape, float(o), v[0], v[1], v[2], ratio, mark, clk, cycles, cfg))
for d, l in logs.items():
    print('geomean %s ours / best vendor over %d shapes: %.3f (min %.3f)' % (d, len(l), math.exp(sum(l) / len(l)), math.exp(min(l))))
PY
cat "$OUT/ladder.txt"
exit $bad
