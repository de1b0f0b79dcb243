#!/usr/bin/env bash
# The proposer's cost model reads the other tuned shapes of the directory (issue 19,
# docs/proposer.md "Cost model"): INIT records each done same-dtype shape with its
# results.tsv row count in the checkpoint's "prior", the idea text names how many
# measurements of how many other shapes it fitted, and a shape continued after the other
# one grew still reads only the rows recorded at its INIT.
set -u
. "$(dirname "$0")/lib.sh"
a=f16_2048x2048x2048_fs b=f16_4096x2048x2048_fs
tune() { "$bin" tune --backend sim --quiet --dtype f16 --mode scratch --tuning "$tmp/t" --seed 3 "$@" || fail "tune $* exited $?"; }
tune --shape 2048x2048x2048 --iters 12
tune --shape 4096x2048x2048 --iters 12
prior() { python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['prior']))" "$tmp/t/checkpoints/$1.json"; }
[ "$(prior $a)" = '[]' ] || fail "the first shape has a prior: $(prior $a)"
[ "$(prior $b)" = '[{"key": "f16_2048x2048x2048_fs", "rows": 13}]' ] || fail "prior of $b: $(prior $b)"
ideas() { awk -F'\t' -v from="$1" 'NR > 2 && $1 >= from { print $14 }' "$tmp/t/logs/$b/results.tsv"; }
# once the shape has 4 measurements of its own, every idea names both sources
n=$(ideas 5 | grep -c 'measurements of this shape, 13 of 1 other shape): ')
[ "$n" -ge 6 ] || fail "ideas naming the other shape's 13 measurements: $n of $(ideas 5 | wc -l)"
grep -q 'model: not fitted yet' <<<"$(ideas 1 | head -n 1)" || fail "iteration 1 claims a model: $(ideas 1 | head -n 1)"
# the other shape grows; this one, continued, still fits the 13 rows its INIT recorded
tune --shape 2048x2048x2048 --iters 20
tune --shape 4096x2048x2048 --iters 16
[ "$(prior $b)" = '[{"key": "f16_2048x2048x2048_fs", "rows": 13}]' ] || fail "prior of $b after resume: $(prior $b)"
[ "$(ideas 13 | grep -c ', 13 of 1 other shape): ')" = 4 ] || fail "resumed ideas: $(ideas 13)"
echo ok
