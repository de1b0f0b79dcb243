#!/usr/bin/env bash
# tests/gpu/integrity.sh — issue 22 on the GPU machine: a from-scratch tune of one shape
# under decision rules 4 (paired screen + independent confirmation, the one scale), ending
# with its final ladder, then every kept configuration timed again together twice
# (`croqtuner ladder --retime --repeat 2`: the recorded chain of gains beside the re-timed
# one and its spread), the audit, and the module-identity tally: every measurement's
# module id reported, replies refused as another module's (-foreign*.json), and whether
# each paired measurement's incumbent is the module its best was measured as.
# The tune is cut after LIMIT seconds (default 420); the tuning directory is packed
# (without build/) into OUT_DIR/tuning-<key>.tgz, to be carried and resumed by the next call.
# With SMOKE=1 it first tunes f16 1024x1024x1024 for 6 iterations in OUT_DIR/smoke (the
# ladder and the module ids on a real GPU in about a minute) and prints its ladder.
# Usage (GPU machine, repo root): tests/gpu/integrity.sh BIN_DIR TUNING_DIR OUT_DIR DTYPE SHAPE [ITERS]
set -u
B=${1:?bin dir}; T=${2:?tuning dir}; OUT=${3:?out dir}; DTYPE=${4:?dtype}; SHAPE=${5:?MxNxK}; ITERS=${6:-150}
export PATH=/usr/local/cuda/bin:$PATH CROQ_CUOBJDUMP=${CROQ_CUOBJDUMP:-$(command -v cuobjdump)}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
export CROQ_SHAPES=${CROQ_SHAPES:-$PWD/../shared/data/shapes.json}
key=${DTYPE}_${SHAPE}_fs
mkdir -p "$OUT"
if [ "${SMOKE:-0}" = 1 ]; then
    s=$(date +%s)
    "$B/croqtuner" tune --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 6 --backend gpu \
        --tuning "$OUT/smoke" > "$OUT/smoke.log" 2>&1
    echo "smoke: rc=$? in $(( $(date +%s) - s )) s"; tail -n 3 "$OUT/smoke.log"
    "$B/croqtuner" audit --tuning "$OUT/smoke" | tail -n 1
    python3 - "$OUT/smoke" <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/perf/*/iter*-cand.json"))[:3]:
    j = json.load(open(f)); print("smoke", f.split("/")[-1], j.get("status"), "module_id", j.get("module_id"),
                                  "incumbent", j.get("incumbent_module_id"))
for f in glob.glob(sys.argv[1] + "/perf/*/ladder-*.json"):
    j = json.load(open(f)); print("smoke", f.split("/")[-1], j["status"],
                                  [(e["iter"], round(sum(e["trial_ms"]) / max(1, len(e["trial_ms"])), 5)) for e in j["entries"]])
PY
fi
start=$(date +%s)
echo "$(date -u +%FT%TZ) tune $key (limit ${LIMIT:-420} s)"
timeout "${LIMIT:-420}" "$B/croqtuner" tune --dtype "$DTYPE" --shape "$SHAPE" --mode scratch --iters "$ITERS" \
    --backend gpu --tuning "$T" > "$OUT/tune-$key.log" 2>&1
echo "$(date -u +%FT%TZ) tune rc=$? after $(( $(date +%s) - start )) s"
tail -n 2 "$OUT/tune-$key.log"
done=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['shapes'][sys.argv[2]]['status'])" \
       "$T/state.json" "$key" 2>/dev/null)
if [ "$done" = done ]; then
    "$B/croqtuner" ladder --retime --key "$key" --repeat 2 --tuning "$T" > "$OUT/retime-$key.txt" 2>&1
    echo "retime rc=$?"; cat "$OUT/retime-$key.txt"
    "$B/croqtuner" audit --tuning "$T" --key "$key" > "$OUT/audit-$key.txt" 2>&1; echo "audit rc=$?: $(tail -n 1 "$OUT/audit-$key.txt")"
fi
python3 - "$T" "$key" <<'PY' | tee "$OUT/identity-$key.txt"
import glob, json, os, re, sys
d, key = sys.argv[1:]
p = f"{d}/perf/{key}"
raws = sorted(f for f in glob.glob(p + "/iter*.json") if re.search(r"iter\d{3}-[a-z-]+\.json$", f) and "foreign" not in f)
own, inc, missing = {}, [], 0
for f in raws:
    j = json.load(open(f)); it = int(os.path.basename(f)[4:7]); tag = os.path.basename(f)[8:-5]
    if j.get("status") != "ok" or tag == "profile":
        continue
    if not j.get("module_id"):
        missing += 1
    if tag == "cand":
        own[it] = j.get("module_id")
    if j.get("paired_with") or j.get("incumbent_module_id"):
        inc.append((it, tag, j.get("incumbent_module_id")))
rows = [l.split("\t") for l in open(f"{d}/logs/{key}/results.tsv").read().splitlines()[2:]]
best, wrong = None, 0
for r in rows:
    it, dec = int(r[0]), r[9]
    for (i, tag, m) in inc:
        if i == it and best is not None and own.get(best) and m != own[best]:
            wrong += 1
    if dec in ("BASELINE", "KEEP"):
        best = it
foreign = glob.glob(p + "/*-foreign*.json")
print(f"identity {key}: {len(raws)} raw files, {missing} ok measurements without a module id, {len(foreign)} "
      f"replies refused as another module's or request's, {wrong} paired measurements whose incumbent is not the "
      f"module its best was measured as")
PY
"$B/croqtuner" status --tuning "$T" > "$OUT/status.txt" 2>&1; cat "$OUT/status.txt"
"$B/croqtuner" compact --tuning "$T" > /dev/null 2>&1
tar czf "$OUT/tuning.tgz" --exclude=build -C "$(dirname "$T")" "$(basename "$T")"
