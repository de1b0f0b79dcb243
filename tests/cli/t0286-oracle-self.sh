#!/usr/bin/env bash
# tests/gpu/tools/oracle-self.py on fixture records: the oracle's self-agreement and the
# paired judgement of the search's pick (per-round ratios fastest / pick, sign-test
# interval). Case a: the pick is 10 % slower in every round (its interval lies wholly
# below 0.98: a miss the rounds can tell); case b: the pick and the fastest alternate
# (median below 0.98, interval reaching it: not distinguishable); case c: the search
# picked the fastest (1.000); cases d and e: 15 distinct per-round ratios in shuffled
# order, the fastest listed second, so the interval must be the 4th smallest and the 4th
# largest ratio (n = 15: coverage 0.965, the 5th would give 0.88); d's median 0.970
# (interval reaching 0.98), e's 0.985 (at the target, its interval's low end below it);
# f: no search pick recorded. The per-dtype targets line: search / oracle 0.9 on all six,
# model / oracle recorded on a (0.95) and b (0.85) only. Refusals: a torn line, a FIFO,
# trial times that are not positive, a negative ratio.
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
    r = rec(128, fast, [t * 1.1 for t in fast], "k_slow")
    r["oracle"]["model_over_oracle"] = 0.95
    f.write(json.dumps(r) + "\n")
    # b: the slow one is 6 % slower in 9 rounds and 2 % faster in 6
    r = rec(256, fast, [t * (1.06 if i % 5 < 3 else 0.98) for i, t in enumerate(fast)], "k_slow")
    r["oracle"]["model_over_oracle"] = 0.85
    f.write(json.dumps(r) + "\n")
    f.write(json.dumps(rec(384, fast, [t * 1.1 for t in fast], "k_fast")) + "\n")
    perm = [7, 2, 12, 0, 9, 14, 4, 11, 1, 6, 13, 3, 10, 5, 8]
    for m, lo in ((512, 0.90), (640, 0.95)):
        step = 0.01 if m == 512 else 0.005
        ratio = [lo + step * perm[i] for i in range(n)]  # fastest / pick in round i
        r = rec(m, [1.0] * n, [1.0 / x for x in ratio], "k_slow")
        r["oracle"]["candidates"].reverse()  # the pick first, the fastest second
        f.write(json.dumps(r) + "\n")
    r = rec(768, fast, [t * 1.1 for t in fast], "k_fast")
    del r["search"]
    for c in r["oracle"]["candidates"]:
        del c["kernel"], c["config"]
    f.write(json.dumps(r) + "\n")
PY
out=$(python3 "$tool" "$tmp/lib.jsonl" 2>&1) || fail "rc=$?: $out"
grep -q '^f16   128x256x256 .*pick paired 0.909 \[0.909, 0.909\]' <<<"$out" || fail "case a: $out"
grep -q '^f16   256x256x256 .*pick paired 0.943 \[0.943, 1.020\]' <<<"$out" || fail "case b: $out"
grep -q '^f16   384x256x256 .*pick paired 1.000 \[1.000, 1.000\]' <<<"$out" || fail "case c: $out"
grep -q '^f16   512x256x256 .*pick paired 0.970 \[0.930, 1.010\]' <<<"$out" || fail "case d: $out"
grep -q '^f16   640x256x256 .*pick paired 0.985 \[0.965, 1.005\]' <<<"$out" || fail "case e: $out"
grep -q "^f16   768x256x256 .*pick not among the oracle's candidates" <<<"$out" || fail "case f: $out"
grep -q 'cases 6 (skipped 0 .*wholly below on 1, with the interval reaching 0.98 on 2$' <<<"$out" || fail "summary: $out"
# geomean of 0.95 and 0.85: 0.899
grep -qx 'f16: search / oracle over 6: geomean 0.900, min 0.900 (128x256x256), >= 0.98 on 0; model / oracle over 2: geomean 0.899, min 0.850 (256x256x256), >= 0.90 on 1' <<<"$out" ||
  fail "targets line: $out"
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
sed 's/"model_over_oracle": 0.95/"model_over_oracle": -0.95/' "$tmp/lib.jsonl" > "$tmp/negr.jsonl"
out=$(python3 "$tool" "$tmp/negr.jsonl" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "line 2: 'model_over_oracle' is not a number >= 0" <<<"$out" || fail "negative ratio: rc=$rc $out"
echo ok
