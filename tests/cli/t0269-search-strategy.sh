#!/usr/bin/env bash
# tune --strategy (src/search, docs/search.md): an unknown name is a usage error listing
# the strategies; the strategy is recorded in the checkpoint ("strategy", absent for the
# default heuristic, as in every checkpoint before strategies) and a started shape keeps
# it: another one is refused with nothing changed, no --strategy goes on with the recorded
# one, and a run killed mid-way and resumed ends as the uninterrupted one; random is
# seeded (same seed, same run; another seed, other configurations); grid walks the table;
# agent is --agent; a checkpoint naming an unknown strategy is refused by name.
set -u
. "$(dirname "$0")/lib.sh"
tune() { "$bin" tune --backend sim --dtype f16 --shape 2048x4096x4096 --mode scratch --quiet "$@"; }
key=f16_2048x4096x4096_fs
ck() { echo "$1/checkpoints/$key.json"; }
res() { echo "$1/logs/$key/results.tsv"; }

# unknown name: usage error, every name listed, nothing created
err=$(tune --iters 5 --tuning "$tmp/u" --strategy bogus 2>&1); rc=$?
[ $rc -eq 2 ] || fail "unknown strategy: exit $rc, want 2: $err"
grep -qF "'bogus' is not a search strategy (heuristic, grid, random, agent)" <<<"$err" || fail "names not listed: $err"
[ ! -e "$tmp/u/state.json" ] || fail "an unknown strategy created the shape"

# random: recorded, every idea a random draw, audit clean, seeded
tune --iters 12 --tuning "$tmp/r" --strategy random || fail "tune --strategy random"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert c["strategy"] == "random", c.get("strategy")' \
  "$(ck "$tmp/r")" || fail "the checkpoint does not record strategy random"
n=$(awk -F'\t' 'NR > 3' "$(res "$tmp/r")" | wc -l)
[ "$n" -eq 12 ] || fail "random: $n rows after the baseline, want 12"
m=$(grep -c '"idea":"random sample (uniform over the untried valid configurations): ' "$tmp/r/logs/$key/idea-log.jsonl")
[ "$m" -eq 12 ] || fail "random: $m of 12 ideas are random samples"
a=$("$bin" audit --tuning "$tmp/r") || fail "random run does not audit clean: $a"
tune --iters 12 --tuning "$tmp/r2" --strategy random || fail "tune random again"
diff <(norm "$(res "$tmp/r")") <(norm "$(res "$tmp/r2")") >/dev/null || fail "random: same seed, another run"
tune --iters 12 --tuning "$tmp/r3" --strategy random --seed 2 || fail "tune random seed 2"
same=$(comm -12 <(awk -F'\t' 'NR > 3 { print $3 }' "$(res "$tmp/r")" | sort) \
                <(awk -F'\t' 'NR > 3 { print $3 }' "$(res "$tmp/r3")" | sort) | wc -l)
[ "$same" -eq 0 ] || fail "random: seeds 1 and 2 drew $same common configurations"

# another strategy for the started shape: refused, nothing changed
cp "$(ck "$tmp/r")" "$tmp/ck.before"
cp "$(res "$tmp/r")" "$tmp/res.before"
err=$(tune --iters 15 --tuning "$tmp/r" --strategy heuristic 2>&1); rc=$?
[ $rc -eq 1 ] || fail "another strategy: exit $rc, want 1: $err"
grep -qF "shape '$key' is searched with strategy 'random', not 'heuristic'" <<<"$err" || fail "refusal: $err"
grep -qF "leave out --strategy to go on with 'random'" <<<"$err" || fail "refusal says no way on: $err"
cmp -s "$tmp/ck.before" "$(ck "$tmp/r")" && cmp -s "$tmp/res.before" "$(res "$tmp/r")" ||
  fail "the refused tune changed the shape"
# without --strategy: goes on with the recorded one
tune --iters 15 --tuning "$tmp/r" || fail "tune on without --strategy"
m=$(grep -c '"idea":"random sample' "$tmp/r/logs/$key/idea-log.jsonl")
[ "$m" -eq 15 ] || fail "continued without --strategy: $m of 15 ideas random"
tune --iters 15 --tuning "$tmp/r" --strategy random || fail "the recorded strategy named again is accepted"

# killed mid-way and resumed: the recorded strategy, the uninterrupted run's rows
CROQ_CRASHPOINT="store.checkpoint@6" tune --iters 12 --tuning "$tmp/k" --strategy random >/dev/null 2>&1
[ $? -ne 0 ] || fail "the crash point did not fire"
"$bin" resume --tuning "$tmp/k" --quiet || fail "resume of the random shape"
diff <(norm "$(res "$tmp/r2")") <(norm "$(res "$tmp/k")") >/dev/null || fail "resumed random run differs from the uninterrupted one"
# killed before its checkpoint existed (state.json's entry only): resume creates it with the
# strategy and the L2 mode it was asked for, as the uninterrupted run
tune --iters 12 --tuning "$tmp/c0" --strategy random --l2 cold >/dev/null || fail "random, cold L2"
for point in init.state@1 init.logs@1; do
    rm -rf "$tmp/c1"
    CROQ_CRASHPOINT=$point tune --iters 12 --tuning "$tmp/c1" --strategy random --l2 cold >/dev/null 2>&1
    [ $? -ne 0 ] || fail "the crash point $point did not fire"
    "$bin" resume --tuning "$tmp/c1" --quiet || fail "resume after $point"
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert c.get("strategy") == "random" and c.get("l2") == "cold", c' \
        "$(ck "$tmp/c1")" || fail "after $point the resumed shape lost its strategy or L2 mode"
    diff <(norm "$(res "$tmp/c0")") <(norm "$(res "$tmp/c1")") >/dev/null || fail "after $point: not the uninterrupted run"
done

# the default: no "strategy" member (as before strategies), and it is the heuristic's
tune --iters 3 --tuning "$tmp/h" || fail "tune with the default strategy"
grep -q '"strategy"' "$(ck "$tmp/h")" && fail "the default's checkpoint has a strategy member"
err=$(tune --iters 3 --tuning "$tmp/h" --strategy random 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "is searched with strategy 'heuristic', not 'random'" <<<"$err" ||
  fail "a checkpoint without strategy is not read as heuristic: $rc $err"
tune --iters 3 --tuning "$tmp/h" --strategy heuristic || fail "heuristic named for a default shape"

# a checkpoint naming a strategy this croqtuner does not run: refused by file and name
for bad in bogus agent; do
  cp -r "$tmp/h" "$tmp/h-$bad"
  python3 - "$(ck "$tmp/h-$bad")" "$bad" <<'PY' || fail "edit checkpoint"
import json, sys
p = sys.argv[1]; c = json.load(open(p)); c["strategy"] = sys.argv[2]; json.dump(c, open(p, "w"))
PY
  err=$(tune --iters 5 --tuning "$tmp/h-$bad" 2>&1); rc=$?
  [ $rc -eq 1 ] && grep -qF "checkpoints/$key.json: strategy '$bad' is not a search strategy of this croqtuner" <<<"$err" ||
    fail "checkpoint strategy $bad: $rc $err"
done

# a checkpoint edited to another strategy mid-run (the command line refuses that change):
# the run goes on, and the audit names the rows whose ideas are not the recorded strategy's
tune --iters 6 --tuning "$tmp/e" --strategy random >/dev/null || fail "random for the edit"
python3 - "$(ck "$tmp/e")" <<'PY' || fail "edit checkpoint to grid"
import json, sys
p = sys.argv[1]; c = json.load(open(p)); c["strategy"] = "grid"; json.dump(c, open(p, "w"))
PY
tune --iters 8 --tuning "$tmp/e" >/dev/null 2>&1 || fail "the edited shape did not go on"
a=$("$bin" audit --tuning "$tmp/e"); rc=$?
[ $rc -ne 0 ] || fail "an edited strategy audits clean: $a"
grep -qF "iter 1: its idea is the random strategy's, but the checkpoint records strategy 'grid'" <<<"$a" ||
  fail "the audit does not name the random rows: $a"
grep -q "iter 7: its idea" <<<"$a" && fail "the grid rows after the edit are named too: $a"

# grid: the knob space in table order
tune --iters 4 --tuning "$tmp/g" --strategy grid || fail "tune --strategy grid"
m=$(grep -c '"idea":"grid point [0-9]* of 125829120 (the knob space in table order): ' "$tmp/g/logs/$key/idea-log.jsonl")
[ "$m" -eq 4 ] || fail "grid: $m of 4 ideas are grid points"
a=$("$bin" audit --tuning "$tmp/g") || fail "grid run does not audit clean: $a"

# agent: the same as --agent
out=$("$bin" tune --backend sim --dtype f16 --shape 2048x4096x4096 --mode scratch --iters 4 --tuning "$tmp/a" \
        --strategy agent 2>&1) || fail "tune --strategy agent: $out"
grep -q "waiting at IDEATE" <<<"$out" || fail "--strategy agent does not wait for an agent: $out"
"$bin" status --tuning "$tmp/a" | grep -q "IDEATE(agent)" || fail "status does not show the agent"
echo ok
