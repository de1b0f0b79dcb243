#!/usr/bin/env bash
# The decision rules are versioned per shape (docs/engine.md, "Noise and sanity"): a new
# shape records DECIDE_RULES in its checkpoint and on line 1 of its logs, confirms gains
# within the spread by measuring again, and audits clean; a shape that was started under
# rules 1 (before they were versioned) is resumed under rules 1, so its rows stay what the
# uninterrupted run would have decided (the audit replays them under rules 1); and a
# checkpoint and a results.tsv that disagree on the rules stop resume with the reason.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/croq-t0226.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
key=f16_4096x4096x4096_fs
args=(--backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch --iters 30)

# rules 2: recorded, and the sim's jitter puts some gains within the spread
"$bin" tune "${args[@]}" --tuning "$tmp/new" || fail "tune exited $?"
grep -q '"decide_rules": 2' "$tmp/new/checkpoints/$key.json" || fail "checkpoint does not record rules 2"
[ "$(head -n 1 "$tmp/new/logs/$key/results.tsv")" = "# croqtuner results schema=1 backend=sim decide=2" ] ||
    fail "results.tsv line 1: $(head -n 1 "$tmp/new/logs/$key/results.tsv")"
grep -q 'a gain above the floor but within the measured spread' "$tmp/new/logs/$key/results.tsv" ||
    fail "no gain was confirmed in 30 simulated iterations (test needs one)"
grep -Eq 'the gain (held in both measurements|did not hold when measured again)' "$tmp/new/logs/$key/results.tsv" ||
    fail "a confirmation's note does not say how it ended"
out=$("$bin" audit --tuning "$tmp/new") || fail "audit of a rules-2 run: $out"

# rules 1: stop after iteration 5, make it a run from before the rules were versioned (no
# decide_rules, no decide=, no waves_per_sm metric), resume: no gain within the spread
# may be re-measured from then on
{ CROQ_CRASHPOINT=store.state@5 "$bin" tune "${args[@]}" --tuning "$tmp/old"; rc=$?; } 2>/dev/null
[ $rc -eq 137 ] || fail "the crash point did not kill the run ($rc)"
python3 - "$tmp/old/checkpoints/$key.json" <<'PY' || fail "cannot downgrade the checkpoint"
import json, sys
c = json.load(open(sys.argv[1])); del c["decide_rules"]
c["profile"]["metrics"].pop("waves_per_sm")  # parsed only since the wave rule
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
sed -i '1s/ decide=2$//' "$tmp/old/logs/$key/results.tsv" "$tmp/old/logs/$key/attempts.tsv"
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
