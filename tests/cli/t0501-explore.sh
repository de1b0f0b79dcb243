#!/usr/bin/env bash
# explore: every valid configuration of a grid measured once into a JSONL dataset;
# resumable (configs already there skipped, a torn last line set aside), failures
# recorded with their reason, bad grids and mismatched datasets refused; a gzip dataset
# (the committed form) is read but never appended to.
set -u
. "$(dirname "$0")/lib.sh"
grid="$(dirname "$0")/../fixtures/explore/grid-small.txt"
ex() { "$bin" explore --backend sim --dtype f16 --shape 1024x1024x4096 --grid "$grid" --jobs 2 "$@"; }

# the grid: 1 hand-picked point + 24 warp-specialized points (10 valid) + the baseline = 14
out=$(ex --out "$tmp/d.jsonl" 2>"$tmp/err") || fail "explore: $(cat "$tmp/err")"
grep -q "14 valid configurations in 3 block(s) (12 invalid skipped)" "$tmp/err" || fail "counts: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/d.jsonl")" -eq 14 ] || fail "records: $(wc -l <"$tmp/d.jsonl")"
[ "$(cut -d, -f4- "$tmp/d.jsonl" | sort -u | wc -l)" -eq 14 ] || fail "a config twice"
# the hand-picked point comes first, every record is ok with 5 trials, sim-labelled
head -n 1 "$tmp/d.jsonl" | grep -q '"config":"dtype=f16,kernel=1,tile_m=128,tile_n=256,tile_k=64,stages=5,consumers=2,swizzle=128,raster=0,group=8,meta_path=0,' || fail "first record"
[ "$(grep -c '"status":"ok"' "$tmp/d.jsonl")" -eq 14 ] || fail "not all ok"
grep -v '"trials_ms":\[[0-9.e-]*,[0-9.e-]*,[0-9.e-]*,[0-9.e-]*,[0-9.e-]*\]' "$tmp/d.jsonl" && fail "trials"
[ "$(grep -c '"backend":"sim"' "$tmp/d.jsonl")" -eq 14 ] || fail "backend label"

# resume: nothing measured again; a torn tail is moved aside, the missing records measured
ex --out "$tmp/d.jsonl" --quiet | grep -q "0 measured now (0 ok, 0 failed), 14 were already" || fail "resume measured again"
head -n 9 "$tmp/d.jsonl" >"$tmp/p.jsonl"; printf '{"schema":1,"dtype":"f1' >>"$tmp/p.jsonl"
ex --out "$tmp/p.jsonl" --quiet 2>"$tmp/err" | grep -q "5 measured now (5 ok, 0 failed), 9 were already" || fail "partial resume"
grep -q "cut by a crash" "$tmp/err" || fail "torn line not reported"
[ "$(cat "$tmp/p.jsonl.torn")" = '{"schema":1,"dtype":"f1' ] || fail "torn fragment not kept"
[ "$(wc -l <"$tmp/p.jsonl")" -eq 14 ] || fail "partial resume records"
# same seed, same grid: the same numbers as the uninterrupted run
diff <(cut -d, -f4-22 "$tmp/d.jsonl" | sort) <(cut -d, -f4-22 "$tmp/p.jsonl" | sort) >/dev/null ||
  fail "resumed numbers differ"

# failures are recorded with their reason: a crash at the 2nd config, a compile error at the 3rd
CROQ_SIM_FAULTS="crash@2,compile@3" ex --out "$tmp/f.jsonl" --quiet >/dev/null || fail "faults run"
sed -n 2p "$tmp/f.jsonl" | grep -q '"status":"crash","reason":"croq-runner: signal 6' || fail "crash record"
sed -n 3p "$tmp/f.jsonl" | grep -q '"status":"compile_error","reason":"simulated nvcc: error' || fail "compile record"
sed -n 3p "$tmp/f.jsonl" | grep -q '"tflops":null' || fail "numbers on a failure"

# time limit: stops early, the next run finishes
"$bin" explore --backend sim --dtype f16 --shape 1024x1024x4096 --grid "$grid" --out "$tmp/t.jsonl" --quiet \
  --time-limit 0.000001 | grep -q ", 13 left" || fail "time limit"
ex --out "$tmp/t.jsonl" --quiet | grep -q "13 measured now" || fail "after the time limit"

# bad input: exit 2, nothing written
printf 'kernel=1\ntile_q=64\n' >"$tmp/bad1"; printf 'stages=9\n' >"$tmp/bad2"; printf 'stages=3\nstages=4\n' >"$tmp/bad3"
for b in bad1:"unknown knob 'tile_q'" bad2:"stages=9 is not one of" bad3:"knob 'stages' named twice"; do
  f=${b%%:*}; msg=${b#*:}
  err=$("$bin" explore --backend sim --dtype f16 --shape 1024x1024x4096 --grid "$tmp/$f" --out "$tmp/x.jsonl" 2>&1)
  [ $? -eq 2 ] || fail "$f accepted"
  grep -q "$f:[12]: $msg" <<<"$err" || fail "$f message: $err"
done
[ ! -e "$tmp/x.jsonl" ] || fail "a bad grid wrote a dataset"
err=$("$bin" explore --backend sim --dtype f16 --shape 2048x1024x4096 --grid "$grid" --out "$tmp/d.jsonl" 2>&1)
[ $? -eq 2 ] && grep -q "holds f16 1024x1024x4096, not f16 2048x1024x4096" <<<"$err" || fail "other shape: $err"
err=$("$bin" explore --backend sim --dtype f16 --shape 1024x1024x4096 --out "$tmp/x.jsonl" 2>&1)
[ $? -eq 2 ] && grep -qF "narrow the grid (give --grid FILE: bench/explore/grids/*.txt" <<<"$err" || fail "whole table: $err"
# a gzip dataset: --list reads it (nothing left to measure), explore refuses to append to
# it (told by its content under any name) or to start a plain one under a .gz name
gzip -c "$tmp/d.jsonl" >"$tmp/z.jsonl.gz"; cp "$tmp/z.jsonl.gz" "$tmp/z.before"; cp "$tmp/z.jsonl.gz" "$tmp/zc.jsonl"
ex --out "$tmp/z.jsonl.gz" --list 2>&1 | grep -q "14 already in" || fail "list of a gzip dataset: $(ex --out "$tmp/z.jsonl.gz" --list 2>&1)"
err=$(ex --out "$tmp/zc.jsonl" 2>&1)
[ $? -eq 2 ] && grep -q "is gzip-compressed: explore appends to a plain JSONL file" <<<"$err" || fail "gzip out: $err"
cmp -s "$tmp/zc.jsonl" "$tmp/z.before" || fail "the gzip dataset was changed"
for out in z.jsonl.gz new.jsonl.gz; do
  err=$(ex --out "$tmp/$out" 2>&1)
  [ $? -eq 2 ] && grep -q "explore writes plain JSONL; give a name without .gz" <<<"$err" || fail "--out $out: $err"
done
cmp -s "$tmp/z.jsonl.gz" "$tmp/z.before" && [ ! -e "$tmp/new.jsonl.gz" ] || fail "a refused --out was written"
"$bin" explore --help | grep -q "knob=v1,v2" || fail "help"
echo ok
