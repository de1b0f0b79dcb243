#!/usr/bin/env bash
# Unknown commands and options are bad usage (exit 2) with a message naming them.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }

err=$("$bin" frobnicate 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || fail "unknown command exited $rc, want 2"
grep -q "^croqtuner: unknown command 'frobnicate'" <<<"$err" || fail "message: $err"

err=$("$bin" knobs --frob 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || fail "knobs --frob exited $rc, want 2"
grep -q "unknown option '--frob'" <<<"$err" || fail "message: $err"

err=$("$bin" build --dtype f16 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || fail "build without --out exited $rc, want 2"
grep -q -- "--out DIR is required" <<<"$err" || fail "message: $err"

err=$("$bin" build --dtype f16 --out /tmp/x --timeout soon 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || fail "build --timeout soon exited $rc, want 2"
grep -q "option '--timeout': 'soon' is not a number" <<<"$err" || fail "message: $err"

err=$("$bin" build --dtype f16 --out 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] || fail "build --out without a value exited $rc, want 2"
grep -q "option '--out' needs a value" <<<"$err" || fail "message: $err"
echo "ok"
