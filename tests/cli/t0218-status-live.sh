#!/usr/bin/env bash
# 'croqtuner status' while a shape is being tuned: a live line with the iteration, the
# best, the last decision and an ETA (from the progress file, for a shape whose lock is
# held); --json has the same under "live". Afterwards no live line.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/croq-t0218.XXXXXX") || exit 1
trap 'kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
t="$tmp/t"
key=f16_4096x4096x4096_fs
"$bin" tune --backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch --iters 60 \
    --sim-delay-ms 20 --tuning "$t" & pid=$!
for i in $(seq 1 100); do
    grep -q '"iteration": [1-9]' "$t/progress/$key.json" 2>/dev/null && break
    sleep 0.05
done
st=$("$bin" status --tuning "$t") || fail "status exited $?"
grep -Eq "^  now: $key [A-Z_]+ iteration [0-9]+/60, best [0-9.]+ TFLOPS, last [A-Z_]+, ETA [0-9]+m[0-9]{2}s" <<<"$st" ||
    fail "no live line: $st"
js=$("$bin" status --json --tuning "$t") || fail "status --json exited $?"
grep -q '"live": {' <<<"$js" || fail "status --json has no live object"
grep -q '"eta_s": [0-9]' <<<"$js" || fail "status --json has no ETA"
grep -Eq '"iterations_per_min": [0-9]' <<<"$js" || fail "status --json has no pace"
for part in compile verify time profile other; do
    grep -q "\"$part\": [0-9]" <<<"$js" || fail "status --json has no '$part' in its time split"
done
grep -q '"spent_per_iteration_s": {' <<<"$js" || fail "status --json has no per-iteration split"
grep -Eq "^  pace: [0-9.]+ iterations/min; time: compile [0-9]+ s, verify [0-9]+ s, time [0-9]+ s, profile [0-9]+ s, other [0-9]+ s of [0-9]+ s" \
    <<<"$st" || fail "no pace line: $st"
grep -Eq "^  per iteration: [0-9.]+ s = compile [0-9.]+ \+ verify [0-9.]+ \+ time [0-9.]+ \+ profile [0-9.]+ \+ other [0-9.]+" \
    <<<"$st" || fail "no per-iteration line: $st"
wait $pid || fail "tune exited $?"
pid=
"$bin" status --tuning "$t" | grep -q "now:" && fail "a live line after the run ended"
echo ok
