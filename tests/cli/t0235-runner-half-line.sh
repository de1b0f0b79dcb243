#!/usr/bin/env bash
# Issue 17 item 4: a runner that dies after printing half a JSON line (or after a whole
# "ok" line) is a crash, and its raw file says so: it parses, names the status the row
# was decided from and keeps the runner's output as text, so 'audit' passes the honest
# run. The GPU is a fake runner; nvcc builds the kernels (skipped without it).
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "skip: no nvcc"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
ok='{"schema":1,"command":"run","status":"ok","gpu":"FAKE","device":0,"dtype":"f16","m":256,"n":256,"k":256,"verify":{"passed":true,"reference":"cpu","checked":65536,"mismatches":0,"max_abs_err":0.01,"max_err_over_tol":0.4,"nan_or_unwritten":0},"timing":{"warmup":10,"iters":500,"trials":[0.001],"median_ms":0.001,"spread_pct":0.5,"tflops":100.0},"gpu_state":{"sm_clock_median_mhz":1500},"peak":{"sparse_tflops_at_clock":1499,"hw_eff_pct":6.7}}'
# the baseline's cubin measures fine; iteration 1 prints half its line and dies; iteration
# 2 prints a whole ok line and dies
cat > "$T/runner" <<EOF2
#!/bin/sh
n=\$(cat "$T/calls" 2>/dev/null || echo 0); echo \$((n + 1)) > "$T/calls"
case \$n in
0) echo '$ok' ;;
1) printf '%s' '$ok' | head -c 90; kill -9 \$\$ ;;
*) echo '$ok'; kill -9 \$\$ ;;
esac
EOF2
chmod +x "$T/runner"
key=f16_256x256x256_fs
CROQ_NCU=/bin/false CROQ_CACHE_DIR=$T/cache CROQ_SPECULATE=0 "$CROQ_BIN/croqtuner" tune --dtype f16 --shape 256x256x256 \
    --mode scratch --iters 2 --backend gpu --runner "$T/runner" --tuning "$T/t" --quiet >"$T/log" 2>&1 ||
    fail "tune exited $?: $(tail -n 3 "$T/log")"
res=$T/t/logs/$key/results.tsv
[ "$(awk -F'\t' 'NR > 2 {print $10}' "$res" | tr '\n' ' ')" = "BASELINE DISCARD_RUNTIME_CRASH DISCARD_RUNTIME_CRASH " ] ||
    fail "decisions: $(awk -F'\t' 'NR > 2 {print $10}' "$res" | tr '\n' ' ')"
for i in 001 002; do
    raw=$T/t/perf/$key/iter$i-cand.json
    python3 - "$raw" <<'PY' || fail "iter$i-cand.json: $(head -c 300 "$raw")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "crash" and r["term_signal"] == 9, r
assert r["stdout"].startswith('{"schema":1,"command":"run","status":"ok"'), r["stdout"]
PY
done
out=$("$CROQ_BIN/croqtuner" audit --tuning "$T/t") || fail "audit of the honest run: $out"
echo ok
