#!/usr/bin/env bash
# tests/gpu/tools/oracle-self.py on fixture records: the oracle's self-agreement and the
# paired judgement of the search's pick (per-round ratios fastest / pick, sign-test
# interval). Case a: the pick is 10 % slower in every round (its interval lies wholly
# below 0.98: a miss the rounds can tell); case b: the pick and the fastest alternate
# (median below 0.98, interval reaching it: not distinguishable); case c: the search
# picked the fastest (1.000). Refusals: a torn line, a FIFO, trial times that are not
# positive.
set -u
tool=$CROQ_SOURCE_DIR/tests/gpu/tools/oracle-self.py
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/lib.jsonl" <<'PY'
import json, sys
def rec(m, fast, slow, pick):
    cands = [{"kernel": "k_fast", "config": "c1", "rounds": {"trial_ms": fast}},
             {"kernel": "k_slow", "config": "c2", "rounds": {"trial_ms": slow}}]
    return {"dtype": "f16", "m": m, "n": 256, "k": 256, "search": {"kernel": pick, "config": "c1" if pick == "k_fast" else "c2"},
            "oracle": {"search_over_oracle": 0.9, "candidates": cands}}
n = 15
fast = [1.0 + 0.001 * i for i in range(n)]
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"case": "compress_1x1_f16"}) + "\n")  # no oracle: not a case
    f.write(json.dumps(rec(128, fast, [t * 1.1 for t in fast], "k_slow")) + "\n")
    # b: the slow one is 6 % slower in 9 rounds and 2 % faster in 6
    f.write(json.dumps(rec(256, fast, [t * (1.06 if i % 5 < 3 else 0.98) for i, t in enumerate(fast)], "k_slow")) + "\n")
    f.write(json.dumps(rec(384, fast, [t * 1.1 for t in fast], "k_fast")) + "\n")
PY
out=$(python3 "$tool" "$tmp/lib.jsonl" 2>&1) || fail "rc=$?: $out"
grep -q '^f16   128x256x256 .*pick paired 0.909 \[0.909, 0.909\]' <<<"$out" || fail "case a: $out"
grep -q '^f16   256x256x256 .*pick paired 0.943 \[0.943, 1.020\]' <<<"$out" || fail "case b: $out"
grep -q '^f16   384x256x256 .*pick paired 1.000 \[1.000, 1.000\]' <<<"$out" || fail "case c: $out"
grep -q 'cases 3 (skipped 0 .*wholly below on 1, with the interval reaching 0.98 on 1$' <<<"$out" || fail "summary: $out"
# refusals: exit 1 with the line named, nothing else printed
head -n 1 "$tmp/lib.jsonl" > "$tmp/torn.jsonl"; printf '{"dtype": "f16", "m": 1, "n' >> "$tmp/torn.jsonl"
out=$(python3 "$tool" "$tmp/torn.jsonl" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "torn.jsonl line 2: not JSON" <<<"$out" || fail "torn: rc=$rc $out"
mkfifo "$tmp/fifo"
out=$(timeout 10 python3 "$tool" "$tmp/fifo" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "not a regular file" <<<"$out" || fail "fifo: rc=$rc $out"
sed 's/"trial_ms": \[1.0,/"trial_ms": [-1.0,/' "$tmp/lib.jsonl" > "$tmp/neg.jsonl"
out=$(python3 "$tool" "$tmp/neg.jsonl" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "line 2: 'rounds.trial_ms' is not a list of positive finite milliseconds" <<<"$out" || fail "negative: rc=$rc $out"
echo ok
