#!/usr/bin/env bash
# The replay backend and replay-bench on sim-made datasets: a tuning run replays the
# dataset's numbers, its strategy proposes only what the dataset holds (and stops when
# that is all tried), an agent's idea outside it is recorded as such (never a best), the
# same seed replays the same run, and replay-bench prints its table and the
# min@50/min@150 line.
set -u
. "$(dirname "$0")/lib.sh"
grid="$(dirname "$0")/../fixtures/explore/grid-small.txt"
mkdir "$tmp/ds"
for ds in f16:1024x1024x4096 f16:2048x1024x4096 e4m3:1024x1024x4096; do
  "$bin" explore --backend sim --quiet --dtype ${ds%%:*} --shape ${ds#*:} --grid "$grid" \
    --out "$tmp/ds/${ds%%:*}_${ds#*:}.jsonl" >/dev/null || fail "explore $ds"
done
d="$tmp/ds/f16_1024x1024x4096.jsonl"

tune() { "$bin" tune --backend replay --dataset "$d" --dtype f16 --shape 1024x1024x4096 --mode scratch \
           --iters 30 --quiet "$@"; }
tune --tuning "$tmp/a" --seed 3 || fail "replay tune"
tune --tuning "$tmp/b" --seed 3 || fail "replay tune again"
r="logs/f16_1024x1024x4096_fs/results.tsv"
head -n 1 "$tmp/a/$r" | grep -q "backend=replay" || fail "backend label"
diff <(cut -f1,4-11 "$tmp/a/$r") <(cut -f1,4-11 "$tmp/b/$r") >/dev/null || fail "same seed, other numbers"
# iteration 0 is the baseline, measured from the dataset: its TFLOPS is one of the recorded draws
base=$(awk -F'\t' 'NR == 3 { print $5 }' "$tmp/a/$r")
[ -n "$base" ] || fail "baseline without numbers"
# the proposer keeps to the dataset's 14 configurations (backend.measurable): every one of
# its 13 ideas has numbers, and then it stops, 17 iterations of the 30 unspent
grep -q "not in the dataset" "$tmp/a/$r" && fail "the proposer left the dataset: $(cat "$tmp/a/$r")"
[ "$(awk -F'\t' 'NR > 3 && $5 != ""' "$tmp/a/$r" | wc -l)" -eq 13 ] || fail "not 13 measured ideas: $(cat "$tmp/a/$r")"
[ "$(awk -F'\t' 'NR > 2 { print $2 }' "$tmp/a/$r" | sort -u | wc -l)" -eq 14 ] || fail "not the 14 configurations once each"
"$bin" status --tuning "$tmp/a" | grep -q "13/30 .*the proposer found no untried valid configuration the backend can measure" ||
  fail "the stop: $("$bin" status --tuning "$tmp/a")"
# an agent's idea is its own: one outside the dataset is stored without numbers, said so
# in the progress line (not as a crash), never kept; propose reopens the dataset the checkpoint records
"$bin" tune --agent --backend replay --dataset "$d" --dtype f16 --shape 1024x1024x4096 --mode scratch --iters 3 \
  --tuning "$tmp/g" --quiet || fail "replay tune --agent"
k=f16_1024x1024x4096_fs
{ "$bin" source --tuning "$tmp/g" --key $k --iter 0; echo "__device__ int croq_agent_outside;"; } >"$tmp/x.cu"
prop() { "$bin" propose --tuning "$tmp/g" --key $k --idea outside --category micro --src "$tmp/x.cu" --set raster=1 "$@"; }
prog=$(prop) || fail "propose outside the dataset (the checkpoint's dataset, no --dataset): $prog"
grep -q "^$k iter 001/3 DISCARD (not in the dataset) " <<<"$prog" || fail "no progress line says 'not in the dataset': $prog"
grep -q "iter 001/3 DISCARD_RUNTIME_CRASH" <<<"$prog" && fail "a config outside the dataset shown as a crash: $prog"
grep -q "not in the dataset (14 configurations" "$tmp/g/logs/$k/results.tsv" || fail "the row does not say why"
awk -F'\t' 'NR > 2 && /not in the dataset/ && ($5 != "" || $10 == "KEEP") { exit 1 }' "$tmp/g/logs/$k/results.tsv" ||
  fail "a config outside the dataset got numbers or was kept"
err=$("$bin" tune --backend replay --tuning "$tmp/c" --dtype f16 --shape 1024x1024x4096 --mode scratch --iters 5 --quiet 2>&1)
# bad usage, refused before the tuning directory is made (issue 24 item 12)
[ $? -eq 2 ] && grep -q "needs --dataset FILE" <<<"$err" || fail "replay without a dataset: $err"
[ ! -e "$tmp/c" ] || fail "a replay tune without a dataset created its tuning directory"

out=$("$bin" replay-bench --datasets "$tmp/ds" --seeds 3 --iters 20 --jobs 2) || fail "replay-bench: $out"
last=$(tail -n 1 <<<"$out")
# a short run's summary names the columns it printed (no min@50 nan)
[[ "$last" =~ ^replay-bench:\ min@10\ 0\.[0-9]{3}\ min@20\ [01]\.[0-9]{3}$ ]] || fail "last line with 20 iterations: $last"
grep -q "^f16_1024x1024x4096 *scratch *3 " <<<"$out" || fail "scratch row: $out"
grep -q "^f16_1024x1024x4096 *best *3 .* f16_2048x1024x4096$" <<<"$out" || fail "best row seeded by the other f16: $out"
grep -q "^e4m3_1024x1024x4096 *best .*no other dataset" <<<"$out" || fail "e4m3 has no other dataset: $out"
# ratios are in (0, 1]
awk '$2 == "scratch" || ($2 == "best" && $3 > 0) { for (i = 4; i <= 5; i++) if ($i <= 0 || $i > 1) exit 1 }' \
  <<<"$out" || fail "a ratio outside (0, 1]: $out"
out=$("$bin" replay-bench --datasets "$tmp/ds" --seeds 2 --iters 50 --jobs 2) || fail "replay-bench 50"
grep -qx "proposals: 0 of [1-9][0-9]* were not in their dataset (no numbers, never kept)" <<<"$out" ||
  fail "a proposal outside a dataset, or no count: $out"
[[ "$(tail -n 1 <<<"$out")" =~ ^replay-bench:\ min@10\ [01]\.[0-9]{3}\ min@30\ [01]\.[0-9]{3}\ min@50\ [01]\.[0-9]{3}$ ]] || fail "line: $(tail -n 1 <<<"$out")"
# a recorded failure has no numbers either, but the dataset holds it: not counted as outside
# (each of the 2 runs proposes all 13 configurations but the baseline, the 2 failures among them)
mkdir "$tmp/fails"
awk '!/kernel=0,/ && n < 2 && sub(/"status":"ok"/, "\"status\":\"incorrect\"") { n++ } 1' "$d" >"$tmp/fails/f16_1024x1024x4096.jsonl"
[ "$(grep -c '"status":"incorrect"' "$tmp/fails/f16_1024x1024x4096.jsonl")" -eq 2 ] || fail "two records marked incorrect"
out=$("$bin" replay-bench --datasets "$tmp/fails" --seeds 2 --iters 20 --jobs 2) || fail "replay-bench with failures: $out"
grep -qx "proposals: 0 of 26 were not in their dataset (no numbers, never kept)" <<<"$out" ||
  fail "recorded failures counted as outside the dataset: $out"

# a dataset without the baseline (where every run starts) is refused by name, never
# scored 0.000; a replay tune on it ends with an error exit saying so
mkdir "$tmp/nobase"
grep -v 'kernel=0,' "$d" >"$tmp/nobase/f16_1024x1024x4096.jsonl"
[ "$(wc -l <"$tmp/nobase/f16_1024x1024x4096.jsonl")" -eq 13 ] || fail "the baseline line was not the one removed"
err=$("$bin" replay-bench --datasets "$tmp/nobase" --seeds 2 --iters 10 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "f16_1024x1024x4096.jsonl' cannot be scored: it does not hold the baseline configuration measured ok (dtype=f16,kernel=0," <<<"$err" ||
  fail "replay-bench on a dataset without the baseline: $rc $err"
err=$("$bin" tune --backend replay --dataset "$tmp/nobase/f16_1024x1024x4096.jsonl" --dtype f16 --shape 1024x1024x4096 \
        --mode scratch --iters 5 --quiet --tuning "$tmp/nb" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "cannot be replayed: it does not hold the baseline configuration" <<<"$err" ||
  fail "replay tune without the baseline: $rc $err"

mkdir "$tmp/empty"
err=$("$bin" replay-bench --datasets "$tmp/empty" 2>&1); [ $? -eq 2 ] && grep -q "no \*.jsonl or \*.jsonl.gz dataset" <<<"$err" || fail "empty: $err"
err=$("$bin" replay-bench 2>&1); [ $? -eq 2 ] && grep -q "datasets DIR is required" <<<"$err" || fail "no dir: $err"
err=$("$bin" replay-bench --datasets "$tmp/ds" --seeds 0 2>&1); [ $? -eq 2 ] || fail "seeds 0: $err"
echo ok
