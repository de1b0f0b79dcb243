#!/usr/bin/env bash
# Issue 22 item 2: a tiny shape's TFLOPS (1x8x64: about 2e-4) are recorded with significant
# digits, not rounded to 0.000 by fixed decimals: every row, the best and state.json hold a
# positive number, status, audit and resume read the directory, and a second shape in it
# tunes and reads as always. Values of 1 TFLOPS and more keep their 3 decimals.
set -u
. "$(dirname "$0")/lib.sh"
key=f16_1x8x64_fs
res=$tmp/t/logs/$key/results.tsv
tune() { "$bin" tune --backend sim --seed 1 --quiet --dtype f16 --mode scratch --tuning "$tmp/t" "$@"; }
tune --shape 1x8x64 --iters 5 || fail "tune of 1x8x64 exited $?"
awk -F'\t' 'NR > 2 && $5 != "" { n++; if (!($5 > 0) || !($11 > 0) || $5 !~ /^0\.000[1-9][0-9][0-9][0-9]$/) bad = bad " " $1 ":" $5 "/" $11 }
            END { if (n < 1 || bad != "") { print "rows:" bad; exit 1 } }' "$res" || fail "TFLOPS not positive with 4 digits: $(cut -f1,5,11 "$res")"
python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["shapes"][sys.argv[2]]
assert 0 < e["best"]["tflops"] < 1 and 0 < e["baseline"]["tflops"] < 1, e' "$tmp/t/state.json" $key ||
    fail "state.json: $(cat "$tmp/t/state.json")"
out=$("$bin" status --tuning "$tmp/t") || fail "status exited $?: $out"
grep -Eq "^$key +from_scratch +sim +done .* 0\.000[1-9][0-9]* +0\.000[1-9][0-9]* \(baseline\)" <<<"$out" ||
    grep -Eq "^$key +from_scratch +sim +done .* 0\.000[1-9][0-9]* +0\.000[1-9][0-9]* \(x[0-9.]*\)" <<<"$out" ||
    fail "status does not show the tiny TFLOPS: $out"
out=$("$bin" audit --tuning "$tmp/t") || fail "audit exited $?: $out"
# a second shape: its numbers keep today's 3 decimals, and the directory reads as a whole
tune --shape 512x512x512 --iters 3 || fail "tune of a second shape exited $?"
awk -F'\t' 'NR > 2 && $5 != "" && $5 !~ /^[0-9]+\.[0-9][0-9][0-9]$/ { exit 1 }' "$tmp/t/logs/f16_512x512x512_fs/results.tsv" ||
    fail "a shape >= 1 TFLOPS is not written with 3 decimals"
out=$("$bin" status --tuning "$tmp/t") || fail "status of both exited $?: $out"
[ "$(grep -c '^f16_' <<<"$out")" -eq 2 ] || fail "status does not list both shapes: $out"
out=$("$bin" audit --tuning "$tmp/t") || fail "audit of both exited $?: $out"
# resume of the finished directory reads it and changes no record
cp "$tmp/t/state.json" "$tmp/state.before"
out=$("$bin" resume --tuning "$tmp/t" 2>&1) || fail "resume exited $?: $out"
grep -q "nothing to resume" <<<"$out" || fail "resume: $out"
diff <(norm "$tmp/state.before") <(norm "$tmp/t/state.json") >/dev/null || fail "resume changed state.json"
echo ok
