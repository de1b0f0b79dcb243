#!/usr/bin/env bash
# kill -9 right after a suspect measurement's re-measurement file is written, before the
# checkpoint: on resume the candidate is measured afresh (here not suspect, as a GPU run
# need not repeat a spike), the orphaned iterNNN-cand-re.json is kept aside as
# .interrupted, and the finished run audits clean (the file is not taken as evidence).
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/croq-t0225.XXXXXX") || exit 1
trap 'kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
key=f16_4096x4096x4096_fs
re="$tmp/t/perf/$key/iter006-cand-re.json"
CROQ_SIM_FAULTS=spike@6 "$bin" tune --backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch \
    --tuning "$tmp/t" --iters 10 --sim-delay-ms 300 &
pid=$!
for _ in $(seq 1 400); do [ -f "$re" ] && break; sleep 0.05; done
[ -f "$re" ] || fail "the re-measurement file never appeared"
kill -9 $pid; wait $pid 2>/dev/null
err=$("$bin" resume --tuning "$tmp/t" --quiet 2>&1) || fail "resume exited $?: $err"
grep -q "iteration 6: .*cut off by a crash: kept as .*iter006-cand-re.json.interrupted" <<<"$err" ||
    fail "resume did not set the orphan aside: $err"
[ -f "$re.interrupted" ] && [ ! -f "$re" ] || fail "iter006-cand-re.json not moved aside"
out=$("$bin" audit --tuning "$tmp/t") || fail "audit after the interrupted re-measurement: $out"
exit 0
