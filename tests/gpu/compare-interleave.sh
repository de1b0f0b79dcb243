#!/usr/bin/env bash
# tests/gpu/compare-interleave.sh — on the GPU machine: `croqtuner compare` with its
# interleaved protocol (docs/runner-protocol.md, "compare"; issue 23): ours (the family's
# defaults, --family) beside cuSPARSELt default, cuSPARSELt after its search and dense cuBLAS,
# every subject verified, then all timed together, one warm-up and TRIALS rounds of one trial
# each. Per dtype and shape one compare (--json, the runner's reply kept) with --tuning, so
# vendor.json is written as the sweep writes it. Checked per compare: the reply says
# "protocol": "interleaved" with TRIALS rounds over every ok subject; every timed subject
# has one trial time and one SM clock per round and passed its check after timing; the
# paired ratios ours / vendor equal the vendor's trial time over ours round by round
# (recomputed from the printed trials, 1e-5) and their median is the middle of those; the
# vendor.json says interleaved with the rounds. Printed last, one row per subject: status,
# median TFLOPS, median SM clock, spread, and for a vendor the paired ours / vendor median
# [interval] next to the ratio of the medians; per compare the spread of the subjects' median
# clocks (what interleaving is for: a few MHz, where blocks timed one after the other
# differed by up to ~100) and its wall time.
# Builds ours with nvcc here (about 3 s a kernel; CROQ_CACHE_DIR may name a filled cache).
# Usage (GPU machine, repo root): tests/gpu/compare-interleave.sh BIN_DIR OUT_DIR
#   env: SHAPES ("4096x8192x8192 768x768x768"), DTYPES ("f16 e4m3"), TRIALS (10).
# Writes OUT_DIR/compare-<dtype>-<shape>.json (.err), OUT_DIR/tuning/perf/*/vendor.json.
# Exit 0 when every compare verified ours and every check held; 1 otherwise; 77 without a GPU.
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
SHAPES=${SHAPES:-4096x8192x8192 768x768x768}; DTYPES=${DTYPES:-f16 e4m3}; TRIALS=${TRIALS:-10}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
[ -n "${CROQ_CUOBJDUMP:-}" ] || export CROQ_CUOBJDUMP=$(command -v cuobjdump)
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skip: no NVIDIA GPU here"; exit 77; fi
mkdir -p "$OUT"
rm -rf "$OUT/tuning"
: > "$OUT/runs.txt"
for dt in $DTYPES; do
    for sh in $SHAPES; do
        s=$(date +%s%N)
        "$B/croqtuner" compare --dtype "$dt" --shape "$sh" --family --trials "$TRIALS" --json \
            --tuning "$OUT/tuning" > "$OUT/compare-$dt-$sh.json" 2> "$OUT/compare-$dt-$sh.err"
        rc=$?
        wall=$(( ($(date +%s%N) - s) / 1000000 ))
        echo "$dt $sh $rc $wall" >> "$OUT/runs.txt"
        echo "compare $dt $sh: rc=$rc in $wall ms"
        [ "$rc" -eq 0 ] || tail -n 3 "$OUT/compare-$dt-$sh.err"
    done
done
python3 - "$OUT" "$TRIALS" <<'EOF'
import json, os, sys
out, rounds = sys.argv[1], int(sys.argv[2])
vendors = ("cusparselt_default", "cusparselt_search", "cublas")
bad, rows, foot = [], [], []

def check(what, ok):
    if not ok:
        bad.append(what)
    return ok

def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])

for line in open(out + "/runs.txt"):
    dt, sh, rc, wall = line.split()
    tag = "%s %s" % (dt, sh)
    check(tag + ": compare exited %s" % rc, rc == "0")
    try:
        j = json.loads(open("%s/compare-%s-%s.json" % (out, dt, sh)).read().strip().splitlines()[-1])
    except (ValueError, IndexError, OSError) as e:
        check(tag + ": no runner reply (%s)" % e, False)
        continue
    res, il, paired = j.get("results", {}), j.get("interleave", {}), j.get("paired", {})
    check(tag + ": protocol %r" % j.get("protocol"), j.get("protocol") == "interleaved")
    check(tag + ": rounds %r" % il.get("rounds"), il.get("rounds") == rounds)
    ok = [n for n, r in res.items() if r.get("status") == "ok"]
    check(tag + ": subjects %r, ok %r" % (il.get("subjects"), ok), set(ok) <= set(il.get("subjects", [])))
    clocks = []
    for name in ("ours",) + vendors:
        r = res.get(name, {})
        t, g = r.get("timing"), r.get("gpu_state", {})
        if t:
            check("%s %s: %d trials" % (tag, name, len(t["trials"])), len(t["trials"]) == rounds)
            check("%s %s: %d clocks" % (tag, name, len(g.get("sm_clock_mhz", []))), len(g.get("sm_clock_mhz", [])) == rounds)
            v = r.get("verify", {})
            check("%s %s: check after timing" % (tag, name), v.get("phase") == "after_timing" and v.get("passed"))
            if g.get("sm_clock_median_mhz"):
                clocks.append(g["sm_clock_median_mhz"])
        p = paired.get("ours_over_" + name) if name != "ours" else None
        ratio = j.get("ratios", {}).get("ours_over_" + name)
        cell = "-"
        if p:
            o, v = res["ours"]["timing"]["trials"], t["trials"]
            want = [b / a for a, b in zip(o, v)]
            check("%s %s: paired ratios differ from the trials" % (tag, name),
                  len(want) == len(p["ratios"]) and all(abs(x - y) <= 1e-5 * y for x, y in zip(p["ratios"], want)))
            check("%s %s: paired median" % (tag, name), abs(median(p["ratios"]) - p["median"]) <= 1e-6 * p["median"])
            check("%s %s: interval" % (tag, name), p["lo"] <= p["median"] <= p["hi"])
            cell = "%.3f [%.3f, %.3f]" % (p["median"], p["lo"], p["hi"])
        elif name != "ours" and r.get("status") == "ok" and res.get("ours", {}).get("status") == "ok":
            check("%s %s: no paired ratio though both are ok" % (tag, name), False)
        rows.append((dt, sh, name, r.get("status", "-"), "%.1f" % t["tflops"] if t else "-",
                     str(g.get("sm_clock_median_mhz") or "-"), "%.2f" % t["spread_pct"] if t else "-", cell,
                     "%.3f" % ratio if isinstance(ratio, (int, float)) else "-"))
    key = "%s_%s" % (dt, sh)
    vj = "%s/tuning/perf/%s/vendor.json" % (out, key)
    if check(tag + ": no vendor.json", os.path.exists(vj)):
        v = json.load(open(vj))
        check(tag + ": vendor.json protocol %r rounds %r" % (v.get("protocol"), v.get("rounds")),
              v.get("protocol") == "interleaved" and v.get("rounds") == rounds)
    foot.append("%s: median clocks of the subjects %s MHz (spread %s), %.1f s" %
                (tag, "/".join(map(str, clocks)) or "-", max(clocks) - min(clocks) if clocks else "-", int(wall) / 1000))
head = ("dtype", "shape", "subject", "status", "TFLOPS", "clock", "spread%", "paired ours/this [95%]", "med ratio")
w = [max(len(str(x[i])) for x in rows + [head]) for i in range(len(head))]
for r in [head] + rows:
    print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)))
print("\n".join(foot))
print("\n".join("FAIL: " + b for b in bad) if bad else "all checks passed (%d compares)" % len(foot))
sys.exit(1 if bad else 0)
EOF
