#!/usr/bin/env bash
# replay-bench --strategy (docs/search.md) on the committed H200 datasets (bench/explore):
# the random baseline gets its table (a row with numbers for every dataset and mode, its
# last line naming it) and the side-by-side table of every named strategy's columns; a
# list runs each once, in its order; an unknown name or the agent (nothing to replay) is a
# usage error listing the strategies. Without --strategy the output is the default's
# alone (t0502).
set -u
. "$(dirname "$0")/lib.sh"
ds="$CROQ_SOURCE_DIR/bench/explore"
nds=$(ls "$ds"/*.jsonl | wc -l)
[ "$nds" -ge 6 ] || fail "expected the committed datasets in $ds, found $nds"

out=$("$bin" replay-bench --datasets "$ds" --seeds 2 --iters 10 --jobs 2 --strategy random) || fail "random: $out"
grep -qx "strategy random:" <<<"$out" || fail "no strategy header: $out"
for f in "$ds"/*.jsonl; do
  name=$(basename "$f" .jsonl)
  for mode in scratch best; do
    # its table's row (dataset mode runs @10 TFLOPS from) with two runs and the side by
    # side one (dataset mode @10): each ratio in (0, 1]
    awk -v n="$name" -v m="$mode" '$1 == n && $2 == m && NF >= 6 && $3 == 2 && $4 > 0 && $4 <= 1 { t++ }
                                   $1 == n && $2 == m && NF == 3 && $3 > 0 && $3 <= 1 { s++ }
                                   END { exit t == 1 && s == 1 ? 0 : 1 }' <<<"$out" ||
      fail "random: no row with numbers for $name $mode (in both tables): $out"
  done
done
grep -Eq "^replay-bench random: min@10 [01]\.[0-9]{3}$" <<<"$out" || fail "random's summary line: $out"
# the proposals count: every run's 10 proposals (runs: the table's column), and how many
# of them the dataset does not hold: none, as random draws from the dataset's
# configurations (backend.measurable), not from the 83.9 M points of the knob space
runs=$(awk 'NF >= 6 && ($2 == "scratch" || $2 == "best") && $3 ~ /^[0-9]+$/ { r += $3 } END { print r }' <<<"$out")
line=$(grep -E "^proposals: [0-9]+ of [0-9]+ were not in their dataset \(no numbers, never kept\)$" <<<"$out") ||
  fail "no proposals line: $out"
read -r u p < <(sed -E 's/^proposals: ([0-9]+) of ([0-9]+) .*/\1 \2/' <<<"$line")
[ "$p" -eq $((runs * 10)) ] || fail "proposals $p, want $runs runs x 10"
[ "$u" -eq 0 ] || fail "unmeasured $u of $p: random left the datasets"
grep -q "^strategies: @10 of each dataset's best" <<<"$out" || fail "no side-by-side table: $out"
[[ "$(tail -n 1 <<<"$out")" =~ ^min\ +0\.[0-9]{3}$ ]] || fail "side-by-side minimum: $(tail -n 1 <<<"$out")"

# a list: each in its order, the side-by-side table with a column each
out=$("$bin" replay-bench --datasets "$ds" --seeds 1 --iters 4 --jobs 2 --strategy grid,random) || fail "list: $out"
[ "$(grep -c '^strategy ' <<<"$out")" -eq 2 ] || fail "two names, not two tables: $out"
[ "$(grep '^strategy ' <<<"$out" | tr '\n' ' ')" = "strategy grid: strategy random: " ] || fail "order: $out"
grep -Eq "^dataset +mode +grid +random$" <<<"$out" || fail "side-by-side header: $out"

# a list with a typo (a name twice, an empty name, 'all' inside it) is refused before anything runs
for bad in "grid,random,grid:is named twice" "grid,:has an empty name" ",grid:has an empty name" \
           "grid,,random:has an empty name" "all,grid:'all' stands alone"; do
  err=$("$bin" replay-bench --datasets "$ds" --seeds 1 --iters 4 --strategy "${bad%%:*}" 2>&1); rc=$?
  [ $rc -eq 2 ] && grep -qF -- "${bad#*:}" <<<"$err" || fail "--strategy '${bad%%:*}': exit $rc: $err"
  grep -q '^strategy ' <<<"$err" && fail "--strategy '${bad%%:*}' ran before refusing: $err"
done
for bad in bogus agent ""; do
  err=$("$bin" replay-bench --datasets "$ds" --seeds 1 --iters 4 --strategy "$bad" 2>&1); rc=$?
  [ $rc -eq 2 ] || fail "--strategy '$bad': exit $rc, want 2: $err"
  grep -qF "heuristic, grid, random, or all" <<<"$err" || fail "--strategy '$bad' does not list the strategies: $err"
done
echo ok
