#!/usr/bin/env bash
# `knobs --check`: a valid configuration exits 0; a bad combination exits 1 with the
# rule it breaks; bad usage (no such knob or value, a bad file) exits 2.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$bin" knobs --check --dtype f16 --shape 4096x8192x8192) || fail "default f16 config rejected: $out"
grep -q '^valid: dtype=f16,kernel=1,' <<<"$out" || fail "valid output: $out"

expect_invalid() { # reason, args...
    local reason=$1; shift
    out=$("$bin" knobs --check "$@"); rc=$?
    [ "$rc" -eq 1 ] || fail "'$*' exited $rc, want 1 (output: $out)"
    grep -qF "invalid: $reason" <<<"$out" || fail "'$*': got '$out', want reason '$reason'"
}
expect_invalid "kernel=0 (baseline) supports only consumers=1" --dtype f16 --set kernel=0 --set consumers=1 --set tile_m=64 --set stages=4
expect_invalid "persistent=1 cannot be combined with split-K" --dtype e4m3 --set "persistent=1 split_k=2 tile_m=64 consumers=1"
expect_invalid "schedule=1 (ping-pong) needs kernel=1, consumers=2, persistent=1" --dtype f16 --set "schedule=1 tile_n=128"
expect_invalid "tile_m=64 must be a multiple of 64 x consumers (2)" --dtype f16 --set tile_m=64
expect_invalid "K=1000: K must be a multiple of 64" --dtype f16 --shape 4096x4096x1000
# Every violated rule at once, each with what to change in --set form (the change
# given for one rule is applied, and the configuration then passes).
out=$("$bin" knobs --check --dtype f16 --set schedule=1); rc=$?
[ "$rc" -eq 1 ] || fail "schedule=1 exited $rc, want 1"
[ "$(grep -c '^invalid: ' <<<"$out")" -eq 2 ] || fail "schedule=1: want both rules at once: $out"
grep -qF "needs 256 accumulator registers per thread (max 128)" <<<"$out" || fail "acc rule missing: $out"
grep -qxF "  change: tile_n=128 or tile_m=64 or schedule=0" <<<"$out" || fail "acc change: $out"
grep -qxF "  change: persistent=1, or schedule=0" <<<"$out" || fail "ping-pong change: $out"
"$bin" knobs --check --dtype f16 --set "schedule=1 tile_n=128 persistent=1" >/dev/null ||
    fail "the printed changes did not make schedule=1 valid"
out=$("$bin" knobs --check --dtype f16 --set kernel=0 --set stages=4 --shape 4096x4096x1000)
grep -qxF "  change: stages=2 consumers=1, or kernel=1" <<<"$out" || fail "baseline change: $out"
grep -qF "invalid: K=1000: K must be a multiple of 64" <<<"$out" || fail "shape rule with the others: $out"
out=$("$bin" knobs --check --json --dtype f16 --set schedule=1)
python3 -c 'import json,sys; v=json.load(sys.stdin)["violations"]; assert len(v)==2 and v[1]["change"]=="persistent=1, or schedule=0", v' <<<"$out" ||
    fail "JSON violations: $out"
# no such knob or value, a dtype clash: bad usage (2), printed as such, never as
# "invalid:" (which is a rule's answer, exit 1)
expect_usage() { # reason, args...
    local reason=$1; shift
    out=$("$bin" knobs --check "$@"); rc=$?
    [ "$rc" -eq 2 ] || fail "'$*' exited $rc, want 2 (output: $out)"
    grep -qF "bad usage: $reason" <<<"$out" || fail "'$*': got '$out', want reason '$reason'"
    ! grep -q "invalid:" <<<"$out" || fail "'$*': bad usage printed as invalid: $out"
}
expect_usage "knob 'stages': value 9 is not one of its allowed values" --dtype f16 --set stages=9
expect_usage "unknown knob 'tile_q'" --dtype f16 --set tile_q=1
expect_usage "unknown knob 'nosuch'" --dtype f16 --set nosuch=1
expect_usage "'dtype=e4m3' disagrees with the configuration's dtype f16" --dtype f16 --set dtype=e4m3,tile_n=128
out=$("$bin" knobs --check --json --dtype f16 --set dtype=e4m3); rc=$?
[ "$rc" -eq 2 ] && grep -q '"usage_error": true' <<<"$out" || fail "JSON bad usage: $rc $out"

out=$("$bin" knobs --check --json --dtype f16 --set tile_m=64); rc=$?
[ "$rc" -eq 1 ] || fail "--json invalid exited $rc"
grep -q '"valid": false' <<<"$out" || fail "JSON: $out"
grep -q '"reason": "tile_m=64 must be a multiple' <<<"$out" || fail "JSON reason: $out"

# A config file, with --set on top of it.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '{"dtype": "e4m3", "kernel": 0, "tile_m": 64, "tile_n": 128, "stages": 2, "consumers": 1}\n' > "$tmp/c.json"
out=$("$bin" knobs --check --config "$tmp/c.json") || fail "config file rejected: $out"
grep -q '^valid: dtype=e4m3,kernel=0,tile_m=64,tile_n=128,' <<<"$out" || fail "config file: $out"
expect_invalid "kernel=0 (baseline) supports only" --config "$tmp/c.json" --set stages=3
printf '{"dtype": "e4m3", "tile_m": true}\n' > "$tmp/bad.json"
expect_usage "bad configuration in '$tmp/bad.json': knob \"tile_m\" must be an integer" --config "$tmp/bad.json"

"$bin" knobs --check --dtype f16 --shape 4096x4096 >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "bad --shape exited $rc, want 2"
"$bin" knobs --check --dtype f32 >/dev/null 2>&1; rc=$?
[ "$rc" -eq 2 ] || fail "bad --dtype exited $rc, want 2"
echo "ok"
