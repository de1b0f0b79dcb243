#!/usr/bin/env bash
# tests/gpu/streamk-profile.sh — on the GPU machine: why stream-K loses on a one-wave grid
# (issue 23; streamk-h100.txt: 0.65-0.69x at e4m3 4096x1024x8192, 128 tiles for 132 SMs).
# The same persistent 256x128 kernel with stream_k=1 and =0, each built, timed by
# croq-runner (5 trials of 200 launches) and profiled under ncu (warm L2: the run's third launch,
# after its verification and first warm-up launch): time, active cycles (avg / min / max over
# SMs; a CTA spinning on a flag counts as active), tensor-pipe %, L2 hit rate, DRAM and L2
# bytes, top stalls.
# Usage: tests/gpu/streamk-profile.sh BIN_DIR OUT_DIR   (env SHAPE, DTYPE, BASE: knob=value list)
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
DTYPE=${DTYPE:-e4m3}; SHAPE=${SHAPE:-4096x1024x8192}
BASE=${BASE:-tile_m=256,tile_n=128,persistent=1,epilogue=1,group=8,meta_path=0,stages=4}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
[ -n "${CROQ_CUOBJDUMP:-}" ] || export CROQ_CUOBJDUMP=$(command -v cuobjdump)
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skip: no NVIDIA GPU here"; exit 77; fi
W=$(mktemp -d); mkdir -p "$OUT"
M=gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
M=$M,lts__t_sector_hit_rate.pct,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min
M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
for n in sk dp; do
    sets=(); IFS=, read -ra kv <<<"$BASE,stream_k=$([ $n = sk ] && echo 1 || echo 0)"
    for x in "${kv[@]}"; do sets+=(--set "$x"); done
    "$B/croqtuner" build --dtype "$DTYPE" --shape "$SHAPE" "${sets[@]}" --name "$n" --out "$W/b" > "$W/b-$n.log" 2>&1 \
        || { echo "build $n failed"; tail -n 3 "$W/b-$n.log"; exit 1; }
    run=("$B/croq-runner" run --cubin "$W/b/$n.cubin" --dtype "$DTYPE" --shape "$SHAPE")
    ncu --kernel-name croq_gemm_sp --launch-skip 2 --launch-count 1 --clock-control none --cache-control none \
        --section SpeedOfLight --section WarpStateStats --metrics "$M" --csv --page raw --print-units base \
        "${run[@]}" --warmup 1 --iters 1 --trials 1 > "$OUT/ncu-$n.csv" 2> "$OUT/ncu-$n.err"
    echo "ncu $n: rc=$?"
    "${run[@]}" --warmup 20 --iters 200 --trials 5 > "$OUT/time-$n.json" 2> "$OUT/time-$n.err"
done
python3 - "$OUT" "$(dirname "$0")/tools" <<'PY'
import json, sys
o = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from ncu_csv import row_of, top_stalls
for n in ("sk", "dp"):
    t = json.loads(open(f"{o}/time-{n}.json").readline() or "{}")
    tm, st = t.get("timing") or {}, t.get("gpu_state") or {}
    print(f"{n}: timed {t.get('status')} {tm.get('tflops')} TFLOPS {tm.get('median_ms')} ms "
          f"{st.get('sm_clock_median_mhz')} MHz (one after the other, not interleaved)")
    r = row_of(f"{o}/ncu-{n}.csv")
    if not r:
        print("  no ncu row"); continue
    for k in ("gpu__time_duration.sum", "sm__cycles_active.avg", "sm__cycles_active.min", "sm__cycles_active.max",
              "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "lts__t_sector_hit_rate.pct",
              "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "launch__grid_size"):
        print(f"  {k} = {r.get(k)}")
    print("  stalls:", top_stalls(r, 7))
PY
