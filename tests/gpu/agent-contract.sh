#!/usr/bin/env bash
# tests/gpu/agent-contract.sh — on the GPU: agent mode's launch contract (issue 17 item 11)
# and the runner's environment fields (item 13). A shape in agent mode gets
#   1. a code change with the knobs of an earlier candidate: measured like any other;
#   2. the baseline's source claiming tile_n=256 (its croq_abi says 128): recorded
#      DISCARD_RUNTIME_CRASH "bad module: launch contract broken", never timed as that config;
# and every candidate the engine generated itself must pass the contract check.
# Usage (on the GPU machine, repo root): tests/gpu/agent-contract.sh BIN_DIR OUT_DIR
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
export CROQ_CUOBJDUMP=$(command -v cuobjdump) CROQ_CACHE_DIR=$OUT/cache
mkdir -p "$OUT"
t="$OUT/tuning"; key=f16_2048x2048x2048_fs; res="$t/logs/$key/results.tsv"
"$B/croqtuner" --version
"$B/croqtuner" tune --agent --dtype f16 --shape 2048x2048x2048 --mode scratch --iters 3 --tuning "$t" --quiet
echo "tune --agent rc=$?"
{ "$B/croqtuner" source --tuning "$t" --key "$key" --iter 0; echo "__device__ int croq_agent_variant_a;"; } >"$OUT/a.cu"
"$B/croqtuner" propose --tuning "$t" --key "$key" --idea "same launch, new code" --category micro \
    --src "$OUT/a.cu" --set raster=1 --json > "$OUT/propose-a.json"; echo "propose a rc=$?"
{ "$B/croqtuner" source --tuning "$t" --key "$key" --iter 0; echo "__device__ int croq_agent_variant_b;"; } >"$OUT/b.cu"
"$B/croqtuner" propose --tuning "$t" --key "$key" --idea "claims tile_n=256, module is 128" --category macro \
    --src "$OUT/b.cu" --set tile_n=256 --json > "$OUT/propose-b.json"; echo "propose b rc=$?"
# the engine's own candidates (a short engine run) must all keep their contract
"$B/croqtuner" tune --dtype f16 --shape 2048x4096x4096 --mode scratch --iters 6 --tuning "$t" --quiet
echo "engine tune rc=$?"
"$B/croqtuner" audit --tuning "$t" > "$OUT/audit.txt"; echo "audit rc=$? ($(wc -l <"$OUT/audit.txt") lines)"
python3 - "$t" <<'PY'
import glob, json, sys
t = sys.argv[1]
print("%-26s %-4s %-22s %s" % ("shape", "iter", "decision", "note"))
for f in sorted(glob.glob(t + "/logs/*/results.tsv")):
    L = open(f).read().split("\n"); h = L[1].split("\t")
    for l in L[2:]:
        r = dict(zip(h, l.split("\t")))
        if len(r) == len(h):
            print("%-26s %-4s %-22s %s" % (f.split("/")[-2], r["iter"], r["decision"], r["note"][:70]))
raw = sorted(glob.glob(t + "/perf/*/iter000-cand.json"))[0]
j = json.load(open(raw))
print("runner identity:", {k: j.get(k) for k in ("gpu", "driver", "driver_cuda", "built_with_cuda", "commit")})
PY
