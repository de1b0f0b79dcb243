#!/usr/bin/env bash
# croqtuner plan-sim fits its durations to GPU runs only: a simulated tuning directory is
# refused (its durations are the CPU's), and beside a GPU one it is left out with a
# warning naming it; the GPU runs of results/h200-x2 alone predict as before.
set -u
. "$(dirname "$0")/lib.sh"
gpu="$CROQ_SOURCE_DIR/results/h200-x2/tuning-one-worker"
"$bin" tune --backend sim --quiet --dtype f16 --shape 512x512x512 --mode scratch --iters 3 --tuning "$tmp/sim" \
    --shapes "$fixture" || fail "sim tune"
args=(--shapes "$fixture" --workers 1,2)
out=$("$bin" plan-sim --measured "$tmp/sim" "${args[@]}" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "no done GPU shape .*every done shape there ran on the sim or replay backend" <<<"$out" ||
    fail "a sim directory was accepted: rc=$rc: $out"
out=$("$bin" plan-sim --measured "$gpu" --measured "$tmp/sim" "${args[@]}" 2>"$tmp/err") ||
    fail "plan-sim with a GPU directory: $(cat "$tmp/err")"
grep -q "warning: plan-sim: --measured $tmp/sim: 1 done shape(s) not run on a GPU (sim or replay backend) left out" \
    "$tmp/err" || fail "no warning about the sim directory: $(cat "$tmp/err")"
grep -qE "^  f16_512x512x512_fs +[0-9.]+ GFLOP" <<<"$out" && fail "a sim shape among the measured points: $out"
alone=$("$bin" plan-sim --measured "$gpu" "${args[@]}" 2>/dev/null) || fail "plan-sim on the GPU directory"
[ "$out" = "$alone" ] || fail "the sim directory changed the prediction"
echo ok
