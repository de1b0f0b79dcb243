#!/usr/bin/env bash
# 'croqtuner sweep' on the simulated backend: the order of the plan (typical shapes
# from scratch, other far shapes, near shapes, then needs_scratch shapes), the seeds of
# from-best shapes, a second sweep being a no-op, the whole shipped shapes.json (134
# scenario shapes), and a GPU that becomes unusable stopping the sweep with a reason.
set -u
. "$(dirname "$0")/lib.sh"

small_plan "$tmp/shapes.json"
t="$tmp/small"
out=$("$bin" sweep --dtype f16 --backend sim --iters 2 --shapes "$tmp/shapes.json" --tuning "$t" 2>&1) ||
    fail "sweep exited $?: $(tail -n 3 <<<"$out")"
order=$(grep -E '^f16_[0-9x_fs]+: from_' <<<"$out" | cut -d: -f1 | tr '\n' ' ')
want="f16_512x512x512_fs f16_256x256x256 f16_2048x2048x2048 f16_2048x4096x4096 f16_2048x4096x8192 "
[ "${order:0:${#want}}" = "$want" ] || fail "sweep order: '$order', want '$want...'"
grep -q "^sweep done" <<<"$out" || fail "no 'sweep done'"
grep -q '"status": "done"' "$t/state.json" || fail "no done shapes"
[ "$(grep -c '"status": "active"' "$t/state.json")" -eq 0 ] || fail "a shape is left active"
# from-best shapes start from the nearest tuned shape
seed_from() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["shapes"][sys.argv[2]]["seed_from"])' \
                  "$t/state.json" "$1"; }
[ "$(seed_from f16_256x256x256)" = f16_512x512x512_fs ] || fail "256^3 seed"
[ "$(seed_from f16_2048x4096x8192)" = f16_2048x4096x4096 ] || fail "near seed"
# needs_scratch: exactly the flagged from-best shapes got a from-scratch run after them
"$bin" status --json --tuning "$t" >"$tmp/status.json" || fail "status --json"
if command -v python3 >/dev/null; then
    python3 - "$tmp/status.json" <<'PY' || fail "needs_scratch shapes and from-scratch reruns do not match"
import json, sys
s = {e["key"]: e for e in json.load(open(sys.argv[1]))["shapes"]}
flagged = {k for k, e in s.items() if e["needs_scratch"]}
rerun = {k[:-3] for k in s if k.endswith("_fs") and k != "f16_512x512x512_fs"}
assert flagged == rerun, (flagged, rerun)
PY
fi
grep -q '"plan": "default"' "$t/state.json" && grep -q '"status": "done"' <(grep -A 8 '"sweep"' "$t/state.json") ||
    fail "state.json does not record the finished sweep"
cp "$t/state.json" "$tmp/state.before"
"$bin" sweep --dtype f16 --backend sim --iters 2 --shapes "$tmp/shapes.json" --tuning "$t" --quiet || fail "second sweep"
diff <(grep -v updated_at "$tmp/state.before") <(grep -v updated_at "$t/state.json") >/dev/null ||
    fail "a second sweep changed finished shapes"

# an unusable GPU stops the sweep with the reason; resume continues it later
err=$(CROQ_SIM_FAULTS=unusable@1 "$bin" sweep --dtype e4m3 --backend sim --iters 2 --shapes "$tmp/shapes.json" \
      --tuning "$tmp/gone" --quiet 2>&1)
[ $? -eq 1 ] || fail "sweep on an unusable GPU did not exit 1"
grep -q "the GPU is unusable" <<<"$err" && grep -q "sweep stopped" <<<"$err" || fail "message: $err"
grep -q '"status": "stopped: GPU unusable"' "$tmp/gone/state.json" || fail "sweep status not recorded"
"$bin" resume --tuning "$tmp/gone" --quiet || fail "resume of the stopped sweep"
[ "$(grep -c '"status": "done"' "$tmp/gone/state.json")" -ge 6 ] || fail "resume did not finish the sweep"

# the sweep killed (SIGKILL in its second shape): status counts the planned shapes that
# never started, which the shape table cannot show (state.json has only started shapes)
CROQ_CRASHPOINT=store.state@4 "$bin" sweep --dtype e4m3 --backend sim --iters 2 --shapes "$tmp/shapes.json" \
    --tuning "$tmp/killed" --quiet 2>/dev/null
[ $? -eq 137 ] || fail "the crash point did not kill the sweep"
read -r started done < <(python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['shapes']
print(len(s), sum(v['status'] == 'done' for v in s.values()))" "$tmp/killed/state.json")
st=$("$bin" status --tuning "$tmp/killed") || fail "status after the kill exited $?"
# e4m3 plan: 2048^3 from scratch, 256^3, 512^3, 2048x4096x4096, 2048x4096x8192
grep -q "^sweep (e4m3, waves 1-4, recorded running): 5 planned shapes, $((5 - started)) not started yet, $((5 - done)) not finished ('croqtuner resume' continues it)$" <<<"$st" ||
    fail "status after a killed sweep ($started shapes started): $st"
"$bin" status --json --tuning "$tmp/killed" | python3 -c "
import json, sys
p = json.load(sys.stdin)['sweep_plan']
assert (p['planned'], p['not_started']) == (5, 5 - $started), p" || fail "status --json: sweep_plan"
"$bin" resume --tuning "$tmp/killed" --quiet || fail "resume of the killed sweep"
"$bin" status --tuning "$tmp/killed" | grep -q "^sweep (" && fail "a finished sweep still listed as unfinished"

# the shipped file: every one of the 134 scenario shapes, the typical ones from scratch
if [ -n "${CROQ_SHAPES:-}" ] || [ -e "$CROQ_SOURCE_DIR/../shared/data/shapes.json" ]; then
    t="$tmp/full"
    "$bin" sweep --dtype e4m3 --backend sim --iters 1 --mode best --tuning "$t" --quiet || fail "full sweep exited $?"
    n=$(grep -cE '^    "e4m3_[0-9]+x[0-9]+x[0-9]+(_fs)?": \{' "$t/state.json")
    [ "$n" -eq 134 ] || fail "full sweep tuned $n shapes, want 134"
    [ "$(grep -cE '^    "e4m3_[0-9x]+_fs": \{' "$t/state.json")" -eq 0 ] || fail "--mode best ran a shape from scratch"
fi
a=$("$bin" audit --tuning "$tmp/small") || fail "the sweep does not audit clean: $(grep -v 're-derived' <<<"$a" | head -n 5)"
# no shapes.json: the same exit (2, a missing input file) in every command that reads it,
# and the error names the copies to use (../shared/data, or the dry run's fixture)
for cmd in "sweep --backend sim --dtype all --tuning $tmp/noshapes" "plan-sim --dtype all --measured $tmp" \
           "slurm --dtype f16 --mode scratch --tuning $tmp/noshapes --out $tmp/noshapes.sh" "bench --dtype f16 --shapes typical"; do
    err=$(CROQ_SHAPES=$tmp/no-such-shapes.json "$bin" $cmd 2>&1); rc=$?
    [ $rc -eq 2 ] || fail "$cmd without shapes.json exited $rc, want 2: $err"
    grep -qF "for a dry run use CROQ_SHAPES=tests/fixtures/shapes.json" <<<"$err" || fail "$cmd: $err"
done
echo ok
