#!/usr/bin/env bash
# Modes: from_current_best starts from the best of the nearest tuned shape of the same
# dtype (budget 30, key without _fs), or the default configuration when there is none;
# a shape done below its budget is continued (--iters raised, or resume), and iteration
# numbers are never reused.
set -u
. "$(dirname "$0")/lib.sh"
t="$tmp/t"
tune() { "$bin" tune --backend sim --quiet --tuning "$t" --shapes "$fixture" "$@"; }
rows() { echo $(($(wc -l <"$t/logs/$1/results.tsv") - 2)); }
# one shape's state.json entry, whole (python: an entry is longer than any fixed grep window)
entry() { python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["shapes"][sys.argv[2]], indent=1))' \
              "$t/state.json" "$1"; }

tune --dtype f16 --shape 2048x2048x2048 --mode best || fail "best without neighbours"
[ "$(rows f16_2048x2048x2048)" -eq 31 ] || fail "from_current_best budget is not 30"
entry f16_2048x2048x2048 | grep -q '"seed_from": ""' || fail "a seed from nowhere"
tune --dtype f16 --shape 4096x8192x8192 --mode scratch --iters 12 || fail "scratch"
tune --dtype e4m3 --shape 4096x8192x4096 --mode scratch --iters 6 || fail "scratch e4m3"
tune --dtype f16 --shape 4096x8192x4096 --mode best --iters 3 || fail "best with neighbours"
# nearest f16 tuned shape: 4096x8192x8192_fs (distance ln 2), not the e4m3 one at distance 0
entry f16_4096x8192x4096 | grep -q '"seed_from": "f16_4096x8192x8192_fs"' || fail "nearest seed"
best=$(entry f16_4096x8192x8192_fs | grep -A 3 '"best": {' | grep '"config"' | head -n 1 | cut -d'"' -f4)
first=$(awk -F'\t' 'NR == 3 { print $4 }' "$t/logs/f16_4096x8192x4096/results.tsv")
[ "$first" = "$best" ] || fail "iteration 0 is not the neighbour's best: $first vs $best"

# raise the budget: continues at iteration 4, numbers never reused
tune --dtype f16 --shape 4096x8192x4096 --mode best --iters 5 || fail "raise budget"
[ "$(rows f16_4096x8192x4096)" -eq 6 ] || fail "raised budget: $(rows f16_4096x8192x4096) rows"
awk -F'\t' 'NR > 2 && $1 != NR - 3 { exit 1 }' "$t/logs/f16_4096x8192x4096/results.tsv" || fail "iterations reused"
err=$(tune --dtype f16 --shape 4096x8192x4096 --mode best --iters 2 2>&1); [ $? -eq 1 ] || fail "lowering below done iterations accepted"
grep -q "already ran 5 iterations" <<<"$err" || fail "message: $err"
# a shape done below its budget (20 compile failures in a row stopped it) is reopened
# by resume and continues from its best
export CROQ_SIM_FAULTS="compile@3*20"
tune --dtype e4m3 --shape 2048x2048x2048 --mode scratch --iters 6 || fail "compile-capped run"
entry e4m3_2048x2048x2048_fs | grep -q '"stop_reason": "20 candidates in a row failed to compile' || fail "cap"
[ "$(rows e4m3_2048x2048x2048_fs)" -eq 3 ] || fail "capped run rows"
"$bin" resume --tuning "$t" --quiet || fail "resume"
[ "$(rows e4m3_2048x2048x2048_fs)" -eq 7 ] || fail "resume did not reopen the shape: $(rows e4m3_2048x2048x2048_fs) rows"
entry e4m3_2048x2048x2048_fs | grep -q '"stop_reason": "budget of 6 iterations spent"' || fail "reopened shape not done"
unset CROQ_SIM_FAULTS
err=$(tune --dtype f16 --shape 4096x8192x4096 --mode best --seed 9 2>&1); [ $? -eq 1 ] || fail "a new seed on an existing shape accepted"
# the budget of a new shape without --iters is shapes.json's iteration_budgets; with no
# shapes.json it is an error that names why and creates no shape
sed 's/"from_scratch": 150, "from_current_best": 30/"from_scratch": 4, "from_current_best": 2/' \
    "$fixture" >"$tmp/budgets.json"
"$bin" tune --backend sim --quiet --tuning "$t" --shapes "$tmp/budgets.json" --dtype f16 --shape 1024x1024x1024 \
    --mode best || fail "best with the budgets of another shapes.json"
[ "$(rows f16_1024x1024x1024)" -eq 3 ] || fail "from_current_best budget is not shapes.json's 2"
err=$(CROQ_SHAPES=/nonexistent/shapes.json "$bin" tune --backend sim --quiet --tuning "$t" --dtype f16 \
      --shape 512x512x512 --mode scratch 2>&1); [ $? -eq 2 ] || fail "a new shape without a budget: not bad usage"
grep -q "no iteration budget for a new shape (give --iters N): CROQ_SHAPES='/nonexistent/shapes.json' is not a readable file" \
    <<<"$err" || fail "message: $err"
grep -q '"f16_512x512x512_fs"' "$t/state.json" && fail "the shape without a budget was created"
# a started shape keeps its budget: no shapes.json needed
CROQ_SHAPES=/nonexistent/shapes.json "$bin" tune --backend sim --quiet --tuning "$t" --dtype f16 \
    --shape 1024x1024x1024 --mode best || fail "a started shape needed shapes.json"
echo ok
