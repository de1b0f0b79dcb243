#!/usr/bin/env bash
# The serial sweep over both dtypes runs each step (wave) of the plan for f16, then e4m3,
# before the next step (docs/engine.md, "Sweeps"): the typical shapes of both come first.
# --waves N stops after wave N and is recorded (last_wave), so resume stops there too,
# status counts only those waves, and the same sweep given more waves later goes on with
# the rest. A record with a last_wave out of range is refused as damaged.
set -u
. "$(dirname "$0")/lib.sh"

small_plan "$tmp/shapes.json"
keys() { python3 -c 'import json, sys; print(" ".join(sorted(json.load(open(sys.argv[1]))["shapes"])))' "$1/state.json"; }
last_wave() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sweep"].get("last_wave", "-"))' "$1/state.json"; }

# the order, from the shapes' first lines: both typical shapes before any other
"$bin" sweep --dtype all --backend sim --iters 1 --shapes "$tmp/shapes.json" --tuning "$tmp/all" \
    > "$tmp/all.out" 2>&1 || fail "the sweep exited $?: $(tail -n 3 "$tmp/all.out")"
order=$(sed -n -E 's/^([a-z0-9]+_[0-9x]+(_fs)?): from_.*/\1/p' "$tmp/all.out" | head -n 4 | tr '\n' ' ')
[ "$order" = "f16_512x512x512_fs e4m3_2048x2048x2048_fs f16_256x256x256 f16_2048x2048x2048 " ] ||
    fail "the sweep's order begins '$order'"
[ "$(last_wave "$tmp/all")" = - ] || fail "a sweep without --waves recorded last_wave $(last_wave "$tmp/all")"

# --waves 1: the two typical shapes, recorded done; resume has nothing to do
"$bin" sweep --dtype all --waves 1 --backend sim --iters 1 --shapes "$tmp/shapes.json" --tuning "$tmp/D" --quiet ||
    fail "sweep --waves 1 exited $?"
[ "$(keys "$tmp/D")" = "e4m3_2048x2048x2048_fs f16_512x512x512_fs" ] || fail "--waves 1 tuned: $(keys "$tmp/D")"
[ "$(last_wave "$tmp/D")" = 1 ] || fail "--waves 1 recorded last_wave $(last_wave "$tmp/D")"
st=$("$bin" status --json --tuning "$tmp/D" | python3 -c '
import json, sys
p = json.load(sys.stdin)["sweep_plan"]
print(p["last_wave"], p["planned"], p["unfinished"], p["status"])') || fail "status --json exited $?"
[ "$st" = "1 2 0 done" ] || fail "status --json sweep_plan of --waves 1: $st"
# RESUME.md says the sweep is done for wave 1 only, not the whole plan
grep -qx "Sweep: dtype all, plan default, waves 1-1, done." "$tmp/D/RESUME.md" || fail "RESUME.md: $(grep ^Sweep "$tmp/D/RESUME.md")"
out=$("$bin" resume --tuning "$tmp/D" 2>&1) || fail "resume after --waves 1 exited $?: $out"
[ "$(keys "$tmp/D")" = "e4m3_2048x2048x2048_fs f16_512x512x512_fs" ] || fail "resume went past wave 1: $(keys "$tmp/D")"
# ... and both say that waves were left out, and how to go on
grep -q "every shape is done (its sweep ran the plan's first waves only, --waves, and the later ones hold shapes not done: the same sweep command without --waves goes on" <<<"$out" ||
    fail "resume after --waves 1: $out"
st=$("$bin" status --tuning "$tmp/D") || fail "status after --waves 1 exited $?"
grep -q "^sweep (all, waves 1-1, recorded done): its 2 planned shapes are done; the waves after 1 hold 8 more not done" <<<"$st" ||
    fail "status after --waves 1: $(tail -n 2 <<<"$st")"

# cut during wave 2 (the e4m3 wave waits for f16's): resume finishes step 2 only
CROQ_CRASHPOINT=store.state@2 "$bin" sweep --dtype all --waves 2 --backend sim --iters 1 --shapes "$tmp/shapes.json" \
    --tuning "$tmp/D" --quiet 2>/dev/null
[ $? -eq 137 ] || fail "the crash point did not kill the --waves 2 sweep"
[ "$(last_wave "$tmp/D")" = 2 ] || fail "the cut --waves 2 sweep recorded last_wave $(last_wave "$tmp/D")"
st=$("$bin" status --tuning "$tmp/D") || fail "status exited $?"
grep -q "^sweep (all, waves 1-2, recorded running): 6 planned shapes" <<<"$st" || fail "status: $(tail -n 2 <<<"$st")"
"$bin" resume --tuning "$tmp/D" --quiet || fail "resume of the --waves 2 sweep exited $?"
[ "$(keys "$tmp/D")" = "e4m3_2048x2048x2048_fs e4m3_256x256x256 e4m3_512x512x512 f16_2048x2048x2048 f16_256x256x256 f16_512x512x512_fs" ] ||
    fail "after resume of --waves 2: $(keys "$tmp/D")"

# the same sweep without --waves goes on with waves 3 and 4: every shape the full sweep ran
"$bin" sweep --dtype all --backend sim --iters 1 --shapes "$tmp/shapes.json" --tuning "$tmp/D" --quiet ||
    fail "the sweep without --waves exited $?"
[ "$(keys "$tmp/D")" = "$(keys "$tmp/all")" ] || fail "continued: $(keys "$tmp/D") vs the full sweep's $(keys "$tmp/all")"
[ "$(last_wave "$tmp/D")" = - ] || fail "the continued sweep recorded last_wave $(last_wave "$tmp/D")"
# a narrower sweep over a finished one leaves nothing to say: no later waves are left
"$bin" sweep --dtype all --waves 1 --backend sim --iters 1 --shapes "$tmp/shapes.json" --tuning "$tmp/D" --quiet ||
    fail "sweep --waves 1 over the finished sweep exited $?"
out=$("$bin" resume --tuning "$tmp/D" 2>&1) || fail "resume of the finished sweep exited $?"
[ "$out" = "nothing to resume in '$tmp/D': every shape is done" ] || fail "resume of the finished sweep: $out"
st=$("$bin" status --tuning "$tmp/D") || fail "status of the finished sweep exited $?"
grep -q "^sweep (" <<<"$st" && fail "status of the finished sweep: $(tail -n 2 <<<"$st")"

# out of range: usage error, and a record holding one is damaged
"$bin" sweep --dtype all --waves 0 --backend sim --tuning "$tmp/E" --shapes "$tmp/shapes.json" 2>/dev/null
[ $? -eq 2 ] || fail "--waves 0 was not a usage error"
python3 -c 'import json, sys
p = sys.argv[1] + "/state.json"; s = json.load(open(p)); s["sweep"]["last_wave"] = 7; json.dump(s, open(p, "w"))' "$tmp/D"
out=$("$bin" status --tuning "$tmp/D" 2>&1)
[ $? -ne 0 ] && grep -q "last_wave" <<<"$out" || fail "a record with last_wave 7 was read: $out"
# a null is damage too, for status, resume and the audit alike: read as absent, status
# counted all four waves of a sweep resume then called incomplete (a null waves: run
# serially)
for m in last_wave waves iters; do
    python3 -c 'import json, sys
p = sys.argv[1] + "/state.json"; s = json.load(open(p)); s["sweep"]["last_wave"] = 2; s["sweep"][sys.argv[2]] = None
s["sweep"]["status"] = "running"; json.dump(s, open(p, "w"))' "$tmp/D" $m
    for c in status resume audit; do
        out=$("$bin" $c --tuning "$tmp/D" 2>&1)
        [ $? -ne 0 ] && grep -q "'sweep.$m' is null" <<<"$out" || fail "$c read a record with $m null: $out"
    done
done

# --waves where it is not the sweep's own: refused, not silently ignored (resume --waves 1
# ran the recorded sweep's waves, whatever they were)
for c in "resume --tuning $tmp/all" "slurm --merge --tuning $tmp/all" "ladder --tuning $tmp/all" \
         "tune --dtype f16 --shape 512x512x512 --mode scratch --backend sim --tuning $tmp/T"; do
    # shellcheck disable=SC2086 # the words of $c are the command
    out=$("$bin" $c --waves 1 2>&1); rc=$?
    [ $rc -eq 2 ] && grep -q -- "--waves" <<<"$out" || fail "$c --waves 1 exited $rc: $out"
done
[ -e "$tmp/T" ] && fail "tune --waves created its tuning directory"
echo ok
