#!/usr/bin/env bash
# croqtuner bench: every mistake on the command line is bad usage (exit 2) with a
# message naming it, found before anything is compiled or run (no GPU needed).
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_usage "message fragment" args...: exit 2 and the fragment on stderr.
expect_usage() {
    local want=$1; shift
    local err rc
    err=$("$bin" bench "$@" 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] || fail "bench $* exited $rc, want 2 (stderr: $err)"
    grep -qF -- "$want" <<<"$err" || fail "bench $*: message does not say '$want': $err"
}

out=$("$bin" bench --help) || fail "bench --help exited $?"
grep -q "^usage: croqtuner bench " <<<"$out" || fail "bench --help has no usage line"
grep -q "^Exit status: " <<<"$out" || fail "bench --help does not document its exit status"

expect_usage "unknown dtype 'f32'" --dtype f32 --shape 128x256x128
expect_usage "bad shape '12x34'" --dtype f16 --shape 12x34
expect_usage "bad shape '0x1x1'" --dtype f16 --shape 0x1x1
expect_usage "bad shape '-128x256x128'" --dtype f16 --shape -128x256x128
expect_usage "bad shape '128x256x128x4'" --dtype f16 --shape 128x256x128x4
expect_usage "K=100: K must be a multiple of 64" --dtype f16 --shape 128x256x100
expect_usage "K=32: K must be a multiple of 64" --dtype e4m3 --shape 128x256x32
expect_usage "N=250: N must be a multiple of 8" --dtype f16 --shape 128x250x128
# the configuration's tile_k must divide K (checked for every dtype and shape)
expect_usage "K=192 is not a multiple of tile_k" --dtype f16 --set tile_k=128 --shape 128x256x192
expect_usage "K=128 is not a multiple of tile_k" --dtype e4m3 --set tile_k=256 --shape 128x256x128
expect_usage "K=128 is not a multiple of tile_k" --dtype all --set tile_k=256 --shape 128x256x128
expect_usage "K=128 is not a multiple of tile_k" --dtype f16 --set tile_k=256 --shape 128x256x512,128x256x128
expect_usage "no shapes" --dtype f16
expect_usage "bad shape 'bogus'" --dtype f16 --shapes bogus
expect_usage "bad shape '12x34'" --dtype f16 --shapes 128x256x128,12x34
expect_usage "unknown knob 'nope'" --dtype f16 --shape 128x256x128 --set nope=1
expect_usage "knob 'tile_m': value 7 is not one of its allowed values" --dtype f16 --shape 128x256x128 --set tile_m=7
expect_usage "expected knob=value" --dtype f16 --shape 128x256x128 --set tile_m
expect_usage "option '--iters': 0 is outside" --dtype f16 --shape 128x256x128 --iters 0
expect_usage "option '--trials': 'many' is not an integer" --dtype f16 --shape 128x256x128 --trials many
expect_usage "option '--seed': '-1' is not an unsigned integer" --dtype f16 --shape 128x256x128 --seed -1
expect_usage "option '--reference': 'gpu' is not auto, cpu or cublas" --dtype f16 --shape 128x256x128 --reference gpu
expect_usage "option '--shape' needs a value" --dtype f16 --shape
expect_usage "option '--l2': 'lukewarm' is not warm or cold" --dtype f16 --shape 128x256x128 --l2 lukewarm
expect_usage "option '--l2' needs a value" --dtype f16 --shape 128x256x128 --l2
grep -q -- "--l2 warm|cold" <<<"$out" || fail "bench --help does not document --l2"
expect_usage "unknown option '--frob'" --dtype f16 --shape 128x256x128 --frob
expect_usage "cannot read" --dtype f16 --shape 128x256x128 --config /nonexistent/config.json
# an explicit CROQ_SHAPES that does not exist is an error, not a silent fallback
CROQ_SHAPES=/nonexistent/shapes.json expect_usage "CROQ_SHAPES='/nonexistent/shapes.json' is not a readable file" \
    --dtype f16 --shapes typical
echo "ok"
