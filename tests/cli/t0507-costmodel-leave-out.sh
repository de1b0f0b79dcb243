#!/usr/bin/env bash
# `croqtuner costmodel` (src/costmodel, issue 25/26): the model across shapes fitted on
# every shape of a tuning directory, its leave-one-shape-out table and summary line, and
# the model written in the cost model's format; the backend filter and bad usage.
set -u
. "$(dirname "$0")/lib.sh"
tune() { "$bin" tune --backend sim --quiet --dtype f16 --mode scratch --tuning "$tmp/t" --seed 3 --iters 24 "$@" ||
    fail "tune $* exited $?"; }
tune --shape 2048x2048x2048
tune --shape 4096x2048x2048
tune --shape 4096x4096x2048
out=$("$bin" costmodel --tuning "$tmp/t" --backend sim --leave-out --out "$tmp/model.txt" 2>&1) ||
    fail "costmodel exited $?: $out"
echo "$out"
rows=$(cat "$tmp"/t/logs/*/results.tsv | awk -F'\t' 'NR > 0 && $1 ~ /^[0-9]+$/ && $6 + 0 > 0' | wc -l)
grep -q "^f16: fitted on $rows rows of 3 shapes, residual sigma [0-9.]* (ln TFLOPS)$" <<<"$out" ||
    fail "no fit line for $rows rows of 3 shapes"
for s in 2048x2048x2048 4096x2048x2048 4096x4096x2048; do
    grep -Eq "^  $s +25 +25 " <<<"$out" || fail "no leave-out row for $s with 25 rows"
done
last=$(grep '^costmodel leave-out f16:' <<<"$out")
[[ "$last" =~ ^costmodel\ leave-out\ f16:\ shapes\ 3\ rows\ 75\ err\ median\ ([0-9.]+)\ worst\ ([0-9.]+)\ pick\ min\ ([0-9.]+)\ median\ ([0-9.]+)\ top8\ min\ ([0-9.]+)$ ]] ||
    fail "summary line: $last"
# a pick is a measured configuration of the held-out shape: at most its best
awk -v a="${BASH_REMATCH[3]}" -v b="${BASH_REMATCH[5]}" 'BEGIN { exit !(a > 0 && a <= 1 && b >= a && b <= 1) }' ||
    fail "pick/top8 out of (0, 1]: $last"
grep -q "^e4m3: no model" <<<"$out" || fail "e4m3 has no rows here: $out"
head -n 2 "$tmp/model.txt" | tr '\n' ' ' | grep -q '^croq-costmodel 2 model f16 $' || fail "model file: $(head -n 2 "$tmp/model.txt")"
tail -n 1 "$tmp/model.txt" | grep -Eq '^sum [0-9a-f]{16}$' || fail "model file has no sum line"
grep -q "^wrote $tmp/model.txt ([0-9]* bytes, 1 model)$" <<<"$out" || fail "no 'wrote' line"
# --check reads it back as the library would; a damaged copy is refused, saying why
chk=$("$bin" costmodel --check "$tmp/model.txt") || fail "--check exited $?: $chk"
grep -q "^  f16: fitted on $rows rows of 3 shapes, [0-9]* features" <<<"$chk" || fail "--check: $chk"
sed 's/^mean .*/mean 7/' "$tmp/model.txt" > "$tmp/bad.txt"
chk=$("$bin" costmodel --check "$tmp/bad.txt" 2>&1); [ $? -eq 1 ] || fail "a damaged model: not exit 1"
grep -q "bad.txt: cost model: sum '[0-9a-f]*' does not match" <<<"$chk" || fail "a damaged model: $chk"
# the default backend is gpu: these sim shapes give no rows
out=$("$bin" costmodel --tuning "$tmp/t" 2>&1) || fail "costmodel (gpu rows) exited $?"
grep -q "^f16: no model" <<<"$out" || fail "sim rows taken for the gpu backend: $out"
"$bin" costmodel --tuning "$tmp/t" --backend sim --out "$tmp/x" --dtype e4m3 >/dev/null 2>&1
[ $? -eq 1 ] && [ ! -e "$tmp/x" ] || fail "no model to write: not exit 1, or a file written"
"$bin" costmodel --tuning "$tmp/nowhere" >/dev/null 2>&1; [ $? -eq 2 ] || fail "a missing directory: not exit 2"
mkdir "$tmp/empty"
"$bin" costmodel --tuning "$tmp/empty" >/dev/null 2>&1; [ $? -eq 1 ] || fail "a directory without state.json: not exit 1"
# a damaged results.tsv: refused, naming the file, nothing written
cp -r "$tmp/t" "$tmp/d"
printf '7\tgarbage\n' >> "$tmp/d/logs/f16_4096x2048x2048_fs/results.tsv"
err=$("$bin" costmodel --tuning "$tmp/d" --backend sim --out "$tmp/y" 2>&1); rc=$?
[ $rc -eq 1 ] && [ ! -e "$tmp/y" ] || fail "a damaged results.tsv: exit $rc"
grep -q "d/logs/f16_4096x2048x2048_fs/results.tsv" <<<"$err" || fail "the message does not name the file: $err"
"$bin" costmodel >/dev/null 2>&1; [ $? -eq 2 ] || fail "no --tuning: not exit 2"
"$bin" costmodel --tuning "$tmp/t" --dtype f32 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--dtype f32: not exit 2"
# --oracle: each record's measured candidates ranked by the model; the pick's TFLOPS over
# the fastest's. Two candidates of one configuration predict the same, so the first is the
# pick: 50 of 100 is 0.500; a one-candidate record is 1.000; geomean 0.707. A candidate
# without TFLOPS is skipped, a record without an oracle too.
cfg="dtype=f16,kernel=1,tile_m=128,tile_n=256,tile_k=64,stages=4,consumers=2,swizzle=128,raster=0,group=8,meta_path=1,epilogue=1,l2_a=0,l2_b=0,persistent=1,cluster_m=1,cluster_n=1,split_k=1"
{
    echo '{"case":"compress_16384x16384_f16","prune_ms":0.4}'
    echo "{\"dtype\":\"f16\",\"m\":4096,\"n\":4096,\"k\":2048,\"oracle\":{\"candidates\":[{\"kernel\":\"a\",\"config\":\"$cfg\",\"tflops\":50},{\"kernel\":\"b\",\"config\":\"$cfg\",\"tflops\":100},{\"kernel\":\"c\",\"config\":\"$cfg\",\"tflops\":null}]}}"
    echo "{\"dtype\":\"f16\",\"m\":2048,\"n\":2048,\"k\":2048,\"oracle\":{\"candidates\":[{\"kernel\":\"d\",\"config\":\"$cfg\",\"tflops\":80}]}}"
} > "$tmp/oracle.jsonl"
out=$("$bin" costmodel --tuning "$tmp/t" --backend sim --oracle "$tmp/oracle.jsonl" 2>&1) || fail "--oracle exited $?: $out"
grep -q '^oracle f16  4096x4096x2048 pick a 50.0 best b 100.0 ratio 0.500$' <<<"$out" || fail "--oracle row: $out"
grep -q '^oracle f16  2048x2048x2048 pick d 80.0 best d 80.0 ratio 1.000$' <<<"$out" || fail "--oracle row 2: $out"
grep -q '^costmodel oracle f16: shapes 2 pick geomean 0.707 min 0.500 at-least-0.90 1$' <<<"$out" ||
    fail "--oracle summary: $out"
# a line that is not JSON, a candidate whose config the knobs refuse, an oracle record
# without its shape: exit 1 naming the line
printf '%s\n' '{"dtype":"f16"}' 'not json' > "$tmp/o1.jsonl"
err=$("$bin" costmodel --tuning "$tmp/t" --backend sim --oracle "$tmp/o1.jsonl" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q 'o1.jsonl:2: not a JSON object' <<<"$err" || fail "bad JSON: exit $rc: $err"
echo '{"dtype":"f16","m":64,"n":64,"k":64,"oracle":{"candidates":[{"config":"tile_m=7","tflops":1}]}}' > "$tmp/o2.jsonl"
err=$("$bin" costmodel --tuning "$tmp/t" --backend sim --oracle "$tmp/o2.jsonl" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "o2.jsonl:1: 'oracle.candidates\[0\].config' " <<<"$err" || fail "bad config: exit $rc: $err"
# each refused with the reason and the line: a missing dimension, a shape the knobs refuse, an
# e4m3 config in an f16 record, a TFLOPS that is a string, a duplicate key, a shape twice
ok='"config":"'"$cfg"'","tflops":1'
bad() { # NAME EXPECTED-MESSAGE LINE...
    local name=$1 want=$2; shift 2
    printf '%s\n' "$@" > "$tmp/$name.jsonl"
    err=$("$bin" costmodel --tuning "$tmp/t" --backend sim --oracle "$tmp/$name.jsonl" 2>&1); rc=$?
    [ $rc -eq 1 ] && grep -qF "$name.jsonl:$want" <<<"$err" || fail "$name: exit $rc: $err"
}
bad o3 "1: 'm' missing" '{"dtype":"f16","n":64,"k":64,"oracle":{"candidates":[]}}'
bad o4 "1: K=3: K must be a multiple of 64" '{"dtype":"f16","m":4096,"n":4096,"k":3,"oracle":{"candidates":[]}}'
bad o5 "1: 'oracle.candidates[0].config' is of another dtype than the record's" \
    "{\"dtype\":\"f16\",\"m\":64,\"n\":64,\"k\":64,\"oracle\":{\"candidates\":[{\"config\":\"${cfg/dtype=f16/dtype=e4m3}\",\"tflops\":1}]}}"
bad o6 "1: 'oracle.candidates[0].tflops' is not a number" \
    "{\"dtype\":\"f16\",\"m\":64,\"n\":64,\"k\":64,\"oracle\":{\"candidates\":[{\"config\":\"$cfg\",\"tflops\":\"800\"}]}}"
bad o6b "1: 'oracle.candidates[0].tflops' is not a TFLOPS figure" \
    "{\"dtype\":\"f16\",\"m\":64,\"n\":64,\"k\":64,\"oracle\":{\"candidates\":[{\"config\":\"$cfg\",\"tflops\":-5}]}}"
bad o7 "1: not a JSON object (duplicate object key" \
    "{\"dtype\":\"f16\",\"m\":64,\"n\":64,\"k\":64,\"oracle\":{\"candidates\":[{$ok,\"tflops\":2}]}}"
bad o8 "3: f16 64x64x64 was already ranked at line 1" \
    "{\"dtype\":\"f16\",\"m\":64,\"n\":64,\"k\":64,\"oracle\":{\"candidates\":[{$ok}]}}" '' \
    "{\"dtype\":\"f16\",\"m\":64,\"n\":64,\"k\":64,\"oracle\":{\"candidates\":[{$ok}]}}"
# a file with no oracle record ranks nothing: exit 1, said so
bad o9 " no oracle record with a timed candidate" '{"case":"compress"}'
"$bin" costmodel --tuning "$tmp/t" --backend sim --oracle "$tmp/none.jsonl" >/dev/null 2>&1; [ $? -eq 2 ] ||
    fail "--oracle of a missing file: not exit 2"
echo ok
