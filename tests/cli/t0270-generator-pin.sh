#!/usr/bin/env bash
# A tuning directory keeps the generator it began with (src/engine/generator_pin.c, issue
# 27): a shape with a baseline recipe keeps that recipe's generator; a new shape takes the
# one generator of the directory's other baselines; a directory that mixes generators uses
# this binary's; a missing or damaged snapshot of the pinned generator stops the shape by
# name. The "older generator" here is this binary's snapshot with one kernel file changed by a comment line,
# written with its recomputed identity (FNV-1a 64, src/codegen/generator.h).
set -u
. "$(dirname "$0")/lib.sh"
tune() { "$bin" tune --backend sim --dtype f16 --mode scratch --quiet "$@"; }
d=$tmp/d
tune --shape 2048x4096x4096 --iters 3 --tuning "$d" || fail "first shape"
a=f16_2048x4096x4096_fs
cur=$(ls "$d/generators" | sed 's/\.json$//')
[ "$(echo "$cur" | wc -l)" -eq 1 ] || fail "not one snapshot: $cur"
# the older generator: family.cu with one more comment line, under its own identity
old=$(snapshot_edit "$d/generators/$cur.json" "$d/generators" \
    'f["family.cu"] += "// an older generation of the kernel sources\n"'
) || fail "cannot write the older snapshot"
# the first shape's baseline now names the older generator (as if it began before the change)
sed -i "s/\"generator\": \"$cur\"/\"generator\": \"$old\"/" "$d/srcs/$a/iter000.gen.json"
grep -q "\"$old\"" "$d/srcs/$a/iter000.gen.json" || fail "recipe not rewritten"

# rule 2: a new shape takes the directory's generator
b=f16_4096x4096x2048_fs
out=$(tune --shape 4096x4096x2048 --iters 2 --tuning "$d" 2>&1) || fail "second shape: $out"
for f in "$d/srcs/$b"/iter*.gen.json; do
    grep -q "\"generator\": \"$old\"" "$f" || fail "$f is not written by the directory's generator $old: $(cat "$f")"
done
"$bin" source --tuning "$d" --key "$b" --iter 1 > "$tmp/b1.cu" || fail "source of $b iteration 1"
grep -q "an older generation of the kernel sources" "$tmp/b1.cu" || fail "$b's source is not the older generator's"
# rule 1: the first shape resumed keeps its baseline's generator
tune --shape 2048x4096x4096 --iters 5 --tuning "$d" || fail "first shape resumed"
for i in 004 005; do
    grep -q "\"generator\": \"$old\"" "$d/srcs/$a/iter$i.gen.json" || fail "$a iteration $i left the older generator"
done
# the message says which generator writes, unless --quiet
out=$("$bin" tune --backend sim --dtype f16 --mode scratch --shape 2048x4096x4096 --iters 6 --tuning "$d" 2>&1) ||
    fail "resume without --quiet: $out"
grep -qF "candidates are written by the tuning directory's generator $old (this croqtuner's is $cur" <<<"$out" ||
    fail "no generator message: $out"

# rule 3: a directory that mixes generators gives a new shape this binary's
m=$tmp/m; cp -r "$d" "$m"
sed -i "s/\"generator\": \"$old\"/\"generator\": \"$cur\"/" "$m/srcs/$b/iter000.gen.json"
tune --shape 1024x1024x4096 --iters 1 --tuning "$m" || fail "shape in a mixed directory"
grep -q "\"generator\": \"$cur\"" "$m/srcs/f16_1024x1024x4096_fs/iter001.gen.json" || fail "mixed directory: not this binary's"

# no snapshot of the pinned generator (removed: it is written before any recipe naming
# it): the shape stops by name, nothing written for it, for a new shape and a started one
n=$tmp/n; cp -r "$d" "$n"; rm "$n/generators/$old.json"
out=$(tune --shape 1024x1024x4096 --iters 1 --tuning "$n" 2>&1); rc=$?
[ $rc -ne 0 ] || fail "no snapshot: a new shape was tuned"
grep -qF "generators/$old.json is missing" <<<"$out" || fail "no snapshot: message: $out"
[ ! -e "$n/srcs/f16_1024x1024x4096_fs/iter001.gen.json" ] || fail "no snapshot: candidates written"
out=$(tune --shape 2048x4096x4096 --iters 7 --tuning "$n" 2>&1); rc=$?
[ $rc -ne 0 ] && grep -qF "generators/$old.json is missing" <<<"$out" || fail "no snapshot, started shape: rc $rc: $out"
[ ! -e "$n/srcs/$a/iter007.gen.json" ] || fail "no snapshot: the started shape went on"

# a damaged snapshot stops the shape by name, nothing written for it
x=$tmp/x; cp -r "$d" "$x"
sed -i 's/older generation/edited generation/' "$x/generators/$old.json"
out=$(tune --shape 1024x1024x4096 --iters 1 --tuning "$x" 2>&1); rc=$?
[ $rc -ne 0 ] || fail "a damaged pinned snapshot was used"
grep -qF "the generator this shape is pinned to ($old) cannot be read" <<<"$out" || fail "damaged snapshot message: $out"
echo ok
