#!/usr/bin/env bash
# Faulting kernels on the GPU through the tuner's real isolation path (croqtuner bench ->
# a croq-runner serve worker, our child, with a deadline per request): a trap is a
# launch_error, a store far out of
# bounds is a launch_error (or incorrect), a kernel that never finishes is a timeout;
# none is reported verified, and a clean kernel still verifies afterwards.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! nvidia-smi -L >/dev/null 2>&1 || [ ! -e /dev/nvidia0 ]; then
    echo "skip: no NVIDIA GPU here (nvidia-smi -L failed or /dev/nvidia0 missing)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run_fault() { # kind -> JSON on stdout, exit code checked
    "$bin" bench --dtype f16 --shape 128x256x256 --iters 5 --trials 1 --timeout 25 \
        --inject-fault "$1" --json --work "$tmp" 2>"$tmp/err.$1"
}
out=$(run_fault trap); rc=$?
[ "$rc" -eq 1 ] || fail "trap: bench exited $rc, want 1"
grep -q '"status": "launch_error"' <<<"$out" || fail "trap: $out"

out=$(run_fault oob); rc=$?
[ "$rc" -eq 1 ] || fail "oob: bench exited $rc, want 1"
grep -Eq '"status": "(launch_error|incorrect)"' <<<"$out" || fail "oob: $out"

start=$(date +%s)
out=$(run_fault hang); rc=$?
[ "$rc" -eq 1 ] || fail "hang: bench exited $rc, want 1"
grep -q '"status": "timeout"' <<<"$out" || fail "hang: $out"
[ $(( $(date +%s) - start )) -lt 120 ] || fail "hang: the time limit did not stop it in time"

grep -q '"all_verified": true' <<<"$out" && fail "a faulty kernel was reported verified"
"$bin" bench --dtype f16 --shape 128x256x256 --iters 5 --trials 1 >/dev/null || fail "clean kernel after faults failed"
echo "ok"
