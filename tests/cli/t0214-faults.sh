#!/usr/bin/env bash
# Injected faults on the simulated backend end up recorded, never as speed-ups: a
# crash, a time-out and a wrong result are DISCARD_* rows; a compile failure is an
# attempts.tsv row that consumes no iteration, and 20 in a row stop the shape with the
# reason; a noise spike is re-measured (candidate and best) and the note says so; a
# result above the physical peak twice is a DISCARD; a baseline that fails stops the
# shape without a best.
set -u
. "$(dirname "$0")/lib.sh"
tune() { "$bin" tune --backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch "$@"; }
key=f16_4096x4096x4096_fs
col() { awk -F'\t' -v it="$2" -v c="$3" 'NR > 2 && $1 == it { print $c }' "$1"; }

t="$tmp/a"
tune --tuning "$t" --iters 9 --sim-faults "crash@2,timeout@3,incorrect@4,compile@5*2,spike@6,abovepeak@7" ||
    fail "tune with faults exited $?"
res="$t/logs/$key/results.tsv" att="$t/logs/$key/attempts.tsv"
[ "$(col "$res" 2 10)" = DISCARD_RUNTIME_CRASH ] || fail "iteration 2: $(col "$res" 2 10)"
[ "$(col "$res" 3 10)" = DISCARD_TIMEOUT ] || fail "iteration 3: $(col "$res" 3 10)"
[ "$(col "$res" 4 10)" = DISCARD_INCORRECT ] || fail "iteration 4: $(col "$res" 4 10)"
for it in 2 3 4; do
    [ -z "$(col "$res" $it 5)" ] || fail "iteration $it records a TFLOPS figure for a failed candidate"
    col "$res" $it 18 | grep -q "injected" || fail "iteration $it: the note does not say why"
done
[ "$(awk -F'\t' 'NR > 2 && $1 == 5' "$att" | wc -l)" -eq 2 ] || fail "attempts.tsv does not hold 2 compile failures for iteration 5"
[ "$(awk -F'\t' 'NR > 2 { print $10 }' "$att" | sort -u)" = COMPILE_ERROR ] || fail "attempts.tsv decisions"
[ $(($(wc -l <"$res") - 2)) -eq 10 ] || fail "compile failures consumed iterations"
awk -F'\t' 'NR > 2 && $10 == "COMPILE_ERROR"' "$res" | grep -q . && fail "a compile failure is in results.tsv"
col "$res" 6 18 | grep -q "candidate and best re-measured" || fail "iteration 6 (spike): $(col "$res" 6 18)"
col "$res" 6 17 | grep -q "tag cand-re" || fail "iteration 6 records the first run, not the re-measurement"
[ "$(col "$res" 7 10)" = DISCARD ] || fail "iteration 7 (above peak): $(col "$res" 7 10)"
col "$res" 7 18 | grep -q "above the physical peak twice" || fail "iteration 7: $(col "$res" 7 18)"

t="$tmp/b"
tune --tuning "$t" --iters 6 --sim-faults "compile@3*25" || fail "tune with 25 compile failures exited $?"
grep -q '"stop_reason": "20 candidates in a row failed to compile at iteration 3"' "$t/state.json" ||
    fail "the compile-failure cap is not the recorded stop reason"
[ $(($(wc -l <"$t/logs/$key/attempts.tsv") - 2)) -eq 20 ] || fail "not 20 attempts"
[ $(($(wc -l <"$t/logs/$key/results.tsv") - 2)) -eq 3 ] || fail "iterations consumed by compile failures"

t="$tmp/c"
tune --tuning "$t" --iters 6 --sim-faults "crash@0" || fail "tune with a crashing baseline exited $?"
[ "$(col "$t/logs/$key/results.tsv" 0 10)" = DISCARD_RUNTIME_CRASH ] || fail "baseline crash not recorded"
grep -q '"stop_reason": "baseline failed (DISCARD_RUNTIME_CRASH)' "$t/state.json" || fail "baseline failure reason"
grep -q '"best": null' "$t/state.json" || fail "a failed baseline left a best"
[ ! -e "$t/kernels" ] || fail "a failed baseline published a kernel"
"$bin" resume --tuning "$t" --quiet || fail "resume"
[ $(($(wc -l <"$t/logs/$key/results.tsv") - 2)) -eq 1 ] || fail "resume reopened a shape without a baseline"

t="$tmp/d"
tune --tuning "$t" --iters 6 --sim-faults "compile@0" || fail "tune with a baseline that does not compile exited $?"
grep -q '"stop_reason": "baseline does not compile' "$t/state.json" || fail "baseline compile failure reason"
[ $(($(wc -l <"$t/logs/$key/results.tsv") - 2)) -eq 0 ] || fail "a baseline that does not compile consumed iteration 0"
echo ok
