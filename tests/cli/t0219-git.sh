#!/usr/bin/env bash
# --git: a commit after every stored iteration and at completion, message
# '<key> iterNNN: <idea> — TFLOPS: X -> Y (KEEP|DISCARD|BASELINE)', only the tuning
# directory's files; idea text reaches git as data (argv), never through a shell.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v git >/dev/null || { echo "skip: no git"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/croq-t0219.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp" GIT_CONFIG_NOSYSTEM=1
key=f16_2048x2048x4096_fs
# the tuning directory inside a repository that ignores it gets a repository of its own
mkdir -p "$tmp/proj" && git -C "$tmp/proj" init -q && echo "/tuning/" >"$tmp/proj/.gitignore"
echo "user file" >"$tmp/proj/notes.txt" && git -C "$tmp/proj" add notes.txt
"$bin" tune --backend sim --quiet --git --dtype f16 --shape 2048x2048x4096 --mode scratch --iters 5 \
    --tuning "$tmp/proj/tuning" || fail "tune --git exited $?"
g() { git -C "$tmp/proj/tuning" "$@"; }
[ "$(g rev-parse --show-toplevel)" = "$(cd "$tmp/proj/tuning" && pwd -P)" ] || fail "no repository of its own"
n=$(g rev-list --count HEAD)
[ "$n" -eq 7 ] || fail "want 7 commits (6 iterations + completion), got $n"
g log --format=%s | grep -Eq "^$key iter000: baseline: .* — TFLOPS: [0-9.]+ -> [0-9.]+ \(BASELINE\)$" || fail "baseline commit: $(g log --format=%s | tail -n 1)"
g log --format=%s | grep -Eq "^$key iter00[1-5]: .* — TFLOPS: ([0-9.]+|-) -> [0-9.]+ \((KEEP|DISCARD)\)$" || fail "iteration commits"
g log -1 --format=%s | grep -q "^$key complete: best" || fail "completion commit: $(g log -1 --format=%s)"
g ls-files | grep -q "^logs/$key/results.tsv$" || fail "results.tsv not committed"
g ls-files | grep -q "^kernels/gemm_sp_f16/${key}_best.cu$" || fail "best kernel not committed"
g ls-files | grep -q '\.lock$\|^progress/' && fail "lock or progress files committed"
[ -z "$(g status --porcelain -- logs srcs checkpoints state.json)" ] || fail "uncommitted artifacts: $(g status --porcelain | head -n 3)"
git -C "$tmp/proj" diff --cached --name-only | grep -q notes.txt || fail "the user's staged file was touched"
echo ok
