#!/usr/bin/env bash
# Two processes tuning different shapes in one tuning directory at the same time do
# not touch each other's state (state.json is a locked read-modify-write): both end
# with exactly what each would have produced alone. A second process on the same shape
# is refused.
set -u
. "$(dirname "$0")/lib.sh"
a=(--backend sim --quiet --dtype f16 --shape 2048x4096x4096 --mode scratch --iters 40)
b=(--backend sim --quiet --dtype e4m3 --shape 4096x4096x2048 --mode scratch --iters 40)

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
