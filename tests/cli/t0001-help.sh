#!/usr/bin/env bash
# --help of the program and of each infrastructure command; no command is bad usage.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$bin" --help) || fail "croqtuner --help exited $?"
for cmd in build knobs; do
    grep -Eq "^  $cmd +[a-z]" <<<"$out" || fail "croqtuner --help does not list '$cmd': $out"
done

for cmd in build knobs; do
    out=$("$bin" $cmd --help) || fail "croqtuner $cmd --help exited $?"
    grep -q "^usage: croqtuner $cmd " <<<"$out" || fail "$cmd --help has no usage line: $out"
    grep -q "^Exit status: " <<<"$out" || fail "$cmd --help does not document its exit status"
done

"$bin" >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "croqtuner with no command exited $rc, want 2"
echo "ok"
