#!/usr/bin/env bash
# state.json deleted (one shape done, one killed mid-iteration): status lists both
# checkpoints as not in state.json, resume restores them from their checkpoints and
# finishes; state.json and the logs end as an uninterrupted run's (timestamps aside)
# and audit clean.
set -u
. "$(dirname "$0")/lib.sh"
a=(tune --backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch --iters 5)
b=(tune --backend sim --quiet --dtype e4m3 --shape 4096x4096x4096 --mode scratch --iters 8)
for d in ref work; do "$bin" "${a[@]}" --tuning "$tmp/$d" || fail "tune $d exited $?"; done
"$bin" "${b[@]}" --tuning "$tmp/ref" || fail "reference run exited $?"
CROQ_CRASHPOINT=store.row@3 "$bin" "${b[@]}" --tuning "$tmp/work"
[ $? = 137 ] || fail "the crash point did not kill the run"
rm "$tmp/work/state.json"

out=$("$bin" status --tuning "$tmp/work") || fail "status exited $?"
for k in e4m3_4096x4096x4096_fs f16_4096x4096x4096_fs; do
    grep -q "^$k .*not in state.json.*croqtuner resume" <<<"$out" || fail "status does not point at $k: $out"
done
err=$("$bin" resume --tuning "$tmp/work" --quiet 2>&1) || fail "resume exited $?: $err"
grep -q "e4m3_4096x4096x4096_fs: no state.json entry; restored" <<<"$err" || fail "resume did not say so: $err"

norm() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/TIMESTAMP/g' "$1"; }
for f in state.json logs/e4m3_4096x4096x4096_fs/results.tsv logs/e4m3_4096x4096x4096_fs/idea-log.jsonl; do
    diff <(norm "$tmp/ref/$f") <(norm "$tmp/work/$f") > "$tmp/diff" || fail "$f differs: $(head -n 8 "$tmp/diff")"
done
out=$("$bin" audit --tuning "$tmp/work") || fail "audit: $out"
exit 0
