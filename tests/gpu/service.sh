#!/usr/bin/env bash
# tests/gpu/service.sh — on the GPU machine: the measurement service (`croq-runner serve`,
# src/measure/service.h) and paired timing (docs/runner-protocol.md, "serve").
#   a  the fault injections of the engine's GPU path (trap, mbarrier hang, out-of-bounds
#      store) in a real `tune --backend gpu`: each candidate recorded with its reason, the
#      worker restarted, the loop going on to the end; the run audits clean; then wrong
#      kernels (a k tile skipped, one element wrong, a metadata bit flipped) each a
#      DISCARD_INCORRECT
#   b  one kernel paired against itself 20 times at f16 4096x8192x8192 in one worker:
#      the speedup's median, interval and warm-up per measurement (target: within +-1%)
#   c  one kernel timed with warm and with cold L2 at f16 1024x1024x4096 (3 of each)
#   d  150-iteration `tune --mode scratch` of f16 4096x8192x8192 and of f16 1024x1024x4096
#      (each cut at LIMIT_D seconds, default 230, and all of part d within TOTAL_D seconds of
#      the script's start, default 570, so one device call of 600 s holds it; SHAPES_D="..."
#      picks the shapes): wall time, iterations, the time split
# Usage (GPU machine, repo root): tests/gpu/service.sh BIN_DIR OUT_DIR [PARTS]  (PARTS
# default "abc"; "d" separately: it needs most of a device call). Prints a table last.
set -u
B=${1:?bin dir}; OUT=${2:?out dir}; PARTS=${3:-abc}
export PATH=/usr/local/cuda/bin:$PATH CROQ_CUOBJDUMP=${CROQ_CUOBJDUMP:-$(command -v cuobjdump)}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
W=$(mktemp -d /tmp/croq-service.XXXXXX)   # builds and tuning dirs stay out of OUT
export CROQ_CACHE_DIR=$W/cache
mkdir -p "$OUT"
SUM=$OUT/summary.txt; : > "$SUM"
say() { echo "$*" | tee -a "$SUM"; }
t0=$(date +%s)

build() { # NAME SHAPE SETS... -> cubin path on stdout
    local name=$1 shape=$2; shift 2
    local args=(); for s in "$@"; do args+=(--set "$s"); done
    "$B/croqtuner" build --dtype f16 --shape "$shape" "${args[@]}" --out "$W/$name" >/dev/null 2>>"$OUT/stderr.txt" ||
        "$B/croqtuner" build --dtype f16 --shape "$shape" --out "$W/$name" >/dev/null 2>>"$OUT/stderr.txt" || return 1
    echo "$W/$name/kernel.cubin"
}

if [[ $PARTS == *a* ]]; then
    T=$W/tune-faults; key=f16_1024x1024x1024_fs; s=$(date +%s)
    "$B/croqtuner" tune --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 8 --backend gpu --tuning "$T" \
        --inject-fault trap@2,hang@3,oob@4 --quiet > "$OUT/faults-tune.log" 2>&1
    rc=$?
    cp "$T/logs/$key/results.tsv" "$OUT/faults-results.tsv" 2>/dev/null
    say "== a: tune with trap@2 hang@3 oob@4: rc=$rc, $(( $(date +%s) - s )) s"
    awk -F'\t' 'NR > 2 { printf "  iter %s %-22s %s\n", $1, $10, substr($18, 1, 110) }' "$OUT/faults-results.tsv" | tee -a "$SUM"
    d() { awk -F'\t' -v it="$1" 'NR > 2 && $1 == it { print $10 }' "$OUT/faults-results.tsv"; }
    ok=1
    [ "$(d 2)" = DISCARD_RUNTIME_CRASH ] || ok=0
    [ "$(d 3)" = DISCARD_TIMEOUT ] || ok=0
    [[ "$(d 4)" == DISCARD_RUNTIME_CRASH || "$(d 4)" == DISCARD_INCORRECT ]] || ok=0
    [ "$(awk 'NR > 2' "$OUT/faults-results.tsv" | wc -l)" -eq 9 ] || ok=0
    audit=$("$B/croqtuner" audit --tuning "$T" 2>&1); arc=$?
    say "  faults recorded with reasons and 9 rows: $([ $ok = 1 ] && echo PASS || echo FAIL); audit rc=$arc: $audit"
    # wrong kernels: one k tile left out, one element off, one metadata bit flipped
    T=$W/tune-wrong; s=$(date +%s)
    "$B/croqtuner" tune --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 5 --backend gpu --tuning "$T" \
        --inject-fault skipk@2,elem@3,meta@4 --quiet > "$OUT/wrong-tune.log" 2>&1
    rc=$?
    cp "$T/logs/$key/results.tsv" "$OUT/wrong-results.tsv" 2>/dev/null
    say "== a: tune with skipk@2 elem@3 meta@4: rc=$rc, $(( $(date +%s) - s )) s"
    awk -F'\t' 'NR > 2 { printf "  iter %s %-22s %s\n", $1, $10, substr($18, 1, 110) }' "$OUT/wrong-results.tsv" | tee -a "$SUM"
    ok=1
    for it in 2 3 4; do
        [ "$(awk -F'\t' -v it=$it 'NR > 2 && $1 == it { print $10 }' "$OUT/wrong-results.tsv")" = DISCARD_INCORRECT ] || ok=0
    done
    [ "$(awk 'NR > 2' "$OUT/wrong-results.tsv" | wc -l)" -eq 6 ] || ok=0
    audit=$("$B/croqtuner" audit --tuning "$T" 2>&1); arc=$?
    say "  wrong kernels rejected (DISCARD_INCORRECT) and 6 rows: $([ $ok = 1 ] && echo PASS || echo FAIL); audit rc=$arc"
fi

serve() { # SHAPE REQUESTS-FILE REPLIES-FILE
    "$B/croq-runner" serve --dtype f16 --shape "$1" < "$2" > "$3" 2>>"$OUT/stderr.txt"
}

if [[ $PARTS == *b* ]]; then
    k=$(build self 4096x8192x8192 group=8 meta_path=0 stages=5 cluster_m=2) || say "== b: build failed"
    { echo "{\"op\":\"set_incumbent\",\"cubin\":\"$k\"}"
      for i in $(seq 1 20); do echo "{\"op\":\"measure\",\"id\":$i,\"cubin\":\"$k\",\"paired\":true}"; done
      echo '{"op":"quit"}'; } > "$W/self.req"
    s=$(date +%s.%N); serve 4096x8192x8192 "$W/self.req" "$OUT/self-pairs.jsonl"
    el=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$s" "$(date +%s.%N)")
    say "== b: 20 paired measurements of one kernel against itself, f16 4096x8192x8192 ($el s in one worker)"
    python3 - "$OUT/self-pairs.jsonl" <<'PY' | tee -a "$SUM"
import json, sys, statistics as st
med = []
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j.get("op") != "measure": continue
    if j["status"] != "ok": print("  id %s: %s %s" % (j.get("id"), j["status"], j.get("error", ""))); continue
    p, w, t = j["paired"], j["warmup"], j["timing"]
    med.append(p["ratio_median"])
    print("  id %2d: ratio %.4f [%.4f, %.4f]  cand %.1f TFLOPS  inc %.1f  iters %d/%d  warm-up %.0f ms %s %s MHz %s W" % (
        j["id"], p["ratio_median"], p["ratio_lo"], p["ratio_hi"], t["tflops"], p["incumbent_tflops"],
        p["candidate_iters"], p["incumbent_iters"], w["ms"], "steady" if w["steady"] else "NOT steady",
        w["sm_clock_mhz"], w["power_w"]))
if med:
    print("  ratio medians: median %.4f, min %.4f, max %.4f, spread %.2f%% -> %s" % (
        st.median(med), min(med), max(med), (max(med) - min(med)) * 100,
        "PASS" if max(abs(m - 1) for m in med) <= 0.01 else "FAIL (target +-1%)"))
PY
fi

if [[ $PARTS == *c* ]]; then
    k=$(build l2 1024x1024x4096) || say "== c: build failed"
    { for i in 1 2 3; do
        echo "{\"op\":\"measure\",\"id\":$((2*i-1)),\"cubin\":\"$k\",\"l2\":\"warm\"}"
        echo "{\"op\":\"measure\",\"id\":$((2*i)),\"cubin\":\"$k\",\"l2\":\"cold\"}"; done
      echo '{"op":"quit"}'; } > "$W/l2.req"
    serve 1024x1024x4096 "$W/l2.req" "$OUT/l2.jsonl"
    say "== c: one kernel, warm vs cold L2, f16 1024x1024x4096"
    python3 - "$OUT/l2.jsonl" <<'PY' | tee -a "$SUM"
import json, sys
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j.get("op") != "measure": continue
    if j["status"] != "ok": print("  id %s: %s %s" % (j.get("id"), j["status"], j.get("error", ""))); continue
    t, r = j["timing"], j.get("rotation", {})
    print("  %-4s %8.1f TFLOPS  %.5f ms  spread %.2f%%  iters %d  rotation %s copies (L2 %s B)" % (
        j["l2"], t["tflops"], t["median_ms"], t["spread_pct"], t["iters"], r.get("copies", "-"), r.get("l2_bytes", "-")))
PY
fi

if [[ $PARTS == *d* ]]; then
    say "== d: 150-iteration tune --mode scratch (each cut at ${LIMIT_D:-230} s, all within ${TOTAL_D:-570} s)"
    for shape in ${SHAPES_D:-4096x8192x8192 1024x1024x4096}; do
        T=$W/tune-$shape; key=f16_${shape}_fs; s=$(date +%s)
        # the device call ends at 600 s: a later shape gets what is left of TOTAL_D, so the
        # summary of every shape is written before the call is cut
        lim=$(( ${TOTAL_D:-570} - (s - t0) )); [ "$lim" -gt "${LIMIT_D:-230}" ] && lim=${LIMIT_D:-230}
        [ "$lim" -ge 30 ] || { say "  $shape: not run (${lim} s left of TOTAL_D)"; continue; }
        timeout "$lim" "$B/croqtuner" tune --dtype f16 --shape "$shape" --mode scratch --iters 150 \
            --backend gpu --tuning "$T" --quiet > "$OUT/tune-$shape.log" 2>&1
        rc=$?
        rows=$(( $(cat "$T/logs/$key/results.tsv" 2>/dev/null | wc -l) - 2 ))
        say "  $shape: rc=$rc, $(( $(date +%s) - s )) s, $rows rows, best $(awk -F'\t' 'END { print $11 }' "$T/logs/$key/results.tsv") TFLOPS"
        python3 - "$T/progress/$key.json" <<'PY' | tee -a "$SUM"
import json, sys
p = json.load(open(sys.argv[1])); s = p["spent_s"]; i = p.get("spent_per_iteration_s") or {}
print("    spent: " + ", ".join("%s %.0f s" % (k, s[k]) for k in ("compile", "verify", "time", "profile", "other", "elapsed")))
print("    per iteration: " + ", ".join("%s %.2f s" % (k, i[k]) for k in ("total", "compile", "verify", "time", "profile", "other") if k in i))
PY
        cut -f1,5,10,11,18 "$T/logs/$key/results.tsv" | tail -n +3 | awk -F'\t' '$3 == "KEEP" || $3 == "BASELINE"' \
            > "$OUT/keeps-$shape.tsv"
    done
fi
say "== total $(( $(date +%s) - t0 )) s"
rm -rf "$W"
cat "$SUM"
