#!/usr/bin/env bash
# The engine's commands: listed, --help with usage and exit status, bad usage exits 2,
# and a dtype/shape/key that is not valid never gets near the file system.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/croq-t0200.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

out=$("$bin" --help) || fail "croqtuner --help exited $?"
for cmd in tune sweep status resume propose; do
    grep -Eq "^  $cmd +[a-z]" <<<"$out" || fail "croqtuner --help does not list '$cmd'"
    h=$("$bin" $cmd --help) || fail "$cmd --help exited $?"
    grep -q "^usage: croqtuner $cmd" <<<"$h" || fail "$cmd --help has no usage line"
    grep -q "^Exit status: " <<<"$h" || fail "$cmd --help does not document its exit status"
    "$bin" $cmd --no-such-option >/dev/null 2>&1
    [ $? -eq 2 ] || fail "$cmd with an unknown option did not exit 2"
done
"$bin" status --help | grep -q -- "--json" || fail "status --help does not mention --json"
"$bin" propose --help | grep -q -- "--json" || fail "propose --help does not mention --json"

expect_usage() { # args... : exit 2 with a message naming the problem, nothing created
    local want=$1; shift
    err=$("$bin" "$@" --tuning "$tmp/t" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2"
    grep -q -- "$want" <<<"$err" || fail "'$*': message '$err' does not mention '$want'"
    [ ! -e "$tmp/t" ] || fail "'$*' created the tuning directory"
}
expect_usage "--dtype" tune --dtype bf16 --shape 128x256x128 --mode scratch --backend sim
expect_usage "multiple of 64" tune --dtype f16 --shape 128x256x100 --mode scratch --backend sim
expect_usage "MxNxK" tune --dtype f16 --shape ../../etc --mode scratch --backend sim
expect_usage "MxNxK" tune --dtype f16 --shape "128x256x128/.." --mode scratch --backend sim
expect_usage "--mode" tune --dtype f16 --shape 128x256x128 --mode fast --backend sim
expect_usage "required" tune --dtype f16 --shape 128x256x128 --backend sim
expect_usage "--backend" tune --dtype f16 --shape 128x256x128 --mode best --backend tpu
expect_usage "--dtype" sweep --dtype fp8 --backend sim
expect_usage "fixed per shape" resume --seed 3

# a key with a path in it is refused before anything is opened
echo "// k" >"$tmp/k.cu"
for key in "../f16_128x256x128_fs" "f16_128x256x128_fs/../../x" "f16_128x256x128_fs/.." ".."; do
    err=$("$bin" propose --tuning "$tmp/t" --key "$key" --idea x --category micro --src "$tmp/k.cu" 2>&1); rc=$?
    [ $rc -eq 2 ] || fail "propose --key '$key' exited $rc, want 2 (bad usage)"
    grep -q "is not a shape key" <<<"$err" || fail "propose --key '$key': $err"
done
[ ! -e "$tmp/t" ] || fail "a refused key created files"
echo ok
