#!/usr/bin/env bash
# bench/overhead.sh — where the wall time of a `tune --backend gpu` iteration goes when the
# GPU and nvcc are not the cost: the engine's own work, compile-ahead, the service client.
# Runs on the CPU: the measurement worker is tests/fixtures/serve/fake-serve.sh (every
# candidate verified, timed and discarded; FAKE_SERVE_DELAY_S seconds of "GPU time" per
# request, reported as its time phase), nvcc a stand-in that sleeps NVCC_S seconds per
# compile and writes a cubin that is the source's checksum and the identity header the build
# gives it (the module id the fake worker reports), cuobjdump one that shows a sparse
# MMA, ncu absent (no profile). Prints the progress file's split per iteration (compile /
# verify / time / profile / other), iterations per second and, with strace installed, the
# fsyncs of the tuner process per iteration. Speed is not asserted anywhere: this is a
# measurement (docs/engine.md, "Where an iteration's time goes").
# Usage, from the repo root:
#   bash bench/overhead.sh [BIN_DIR (build/bin)] [ITERS (30)] [NVCC_S (2)] [SERVE_S (0.4)] [SPECULATE (4)]
# NVCC_S 2 and SERVE_S 0.4 are about the H200's f16 1024x1024x4096 (nvcc 1-3 s a candidate;
# 0.4 s verify + time a request, results/h200/service-2026-12-01); SPECULATE 4 is the
# compile-ahead depth of a 16-core host.
set -u
B=${1:-build/bin}; ITERS=${2:-30}; NVCC_S=${3:-2}; SERVE_S=${4:-0.4}; SPEC=${5:-4}
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/croq-overhead.XXXXXX)
trap 'sleep "$NVCC_S"; sleep 1; rm -rf "$W"' EXIT # compile-ahead builds outlive the tuner by up to NVCC_S
cat > "$W/nvcc" <<'EOF'
#!/bin/bash
case " $* " in *" --version "*) echo "Cuda compilation tools, release 13.0, V13.0.88 (stand-in)"; exit 0 ;; esac
sleep "$FAKE_NVCC_S"
out= src=
while [ $# -gt 0 ]; do case "$1" in -o) out=$2; shift ;; *.cu) src=$1 ;; esac; shift; done
{ echo STANDIN-CUBIN; cksum "$src"; cat croq_module_id.h; } > "$out" # the identity the build injects (-include)
echo "ptxas info    : Compiling entry function 'croq_gemm_sp' for 'sm_90a'" >&2
echo "ptxas info    : Used 168 registers, used 1 barriers, 200704 bytes smem" >&2
EOF
cat > "$W/cuobjdump" <<'EOF'
#!/bin/bash
echo "        /*0100*/                   HGMMA.SP.64x128x32.F32 R24, gdesc[UR4], RZ, R2, 0x0 ;"
EOF
chmod +x "$W/nvcc" "$W/cuobjdump"
key=f16_1024x1024x4096_fs
args=(tune --dtype f16 --shape 1024x1024x4096 --mode scratch --iters "$ITERS" --backend gpu --tuning "$W/t"
      --quiet --runner "$SRC/tests/fixtures/serve/fake-serve.sh")
tracer=(); command -v strace >/dev/null && tracer=(strace -e trace=fsync,fdatasync -o "$W/strace.txt")
s=$(date +%s.%N)
CROQ_NVCC=$W/nvcc CROQ_CUOBJDUMP=$W/cuobjdump CROQ_NCU=/bin/false CROQ_CACHE_DIR=$W/cache FAKE_NVCC_S=$NVCC_S \
    FAKE_SERVE_DELAY_S=$SERVE_S CROQ_SPECULATE=$SPEC "${tracer[@]}" "$B/croqtuner" "${args[@]}" > "$W/log" 2>&1
rc=$?
e=$(date +%s.%N)
[ $rc -eq 0 ] || { tail -n 5 "$W/log"; echo "tune failed (rc $rc)"; exit 1; }
fsyncs=-; [ -f "$W/strace.txt" ] && fsyncs=$(grep -c '^fsync\|^fdatasync' "$W/strace.txt")
echo "croqtuner $("$B/croqtuner" --version | sed -n 's/^commit //p'), $ITERS iterations, nvcc ${NVCC_S} s, worker ${SERVE_S} s a request, compile-ahead $SPEC"
python3 - "$W/t/progress/$key.json" "$s" "$e" "$fsyncs" "$ITERS" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); i = p["spent_per_iteration_s"]; n = int(sys.argv[5]) + 1
wall = float(sys.argv[3]) - float(sys.argv[2])
f = sys.argv[4]
print("| wall s | it/s | total s/it | compile | verify | time | profile | other | fsyncs/it |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
print("| %.1f | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s |" % (
    wall, n / wall, i["total"], i["compile"], i["verify"], i["time"], i["profile"], i["other"],
    "%.1f" % (int(f) / n) if f != "-" else "-"))
PY
