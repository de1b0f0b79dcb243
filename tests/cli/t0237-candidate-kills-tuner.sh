#!/usr/bin/env bash
# Issue 17 item 3: a candidate whose runner takes the tuner process down with it (here:
# kill -9 of its parent) is not retried forever: each measurement of a candidate is on
# record before it starts (an in-flight count in the checkpoint), and a candidate found
# in flight twice is recorded as DISCARD_RUNTIME_CRASH with the reason, without running
# it again; the loop then goes on, and audit passes the run. The GPU is a fake runner;
# nvcc builds the kernels (skipped without it).
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "skip: no nvcc"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
ok='"status":"ok","gpu":"GPUNAME","sm_count":SMS,"device":0,"dtype":"f16","m":256,"n":256,"k":256,"verify":{"passed":true,"reference":"cpu","checked":65536,"mismatches":0,"max_abs_err":0.01,"max_err_over_tol":0.4,"nan_or_unwritten":0},"timing":{"warmup":10,"iters":500,"trials":[0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002],"median_ms":0.002,"spread_pct":0,"tflops":16.77722},"gpu_state":{"sm_clock_median_mhz":1500},"peak":{"sparse_tflops_at_clock":1499,"hw_eff_pct":1.119227}'
ok=${ok/GPUNAME/FAKE}
ok=${ok/SMS/132}
# a fake measurement worker (croq-runner serve): every measure request is logged with its
# cubin; the second one (the first candidate) and every later one of that cubin kill the
# tuner, the worker's parent; the rest are DISCARDs (2x slower than the best)
cat > "$T/runner" <<EOF2
#!/bin/bash
# like the real runner, it names the modules it loaded (the identity in the cubin's bytes)
mid() { LC_ALL=C grep -ao 'croq-module-id:[0-9a-f]\{16\}' "\$1" | head -n 1 | cut -d: -f2; }
echo '{"schema":1,"command":"serve","event":"ready","protocol":1,"status":"ok"}'
inc=
while read -r line; do
    id=\$(echo "\$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
    cubin=\$(sed -E 's/.*"cubin": ?"([^"]*)".*/\\1/' <<<"\$line")
    case "\$line" in
    *'"op": "quit"'*|*'"op":"quit"'*) exit 0 ;;
    *set_incumbent*) inc=\$(mid "\$cubin"); echo '{"schema":1,"command":"serve","id":'"\$id"',"op":"set_incumbent","status":"ok","module_id":"'"\$inc"'","verify":{"passed":true,"reference":"cpu","checked":65536,"mismatches":0,"max_abs_err":0.01,"max_err_over_tol":0.4,"nan_or_unwritten":0}}'; continue ;;
    esac
    echo "\$cubin" >> "$T/calls"
    [ -f "$T/killer" ] && [ "\$(cat "$T/killer")" = "\$cubin" ] && kill -9 \$PPID
    [ "\$(wc -l < "$T/calls")" -eq 2 ] && { echo "\$cubin" > "$T/killer"; kill -9 \$PPID; }
    ids='"module_id":"'\$(mid "\$cubin")'","incumbent_module_id":"'\$inc'"'
    case "\$line" in
    *'"paired": true'*|*'"paired":true'*) echo '{"schema":1,"command":"serve","id":'"\$id,\$ids"',$ok,"paired":{"candidate_ms":[0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002],"incumbent_ms":[0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001]}}' ;;
    *) echo '{"schema":1,"command":"serve","id":'"\$id,\$ids"',$ok}' ;;
    esac
done
EOF2
chmod +x "$T/runner"
key=f16_256x256x256_fs
run() { CROQ_NCU=/bin/false CROQ_CACHE_DIR=$T/cache CROQ_SPECULATE=0 "$CROQ_BIN/croqtuner" "$@" >>"$T/log" 2>&1; }
run tune --dtype f16 --shape 256x256x256 --mode scratch --iters 2 --backend gpu --runner "$T/runner" --tuning "$T/t" --quiet
[ $? -eq 137 ] || fail "the tuner was not taken down: $(tail -n 3 "$T/log")"
grep -q '"in_flight": 1' "$T/t/checkpoints/$key.json" || fail "no in-flight record before the candidate ran"
run resume --tuning "$T/t" --quiet --runner "$T/runner"
[ $? -eq 137 ] || fail "resume was not taken down by the candidate: $(tail -n 3 "$T/log")"
grep -q '"in_flight": 2' "$T/t/checkpoints/$key.json" || fail "in-flight count not 2 after the second death"
run resume --tuning "$T/t" --quiet --runner "$T/runner" || fail "third resume exited $?: $(tail -n 3 "$T/log")"
grep -q "died 2 times while measuring this candidate" "$T/log" || fail "no warning: $(tail -n 3 "$T/log")"
res=$T/t/logs/$key/results.tsv
[ "$(awk -F'\t' 'NR > 2 {print $10}' "$res" | head -n 2 | tr '\n' ' ')" = "BASELINE DISCARD_RUNTIME_CRASH " ] ||
    fail "decisions: $(awk -F'\t' 'NR > 2 {print $10}' "$res" | tr '\n' ' ')"
awk -F'\t' 'NR == 4' "$res" | grep -q "the tuner process died 2 times while this candidate was measured" ||
    fail "the crash row does not say why: $(awk -F'\t' 'NR == 4' "$res")"
[ "$(($(wc -l <"$res") - 2))" -eq 3 ] || fail "the loop did not go on to iteration 2"
killer=$(cat "$T/killer")
[ "$(grep -c -x -F "$killer" "$T/calls")" -eq 2 ] || fail "the killing candidate ran $(grep -c -x -F "$killer" "$T/calls") times, want 2"
grep -q '"in_flight"' "$T/t/checkpoints/$key.json" && fail "in-flight count left in the checkpoint"
out=$("$CROQ_BIN/croqtuner" audit --tuning "$T/t") || fail "audit: $out"

# orderly exits are not deaths: the real croq-runner on a machine without a usable GPU
# makes every run stop 'unusable' (exit 1); three in a row leave the baseline unrecorded,
# no in-flight count on disk, and the shape resumable (the H200 lead's regression)
if ! "$CROQ_BIN/croq-runner" health >/dev/null 2>&1; then
    u=$T/unusable
    for i in 1 2 3; do
        if [ $i = 1 ]; then
            run tune --dtype f16 --shape 256x256x256 --mode scratch --iters 2 --backend gpu --tuning "$u" --quiet
        else
            run resume --tuning "$u" --quiet
        fi
        rc=$?
        [ $rc -eq 1 ] || fail "no GPU, run $i: exit $rc, want 1: $(tail -n 2 "$T/log")"
        grep -q '"in_flight"' "$u/checkpoints/$key.json" && fail "no GPU, run $i: an in-flight count was left"
    done
    [ "$(($(wc -l <"$u/logs/$key/results.tsv") - 2))" -eq 0 ] || fail "no GPU: a row was recorded: $(tail -n 1 "$u/logs/$key/results.tsv")"
    grep -q '"status": "active"' "$u/state.json" || fail "no GPU: the shape is not resumable"
fi
echo ok
