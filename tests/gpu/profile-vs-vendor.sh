#!/usr/bin/env bash
# tests/gpu/profile-vs-vendor.sh — on the GPU machine: issue 23, step 1. Our registered best
# and the kernel cuSPARSELt chose after its search, profiled side by side under ncu on the
# large shapes, in one call: per case one row per kernel of grid, cluster, block, shared
# memory, registers, tensor-pipe active %, SM and DRAM throughput, L2 hit rate,
# shared-memory bank conflicts and the top issue stalls (wgmma wait, barrier, long
# scoreboard, math throttle, ...), so the table says what holds our kernel back.
#
# Ours: the best configuration TUNING_DIR's state.json registered for <dtype>_<shape>_fs
# (a case DTYPE:MxNxK), or the configuration a case names (DTYPE:MxNxK:KNOB=V,KNOB=V,...:
# e.g. the ceiling's winner on a shape whose registered best is another kernel),
# built with `croqtuner build` (the kernel sources of main; for configurations the pinned
# generator has, the same SASS, tests/sass_identity.sh), one launch after the verification
# and one warm-up (`croq-runner run`). cuSPARSELt: first `croq-runner compare` without
# ncu, whose cusparseLtMatmulSearch keeps the configuration it runs at full speed
# (`algorithm.config_id`, `split_k` of the JSON); then, under ncu, compare with that
# configuration pinned (`--slt-config ID --slt-split-k K`: no search), listed at one metric
# per kernel, the pinned plan's kernel being the sparse GEMM of the listing that is not the
# default plan's (the first one launched: the default plan is verified first), and that
# kernel profiled once in a second pinned run. Why pinned: a search under ncu times
# serialized launches with flushed caches and keeps another kernel than it keeps
# unprofiled (H100, 2026-12-07, e4m3 512x8192x8192: 64x64x256 under ncu, 128x192x128
# without). When the unprofiled run gives no configuration, or the pinned listing no pick
# (the pinned plan failed), the case falls back to the search under ncu, as before (the
# listing's pick after the search's runs of back-to-back launches, profiled at its first
# launch). The listing is kept, and the table prints the
# profiled kernel's name, so a wrong pick can be seen: a sparse kernel is one whose name
# matches SPARSE_RE.
#
# Usage (GPU machine, repo root): tests/gpu/profile-vs-vendor.sh BIN_DIR TUNING_DIR OUT_DIR
#   env: CASES (default "f16:12288x12288x12288 f16:12288x4096x4096 e4m3:12288x4096x4096
#        e4m3:12288x12288x12288"; a case without a configuration whose best is not
#        registered yet is skipped; e.g. CASES="e4m3:4096x8192x32768:tile_m=256,tile_n=128,
#        persistent=1,epilogue=1,group=8,meta_path=0,stages=4"),
#        SPARSE_RE (default 'sparse|sp_?gemm|spmma|sptensor'), NCU (default ncu),
#        NCU_CACHE (ncu --cache-control: default all, caches flushed before every profiled
#        launch, a cold-L2 launch; none keeps what the earlier launches left, as timed runs do).
# Writes OUT_DIR/profile.tgz (the raw CSVs and the listings; the device tool returns at most
# 8 files) and prints the table last. Exit 0 when every case that ran has both rows; 1
# otherwise; 77 without a GPU.
set -u
B=${1:?bin dir}; T=${2:?tuning dir}; OUT=${3:?out dir}
CASES=${CASES:-f16:12288x12288x12288 f16:12288x4096x4096 e4m3:12288x4096x4096 e4m3:12288x12288x12288}
SPARSE_RE=${SPARSE_RE:-sparse|sp_?gemm|spmma|sptensor}
NCU=${NCU:-ncu}
NCU_CACHE=${NCU_CACHE:-all}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
[ -n "${CROQ_CUOBJDUMP:-}" ] || export CROQ_CUOBJDUMP=$(command -v cuobjdump)
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skip: no NVIDIA GPU here"; exit 77; fi
W=$(mktemp -d)/profile # outside OUT_DIR: only the archive goes there
mkdir -p "$W" "$OUT"
# metrics of the sections and names the tuner's profiler and probe.sh read on the H200, plus
# three standard ones (a name ncu does not know fails the whole run)
METRICS=gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
METRICS=$METRICS,lts__t_sector_hit_rate.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
profile() { # NAME KERNEL_FILTER... -- COMMAND...: one launch, raw CSV into $W/NAME.csv
    local name=$1; shift
    local filt=()
    while [ "$1" != -- ]; do filt+=("$1"); shift; done
    shift
    "$NCU" "${filt[@]}" --launch-count 1 --clock-control none --cache-control "$NCU_CACHE" --section SpeedOfLight --section LaunchStats \
        --section Occupancy --section WarpStateStats --metrics "$METRICS" \
        --csv --page raw --print-units base "$@" > "$W/$name.csv" 2> "$W/$name.err"
    echo "ncu $name: rc=$?"
}
# list_pick TAG DT SH [PIN OPTIONS]: cuSPARSELt's compare listed under ncu (one metric per
# kernel), then "SKIP REGEX" on stdout: its pick and the launches of that kernel to skip
# before the profiled one; nothing when there is no single pick. ncu's CSV shares stdout
# with croq-runner's JSON line and ncu's ==PROF== lines: the reader takes only the lines
# that start with a quote, the CSV's (and with a pin, the JSON line).
list_pick() {
    local tag=$1 dt=$2 sh=$3
    shift 3
    "$NCU" --clock-control none --metrics gpu__time_duration.sum --csv --page raw --print-units base \
        "$B/croq-runner" compare --dtype "$dt" --shape "$sh" --warmup 1 --iters 1 --trials 2 "$@" \
        > "$W/list-$tag.csv" 2> "$W/list-$tag.err"
    echo "ncu listing $dt $sh ${*:-(searched)}: rc=$?" >&2
    python3 - "$W/list-$tag.csv" "$SPARSE_RE" "$*" <<'PY'
import csv, json, re, sys
lines = open(sys.argv[1]).readlines()
pinned = sys.argv[3].split()[1] if sys.argv[3] else None  # the pinned config_id
if pinned is not None:
    # the pinned plan must have been made: else the listing holds only the default plan's
    # kernel, and profiling it as cuSPARSELt's pick would be wrong
    try:
        r = json.loads(next(l for l in lines if l.startswith("{")))["results"]["cusparselt_search"]
        ok = r["status"] == "ok" and r["algorithm"]["pinned"] and str(r["algorithm"]["config_id"]) == pinned
    except (StopIteration, ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        print(f"the pinned plan (config {pinned}) did not run ok in the listing", file=sys.stderr)
        sys.exit(0)
rows = [r for r in csv.DictReader(l for l in lines if l.startswith('"'))
        if r.get("ID", "").isdigit()]
names = [r["Kernel Name"] for r in rows]
gemm = lambda n: re.search(sys.argv[2], n, re.I) and not re.search(r"compress|reorder|metadata|prun", n, re.I)
# runs of one kernel launched back to back: the search launches each candidate 6 or 18
# times in a row, the timed rounds (--iters 1 --trials 2) one or two
runs = []
for n in names:
    if runs and runs[-1][0] == n:
        runs[-1][1] += 1
    else:
        runs.append([n, 1])
# pinned: nothing was searched (and without cuBLAS the two plans' launches can be one run)
last = -1 if pinned is not None else max((i for i, r in enumerate(runs) if r[1] >= 3), default=-1)
rounds = {r[0] for r in runs[last + 1:] if gemm(r[0])}
first = next((n for n in names if gemm(n)), None)  # the search's first candidate: config 0, the default plan's
# the timed rounds launch the default plan's kernel and the search plan's: the search's is
# the one that is not the default's (both the same kernel when the search kept config 0)
pick = rounds - {first} if first in rounds else set()
pick = pick or ({first} if rounds == {first} else set())
if len(pick) == 1:
    p = pick.pop()
    # pinned to a kernel of the default plan's name: its first launch is the default plan's
    # verification (the default plan is verified first), the second the pinned plan's
    print(1 if pinned is not None and p == first else 0, "regex:^" + re.escape(re.sub(r"[(<].*", "", p)))
else:
    print(f"rounds' sparse kernels {sorted(rounds)}, first candidate {first}: no single pick", file=sys.stderr)
PY
}
: > "$W/cases.txt"
i=0
for c in $CASES; do
    i=$((i + 1))
    dt=${c%%:*}; sh=${c#*:}; named=
    case $sh in *:*) named=${sh#*:}; sh=${sh%%:*} ;; esac
    if [ -n "$named" ]; then
        cfg="dtype=$dt,$named"
    else
        cfg=$(python3 - "$T/state.json" "${dt}_${sh}_fs" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["shapes"].get(sys.argv[2]) or {}
b = e.get("best") or {}
print(b.get("config", "") if e.get("status") == "done" else "")
PY
)
        if [ -z "$cfg" ]; then echo "skip $dt $sh: no registered best in $T"; continue; fi
    fi
    # files are named by the case's place in CASES: two cases may share a dtype and shape
    tag=$i-$dt-$sh
    echo "$tag $dt $sh $cfg" >> "$W/cases.txt"
    sets=(); IFS=, read -ra kv <<<"$cfg"
    for x in "${kv[@]}"; do [ "${x%%=*}" = dtype ] || sets+=(--set "$x"); done
    if ! "$B/croqtuner" build --dtype "$dt" --shape "$sh" "${sets[@]}" --name "ours-$tag" --out "$W/build" \
            > "$W/build-$tag.log" 2>&1; then
        echo "build of ours $dt $sh failed:"; tail -n 3 "$W/build-$tag.log"; continue
    fi
    # cuSPARSELt's search without ncu: the configuration to pin under it
    "$B/croq-runner" compare --dtype "$dt" --shape "$sh" --warmup 1 --iters 1 --trials 2 \
        > "$W/search-$tag.json" 2> "$W/search-$tag.err"
    pin=$(python3 - "$W/search-$tag.json" <<'PY'
import json, sys
try:
    r = json.loads(open(sys.argv[1]).readline())["results"]["cusparselt_search"]
    a = r["algorithm"]  # written even when the search failed: only an ok search's counts
    # split_k -1: the library's own for that configuration (H100, 2026-12-07: every pick)
    if r["status"] == "ok" and a["config_id"] >= 0:
        print(f"--slt-config {a['config_id']}" + (f" --slt-split-k {a['split_k']}" if a["split_k"] >= 1 else ""))
except (OSError, ValueError, KeyError, TypeError):
    pass
PY
)
    echo "cuSPARSELt's search without ncu, $dt $sh: ${pin:-no configuration (the search runs under ncu)}"
    # launches of `run`: the verification, one warm-up, one timed: profile the third
    profile "ours-$tag" --kernel-name croq_gemm_sp --launch-skip 2 -- \
        "$B/croq-runner" run --cubin "$W/build/ours-$tag.cubin" --dtype "$dt" --shape "$sh" \
        --warmup 1 --iters 1 --trials 1
    # the pinned listing's files keep their own name: a fallback listing must not hide why it failed
    pick=$(list_pick "${pin:+pin-}$tag" "$dt" "$sh" $pin)
    if [ -z "$pick" ] && [ -n "$pin" ]; then
        echo "the pinned listing gave no pick ($dt $sh): the search runs under ncu instead"
        pin=
        pick=$(list_pick "$tag" "$dt" "$sh")
    fi
    if [ -z "$pick" ]; then echo "no kernel matching '$SPARSE_RE' in the compare's listing ($dt $sh)"; continue; fi
    profile "cusparselt-$tag" --kernel-name "${pick#* }" --launch-skip "${pick%% *}" -- \
        "$B/croq-runner" compare --dtype "$dt" --shape "$sh" --warmup 1 --iters 1 --trials 2 $pin
done
tar czf "$OUT/profile.tgz" -C "$(dirname "$W")" profile
python3 - "$W" "$(dirname "$0")/tools" <<'PY'
import os, sys
w = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from ncu_csv import num, row_of, top_stalls
cols = [("grid", "launch__grid_size"), ("block", "launch__block_size"), ("regs", "launch__registers_per_thread"),
        ("smem KB", ("launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic")),
        ("us", "gpu__time_duration.sum"), ("MHz", ["sm__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.avg.per_second"]),
        ("tensor%", ["sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
                     "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"]),
        ("SM%", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        ("DRAM%", ["dram__throughput.avg.pct_of_peak_sustained_elapsed", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"]), ("L2 hit%", "lts__t_sector_hit_rate.pct"),
        ("bank confl", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum")]
# a tuple: summed; a list: alternatives, the first this ncu reports (on the H200, 2026-12-03,
# ncu 13.0 gave the elapsed form of the tensor pipe and gpu__dram_throughput only)
bad = 0
print("%-5s %-16s %-10s %s  %s" % ("dtype", "shape", "kernel", "  ".join("%10s" % c for c, _ in cols), "top stalls"))
for line in open(os.path.join(w, "cases.txt")):
    tag, dt, sh, cfg = line.split(" ", 3)
    for who in ("ours", "cusparselt"):
        r = row_of(os.path.join(w, f"{who}-{tag}.csv"))
        if not r:
            print("%-5s %-16s %-10s (no profile row)" % (dt, sh, f"{who}#{tag.split('-', 1)[0]}"))
            bad += 1
            continue
        vals = []
        for c, k in cols:
            if isinstance(k, list):  # the first name this ncu reports
                k = next((x for x in k if x in r), k[0])
            v = sum(num(r, x) for x in k) if isinstance(k, tuple) else num(r, k)
            v = v / 1024 if c == "smem KB" else v / 1e3 if c == "us" else v / 1e6 if c == "MHz" else v
            vals.append("%10.1f" % v)
        dims = [r.get("launch__cluster_dim_" + d, "") for d in "xyz"]
        cl = "cluster " + "x".join(dims) if all(dims) else ""
        top = top_stalls(r)
        print("%-5s %-16s %-10s %s  %s; stalls: %s" % (dt, sh, f"{who}#{tag.split('-', 1)[0]}", "  ".join(vals), cl or "no cluster metric", top))
        if who == "cusparselt":
            print("      %s" % r.get("Kernel Name", "?")[:150])
sys.exit(1 if bad else 0)
PY
