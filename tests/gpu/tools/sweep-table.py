#!/usr/bin/env python3
"""tests/gpu/tools/sweep-table.py TUNING_DIR — one markdown row per done GPU shape of a sweep
directory (issue 27's closing-note table): iterations, wall time (first to last results.tsv
timestamp, a pause of a run cut and resumed later counted as the median gap between rows, as
plan-sim does: src/scale/plansim.h plansim_busy_seconds), the registered best (the final ladder's TFLOPS and median SM clock), the iteration
whose chained best first reached 95 % of the final chained best, the vendors of the same
`croqtuner compare` call (perf/<shape>/vendor.json) and ours / best vendor there, marked [b]
when that call timed the subjects one block after another (a record without "protocol") and
[i] when it interleaved them round by round; an interleaved record's paired median ratio
ours / best vendor follows in brackets (docs/report.md, vendor.json).
Reads only; run on the CPU machine after a chunk's tarball is unpacked."""
import csv, json, os, sys
from datetime import datetime

def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")

d = sys.argv[1]
state = json.load(open(os.path.join(d, "state.json")))["shapes"]
print("| shape | iterations, wall | registered best (ladder, clock) | 95% at iteration | "
      "cuSPARSELt default / search | cuBLAS | ours (compare) / best vendor |")
print("| --- | --- | --- | --- | --- | --- | --- |")
tot = 0.0
for key, e in sorted(state.items(), key=lambda kv: (kv[1]["dtype"], kv[1]["m"] * kv[1]["n"] * kv[1]["k"])):
    if e["status"] != "done" or e["backend"] != "gpu":
        continue
    rows = []
    with open(os.path.join(d, "logs", key, "results.tsv")) as f:
        lines = [l for l in f if not l.startswith("#")]
    for r in csv.DictReader(lines, delimiter="\t"):
        rows.append(r)
    stamps = [ts(r["timestamp"]) for r in rows if r["timestamp"]]
    gaps = [(b - a).total_seconds() for a, b in zip(stamps, stamps[1:])]
    med = sorted(gaps)[(len(gaps) - 1) // 2] if gaps else 0.0
    pause = max(120.0, 20.0 * med)  # PLANSIM_PAUSE_MIN_S, PLANSIM_PAUSE_FACTOR
    wall = sum(med if g > pause else g for g in gaps)
    tot += wall
    chain = [(int(r["iter"]), float(r["best_tflops"])) for r in rows if r["best_tflops"]]
    final = max(b for _, b in chain)
    reach = next(i for i, b in chain if b >= 0.95 * final)
    b = e["best"]
    base = key[:-3] if key.endswith("_fs") else key
    vp = os.path.join(d, "perf", base, "vendor.json")
    if os.path.exists(vp):
        v = json.load(open(vp))
        best_v = max(v["cusparselt_default_tflops"], v["cusparselt_search_tflops"], v["cublas_tflops"])
        names = {"cusparselt_default_tflops": "cusparselt_default", "cusparselt_search_tflops": "cusparselt_search",
                 "cublas_tflops": "cublas"}
        best_name = max(names, key=lambda n: v[n])
        proto = v.get("protocol", "blocks")
        mark = {"blocks": "[b]", "interleaved": "[i]"}[proto]
        pr = (v.get("paired") or {}).get("ours_over_" + names[best_name])
        paired = f' (paired {pr["median"]:.3f})' if pr else ""
        vend = f'{v["cusparselt_default_tflops"]:.1f} / {v["cusparselt_search_tflops"]:.1f} | {v["cublas_tflops"]:.1f} | {v["ours_tflops"]:.1f} / {best_v:.1f} = {v["ours_tflops"] / best_v:.2f} {mark}{paired}'
    else:
        vend = "not compared yet | | "
    print(f'| {e["dtype"]} {e["m"]}x{e["n"]}x{e["k"]} | {e["iteration"]}, {wall:.0f} s | '
          f'{b["tflops"]:.1f} at {b.get("sm_clock_mhz", 0):.0f} MHz (iteration {b["iter"]}) | {reach} | {vend} |')
print(f"\nwall time of the done shapes' tuning: {tot:.0f} s")
