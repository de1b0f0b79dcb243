#!/usr/bin/env python3
"""tests/gpu/tools/sweep-table.py TUNING_DIR REPORT_DIR — one markdown row per done GPU shape of a
sweep directory (issue 27's closing-note table): iterations and wall time, the registered best
(TFLOPS, SM clock, iteration) and the iteration at 95 % of the final best, all as `croqtuner
report --tuning TUNING_DIR --out REPORT_DIR` computed them (REPORT_DIR/tables/summary.csv:
docs/report.md says how), beside what the summary does not hold: the vendors of the same
`croqtuner compare` call one by one (perf/<key>/vendor.json, else perf/<shape>/) and ours / best vendor there,
marked [b] when that call timed the subjects one block after another (a record without
"protocol") and [i] when it interleaved them round by round; an interleaved record's paired
median ratio ours / best vendor follows in brackets (docs/report.md, vendor.json).
Reads only; run on the CPU machine after a chunk's tarball is unpacked."""
import csv, json, os, sys

d, rep = sys.argv[1], sys.argv[2]
state = json.load(open(os.path.join(d, "state.json")))["shapes"]
summary = {}
for r in csv.DictReader(open(os.path.join(rep, "tables", "summary.csv"))):
    run = "_fs" if r["run"] == "from-scratch" else ""
    summary[f'{r["dtype"]}_{r["M"]}x{r["N"]}x{r["K"]}{run}'] = r
print("| shape | iterations, wall | registered best (ladder, clock) | 95% at iteration | "
      "cuSPARSELt default / search | cuBLAS | ours (compare) / best vendor |")
print("| --- | --- | --- | --- | --- | --- | --- |")
tot = 0.0
for key, e in sorted(state.items(), key=lambda kv: (kv[1]["dtype"], kv[1]["m"] * kv[1]["n"] * kv[1]["k"])):
    if e["status"] != "done" or e["backend"] != "gpu":
        continue
    s = summary[key]
    wall = float(s["wall (s)"])
    tot += wall
    b = e["best"]
    base = key[:-3] if key.endswith("_fs") else key
    # the record the report reads: the key's own (compare --mode scratch), else the shape's
    vp = os.path.join(d, "perf", key, "vendor.json")
    if not os.path.exists(vp):
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
    print(f'| {e["dtype"]} {e["m"]}x{e["n"]}x{e["k"]} | {s["iterations done"]}, {wall:.0f} s | '
          f'{s["best (TFLOPS)"]} at {s["best at SM clock (MHz)"]} MHz (iteration {b["iter"]}) | '
          f'{s["95 % of best at iteration"]} | {vend} |')
print(f"\nwall time of the done shapes' tuning: {tot:.0f} s")
