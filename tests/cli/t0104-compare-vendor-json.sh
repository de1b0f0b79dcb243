#!/usr/bin/env bash
# compare --tuning records the verified vendor numbers as perf/<key>/vendor.json for the
# report; unverified or unavailable ones are null; with our kernel, its verified number
# and exact configuration too (ours_*). A fake runner stands in for the GPU.
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat > "$T/runner" <<'JSON'
#!/bin/sh
cat <<'END'
{"schema":1,"command":"compare","status":"ok","gpu":"NVIDIA H200","dtype":"e4m3","results":{"cusparselt_default":{"name":"cusparselt_default","available":true,"status":"incorrect","verify":{"passed":false,"max_err_over_tol":3}},"cusparselt_search":{"name":"cusparselt_search","available":false,"status":"unavailable"},"cublas":{"name":"cublas","available":true,"status":"ok","verify":{"passed":true,"max_err_over_tol":0.2},"timing":{"tflops":1200.5,"median_ms":0.22,"spread_pct":0.5},"gpu_state":{"sm_clock_median_mhz":1500},"peak":{"hw_eff_pct":30.0}}},"ratios":{"ours_over_cusparselt_search":null,"ours_over_cusparselt_default":null,"ours_over_cublas":null,"cusparselt_search_over_cublas":null}}
END
JSON
chmod +x "$T/runner"
"$CROQ_BIN/croqtuner" compare --no-ours --dtype e4m3 --shape 256x256x256 --runner "$T/runner" \
    --tuning "$T/tuning" > "$T/out" 2>&1 || { cat "$T/out"; echo "compare failed"; exit 1; }
f=$T/tuning/perf/e4m3_256x256x256/vendor.json
[ -f "$f" ] || { echo "no $f"; exit 1; }
fail=0
grep -q '"cublas_tflops": 1200.5' "$f" || { echo "cublas_tflops missing"; fail=1; }
grep -q '"cusparselt_default_tflops": null' "$f" || { echo "unverified cuSPARSELt number recorded"; fail=1; }
grep -q '"cusparselt_search_tflops": null' "$f" || { echo "unavailable cuSPARSELt number recorded"; fail=1; }
grep -q '"key": "e4m3_256x256x256"' "$f" || { echo "key missing"; fail=1; }
grep -q '"ours_' "$f" && { echo "--no-ours wrote ours_*"; fail=1; }
[ $fail = 0 ] || cat "$f"
# With ours: the runner's "ours" entry (verified) and the configuration it was built from.
sed 's/"results":{/"results":{"ours":{"name":"ours","available":true,"status":"ok","verify":{"passed":true,"max_err_over_tol":0.1},"timing":{"tflops":1300.25,"median_ms":0.2,"spread_pct":0.4},"gpu_state":{"sm_clock_median_mhz":1500},"peak":{"hw_eff_pct":33.0}},/' \
    "$T/runner" > "$T/runner2"
chmod +x "$T/runner2"
"$CROQ_BIN/croqtuner" compare --dtype e4m3 --shape 256x256x256 --family --set tile_n=128 --runner "$T/runner2" \
    --tuning "$T/tuning" > "$T/out" 2>&1 || { cat "$T/out"; echo "compare with ours failed"; exit 1; }
grep -q '"ours_tflops": 1300.25' "$f" || { echo "ours_tflops missing"; fail=1; }
grep -q '"ours_config": "dtype=e4m3,kernel=1,.*tile_n=128,' "$f" || { echo "ours_config missing"; fail=1; }
[ $fail = 0 ] || cat "$f"
grep -q '"l2": "warm"' "$f" || { echo "vendor.json does not say the L2 was warm"; fail=1; }
# A reply without "protocol" comes from a runner that timed the subjects in blocks: said so
# in the table's title and in vendor.json, with no rounds and no paired ratios.
grep -q '"protocol": "blocks"' "$f" || { echo "vendor.json of a block-timed reply: $(cat "$f")"; fail=1; }
grep -Eq '"rounds"|"paired"' "$f" && { echo "a block-timed record has rounds or paired ratios"; fail=1; }
grep -q '^compare e4m3 256x256x256 on NVIDIA H200 (.*, timed in blocks, warm L2)' "$T/out" ||
    { echo "table title of a block-timed reply: $(head -n 1 "$T/out")"; fail=1; }
grep -q '^paired' "$T/out" && { echo "a block-timed reply printed paired ratios"; fail=1; }

# An interleaved reply: its rounds in the title and vendor.json, the paired ratios ours / each
# vendor (median and interval) in the table and in vendor.json, null where there are none.
ratios='"ratios":[1.08,1.07,1.09,1.08,1.08,1.075,1.085,1.08,1.07,1.09]'
sed 's/"command":"compare",/"command":"compare","protocol":"interleaved","interleave":{"protocol":"interleaved","rounds":10},"paired":{"ours_over_cusparselt_search":null,"ours_over_cusparselt_default":null,"ours_over_cublas":{'"$ratios"',"median":1.08,"lo":1.07,"hi":1.09,"confidence":0.979}},/' \
    "$T/runner2" > "$T/runner5"
chmod +x "$T/runner5"
"$CROQ_BIN/croqtuner" compare --dtype e4m3 --shape 256x256x256 --family --runner "$T/runner5" \
    --tuning "$T/inter" > "$T/out" 2>&1 || { cat "$T/out"; echo "interleaved compare failed"; exit 1; }
fi5=$T/inter/perf/e4m3_256x256x256/vendor.json
python3 - "$fi5" <<'EOF2' || fail=1
import json, sys
v = json.load(open(sys.argv[1]))
want = {"protocol": "interleaved", "rounds": 10, "cublas_tflops": 1200.5, "ours_tflops": 1300.25,
        "paired": {"ours_over_cusparselt_search": None, "ours_over_cusparselt_default": None,
                   "ours_over_cublas": {"median": 1.08, "lo": 1.07, "hi": 1.09, "rounds": 10}}}
bad = [(k, v.get(k), w) for k, w in want.items() if v.get(k) != w]
if bad:
    print("interleaved vendor.json: (member, got, want)", bad)
    sys.exit(1)
EOF2
grep -q '^compare e4m3 256x256x256 on NVIDIA H200 (.*, interleaved in 10 rounds, warm L2)' "$T/out" ||
    { echo "table title of an interleaved reply: $(head -n 1 "$T/out")"; fail=1; }
grep -q '^paired (median \[95% interval\] of per-round ratios): ours/cuSPARSELt-search - ours/cuSPARSELt-default - ours/cuBLAS 1.080 \[1.070, 1.090\]$' "$T/out" ||
    { echo "paired line: $(grep '^paired' "$T/out")"; fail=1; }

# A protocol that is neither name: bad output, and nothing is recorded from the reply.
sed 's/"protocol":"interleaved","interleave"/"protocol":"interleaved-ish","interleave"/' "$T/runner5" > "$T/runner6"
chmod +x "$T/runner6"
"$CROQ_BIN/croqtuner" compare --dtype e4m3 --shape 256x256x256 --family --runner "$T/runner6" \
    --tuning "$T/badproto" > "$T/out" 2>&1 && { echo "compare took an unknown protocol: $(cat "$T/out")"; fail=1; }
grep -q "bad_output: runner output: 'protocol' is not \"interleaved\" or \"blocks\"" "$T/out" ||
    { echo "unknown protocol: $(cat "$T/out")"; fail=1; }
[ -e "$T/badproto/perf/e4m3_256x256x256/vendor.json" ] && { echo "vendor.json written from a bad reply"; fail=1; }

# Numbers that cannot be: bad output naming the subject and the field, and the vendor.json
# already there (the interleaved one above) is left as it was, with no temporary file beside
# it; the paired ratios must be one per round and give their median and interval.
cp "$fi5" "$T/before.json"
# (a compare killed mid-write left its temp file: the next compare --tuning removes it)
sh -c 'exit 0' & dead=$!; wait $dead
stale=$(dirname "$fi5")/.vendor.json.tmp.$dead
echo '{"schema": 1, "cublas_tf' > "$stale"; touch -d '-2 minutes' "$stale"
ino=$(stat -c %i "$fi5")
"$CROQ_BIN/croqtuner" compare --dtype e4m3 --shape 256x256x256 --family --runner "$T/runner5" \
    --tuning "$T/inter" > "$T/out" 2>&1 || { cat "$T/out"; echo "interleaved compare again failed"; exit 1; }
[ -e "$stale" ] && { echo "a dead compare's temp file is left: $(ls -A "$(dirname "$fi5")")"; fail=1; }
[ "$(stat -c %i "$fi5")" != "$ino" ] || { echo "the second compare did not replace vendor.json by a rename"; fail=1; }
cp "$fi5" "$T/before.json"
for edit in 's/"tflops":1200.5/"tflops":"inf"/|results.cublas: timing.tflops inf is not a positive number' \
            's/"tflops":1300.25/"tflops":-1300.25/|results.ours: timing.tflops -1300.25 is not a positive number' \
            's/"max_err_over_tol":0.2/"max_err_over_tol":2/|results.cublas: verify.max_err_over_tol 2 of a passed verification is not in \[0, 1\]' \
            's/"rounds":10/"rounds":9/|paired.ours_over_cublas.ratios'"'"' holds 10 ratios, not one per round of 9' \
            's/"median":1.08/"median":1.085/|paired.ratio_median 1.085 is not the median of paired.ratios (1.08)' \
            's/"lo":1.07,"hi":1.09/"lo":1.09,"hi":1.07/|is not a positive median inside its interval'; do
    sed "${edit%%|*}" "$T/runner5" > "$T/runner7"; chmod +x "$T/runner7"
    cmp -s "$T/runner5" "$T/runner7" && { echo "edit '${edit%%|*}' changed nothing"; fail=1; }
    "$CROQ_BIN/croqtuner" compare --dtype e4m3 --shape 256x256x256 --family --runner "$T/runner7" \
        --tuning "$T/inter" > "$T/out" 2>&1; rc=$?
    [ $rc -eq 1 ] || { echo "edit '${edit%%|*}': exit $rc, want 1: $(cat "$T/out")"; fail=1; }
    grep -q "bad_output: runner output: .*${edit#*|}" "$T/out" || { echo "edit '${edit%%|*}': $(cat "$T/out")"; fail=1; }
    cmp -s "$fi5" "$T/before.json" || { echo "edit '${edit%%|*}': vendor.json changed"; fail=1; }
    ls -A "$(dirname "$fi5")" | grep -qv '^vendor.json$' && { echo "left beside vendor.json: $(ls -A "$(dirname "$fi5")")"; fail=1; }
done

# --l2 cold reaches the runner as --l2 cold, and the reply's "l2" is checked against it:
# the table's title and vendor.json say cold; a runner that timed warm is refused.
cat > "$T/runner3" <<EOF
#!/bin/sh
echo "\$*" > "$T/argv"
l2=warm; case " \$* " in *" --l2 cold "*) l2=cold ;; esac
sed 's/"dtype":"e4m3",/"dtype":"e4m3","l2":"'\$l2'",/' "$T/runner" | sed -n '/^{/p'
EOF
chmod +x "$T/runner3"
"$CROQ_BIN/croqtuner" compare --no-ours --dtype e4m3 --shape 256x256x256 --runner "$T/runner3" --l2 cold \
    --tuning "$T/cold" > "$T/out" 2>&1 || { cat "$T/out"; echo "compare --l2 cold failed"; exit 1; }
grep -q -- '--l2 cold' "$T/argv" || { echo "the runner was not asked for --l2 cold: $(cat "$T/argv")"; fail=1; }
grep -q '^compare e4m3 256x256x256 on NVIDIA H200 (.*, cold L2)' "$T/out" || { echo "table title: $(head -n 1 "$T/out")"; fail=1; }
grep -q '"l2": "cold"' "$T/cold/perf/e4m3_256x256x256/vendor.json" || { echo "vendor.json does not say cold"; fail=1; }
"$CROQ_BIN/croqtuner" compare --no-ours --dtype e4m3 --shape 256x256x256 --runner "$T/runner3" > "$T/out" 2>&1 ||
    { cat "$T/out"; echo "compare (warm) failed"; exit 1; }
grep -q -- '--l2' "$T/argv" && { echo "a warm compare passed --l2: $(cat "$T/argv")"; fail=1; }
grep -q '(.*, warm L2)' "$T/out" || { echo "table title: $(head -n 1 "$T/out")"; fail=1; }
sed 's/l2=cold ;;/l2=warm ;;/' "$T/runner3" > "$T/runner4"; chmod +x "$T/runner4"
"$CROQ_BIN/croqtuner" compare --no-ours --dtype e4m3 --shape 256x256x256 --runner "$T/runner4" --l2 cold \
    > "$T/out" 2>&1 && { echo "compare took a warm timing for --l2 cold: $(cat "$T/out")"; fail=1; }
grep -q 'bad_output: runner output: timed with a warm L2, asked for cold' "$T/out" ||
    { echo "warm reply to --l2 cold: $(cat "$T/out")"; fail=1; }

# --mode scratch: the compare of the from-scratch run's best is its own record, and the
# from-best run's record of the same shape stays as it was (a second compare replaced it).
cp "$fi5" "$T/fi5.before"
"$CROQ_BIN/croqtuner" compare --dtype e4m3 --shape 256x256x256 --family --set tile_n=128 --runner "$T/runner5" \
    --tuning "$T/inter" --mode scratch > "$T/out" 2>&1 || { cat "$T/out"; echo "compare --mode scratch failed"; exit 1; }
ffs=$T/inter/perf/e4m3_256x256x256_fs/vendor.json
grep -q '"key": "e4m3_256x256x256_fs"' "$ffs" 2>/dev/null || { echo "--mode scratch: no record of its own at $ffs"; fail=1; }
grep -q '"ours_config": "dtype=e4m3,kernel=1,.*tile_n=128,' "$ffs" 2>/dev/null || { echo "--mode scratch: ours_config"; fail=1; }
cmp -s "$fi5" "$T/fi5.before" || { echo "--mode scratch replaced the from-best run's record"; fail=1; }
"$CROQ_BIN/croqtuner" compare --dtype e4m3 --shape 256x256x256 --runner "$T/runner5" --mode scratch \
    > "$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "give --tuning DIR too" "$T/out" || { echo "--mode without --tuning: exit $rc: $(cat "$T/out")"; fail=1; }
"$CROQ_BIN/croqtuner" compare --dtype e4m3 --shape 256x256x256 --runner "$T/runner5" --tuning "$T/inter" \
    --mode fast > "$T/out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "'fast' is not scratch or best" "$T/out" || { echo "--mode fast: exit $rc: $(cat "$T/out")"; fail=1; }

# Where the record goes must take it: refused as bad usage before the runner runs (a
# minute of GPU time was spent, then 'cannot write'), nothing created or replaced.
kinds="perf-file key-fifo vendor-dir vendor-fifo key-dangling"
[ "$(id -u)" = 0 ] || kinds="$kinds perf-readonly" # root writes a mode-555 directory anyway
for kind in $kinds; do
    t=$T/bad-$kind; rm -f "$T/argv"; mkdir -p "$t"
    case $kind in
    perf-file) touch "$t/perf" ;;
    key-fifo) mkdir "$t/perf"; mkfifo "$t/perf/e4m3_256x256x256" ;;
    vendor-dir) mkdir -p "$t/perf/e4m3_256x256x256/vendor.json" ;;
    vendor-fifo) mkdir -p "$t/perf/e4m3_256x256x256"; mkfifo "$t/perf/e4m3_256x256x256/vendor.json" ;;
    key-dangling) mkdir "$t/perf"; ln -s "$t/nowhere" "$t/perf/e4m3_256x256x256" ;;
    perf-readonly) mkdir "$t/perf"; chmod 555 "$t/perf" ;;
    esac
    ls -lR "$t" > "$T/before"
    timeout 20 "$CROQ_BIN/croqtuner" compare --no-ours --dtype e4m3 --shape 256x256x256 --runner "$T/runner3" \
        --tuning "$t" > "$T/out" 2>&1; rc=$?
    [ $rc -eq 2 ] || { echo "$kind: exit $rc, want 2: $(cat "$T/out")"; fail=1; }
    grep -q "compare: --tuning: '$t/perf.*, where this compare's record goes" "$T/out" || { echo "$kind: $(cat "$T/out")"; fail=1; }
    [ -e "$T/argv" ] && { echo "$kind: the runner ran"; fail=1; }
    ls -lR "$t" | cmp -s - "$T/before" || { echo "$kind: something changed: $(ls -lR "$t")"; fail=1; }
done
exit $fail
