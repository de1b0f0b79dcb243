#!/usr/bin/env bash
# Two processes tuning different shapes in one tuning directory at the same time do
# not touch each other's state (state.json is a locked read-modify-write): both end
# with exactly what each would have produced alone. A second process on the same shape
# is refused.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/croq-t0217.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
a=(--backend sim --quiet --dtype f16 --shape 2048x4096x4096 --mode scratch --iters 40)
b=(--backend sim --quiet --dtype e4m3 --shape 4096x4096x2048 --mode scratch --iters 40)
norm() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/T/g' "$1"; }

"$bin" tune "${a[@]}" --tuning "$tmp/alone" || fail "alone a"
"$bin" tune "${b[@]}" --tuning "$tmp/alone" || fail "alone b"
"$bin" tune "${a[@]}" --tuning "$tmp/both" --sim-delay-ms 20 & pa=$!
"$bin" tune "${b[@]}" --tuning "$tmp/both" --sim-delay-ms 20 & pb=$!
sleep 0.2
err=$("$bin" tune "${a[@]}" --tuning "$tmp/both" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "is locked by pid $pa: another croqtuner process is tuning it" <<<"$err" ||
    fail "a second process on a busy shape was not refused (exit $rc): $err"
wait $pa || fail "process a exited $?"
wait $pb || fail "process b exited $?"
for k in f16_2048x4096x4096_fs e4m3_4096x4096x2048_fs; do
    diff <(norm "$tmp/alone/logs/$k/results.tsv") <(norm "$tmp/both/logs/$k/results.tsv") >/dev/null ||
        fail "$k: results differ when tuned concurrently"
done
diff <(norm "$tmp/alone/state.json") <(norm "$tmp/both/state.json") >/dev/null || fail "state.json lost an update"
echo ok
