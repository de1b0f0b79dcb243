#!/usr/bin/env bash
# The knob rules and the kernels' static_asserts agree (src/knobs/knobs.c, kernels/*.cu):
# (1) the host-valid configurations at the edge of the register rule (accumulators + two
# metadata buffers per consumer thread = 160, kernels/geometry.h) compile under
# `build --strict` for both dtypes, and the first one past it (192) is refused by the host;
# (2) a generated source edited into a combination a host rule forbids stops nvcc at that
# rule's static_assert (the kernels do not silently build what the host never would).
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
nvcc=${CROQ_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "skip: no nvcc"; exit 77; }
if [ -z "${CROQ_CUOBJDUMP:-}" ] && [ -x "$CROQ_SOURCE_DIR/.deps/pip/nvidia/cu13/bin/cuobjdump" ]; then
    export CROQ_CUOBJDUMP="$CROQ_SOURCE_DIR/.deps/pip/nvidia/cu13/bin/cuobjdump"
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export CROQ_CACHE_DIR="$tmp/cache"
pp="persistent=1 schedule=1 stages=2"

# (1) the boundary of the register rule, ping-pong (one consumer per tile)
n=0
for c in "e4m3|$pp tile_m=128 tile_n=128 tile_k=512" "e4m3|$pp tile_m=256 tile_n=64 tile_k=256 meta_path=0" \
    "e4m3|$pp tile_m=192 tile_n=64 tile_k=512 cluster_n=2" "f16|$pp tile_m=256 tile_n=64 tile_k=256"; do
    n=$((n + 1))
    out=$("$bin" build --strict --dtype "${c%%|*}" --set "${c#*|}" --out "$tmp/b$n" 2>&1) ||
        fail "host-valid ${c%%|*} '${c#*|}' does not build --strict: $(echo "$out" | tail -5)"
done
out=$("$bin" build --strict --dtype e4m3 --set "$pp tile_m=256 tile_n=64 tile_k=512" --out "$tmp/r" 2>&1)
[ $? -eq 1 ] || fail "256x64x512 ping-pong is not refused by the host (exit 1): $out"
grep -qF "needs 128 accumulator + 64 metadata registers per thread (max 160)" <<<"$out" || fail "refusal: $out"
[ ! -e "$tmp/r/kernel.cubin" ] || fail "a refused configuration was compiled"

# (2) DTYPE|CONFIG|DEFINE EDITS|static_assert message: the config is valid, the edit is not
refuse() {
    local dtype=$1 cfg=$2 edits=$3 want=$4 d="$tmp/s$RANDOM"
    "$bin" build --no-compile --dtype "$dtype" --set "$cfg" --out "$d" >/dev/null || fail "no source for '$cfg'"
    local e
    for e in $edits; do # NAME=VALUE: rewrite '#define CROQ_NAME v' in the generated prelude
        grep -q "^#define CROQ_${e%%=*} " "$d/kernel.cu" || fail "'$cfg' source has no CROQ_${e%%=*}"
        sed -i "s/^#define CROQ_${e%%=*} .*/#define CROQ_${e%%=*} ${e#*=}/" "$d/kernel.cu"
    done
    local out
    out=$("$nvcc" -cubin -gencode=arch=compute_90a,code=sm_90a -std=c++17 -o "$d/k.cubin" "$d/kernel.cu" 2>&1) &&
        fail "'$cfg' with $edits compiled; the host rule forbids it"
    grep -qF "$want" <<<"$out" || fail "'$cfg' with $edits did not stop at '$want': $(echo "$out" | head -5)"
}
refuse f16 "cluster_m=2" "SPLIT_K=2" "a cluster excludes split-K"
refuse f16 "split_k=2 stages=3" "EPILOGUE=1" "split-K reduces through the workspace: direct epilogue only"
refuse e4m3 "$pp tile_m=256 tile_n=64 tile_k=256" "TILE_K=512" "accumulator + metadata registers"
refuse f16 "kernel=0 tile_m=64 tile_n=128 stages=2 consumers=1" "PERSISTENT=1" "the baseline implements no"
refuse f16 "kernel=0 tile_m=64 tile_n=128 stages=2 consumers=1" "SPLIT_K=2" "the baseline implements no"
refuse f16 "kernel=0 tile_m=64 tile_n=128 stages=1 consumers=1" "TILE_M=256 TILE_N=256" "accumulator registers"
refuse f16 "persistent=1 stream_k=1" "PERSISTENT=0" "stream_k=1 needs persistent=1, split_k=1, no cluster"
refuse f16 "persistent=1 stream_k=1" "CLUSTER_M=2" "stream_k=1 needs persistent=1, split_k=1, no cluster"
refuse f16 "persistent=1 stream_k=1 tile_m=64 consumers=1 tile_n=128" "SPLIT_K=2" "stream-K splits K itself"
echo "ok: $n boundary builds, 1 host refusal, 9 static_asserts"
