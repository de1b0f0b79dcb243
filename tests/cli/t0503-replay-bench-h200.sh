#!/usr/bin/env bash
# replay-bench on the committed H200 datasets (bench/explore/*.jsonl, issue 19): the
# proposer replayed from scratch and from another dataset's best, 20 seeds each. The
# thresholds are the numbers bench/results/replay-bench.txt records for today's proposer
# (the run is deterministic; since strategies keep to the dataset, 2026-12-07, the
# proposer tries each of these 17-33 configurations within the budget); a proposer change
# that loses ground fails here. Issue 19's targets are min@50 >= 0.95 and min@150 >= 0.99.
# As each dataset is exhausted before iteration 50, @10 is what still tells a proposer
# from brute force (2026-12-07: heuristic min@10 0.986; grid 0.523, random 0.935; 2026-12-08, replay's
# pairs sharing the GPU state: heuristic min@10 0.988, min@50 and min@150 1.000).
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
src=${CROQ_SOURCE_DIR:-$(dirname "$0")/../..}
MIN10=${MIN10:-0.988}; MIN50=${MIN50:-1.000}; MIN150=${MIN150:-1.000}
out=$("$bin" replay-bench --datasets "$src/bench/explore" --seeds 20) || fail "replay-bench failed: $out"
echo "$out"
last=$(tail -n 1 <<<"$out")
[[ "$last" =~ ^replay-bench:\ min@50\ ([0-9.]+)\ min@150\ ([0-9.]+)$ ]] || fail "last line: $last"
awk -v a="${BASH_REMATCH[1]}" -v b="${BASH_REMATCH[2]}" -v x="$MIN50" -v y="$MIN150" \
  'BEGIN { exit !(a >= x && b >= y) }' || fail "below the recorded numbers: $last (need min@50 >= $MIN50, min@150 >= $MIN150)"
[ "$(grep -c ' scratch  *20 ' <<<"$out")" -eq 6 ] && [ "$(grep -c ' best  *20 ' <<<"$out")" -eq 6 ] ||
  fail "not 6 datasets x 2 modes x 20 runs"
min10=$(awk '($2 == "scratch" || $2 == "best") && $3 == 20 { if (m == "" || $4 < m) m = $4 } END { print m }' <<<"$out")
awk -v a="$min10" -v x="$MIN10" 'BEGIN { exit !(a != "" && a >= x) }' || fail "min@10 $min10, below the recorded $MIN10"
