#!/usr/bin/env bash
# The decision rules are versioned per shape (docs/engine.md, "Noise and sanity"): a new
# shape records DECIDE_RULES (4) in its checkpoint and on line 1 of its logs, times every
# candidate paired with the best, pairs each of the screen's KEEPs again, verifies each KEEP
# on a new operand set, ends with its final ladder and audits clean; a shape started under
# rules 3 is resumed under rules 3 (no confirmation, no ladder until 'croqtuner ladder'
# gives it one); a shape started under rules 2 is resumed under rules 2 (gains within the spread
# confirmed by measuring again, no pairing), one started under rules 1 (before they were
# versioned) under rules 1, so their rows stay what the uninterrupted run would have
# decided (the audit replays each under its own rules); and a checkpoint and a
# results.tsv that disagree on the rules stop resume with the reason.
set -u
. "$(dirname "$0")/lib.sh"
key=f16_4096x4096x4096_fs
# seed 7: a gain within the spread is confirmed in the first 30 iterations (the test needs one)
common=(--backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch --iters 30)
args=("${common[@]}" --seed 7)

# rules 4: recorded; every candidate paired, every KEEP by the screen paired again (every
# pair), every KEEP verified on a new operand set, the best never falling on the page, and
# the shape ending with its final ladder
# (seed 5: 3 KEEPs in 30 iterations; seed 7's single one would not show a chain)
"$bin" tune "${common[@]}" --seed 5 --tuning "$tmp/new" || fail "tune exited $?"
grep -q '"decide_rules": 4' "$tmp/new/checkpoints/$key.json" || fail "checkpoint does not record rules 4"
res4="$tmp/new/logs/$key/results.tsv"
[ "$(head -n 1 "$res4")" = "# croqtuner results schema=1 backend=sim decide=4" ] || fail "results.tsv line 1: $(head -n 1 "$res4")"
grep -q 'within the measured spread' "$res4" && fail "a rules-4 run confirmed a gain the rules-2 way"
keeps=$(awk -F'\t' 'NR > 2 && $10 == "KEEP"' "$res4" | wc -l)
[ "$keeps" -ge 2 ] || fail "fewer than 2 KEEPs in 30 simulated iterations (test needs them)"
[ "$(ls "$tmp/new/perf/$key/" | grep -c 'cand-fresh')" -eq "$keeps" ] || fail "not one fresh verification per KEEP"
confirms=$(ls "$tmp/new/perf/$key/" | grep -c 'cand-confirm')
[ "$confirms" -ge "$keeps" ] || fail "$confirms confirmations for $keeps KEEPs"
[ "$(grep -c 'paired again to confirm' "$res4")" -eq "$confirms" ] || fail "not one confirmation note per confirmation"
awk -F'\t' 'NR > 3 && $11 + 0 < prev { exit 1 } NR > 2 { prev = $11 + 0 }' "$res4" || fail "the best fell on the page"
[ "$(awk -F'\t' 'NR > 3 && $5 != ""' "$res4" | grep -c 'speedup over the best')" -eq \
  "$(awk -F'\t' 'NR > 3 && $5 != ""' "$res4" | wc -l)" ] || fail "a measured candidate's note has no paired speedup"
[ -f "$tmp/new/perf/$key/ladder-final.json" ] || fail "no final ladder"
out=$("$bin" audit --tuning "$tmp/new") || fail "audit of a rules-4 run: $out"

# an older version: stop after the baseline (the same under every version), rewrite the
# recorded version, resume
downgrade() { # DIR RULES (1: from before versioning: no decide_rules, no decide=, no waves_per_sm)
    { CROQ_CRASHPOINT=store.state@1 "$bin" tune "${args[@]}" --tuning "$1"; rc=$?; } 2>/dev/null
    [ $rc -eq 137 ] || fail "the crash point did not kill the run ($rc)"
    python3 - "$1/checkpoints/$key.json" "$2" <<'PY' || fail "cannot downgrade the checkpoint"
import json, sys
c = json.load(open(sys.argv[1]))
if sys.argv[2] == "1":
    del c["decide_rules"]
    c["profile"]["metrics"].pop("waves_per_sm")  # parsed only since the wave rule
else:
    c["decide_rules"] = int(sys.argv[2])
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
    if [ "$2" = 1 ]; then sed -i '1s/ decide=4$//' "$1/logs/$key/results.tsv" "$1/logs/$key/attempts.tsv"
    else sed -i "1s/ decide=4\$/ decide=$2/" "$1/logs/$key/results.tsv" "$1/logs/$key/attempts.tsv"; fi
}

# rules 3: paired once, no confirmation, no final ladder (a shape keeps its rules)
downgrade "$tmp/three" 3
"$bin" resume --tuning "$tmp/three" --quiet || fail "resume of a rules-3 run exited $?"
grep -q '"decide_rules": 3' "$tmp/three/checkpoints/$key.json" || fail "resume changed the rules-3 run's rules"
ls "$tmp/three/perf/$key/" | grep -q 'cand-confirm\|ladder-' && fail "a rules-3 run was confirmed or laddered"
grep -q '"measured": "ladder"' "$tmp/three/state.json" && fail "a rules-3 run registered a ladder winner"
out=$("$bin" audit --tuning "$tmp/three") || fail "audit of a rules-3 run: $out"
# ... until it is given its final ladder: then the winner is registered, and it audits clean
"$bin" ladder --tuning "$tmp/three" --quiet || fail "croqtuner ladder exited $?"
grep -q '"measured": "ladder"' "$tmp/three/state.json" || fail "croqtuner ladder registered no winner"
out=$("$bin" audit --tuning "$tmp/three") || fail "audit of a rules-3 run after its ladder: $out"
err=$("$bin" ladder --tuning "$tmp/three" --key "$key" 2>&1) && fail "a second ladder of the same shape ran"
grep -q "already has its final ladder" <<<"$err" || fail "message: $err"
# a key the directory never held is bad usage, as in audit and source (exit 2), named
err=$("$bin" ladder --tuning "$tmp/three" --key f16_128x256x128 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "ladder: no shape f16_128x256x128 in '$tmp/three'" <<<"$err" ||
    fail "ladder of a shape not there: rc=$rc: $err"

# rules 2: the sim's jitter puts some gains within the spread, and they are confirmed
downgrade "$tmp/two" 2
"$bin" resume --tuning "$tmp/two" --quiet || fail "resume of a rules-2 run exited $?"
grep -q '"decide_rules": 2' "$tmp/two/checkpoints/$key.json" || fail "resume changed the rules-2 run's rules"
res2="$tmp/two/logs/$key/results.tsv"
grep -q 'a gain above the floor but within the measured spread' "$res2" ||
    fail "no gain was confirmed in 30 simulated iterations (test needs one)"
grep -Eq 'the gain (held in both measurements|did not hold when measured again)' "$res2" ||
    fail "a confirmation's note does not say how it ended"
grep -q 'speedup over the best' "$res2" && fail "a rules-2 run was decided by paired timing"
ls "$tmp/two/perf/$key/" | grep -q cand-fresh && fail "a rules-2 run verified on a new operand set"
out=$("$bin" audit --tuning "$tmp/two") || fail "audit of a rules-2 run: $out"

# rules 1: no gain within the spread may be re-measured
downgrade "$tmp/old" 1
grep -q "speedup over the best" "$tmp/old/logs/$key/results.tsv" && fail "a rules-1 shape before resume holds paired rows"
cp -r "$tmp/old" "$tmp/mixed"
"$bin" resume --tuning "$tmp/old" --quiet || fail "resume of a rules-1 run exited $?"
grep -q 'within the measured spread' "$tmp/old/logs/$key/results.tsv" && fail "a rules-1 run confirmed a gain"
grep -q '"decide_rules": 1' "$tmp/old/checkpoints/$key.json" || fail "resume changed the run's rules"
out=$("$bin" audit --tuning "$tmp/old") || fail "audit of the resumed rules-1 run: $out"
[ "$(tail -n +3 "$tmp/old/logs/$key/results.tsv" | wc -l)" -eq 31 ] || fail "the resumed run did not finish"

# a checkpoint that says rules 2 over logs that say rules 1: refused, nothing written
python3 - "$tmp/mixed/checkpoints/$key.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["decide_rules"] = 2; json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
before=$(cat "$tmp/mixed/logs/$key/results.tsv")
err=$("$bin" resume --tuning "$tmp/mixed" --quiet 2>&1) && fail "resume over mixed rules succeeded"
grep -q "was decided under rules 1, the checkpoint says 2" <<<"$err" || fail "no reason given: $err"
[ "$before" = "$(cat "$tmp/mixed/logs/$key/results.tsv")" ] || fail "results.tsv changed"

# the attempts log is held to the same: rules 1 there under a rules-2 checkpoint is refused
cp -r "$tmp/mixed" "$tmp/mixed2"
python3 - "$tmp/mixed2/checkpoints/$key.json" "$tmp/mixed2/logs/$key/results.tsv" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["decide_rules"] = 2; json.dump(c, open(sys.argv[1], "w"), indent=1)
lines = open(sys.argv[2]).read().split("\n"); lines[0] += " decide=2"; open(sys.argv[2], "w").write("\n".join(lines))
PY
err=$("$bin" resume --tuning "$tmp/mixed2" --quiet 2>&1) && fail "resume over mixed attempts rules succeeded"
grep -q "attempts.tsv' was written under decision rules 1, the checkpoint says 2" <<<"$err" || fail "no reason: $err"
exit 0
