#!/usr/bin/env bash
# A sweep keeps the shapes.json it was planned from inside its tuning directory
# (plan/shapes.json, recorded in state.json relative to the directory: docs/artifacts.md),
# so status and resume read the directory alone: moved, on another machine, or with the
# original shapes.json gone. A sweep or resume given another plan is refused, naming both
# files. A state.json older than the snapshot (an absolute path) still works: the path is
# read while it is there, and a resume given --shapes or CROQ_SHAPES takes the snapshot.
set -u
. "$(dirname "$0")/lib.sh"

mkdir -p "$tmp/in"
small_plan "$tmp/in/shapes.json"
cp "$tmp/in/shapes.json" "$tmp/orig.json"
recorded() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sweep"]["shapes"])' "$1/state.json"; }
plan_counts() { # planned not_started of status --json
    "$bin" status --json --tuning "$1" | python3 -c '
import json, sys
p = json.load(sys.stdin)["sweep_plan"]
print(p.get("planned"), p.get("not_started"), p.get("error", ""))'
}

# the sweep killed in its second shape (e4m3 plan: 5 shapes)
CROQ_CRASHPOINT=store.state@4 "$bin" sweep --dtype e4m3 --backend sim --iters 2 --shapes "$tmp/in/shapes.json" \
    --tuning "$tmp/D" --quiet 2>/dev/null
[ $? -eq 137 ] || fail "the crash point did not kill the sweep"
[ "$(recorded "$tmp/D")" = plan/shapes.json ] || fail "state.json records '$(recorded "$tmp/D")', not plan/shapes.json"
cmp -s "$tmp/D/plan/shapes.json" "$tmp/orig.json" || fail "plan/shapes.json is not a copy of the sweep's shapes.json"
started=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["shapes"]))' "$tmp/D/state.json")
cp -a "$tmp/D" "$tmp/old-template"

# moved, and its shapes.json gone: status still counts the plan, resume continues it
mv "$tmp/D" "$tmp/moved"
rm -r "$tmp/in"
st=$("$bin" status --tuning "$tmp/moved") || fail "status of the moved directory exited $?"
grep -q "^sweep (e4m3, waves 1-4, recorded running): 5 planned shapes, $((5 - started)) not started yet" <<<"$st" ||
    fail "status of the moved directory: $(tail -n 3 <<<"$st")"
[ "$(plan_counts "$tmp/moved")" = "5 $((5 - started)) " ] || fail "status --json sweep_plan: $(plan_counts "$tmp/moved")"
"$bin" resume --tuning "$tmp/moved" --quiet || fail "resume of the moved directory exited $?"
[ "$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); print(s["sweep"]["status"], sum(v["status"] == "done" for v in s["shapes"].values()) >= 5)' "$tmp/moved/state.json")" = "done True" ] ||
    fail "resume did not finish the sweep"
cmp -s "$tmp/moved/plan/shapes.json" "$tmp/orig.json" || fail "resume changed the snapshot"

# the same plan from another file is the same sweep (a no-op); another plan is refused
# by name, before anything changes
cp "$tmp/orig.json" "$tmp/copy.json"
"$bin" sweep --dtype e4m3 --backend sim --iters 2 --shapes "$tmp/copy.json" --tuning "$tmp/moved" --quiet ||
    fail "a sweep given a copy of its plan exited $?"
sed 's/"from_current_best": 30/"from_current_best": 31/' "$tmp/orig.json" >"$tmp/other.json"
cp "$tmp/moved/state.json" "$tmp/state.before"
err=$("$bin" sweep --dtype e4m3 --backend sim --iters 2 --shapes "$tmp/other.json" --tuning "$tmp/moved" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "a sweep with another shapes.json exited $rc: $err"
grep -qF "'$tmp/other.json' is not the plan this tuning directory's sweep was started with, '$tmp/moved/plan/shapes.json'" <<<"$err" ||
    fail "refusal of another plan: $err"
[ "$(wc -l <<<"$err")" -eq 1 ] || fail "more than one message: $err"
cmp -s "$tmp/moved/state.json" "$tmp/state.before" || fail "the refused sweep changed state.json"
cmp -s "$tmp/moved/plan/shapes.json" "$tmp/orig.json" || fail "the refused sweep changed the snapshot"
# resume given another plan: refused before any shape goes on
cp -a "$tmp/old-template" "$tmp/again"
cp "$tmp/again/state.json" "$tmp/state.before"
err=$("$bin" resume --shapes "$tmp/other.json" --tuning "$tmp/again" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "'$tmp/other.json' is not the plan this tuning directory's sweep was started with, '$tmp/again/plan/shapes.json'" <<<"$err" ||
    fail "resume --shapes with another plan: rc=$rc: $err"
cmp -s "$tmp/again/state.json" "$tmp/state.before" || fail "the refused resume changed state.json"

# an old-format state.json: the sweep's absolute path, no snapshot
old() { # old DIR PATH: the killed sweep's directory as an older croqtuner left it
    cp -a "$tmp/old-template" "$1"
    rm -r "$1/plan"
    python3 - "$1/state.json" "$2" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["sweep"]["shapes"] = sys.argv[2]
json.dump(s, open(sys.argv[1], "w"), indent=1, sort_keys=True)
PY
}
cp "$tmp/orig.json" "$tmp/abs.json"
old "$tmp/old1" "$tmp/abs.json"
[ "$(plan_counts "$tmp/old1")" = "5 $((5 - started)) " ] || fail "old format, path there: $(plan_counts "$tmp/old1")"
err=$("$bin" sweep --dtype e4m3 --backend sim --iters 2 --shapes "$tmp/other.json" --tuning "$tmp/old1" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "'$tmp/other.json' is not the plan this tuning directory's sweep was started with, '$tmp/abs.json'" <<<"$err" ||
    fail "old format: another plan than the recorded file: rc=$rc: $err"
[ ! -e "$tmp/old1/plan" ] || fail "the refused sweep wrote a snapshot"
"$bin" resume --tuning "$tmp/old1" --quiet || fail "old format: resume reading the recorded path exited $?"
[ "$(recorded "$tmp/old1")" = plan/shapes.json ] && cmp -s "$tmp/old1/plan/shapes.json" "$tmp/orig.json" ||
    fail "old format: resume did not keep the snapshot"

# the recorded path gone: status says so plainly, resume without a plan says how, and
# resume with CROQ_SHAPES takes the snapshot and continues
old "$tmp/old2" "$tmp/gone/shapes.json"
st=$("$bin" status --tuning "$tmp/old2" 2>&1)
grep -qF "sweep (e4m3, running): its plan '$tmp/gone/shapes.json' cannot be read" <<<"$st" ||
    fail "old format, path gone: status: $(tail -n 2 <<<"$st")"
err=$(CROQ_SHAPES= "$bin" resume --tuning "$tmp/old2" --quiet 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "give --shapes FILE (or CROQ_SHAPES)" <<<"$err" || fail "old format, path gone, resume: rc=$rc: $err"
[ ! -e "$tmp/old2/plan" ] || fail "a resume without a plan wrote a snapshot"
CROQ_SHAPES="$tmp/copy.json" "$bin" resume --tuning "$tmp/old2" --quiet || fail "old format: resume with CROQ_SHAPES exited $?"
[ "$(recorded "$tmp/old2")" = plan/shapes.json ] && cmp -s "$tmp/old2/plan/shapes.json" "$tmp/orig.json" ||
    fail "old format: resume with CROQ_SHAPES did not keep the snapshot"
"$bin" status --tuning "$tmp/old2" | grep -q "^sweep (" && fail "old format: the sweep is still unfinished"
exit 0
