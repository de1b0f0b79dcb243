#!/usr/bin/env bash
# A shape pinned to an older generator (src/engine/generator_pin.c) is tuned inside that
# generator's knobs (src/knobs/space.h): the older generator here is this binary's snapshot
# whose knobs.def lacks the late knob `schedule` and the values stages=8 and group=16, as
# one from before they were added would. Every strategy (heuristic, random, grid) tunes a
# shape of the directory and never records a configuration with one of them, while the
# same runs in a directory of this binary's generator do reach them; the message names
# what the generator lacks; a start configuration taken from a neighbour's best that sets
# them is moved into the generator's knobs; the recorded candidates regenerate; the audit
# passes the directory and names a row whose recipe claims that generator for a
# configuration it lacks; `knobs --tuning DIR --key KEY` lists and checks the shape's knobs.
set -u
. "$(dirname "$0")/lib.sh"
tune() { "$bin" tune --backend sim --dtype f16 --quiet "$@"; }
d=$tmp/d
tune --mode scratch --shape 2048x4096x4096 --iters 1 --tuning "$d" || fail "first shape"
a=f16_2048x4096x4096_fs
cur=$(ls "$d/generators" | sed 's/\.json$//')
[ "$(echo "$cur" | wc -l)" -eq 1 ] || fail "not one snapshot: $cur"
old=$(snapshot_edit "$d/generators/$cur.json" "$d/generators" '
import re
t = f["knobs.def"]
row = re.search(r"KNOB\(SCHEDULE,.*?\)\n", t, re.S)
t = t[:row.start()] + t[row.end():]
for a, b in (("1, 2, 3, 4, 5, 6, 7, 8)", "1, 2, 3, 4, 5, 6, 7)"), ("1, 2, 4, 8, 16)", "1, 2, 4, 8)")):
    assert a in t, a
    t = t.replace(a, b, 1)
f["knobs.def"] = t
') || fail "cannot write the older snapshot"
sed -i "s/\"generator\": \"$cur\"/\"generator\": \"$old\"/" "$d/srcs/$a/iter000.gen.json"
c=$tmp/c # the control: this binary's generator
tune --mode scratch --shape 2048x4096x4096 --iters 1 --tuning "$c" || fail "control: first shape"

# signatures with what the older generator lacks, in a shape's results and attempts
outside() { cut -f4 "$1/logs/$2/results.tsv" "$1/logs/$2/attempts.tsv" | grep -E '(^|,)(stages=8|group=16|schedule=1)(,|$)'; }
n=0
for s in heuristic:4096x4096x2048 random:4096x8192x4096 grid:1024x4096x4096; do
    strategy=${s%%:*} shape=${s#*:} key=f16_${s#*:}_fs
    n=$((n + 1))
    out=$("$bin" tune --backend sim --dtype f16 --mode scratch --shape "$shape" --iters 40 --seed $n \
        --strategy "$strategy" --tuning "$d" 2>&1) || fail "$strategy: $out"
    if [ $n -eq 1 ]; then # the first says what the generator lacks
        grep -qF "candidates are written by the tuning directory's generator $old (this croqtuner's is $cur; a new tuning directory takes new kernel sources); proposals keep to its knobs, which lack stages=8, group=16, knob schedule (held at 0)" <<<"$out" ||
            fail "no message naming what the generator lacks: $out"
    fi
    rows=$(grep -c '^[0-9]' "$d/logs/$key/results.tsv")
    [ "$rows" -ge 30 ] || fail "$strategy: only $rows rows"
    bad=$(outside "$d" "$key") && fail "$strategy proposed outside the older generator's knobs: $bad"
    for f in "$d/srcs/$key"/iter*.gen.json; do
        grep -q "\"generator\": \"$old\"" "$f" || fail "$f is not written by the pinned generator $old"
    done
    "$bin" source --tuning "$d" --key "$key" --iter 7 > "$tmp/src.cu" || fail "$strategy: source of iteration 7"
    tune --mode scratch --shape "$shape" --iters 40 --seed $n --strategy "$strategy" --tuning "$c" ||
        fail "control $strategy"
    echo "$strategy: control reached $(outside "$c" "$key" | wc -l) configurations the older generator lacks"
done
# random reaches them in 40 draws (about a third of its space), the heuristic too (its
# moves from stages 7 and group 8, its ports); the grid's 40 points are one corner of the table
for key in f16_4096x4096x2048_fs f16_4096x8192x4096_fs; do
    [ "$(outside "$c" $key | wc -l)" -gt 0 ] || fail "control: $key never reached them"
done

# `knobs --tuning --key` lists the shape's knobs as its generator has them, and checks a
# configuration against them too (the key's dtype and shape by default)
key=f16_4096x4096x2048_fs
out=$("$bin" knobs --tuning "$d" --key $key) || fail "knobs --tuning: $out"
grep -qxF "# $key: generator $old (its baseline's); it lacks stages=8, group=16, knob schedule (held at 0)" <<<"$out" ||
    fail "knobs --tuning: first line: $out"
grep -Eq '^stages +4 +1,2,3,4,5,6,7 ' <<<"$out" || fail "knobs --tuning: stages row: $(grep ^stages <<<"$out")"
grep -Eq '^schedule +0 +0 ' <<<"$out" || fail "knobs --tuning: schedule row: $(grep ^schedule <<<"$out")"
"$bin" knobs --json --tuning "$d" --key $key | python3 -c '
import json, sys
j = json.load(sys.stdin)
k = {r["name"]: r for r in j["knobs"]}
assert j["shape"]["generator"] == sys.argv[1] and j["shape"]["rule"] == "its baseline'"'"'s", j["shape"]
assert k["group"]["values"] == [1, 2, 4, 8] and k["group"]["declared"], k["group"]
assert k["schedule"]["values"] == [0] and not k["schedule"]["declared"], k["schedule"]' "$old" ||
    fail "knobs --json --tuning"
out=$("$bin" knobs --check --tuning "$d" --key $key --set "tile_n=128 stages=8"); rc=$?
[ $rc -eq 1 ] || fail "knobs --check of stages=8: rc $rc: $out"
grep -qF "invalid: stages=8: generator $old does not list this value of 'stages' (it has 1, 2, 3, 4, 5, 6, 7)" <<<"$out" &&
    grep -qxF "  change: stages=7" <<<"$out" || fail "knobs --check of stages=8: $out"
out=$("$bin" knobs --check --tuning "$d" --key $key --set "tile_n=128 stages=7") || fail "knobs --check of stages=7: $out"
out=$("$bin" knobs --check --tuning "$c" --key $key --set "tile_n=128 stages=8") ||
    fail "knobs --check of stages=8 with this croqtuner's generator: $out"
grep -qxF "# $key: generator $cur (its baseline's); it lacks nothing" <<<"$out" || fail "control knobs --check: $out"

# the audit finds every row inside the knobs of the generator that wrote it (the first
# shape's baseline is left out: its recipe was made to name the older generator above)
for key in f16_4096x4096x2048_fs f16_4096x8192x4096_fs f16_1024x4096x4096_fs; do
    out=$("$bin" audit --tuning "$d" --key $key 2>&1) || fail "audit of $key: $out"
done
# and names a row whose recipe claims the older generator for a configuration it lacks
key=f16_4096x8192x4096_fs
it=$(awk -F'\t' '$1 ~ /^[0-9]+$/ && $4 ~ /(^|,)stages=8(,|$)/ {print $1; exit}' "$c/logs/$key/results.tsv")
[ -n "$it" ] || fail "control: no stages=8 row to tamper with"
cp "$d/generators/$old.json" "$c/generators/"
r=$(printf '%s/srcs/%s/iter%03d.gen.json' "$c" $key "$it")
sed -i "s/\"generator\": \"$cur\"/\"generator\": \"$old\"/" "$r"
out=$("$bin" audit --tuning "$c" --key $key 2>&1) && fail "audit passed a row outside its generator's knobs"
grep -qF "$key iter $it: config outside the knobs of the generator that wrote it: stages=8: generator $old does not list this value of 'stages' (it has 1, 2, 3, 4, 5, 6, 7)" <<<"$out" ||
    fail "audit does not name the row: $out"

# a start configuration from the nearest done shape's best, which sets them: moved inside
sig=$("$bin" knobs --check --dtype f16 --shape 2048x4096x3072 \
    --set "tile_n=128 stages=8 group=16 persistent=1 schedule=1" | sed -n 's/^valid: //p')
[ -n "$sig" ] || fail "the neighbour's configuration is not valid"
python3 - "$d/state.json" "$a" "$sig" <<'PY' || fail "cannot edit state.json"
import json, sys
s = json.load(open(sys.argv[1]))
s["shapes"][sys.argv[2]]["best"]["config"] = sys.argv[3]
json.dump(s, open(sys.argv[1], "w"), indent=1, sort_keys=True)
PY
out=$("$bin" tune --backend sim --dtype f16 --mode best --shape 2048x4096x3072 --iters 3 --tuning "$d" 2>&1) ||
    fail "best mode: $out"
grep -qF "the start configuration is moved into generator $old's knobs (stages=8: generator $old does not list this value of 'stages'" <<<"$out" ||
    fail "no message about the start configuration: $out"
e=f16_2048x4096x3072
grep -q 'stages=7,consumers=2,swizzle=128,raster=0,group=8,' "$d/srcs/$e/iter000.gen.json" ||
    fail "the start was not moved to stages 7, group 8: $(cat "$d/srcs/$e/iter000.gen.json")"
bad=$(outside "$d" $e) && fail "best mode: outside the older generator's knobs: $bad"
echo ok
