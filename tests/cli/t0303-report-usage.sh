#!/usr/bin/env bash
# `croqtuner report` usage: --help exits 0 and names every option; an unknown option or
# an option without its value exits 2; the command is listed by `croqtuner --help`.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$bin" report --help) || fail "--help exited $?"
for o in --tuning --out --anchors --gnuplot --dygraphs; do
    grep -qF -- "$o" <<<"$out" || fail "--help does not mention $o"
done
"$bin" --help | grep -qE '^  report +' || fail "'croqtuner --help' does not list report"
err=$("$bin" report --bogus 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "unknown option exited $rc, want 2"
grep -qF "report: unknown option '--bogus'" <<<"$err" || fail "unknown option message: $err"
err=$("$bin" report --tuning 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "--tuning without value exited $rc, want 2"
grep -qF "option '--tuning' needs a value" <<<"$err" || fail "missing value message: $err"
echo ok
