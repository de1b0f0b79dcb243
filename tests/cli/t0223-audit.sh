#!/usr/bin/env bash
# croqtuner audit re-derives every row from its evidence: a clean run with every kind of
# failure, a re-measurement and an above-peak result passes; each single tampering (a
# number, a decision, a source, a deleted or rewritten raw file, state.json's best) is
# found and named with its iteration.
set -u
. "$(dirname "$0")/lib.sh"
key=f16_4096x4096x4096_fs
"$bin" tune --backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch --tuning "$tmp/clean" \
    --iters 30 --seed 69 --sim-faults "crash@2,timeout@3,incorrect@4,compile@5*2,spike@6,abovepeak@7" || fail "tune exited $?"
col() { awk -F'\t' -v it="$2" -v c="$3" 'NR > 2 && $1 == it { print $c }' "$1"; }
res=logs/$key/results.tsv ideas=logs/$key/idea-log.jsonl
[ "$(col "$tmp/clean/$res" 9 10)" = DISCARD ] || fail "the fixture changed: iteration 9 is not a DISCARD"
[ -f "$tmp/clean/perf/$key/iter006-cand-re.json" ] || fail "the fixture changed: no re-measurement at 6"

out=$("$bin" audit --tuning "$tmp/clean") || fail "audit of an untouched run exited $?: $out"
[ "$out" = "$key: 31 rows re-derived from their evidence" ] || fail "audit said: $out"

# expect_problem NAME TEXT [AUDIT ARGS]: audit of copy NAME exits 1 and prints TEXT
expect_problem() {
    local out rc
    out=$("$bin" audit --tuning "$tmp/$1" "${@:3}"); rc=$?
    [ $rc = 1 ] || fail "$1: audit exited $rc: $out"
    grep -qF -- "$2" <<<"$out" || fail "$1: no '$2' in: $out"
}
copy() { rm -rf "$tmp/$1"; cp -r "$tmp/clean" "$tmp/$1"; }
# set_field FILE ITER COL VALUE: one results.tsv cell
set_field() { awk -F'\t' -v OFS='\t' -v it="$2" -v c="$3" -v v="$4" 'NR > 2 && $1 == it { $c = v } { print }' \
    "$1" > "$1.new" && mv "$1.new" "$1"; }

copy number; set_field "$tmp/number/$res" 9 5 999.999
expect_problem number "$key iter 9: tflops 999.999 is not the raw measurement's"

copy decision; set_field "$tmp/decision/$res" 9 10 KEEP
sed -i 's/\("iter":9,.*"decision":\)"DISCARD"/\1"KEEP"/' "$tmp/decision/$ideas"
expect_problem decision "$key iter 9: decision KEEP, but its evidence gives DISCARD"

copy source; echo "// later" >> "$tmp/source/srcs/$key/iter004.cu"
expect_problem source "$key iter 4: source srcs/$key/iter004.cu hashes to"

copy noraw; rm "$tmp/noraw/perf/$key/iter008-cand.json"
expect_problem noraw "$key iter 8: no raw measurement"

copy skipped; rm "$tmp/skipped/perf/$key/iter006-cand-re.json"
expect_problem skipped "$key iter 6: first measurement"

copy status; sed -i 's/"status": *"[a-z_]*"/"status": "incorrect"/' "$tmp/status/perf/$key/iter002-cand.json"
expect_problem status "$key iter 2: decision DISCARD_RUNTIME_CRASH, but its evidence gives DISCARD_INCORRECT"

copy best; sed -i 's/"tflops": [0-9.]*/"tflops": 5000.0/' "$tmp/best/state.json"
expect_problem best "$key: state.json's best is not iteration"

copy trailing; sed -i '$d' "$tmp/trailing/$res"; sed -i '$d' "$tmp/trailing/$ideas"
expect_problem trailing "$key: state.json says iteration 30, results.tsv holds 30 rows"

copy dropped; echo '{"schema": 1, "shapes": {}}' > "$tmp/dropped/state.json"
expect_problem dropped "$key: logs/ holds this shape but state.json does not"

copy published; sed -i 's/"status": "done"/"status": "active"/' "$tmp/published/state.json"
echo "// later" >> "$tmp/published/kernels/gemm_sp_f16/${key}_best.cu"
expect_problem published "$key: kernels/gemm_sp_f16/${key}_best.cu is not srcs/$key/iter"

# a repeat spelled differently: iteration 9 claims iteration 8's config with a trailing ','
c8=$(col "$tmp/clean/$res" 8 4)
copy respelled; set_field "$tmp/respelled/$res" 9 4 "$c8,"
expect_problem respelled "$key iter 9: config is not in the engine's canonical form"

copy dtype; set_field "$tmp/dtype/$res" 9 4 "$(sed 's/^dtype=f16,/dtype=e4m3,/' <<<"$c8")"
expect_problem dtype "$key iter 9: config is for e4m3, the shape is f16"

# (iteration 11 was not re-measured: its first measurement was not above the peak;
# iterations 6 and 7 were, and the clean audit above accepted them)
[ ! -e "$tmp/clean/perf/$key/iter011-cand-re.json" ] || fail "iteration 11 was re-measured: pick another"
ls "$tmp/clean/perf/$key/" | grep -q 'cand-re' || fail "no re-measured iteration in the clean run"
copy madeup; cp "$tmp/madeup/perf/$key/iter011-cand.json" "$tmp/madeup/perf/$key/iter011-best-re.json"
expect_problem madeup "$key iter 11: the best was re-measured (iter011-best-re.json) but the candidate was not"

# (K below is the first KEEP after iteration 7, found rather than assumed so that a
# proposer change only moves it)
# the re-measurement at iteration 7 (above the peak) comes with the best's: it must be
# there, and be of the best's config (here it is made to name iteration 8's)
[ -f "$tmp/clean/perf/$key/iter007-best-re.json" ] || fail "the fixture changed: no re-measurement at 7"
copy nobestre; rm "$tmp/nobestre/perf/$key/iter007-best-re.json"
expect_problem nobestre "$key iter 7: the candidate was re-measured but the best was not"
copy otherbest; python3 - "$tmp/otherbest/perf/$key/iter007-best-re.json" "$c8" <<'PY' || fail "cannot edit best-re"
import json, sys
j = json.load(open(sys.argv[1])); j["config"] = sys.argv[2]; json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
expect_problem otherbest "$key iter 7: iter007-best-re.json is a measurement of another config than the best"

# rules 4: a KEEP by the screen is paired again, and only such a one; the confirmation
# decides, and its numbers (recomputed from its trials) make the best's on the one scale
K=$(awk -F'\t' 'NR > 2 && $1 > 7 && $10 == "KEEP" { print $1; exit }' "$tmp/clean/$res")
k3=$(printf %03d "$K")
[ -f "$tmp/clean/perf/$key/iter$k3-cand-confirm.json" ] || fail "the fixture changed: KEEP $K has no confirmation"
D=$(awk -F'\t' 'NR > 2 && $1 > 7 && $10 == "DISCARD" && $NF !~ /paired again/ { print $1; exit }' "$tmp/clean/$res")
d3=$(printf %03d "$D")
copy noconfirm; rm "$tmp/noconfirm/perf/$key/iter$k3-cand-confirm.json"
expect_problem noconfirm "$key iter $K: a KEEP by the screen without its confirmation"
copy extraconfirm; cp "$tmp/clean/perf/$key/iter$k3-cand-confirm.json" "$tmp/extraconfirm/perf/$key/iter$d3-cand-confirm.json"
expect_problem extraconfirm "$key iter $D: iter$d3-cand-confirm.json exists but the screen gives no KEEP to confirm"
copy unconfirmed; python3 - "$tmp/unconfirmed/perf/$key/iter$k3-cand-confirm.json" <<'PY' || fail "cannot edit the confirmation"
import json, sys
j = json.load(open(sys.argv[1])); j["paired"]["incumbent_ms"] = list(j["paired"]["candidate_ms"])
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
expect_problem unconfirmed "$key iter $K: decision KEEP, but its evidence gives DISCARD"
copy chain; python3 - "$tmp/chain/perf/$key/iter$k3-cand-confirm.json" <<'PY' || fail "cannot edit the confirmation"
import json, sys
j = json.load(open(sys.argv[1])); j["paired"]["incumbent_ms"] = [x * 1.5 for x in j["paired"]["incumbent_ms"]]
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
expect_problem chain "$key iter $K: best_tflops"

# the final ladder: its numbers are its trials', its winner the lowest, state.json's best
# and the published kernel the winner's
grep -q '"measured": "ladder"' "$tmp/clean/state.json" || fail "the fixture has no ladder winner registered"
copy laddernum; python3 - "$tmp/laddernum/perf/$key/ladder-final.json" <<'PY' || fail "cannot edit the ladder"
import json, sys
j = json.load(open(sys.argv[1])); e = j["entries"][0]; e["trial_ms"] = [x * 0.5 for x in e["trial_ms"]]
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
expect_problem laddernum "$key: the final ladder's raw file perf/$key/ladder-final.json hashes to"
expect_problem laddernum "$key: the final ladder's numbers of iteration"
copy ladderbest; python3 - "$tmp/ladderbest/state.json" "$key" <<'PY' || fail "cannot edit state.json"
import json, sys
j = json.load(open(sys.argv[1])); b = j["shapes"][sys.argv[2]]["best"]; b["measured"] = None; del b["measured"]
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
expect_problem ladderbest "$key: state.json's best is not iteration"

copy laddersum; python3 - "$tmp/laddersum/state.json" "$key" <<'PY' || fail "cannot edit state.json"
import json, sys
j = json.load(open(sys.argv[1])); j["shapes"][sys.argv[2]]["ladder"]["entries"][0]["tflops"] = 10.0
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
expect_problem laddersum "$key: state.json's \"ladder\" is not the checkpoint's final ladder"
copy ladderclock; python3 - "$tmp/ladderclock/state.json" "$key" <<'PY' || fail "cannot edit state.json"
import json, sys
j = json.load(open(sys.argv[1])); j["shapes"][sys.argv[2]]["best"]["sm_clock_mhz"] = 1980
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
expect_problem ladderclock "$key: state.json's best is not iteration"

# rules 3: a KEEP is verified again on a new operand set, and only a KEEP is
K=$(awk -F'\t' 'NR > 2 && $1 > 7 && $10 == "KEEP" { print $1; exit }' "$tmp/clean/$res")
[ -n "$K" ] || fail "the fixture changed: no KEEP after iteration 7"
K1=$((K + 1)); k3=$(printf %03d "$K"); k13=$(printf %03d "$K1")
[ "$(col "$tmp/clean/$res" "$K1" 10)" != KEEP ] || fail "the fixture changed: iteration $K1 is a KEEP too"
[ -f "$tmp/clean/perf/$key/iter$k3-cand-fresh.json" ] ||
    fail "the fixture changed: iteration $K is not a KEEP verified on a new operand set"
copy nofresh; rm "$tmp/nofresh/perf/$key/iter$k3-cand-fresh.json"
expect_problem nofresh "$key iter $K: a KEEP without its verification on a new operand set"
copy failfresh; sed -i 's/"status": *"ok"/"status": "incorrect"/' "$tmp/failfresh/perf/$key/iter$k3-cand-fresh.json"
expect_problem failfresh "$key iter $K: decision KEEP, but its evidence gives DISCARD_INCORRECT"
copy extrafresh; cp "$tmp/extrafresh/perf/$key/iter$k3-cand-fresh.json" "$tmp/extrafresh/perf/$key/iter$k13-cand-fresh.json"
expect_problem extrafresh "$key iter $K1: iter$k13-cand-fresh.json exists but the numbers give no KEEP to verify"
# the decision is replayed from the paired trials, not from a summary in the file: the
# incumbent's times of iteration $K made equal to the candidate's leave no gain
copy pairs; python3 - "$tmp/pairs/perf/$key/iter$k3-cand.json" <<'PY' || fail "cannot edit the paired trials"
import json, sys
j = json.load(open(sys.argv[1])); j["paired"]["incumbent_ms"] = list(j["paired"]["candidate_ms"])
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
expect_problem pairs "$key iter $K: decision KEEP, but its evidence gives DISCARD"

# one version of the decision rules per shape
copy attrules; sed -i '1s/ decide=4$/ decide=1/' "$tmp/attrules/logs/$key/attempts.tsv"
expect_problem attrules "$key: attempts.tsv says decision rules 1, results.tsv 4"
copy ckrules; sed -i 's/"decide_rules": 4/"decide_rules": 1/' "$tmp/ckrules/checkpoints/$key.json"
expect_problem ckrules "$key: the checkpoint says decision rules 1, results.tsv 4"

copy fifo; rm "$tmp/fifo/srcs/$key/iter004.cu"; mkfifo "$tmp/fifo/srcs/$key/iter004.cu"
expect_problem fifo "$key iter 4: source srcs/$key/iter004.cu cannot be read"

copy garbled; head -c 40 "$tmp/clean/perf/$key/iter008-cand.json" > "$tmp/garbled/perf/$key/iter008-cand.json"
expect_problem garbled "$key iter 8: raw measurement iter008-cand.json cannot be parsed"

# replayed under a stricter noise floor, the run's KEEPs are no longer what the rule gives
expect_problem clean "decision KEEP, but its evidence gives DISCARD" --noise-floor 50
# a percentage may carry its sign: the same audit (args_percent)
expect_problem clean "decision KEEP, but its evidence gives DISCARD" --noise-floor 50%
[ "$("$bin" audit --tuning "$tmp/clean" --noise-floor 1%)" = "$("$bin" audit --tuning "$tmp/clean" --noise-floor 1)" ] ||
    fail "--noise-floor 1% and 1 differ"
for bad in 2%% %2 x% 101% -1; do
    out=$("$bin" audit --tuning "$tmp/clean" --noise-floor "$bad" 2>&1); rc=$?
    [ $rc = 2 ] && grep -q "is not a percentage in 0..100" <<<"$out" || fail "--noise-floor '$bad': rc=$rc: $out"
done

# a well-formed key the directory never held is bad usage too (exit 2), named
out=$("$bin" audit --tuning "$tmp/clean" --key f16_128x256x128 2>&1); [ $? = 2 ] || fail "unknown --key not exit 2"
grep -q "no shape f16_128x256x128 in" <<<"$out" || fail "unknown key: $out"
# a key no shape can have is bad usage (README: exit 2)
"$bin" audit --tuning "$tmp/clean" --key f16_1x1x64 >/dev/null 2>&1; [ $? = 2 ] || fail "malformed --key not exit 2"
"$bin" audit --tuning "$tmp/none" 2>/dev/null && fail "a missing directory passed"
"$bin" audit --bogus 2>/dev/null; [ $? = 2 ] || fail "bad option is not a usage error"
exit 0
