#!/usr/bin/env bash
# croqtuner audit checks the text columns of results.tsv it has evidence for (issue 24,
# item 5): a row's bottleneck must be the category of the profile record of the best it
# was proposed from (perf/<key>/iterBBB-profile.json), its idea category one of the known
# names, the baseline row must have neither, and the idea log must say the same
# bottleneck, category and idea text. Each edit (also one made in both logs alike) exits 1
# naming the row; the untouched run passes.
set -u
. "$(dirname "$0")/lib.sh"
key=f16_4096x4096x4096_fs
"$bin" tune --backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch --tuning "$tmp/clean" \
    --iters 8 --seed 52 || fail "tune exited $?"
res=logs/$key/results.tsv ideas=logs/$key/idea-log.jsonl
out=$("$bin" audit --tuning "$tmp/clean") || fail "audit of an untouched run exited $?: $out"
[ "$out" = "$key: 9 rows re-derived from their evidence" ] || fail "audit said: $out"
col() { awk -F'\t' -v it="$2" -v c="$3" 'NR > 2 && $1 == it { print $c }' "$1"; }
bn=$(col "$tmp/clean/$res" 3 12) cat3=$(col "$tmp/clean/$res" 3 13)
[ -n "$bn" ] && [ -n "$cat3" ] || fail "the fixture changed: iteration 3 has no bottleneck/category"
other=dram_throughput; [ "$bn" = $other ] && other=smem_throughput

expect_problem() {
    local out rc
    out=$("$bin" audit --tuning "$tmp/$1"); rc=$?
    [ $rc = 1 ] || fail "$1: audit exited $rc: $out"
    grep -qF -- "$2" <<<"$out" || fail "$1: no '$2' in: $out"
}
copy() { rm -rf "$tmp/$1"; cp -r "$tmp/clean" "$tmp/$1"; }
set_field() { awk -F'\t' -v OFS='\t' -v it="$2" -v c="$3" -v v="$4" 'NR > 2 && $1 == it { $c = v } { print }' \
    "$1" > "$1.new" && mv "$1.new" "$1"; }
# set_idea FILE ITER MEMBER VALUE: one idea-log member
set_idea() { python3 - "$@" <<'PY'
import json, sys
path, it, member, value = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
lines = open(path).read().splitlines()
out = []
for l in lines:
    o = json.loads(l)
    if o["iter"] == it:
        o[member] = value
    out.append(json.dumps(o, separators=(",", ":")))
open(path, "w").write("\n".join(out) + "\n")
PY
}

# another known bottleneck, in both logs: the profile record says otherwise
copy bottleneck; set_field "$tmp/bottleneck/$res" 3 12 $other; set_idea "$tmp/bottleneck/$ideas" 3 bottleneck $other
expect_problem bottleneck "$key iter 3: bottleneck '$other', but the profile of the best it was proposed from"
expect_problem bottleneck "says '$bn'"
# an invented bottleneck name
copy bnname; set_field "$tmp/bnname/$res" 3 12 invented_bound; set_idea "$tmp/bnname/$ideas" 3 bottleneck invented_bound
expect_problem bnname "$key iter 3: bottleneck 'invented_bound' is not a bottleneck category"
# an invented idea category, in both logs
copy category; set_field "$tmp/category/$res" 3 13 nope; set_idea "$tmp/category/$ideas" 3 category nope
expect_problem category "$key iter 3: category 'nope' is not one of macro, structural, variant, micro"
# a category on the baseline row
copy base; set_field "$tmp/base/$res" 0 13 macro
expect_problem base "$key iter 0: the baseline row has bottleneck '' and category 'macro'; the baseline has neither"
# results.tsv alone edited: the idea log disagrees
copy idea; set_field "$tmp/idea/$res" 3 14 "an idea nobody had"
expect_problem idea "$key iter 3: idea-log line 4 gives another bottleneck, category or idea text"
# the profile record gone: the bottleneck cannot be checked
copy noprof; b=$(python3 -c "
import sys
rows = [l.split('\t') for l in open(sys.argv[1]).read().splitlines()[2:]]
best = 0
for r in rows[:3]:
    if r[9] in ('BASELINE', 'KEEP'): best = int(r[0])
print('%03d' % best)" "$tmp/clean/$res")
rm "$tmp/noprof/perf/$key/iter$b-profile.json"
expect_problem noprof "$key iter 3: no profile record of the best it was proposed from (iteration $((10#$b)))"
echo ok
