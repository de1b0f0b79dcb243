#!/usr/bin/env bash
# croq-runner on the GPU, run directly: a wrong dtype, an unloadable file, a shape the
# module cannot run give bad_module / unsupported_shape JSON with their exit codes;
# --no-time verifies only; both reference paths (cpu f64, cublas f32) pass.
set -u
bin="$CROQ_BIN/croqtuner"
runner="$CROQ_BIN/croq-runner"
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! nvidia-smi -L >/dev/null 2>&1 || [ ! -e /dev/nvidia0 ]; then
    echo "skip: no NVIDIA GPU here (nvidia-smi -L failed or /dev/nvidia0 missing)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" bench --dtype f16 --shape 128x256x256 --iters 2 --trials 1 --work "$tmp" >/dev/null || fail "baseline f16 bench failed"
cubin="$tmp/bench_f16.cubin"

# expect CODE STATUS args...
expect() {
    local code=$1 status=$2; shift 2
    local out rc
    out=$("$runner" "$@" 2>"$tmp/err"); rc=$?
    [ "$rc" -eq "$code" ] || fail "croq-runner $* exited $rc, want $code: $out $(cat "$tmp/err")"
    grep -q "\"status\":\"$status\"" <<<"$out" || fail "croq-runner $*: status is not $status: $out"
    echo "$out"
}
expect 4 bad_module run --cubin "$cubin" --dtype e4m3 --shape 128x256x256
expect 4 bad_module run --cubin /etc/hostname --shape 128x256x256
expect 4 bad_module run --cubin "$tmp/missing.cubin" --shape 128x256x256
expect 5 unsupported_shape run --cubin "$cubin" --shape 128x256x96
expect 5 unsupported_shape run --cubin "$cubin" --shape 128x252x256
# K must be a multiple of the module's tile_k x split_k (read from its croq_abi)
"$bin" bench --dtype f16 --set tile_k=128 --shape 128x256x256 --iters 2 --trials 1 --work "$tmp/tk128" >/dev/null \
    || fail "tile_k=128 bench failed"
out=$(expect 5 unsupported_shape run --cubin "$tmp/tk128/bench_f16.cubin" --shape 128x256x192) || exit 1
grep -q "not a multiple of the module's tile_k" <<<"$out" || fail "tile_k rule message: $out"
out=$(expect 0 ok run --cubin "$cubin" --shape 256x512x1024 --no-time) || exit 1
grep -q '"timing"' <<<"$out" && fail "--no-time still timed"
out=$(expect 0 ok run --cubin "$cubin" --shape 256x512x1024 --reference cpu --iters 5 --trials 2) || exit 1
grep -q '"reference":"cpu"' <<<"$out" || fail "--reference cpu not used"
out=$(expect 0 ok run --cubin "$cubin" --shape 256x512x1024 --reference cublas --iters 5 --trials 2) || exit 1
grep -q '"reference":"cublas"' <<<"$out" || fail "--reference cublas not used"
grep -q '"plausible":true' <<<"$out" || fail "peak check says implausible: $out"
echo "ok"
