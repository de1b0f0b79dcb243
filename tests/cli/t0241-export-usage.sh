#!/usr/bin/env bash
# croqtuner export: bad usage exits 2 naming what is wrong; a directory that is not a
# tuning directory, or bests with no record of their GPU, exit 1 and write nothing.
# (A real export runs at build time: the default pack, checked by unit.test_croqsparse.)
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$("$bin" export --tuning "$tmp" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "'--out PACK' are required" <<<"$out" || fail "no --out: rc=$rc: $out"
out=$("$bin" export --tuning "$tmp" --out "$tmp/p" --nope 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--nope'" <<<"$out" || fail "unknown option: rc=$rc: $out"
out=$("$bin" export --tuning "$tmp/none" --out "$tmp/p" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "has no state.json" <<<"$out" || fail "not a tuning dir: rc=$rc: $out"
[ ! -e "$tmp/p" ] || fail "a pack was written after a failure"
"$bin" export --help | grep -q "fallback configuration per dtype" || fail "--help"
echo ok
