#!/usr/bin/env bash
# The final ladder through the gpu backend (src/backend/gpu.c gpu_ladder, the runner's
# serve op ladder): every entry built through the cache and timed in one request; the raw
# file holds each entry's trials in the model backends' record, with the worker's reply
# (whose module ids are the builds') beside them; the registered best is the winner and
# the run audits clean. A ladder whose reply fails an entry twice leaves the tuning's best
# registered, with why. A shape tuned with --l2 cold refuses a reply timed warm. The GPU is tests/fixtures/serve/fake-serve.sh; nvcc builds.
set -u
. "$(dirname "$0")/lib.sh"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "skip: no nvcc"; exit 77; }
key=f16_256x256x256_fs
fake="$CROQ_SOURCE_DIR/tests/fixtures/serve/fake-serve.sh"
tune() { CROQ_NCU=/bin/false CROQ_CACHE_DIR=$tmp/cache CROQ_SPECULATE=0 "$bin" tune --dtype f16 --shape 256x256x256 \
         --mode scratch --iters 3 --backend gpu --runner "$fake" --tuning "$1" --quiet 2>"$1.err"; }
tune "$tmp/t" || fail "tune exited $?: $(tail -n 3 "$tmp/t.err")"
python3 - "$tmp/t" "$key" <<'PY' || fail "the ladder's records"
import json, re, sys, os
d, key = sys.argv[1:]
raw = json.load(open(f"{d}/perf/{key}/ladder-final.json"))
assert raw["status"] == "ok" and raw["backend"] == "gpu", raw
ks = raw["reply"]["ladder"]["kernels"]
assert len(ks) == len(raw["entries"]) >= 2, raw
for e, k in zip(raw["entries"], ks):
    assert e["trial_ms"] == k["trial_ms"] and len(e["trial_ms"]) == raw["rounds"], (e, k)
    cubin = open(k["cubin"], "rb").read()
    ids = re.findall(rb"croq-module-id:([0-9a-f]{16})", cubin)
    assert ids == [k["module_id"].encode()], (k["cubin"], ids)
c = json.load(open(f"{d}/checkpoints/{key}.json"))["ladder"]
s = json.load(open(f"{d}/state.json"))["shapes"][key]["best"]
w = c["entries"][c["winner"]]
assert s["measured"] == "ladder" and s["iter"] == w["iter"] and s["tflops"] == w["tflops"], (s, w)
PY
out=$("$bin" audit --tuning "$tmp/t") || fail "audit: $out"

FAKE_SERVE_LADDER_FAIL=1 tune "$tmp/f" || fail "tune with a failing ladder exited $?: $(tail -n 3 "$tmp/f.err")"
python3 - "$tmp/f" "$key" <<'PY' || fail "the failed ladder's records"
import json, sys
d, key = sys.argv[1:]
c = json.load(open(f"{d}/checkpoints/{key}.json"))
l = c["ladder"]
assert not l["ok"] and l["winner"] == -1, l
assert "left out: incorrect" in l["note"] and "the ladder failed (attempt 2)" in l["note"], l["note"]
s = json.load(open(f"{d}/state.json"))["shapes"][key]["best"]
assert "measured" not in s and s["iter"] == c["best"]["iter"], s
PY
[ -f "$tmp/f/perf/$key/ladder-final-2.json" ] || fail "no second ladder after the failed entry"
out=$("$bin" audit --tuning "$tmp/f") || fail "audit of the failed ladder: $out"
# under rules 4 a confirmed KEEP whose chained best would pass the physical peak is not kept
# (the fake worker's 0.002 ms at 1024x1024x1344 is 1409 TFLOPS; each KEEP claims 5% more: the 7th passes 1979)
CROQ_NCU=/bin/false CROQ_CACHE_DIR=$tmp/cache CROQ_SPECULATE=0 FAKE_SERVE_FASTER=all "$bin" tune --dtype f16 \
    --shape 1024x1024x1344 --mode scratch --iters 10 --backend gpu --runner "$fake" --tuning "$tmp/peak" --quiet \
    2>"$tmp/peak.err" || fail "tune with impossible gains exited $?: $(tail -n 3 "$tmp/peak.err")"
grep -q "above the physical peak .*: the pairings are broken, not kept" "$tmp/peak/logs/f16_1024x1024x1344_fs/results.tsv" ||
    fail "no KEEP was refused for passing the peak: $(cut -f1,10,11 "$tmp/peak/logs/f16_1024x1024x1344_fs/results.tsv")"
out=$("$bin" audit --tuning "$tmp/peak") || fail "audit of the refused chain: $out"

# a shape timed with a cold L2 refuses a reply timed warm: the baseline is a crash naming it
CROQ_NCU=/bin/false CROQ_CACHE_DIR=$tmp/cache CROQ_SPECULATE=0 FAKE_SERVE_L2=warm "$bin" tune --dtype f16 \
    --shape 256x256x256 --mode scratch --iters 1 --backend gpu --runner "$fake" --tuning "$tmp/cold" --l2 cold \
    --quiet 2>"$tmp/cold.err" || fail "tune --l2 cold exited $?: $(tail -n 3 "$tmp/cold.err")"
awk -F'\t' 'NR == 3' "$tmp/cold/logs/$key/results.tsv" | grep -q "DISCARD_RUNTIME_CRASH.*timed with a warm L2, a cold one was asked for" ||
    fail "a warm reply to a cold shape: $(awk -F'\t' 'NR == 3 {print $10, $NF}' "$tmp/cold/logs/$key/results.tsv")"
grep -q '"l2": "cold"' "$tmp/cold/checkpoints/$key.json" || fail "the checkpoint does not record the cold L2"
echo ok
