#!/usr/bin/env bash
# croq-runner: bad command lines give one JSON object with status bad_args and exit 5
# (docs/runner-protocol.md), before any GPU work. The runner links libcuda; without an
# NVIDIA driver it runs against the toolkit's stub library the build keeps (cuda-stub/,
# whose every call fails: the arguments are parsed before the first one), else skipped.
set -u
runner="$CROQ_BIN/croq-runner"
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! "$runner" --help >/dev/null 2>&1 && [ -e "$CROQ_BIN/../cuda-stub/libcuda.so.1" ]; then
    export LD_LIBRARY_PATH=$CROQ_BIN/../cuda-stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
if ! "$runner" --help >/dev/null 2>&1; then
    echo "skip: croq-runner cannot start here (no libcuda.so.1: no NVIDIA driver)"
    exit 77
fi

# expect_bad_args "message fragment" args...
expect_bad_args() {
    local want=$1; shift
    local out rc
    out=$("$runner" "$@" 2>/dev/null); rc=$?
    [ "$rc" -eq 5 ] || fail "croq-runner $* exited $rc, want 5 (stdout: $out)"
    grep -q '^{"schema":1,"command":"[a-z]*","status":"bad_args"' <<<"$out" || fail "croq-runner $*: not a bad_args JSON line: $out"
    grep -qF -- "$want" <<<"$out" || fail "croq-runner $*: error does not say '$want': $out"
}

expect_bad_args "unknown command 'frob'" frob
expect_bad_args "'--cubin FILE' is required" run --shape 128x256x128
expect_bad_args "'--shape MxNxK' is required" run --cubin x.cubin
expect_bad_args "'12x34' is not MxNxK" run --cubin x.cubin --shape 12x34
expect_bad_args "unknown dtype 'f32'" run --cubin x.cubin --shape 128x256x128 --dtype f32
expect_bad_args "'0' is not an integer in [1, 100000]" run --cubin x.cubin --shape 128x256x128 --iters 0
expect_bad_args "'--dtype f16|e4m3' is required" compare --shape 128x256x128
expect_bad_args "unknown option '--no-time'" compare --dtype f16 --shape 128x256x128 --no-time
expect_bad_args "unknown option '--shape'" health --shape 128x256x128
expect_bad_args "option '--trials' needs a value" run --cubin x.cubin --shape 128x256x128 --trials
expect_bad_args "option '--l2': 'hot' is not warm or cold" compare --dtype f16 --shape 128x256x128 --l2 hot
expect_bad_args "run: unknown option '--l2'" run --cubin x.cubin --shape 128x256x128 --l2 cold
# a pinned cuSPARSELt configuration (compare --slt-config): an integer >= 0, compare only,
# and a split-K only beside it (a searched plan picks its own)
expect_bad_args "option '--slt-config': '-1' is not an integer in [0, 100000]" compare --dtype f16 --shape 128x256x128 --slt-config -1
expect_bad_args "option '--slt-config': 'x7' is not an integer" compare --dtype f16 --shape 128x256x128 --slt-config x7
expect_bad_args "option '--slt-split-k': '0' is not an integer in [1, 100000]" compare --dtype f16 --shape 128x256x128 --slt-config 3 --slt-split-k 0
expect_bad_args "'--slt-split-k' needs '--slt-config ID'" compare --dtype f16 --shape 128x256x128 --slt-split-k 2
expect_bad_args "run: unknown option '--slt-config'" run --cubin x.cubin --shape 128x256x128 --slt-config 3
echo "ok"
