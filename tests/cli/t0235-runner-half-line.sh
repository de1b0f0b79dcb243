#!/usr/bin/env bash
# Issue 17 item 4: a measurement worker that dies after printing half a reply line is a
# crash, and its raw file says so: it parses, names the status the row was decided from
# and keeps the worker's output as text, so 'audit' passes the honest run. A whole reply
# line is the request's outcome even when the worker dies right after it (issue 15: the
# death ends that worker; the next request starts a new one and is not blamed). The GPU
# is a fake worker; nvcc builds the kernels (skipped without it).
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "skip: no nvcc"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
ok='"status":"ok","gpu":"FAKE","device":0,"dtype":"f16","m":256,"n":256,"k":256,"verify":{"passed":true,"reference":"cpu","checked":65536,"mismatches":0,"max_abs_err":0.01,"max_err_over_tol":0.4,"nan_or_unwritten":0},"timing":{"warmup":10,"iters":500,"trials":[0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002],"median_ms":0.002,"spread_pct":0,"tflops":16.77722},"gpu_state":{"sm_clock_median_mhz":1500},"peak":{"sparse_tflops_at_clock":1499,"hw_eff_pct":1.119227}'
paired='"paired":{"candidate_ms":[0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002,0.002],"incumbent_ms":[0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001]}'
# a fake measurement worker (croq-runner serve): the first worker measures the baseline,
# then prints half of its reply for iteration 1 and is killed; the second, started for
# iteration 2, sends a whole reply (the candidate 2x slower than the best) and is killed
# after it: a whole reply line is the outcome, the worker's death only ends that worker.
# Like the real runner it names the modules it loaded (the identity in the cubin's bytes).
cat > "$T/runner" <<EOF2
#!/bin/bash
w=\$(cat "$T/workers" 2>/dev/null || echo 0); echo \$((w + 1)) > "$T/workers"
mid() { LC_ALL=C grep -ao 'croq-module-id:[0-9a-f]\{16\}' "\$1" | head -n 1 | cut -d: -f2; }
echo '{"schema":1,"command":"serve","event":"ready","protocol":1,"status":"ok"}'
n=0 inc=
while read -r line; do
    id=\$(echo "\$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
    cubin=\$(echo "\$line" | sed -n 's/.*"cubin":"\([^"]*\)".*/\1/p')
    case "\$line" in *'"op":"quit"'*) exit 0 ;; *'"op":"set_incumbent"'*) inc=\$(mid "\$cubin")
        echo '{"schema":1,"command":"serve","id":'"\$id"',"op":"set_incumbent","status":"ok","module_id":"'"\$inc"'","verify":{"passed":true,"reference":"cpu","checked":65536,"mismatches":0,"max_abs_err":0.01,"max_err_over_tol":0.4,"nan_or_unwritten":0}}'; continue ;; esac
    n=\$((n + 1))
    ids='"module_id":"'\$(mid "\$cubin")'","incumbent_module_id":"'\$inc'"'
    if [ \$w = 0 ] && [ \$n = 1 ]; then echo '{"schema":1,"command":"serve","id":'"\$id,\$ids"',$ok}'
    elif [ \$w = 0 ]; then printf '%s' '{"schema":1,"command":"serve","id":'"\$id,\$ids"',$ok}' | head -c 90; kill -9 \$\$
    else echo '{"schema":1,"command":"serve","id":'"\$id,\$ids"',$ok,$paired}'; kill -9 \$\$; fi
done
EOF2
chmod +x "$T/runner"
key=f16_256x256x256_fs
CROQ_NCU=/bin/false CROQ_CACHE_DIR=$T/cache CROQ_SPECULATE=0 "$CROQ_BIN/croqtuner" tune --dtype f16 --shape 256x256x256 \
    --mode scratch --iters 2 --backend gpu --runner "$T/runner" --tuning "$T/t" --quiet >"$T/log" 2>&1 ||
    fail "tune exited $?: $(tail -n 3 "$T/log")"
res=$T/t/logs/$key/results.tsv
[ "$(awk -F'\t' 'NR > 2 {print $10}' "$res" | tr '\n' ' ')" = "BASELINE DISCARD_RUNTIME_CRASH DISCARD " ] ||
    fail "decisions: $(awk -F'\t' 'NR > 2 {print $10}' "$res" | tr '\n' ' ')"
raw=$T/t/perf/$key/iter001-cand.json
python3 - "$raw" <<'PY' || fail "iter001-cand.json: $(head -c 300 "$raw")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "crash" and r["term_signal"] == 9, r
assert r["stdout"].startswith('{"schema":1,"command":"serve","id":'), r["stdout"]
PY
raw=$T/t/perf/$key/iter002-cand.json
python3 - "$raw" <<'PY' || fail "iter002-cand.json: $(head -c 300 "$raw")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "ok" and r["paired"]["incumbent_ms"][0] == 0.001, r
PY
# (a third worker answers the final ladder: this fake knows no ladder, so the ladder
# fails and the tuning's best stays registered)
[ "$(cat "$T/workers")" = 3 ] || fail "$(cat "$T/workers") workers started, want 3"
out=$("$CROQ_BIN/croqtuner" audit --tuning "$T/t") || fail "audit of the honest run: $out"
echo ok
