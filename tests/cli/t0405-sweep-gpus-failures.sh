#!/usr/bin/env bash
# A parallel sweep that cannot finish: every GPU unusable stops each worker, the sweep
# is recorded 'stopped: GPU unusable' (exit 1, the reason said) and 'resume' finishes it;
# a shape the engine refuses (a damaged checkpoint) is recorded failed, the later waves
# still run, the sweep ends 1 naming the shape, and the next run tries it again.
set -u
. "$(dirname "$0")/lib.sh"
# a worker waiting for a claim that never goes stale would wait forever: bound every run
run() { timeout 120 "$bin" "$@"; }

cp "$fixture" "$tmp/shapes.json" # 5 scenario shapes per dtype, 3 typical ones, the protocol's budgets
args=(--dtype f16 --backend sim --iters 2 --shapes "$tmp/shapes.json" --quiet)
# done shapes (a from-scratch rerun of a shape flagged needs_scratch not counted: how many
# there are depends on the proposer), claims, failed, sweep status
count() { python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); sh = s["shapes"]; rerun = sum(k.endswith("_fs") and k[:-3] in sh and sh[k]["status"] == "done" for k in sh); print(sum(e["status"] == "done" for e in sh.values()) - rerun, len(s["scale"]["claims"]), len(s["scale"]["failed"]), s["sweep"]["status"])' "$1"; }

t="$tmp/gone"
err=$(CROQ_SIM_FAULTS=unusable@1 run sweep "${args[@]}" --tuning "$t" --gpus 0,1 2>&1); rc=$?
[ $rc -eq 1 ] || fail "sweep on unusable GPUs exited $rc, want 1"
[ "$(grep -c "warning: worker [0-9]* stopped: GPU [01] is unusable" <<<"$err")" -eq 2 ] || fail "workers: $err"
grep -q "sweep stopped (a GPU is unusable); 6 shape(s) left" <<<"$err" || fail "message: $err"
[ "$(count "$t/state.json")" = "0 0 0 stopped: GPU unusable" ] || fail "state: $(count "$t/state.json")"
run resume --tuning "$t" --quiet || fail "resume exited $?"
[ "$(count "$t/state.json")" = "6 0 0 done" ] || fail "after resume: $(count "$t/state.json")"

t="$tmp/damaged"
mkdir -p "$t/checkpoints" && echo '{broken' >"$t/checkpoints/f16_256x256x256.json"
err=$(run sweep "${args[@]}" --tuning "$t" --workers 2 2>&1); rc=$?
[ $rc -eq 1 ] || fail "sweep with a damaged shape exited $rc, want 1"
grep -q "shape 'f16_256x256x256' failed" <<<"$err" && grep -q "1 shape(s) failed" <<<"$err" || fail "message: $err"
[ "$(count "$t/state.json")" = "5 0 1 done" ] || fail "state: $(count "$t/state.json")"
grep -q '"f16_2048x4096x8192": {' "$t/state.json" || fail "the near wave did not run after the failure"
rm "$t/checkpoints/f16_256x256x256.json"
run sweep "${args[@]}" --tuning "$t" --workers 2 || fail "the second run exited $?"
[ "$(count "$t/state.json")" = "6 0 0 done" ] || fail "after the second run: $(count "$t/state.json")"
echo ok
