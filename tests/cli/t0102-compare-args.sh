#!/usr/bin/env bash
# croqtuner compare: command-line mistakes are bad usage (exit 2) with a message, found
# before anything is compiled or run (no GPU needed).
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_usage() {
    local want=$1; shift
    local err rc
    err=$("$bin" compare "$@" 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] || fail "compare $* exited $rc, want 2 (stderr: $err)"
    grep -qF -- "$want" <<<"$err" || fail "compare $*: message does not say '$want': $err"
}

out=$("$bin" compare --help) || fail "compare --help exited $?"
grep -q "^usage: croqtuner compare " <<<"$out" || fail "compare --help has no usage line"
grep -q "^Exit status: " <<<"$out" || fail "compare --help does not document its exit status"
"$bin" --help | grep -Eq "^  compare +[a-z]" || fail "croqtuner --help does not list compare"

expect_usage "missing dtype" --shape 128x256x128
expect_usage "unknown dtype 'all'" --dtype all --shape 128x256x128
expect_usage "unknown dtype 'f32'" --dtype f32 --shape 128x256x128
expect_usage "'--shape MxNxK' is required" --dtype f16
expect_usage "bad shape '12x34'" --dtype f16 --shape 12x34
expect_usage "bad shape '0x1x1'" --dtype f16 --shape 0x1x1
expect_usage "K=100: K must be a multiple of 64" --dtype f16 --shape 128x256x100
expect_usage "K=100: K must be a multiple of 64" --dtype f16 --shape 128x256x100 --no-ours
expect_usage "N=250: N must be a multiple of 8" --dtype e4m3 --shape 128x250x256
expect_usage "K=192 is not a multiple of tile_k" --dtype f16 --set tile_k=128 --shape 128x256x192
expect_usage "unknown knob 'nope'" --dtype f16 --shape 128x256x128 --set nope=1
expect_usage "option '--warmup': -1 is outside" --dtype f16 --shape 128x256x128 --warmup -1
expect_usage "unknown option '--frob'" --dtype f16 --shape 128x256x128 --frob
expect_usage "option '--l2': 'hot' is not warm or cold" --dtype f16 --shape 128x256x128 --l2 hot
grep -q -- "--l2 warm|cold" <<<"$out" || fail "compare --help does not document --l2"
echo "ok"
