#!/usr/bin/env bash
# Issue 17 item 5: a shape continued on another GPU model (another name or SM count than
# its baseline was measured on) is refused with a message naming both, and nothing of
# the new measurement is recorded; on the first model it continues. The GPU is a fake
# measurement worker that says which model it is; nvcc builds the kernels (skipped
# without it).
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "skip: no nvcc"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# a fake measurement worker (croq-runner serve) that says which GPU model it runs on; a
# candidate is 2x slower than the best (every idea a DISCARD)
runner() { # NAME MODEL SMS
    local ok='"status":"ok","gpu":"GPUNAME","sm_count":SMS,"device":0,"dtype":"f16","m":256,"n":256,"k":256,"verify":{"passed":true,"reference":"cpu","checked":65536,"mismatches":0,"max_abs_err":0.01,"max_err_over_tol":0.4,"nan_or_unwritten":0},"timing":{"warmup":10,"iters":500,"trials":[0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002],"median_ms":0.002,"spread_pct":0,"tflops":16.77722},"gpu_state":{"sm_clock_median_mhz":1500},"peak":{"sparse_tflops_at_clock":1499,"hw_eff_pct":1.119227}'
    ok=${ok/GPUNAME/$2}
    ok=${ok/SMS/$3}
    cat > "$T/$1" <<EOF2
#!/bin/bash
# like the real runner, it names the modules it loaded (the identity in the cubin's bytes)
mid() { LC_ALL=C grep -ao 'croq-module-id:[0-9a-f]\{16\}' "\$1" | head -n 1 | cut -d: -f2; }
echo '{"schema":1,"command":"serve","event":"ready","protocol":1,"status":"ok"}'
inc=
while read -r line; do
    id=\$(echo "\$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
    cubin=\$(echo "\$line" | sed -n 's/.*"cubin":"\([^"]*\)".*/\1/p')
    ids='"module_id":"'\$(mid "\$cubin")'","incumbent_module_id":"'\$inc'"'
    case "\$line" in
    *'"op": "quit"'*|*'"op":"quit"'*) exit 0 ;;
    *set_incumbent*) inc=\$(mid "\$cubin"); echo '{"schema":1,"command":"serve","id":'"\$id"',"op":"set_incumbent","status":"ok","module_id":"'"\$inc"'","verify":{"passed":true,"reference":"cpu","checked":65536,"mismatches":0,"max_abs_err":0.01,"max_err_over_tol":0.4,"nan_or_unwritten":0}}' ;;
    *'"paired": true'*|*'"paired":true'*) echo '{"schema":1,"command":"serve","id":'"\$id,\$ids"',$ok,"paired":{"candidate_ms":[0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002],"incumbent_ms":[0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001]}}' ;;
    *) echo '{"schema":1,"command":"serve","id":'"\$id,\$ids"',$ok}' ;;
    esac
done
EOF2
    chmod +x "$T/$1"
}
runner h200 "NVIDIA H200" 132
runner h100 "NVIDIA H100 80GB HBM3" 114
runner h200cut "NVIDIA H200" 114 # same name, fewer SMs (a partitioned GPU)
key=f16_256x256x256_fs
res=$T/t/logs/$key/results.tsv
run() { CROQ_NCU=/bin/false CROQ_CACHE_DIR=$T/cache CROQ_SPECULATE=0 "$CROQ_BIN/croqtuner" "$@"; }
# the baseline on the first model, then stopped as the first idea is saved
CROQ_CRASHPOINT=ideate.saved run tune --dtype f16 --shape 256x256x256 --mode scratch --iters 2 --backend gpu \
    --tuning "$T/t" --quiet --runner "$T/h200" >"$T/log" 2>&1
[ $? -eq 137 ] || fail "first run was not stopped at its crash point: $(tail -n 3 "$T/log")"
grep -q '"gpu": "NVIDIA H200, 132 SMs"' "$T/t/checkpoints/$key.json" || fail "the checkpoint does not name the GPU"
for other in h100 h200cut; do
    cp "$res" "$T/res.before"
    err=$(run resume --tuning "$T/t" --quiet --runner "$T/$other" 2>&1); rc=$?
    [ $rc -eq 1 ] || fail "$other: exit $rc, want 1: $err"
    grep -q "is measured on 'NVIDIA H200, 132 SMs'" <<<"$err" || fail "$other: message: $err"
    grep -q "but this GPU is 'NVIDIA H[0-9]* *[^']*, 114 SMs'" <<<"$err" || fail "$other: message: $err"
    cmp -s "$res" "$T/res.before" || fail "$other: a refused measurement was recorded"
done
run resume --tuning "$T/t" --quiet --runner "$T/h200" >"$T/log" 2>&1 ||
    fail "continuing on the first model: $(tail -n 3 "$T/log")"
[ "$(($(wc -l <"$res") - 2))" -eq 3 ] || fail "want 3 rows after continuing on the first model"
"$CROQ_BIN/croqtuner" audit --tuning "$T/t" >/dev/null || fail "audit"
echo ok
