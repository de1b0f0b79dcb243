#!/usr/bin/env bash
# The report a new user reads (issue 17, item 13): run from anywhere, a copied croqtuner
# finds the anchors beside its own checkout, and a simulated run's report needs none; the sweep speed-up figure is split per dtype
# and run mode into parts of at most 40 shapes (bounded width); the legend does not call
# a DISCARD that measured above the best "not faster"; a drop of the best-so-far line
# (the best measured again) is marked and explained; the page names the environment
# (GPU, driver, CUDA, commits, SM clocks); a page of many shapes opens their details on
# demand and loads its figures lazily. CSV layout and geomeans: t0300.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
src="${CROQ_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
fx="$src/tests/fixtures/tuning"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp -r "$fx" "$tmp/t"

# ---- anchors beside the binary's checkout, run from another directory ----------------
mkdir -p "$tmp/co/build/bin" "$tmp/co/shared/data" "$tmp/elsewhere"
cp "$bin" "$tmp/co/build/bin/croqtuner"
cp "$fx/vendor-anchors.json" "$tmp/co/shared/data/vendor-anchors-h200.json"
"$bin" report --tuning "$tmp/t" --out "$tmp/want" --anchors "$fx/vendor-anchors.json" >/dev/null 2>&1 ||
    fail "report with --anchors"
(cd "$tmp/elsewhere" && env -u CROQ_ANCHORS -u CROQ_SOURCE_DIR "$tmp/co/build/bin/croqtuner" report \
    --tuning "$tmp/t" --out "$tmp/got" >"$tmp/stdout" 2>"$tmp/stderr") || fail "report from elsewhere: $(cat "$tmp/stderr")"
grep -q "anchors file not found" "$tmp/stderr" "$tmp/got/notes.txt" && fail "the anchors beside the binary were not found"
cmp -s "$tmp/want/tables/summary.csv" "$tmp/got/tables/summary.csv" ||
    fail "the report from elsewhere differs from the one given --anchors"

# a simulated run needs no anchors: without them nothing is missing on their account
mkdir -p "$tmp/bare/bin"
cp "$bin" "$tmp/bare/bin/croqtuner"
"$bin" tune --backend sim --quiet --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 2 --tuning "$tmp/sim" ||
    fail "sim tune"
(cd "$tmp/elsewhere" && env -u CROQ_ANCHORS -u CROQ_SOURCE_DIR "$tmp/bare/bin/croqtuner" report --tuning "$tmp/sim" \
    --out "$tmp/simout" >"$tmp/stdout" 2>"$tmp/stderr") || fail "sim report: $(cat "$tmp/stderr")"
grep -q "^missing.*anchors" "$tmp/simout/notes.txt" && fail "a simulated report counts the anchors as missing"
# its speed-up figure: no vendor in the title (it has no vendor bars), and room under the
# axis for the rotated label "1024x1024x1024 sim" (18 characters) and the x label below it
gp="$tmp/simout/figures/speedup-f16-scratch-1.gp"
grep -q '^set title ".*vs the baseline kernel"$' "$gp" || fail "sim speed-up title: $(grep '^set title' "$gp")"
grep -qi 'vendor\|cuBLAS\|cuSPARSELt' <(grep '^set title' "$gp") && fail "a sim speed-up title names vendors"
bm=$(sed -n 's/^set bmargin //p' "$gp")
[ -n "$bm" ] && [ "$bm" -ge 10 ] || fail "speed-up bottom margin $bm lines clips the x label under 18-character tick labels"
# its clock line names the simulator's model, not NVML (which a GPU run's samples)
grep -q "SM clock during timing</b> (simulated): median .*(the sim backend's modelled clock, not a GPU's)</li>" \
    "$tmp/simout/index.html" || fail "sim clock line: $(grep -o 'SM clock during timing.*</li>' "$tmp/simout/index.html")"
grep -q "none is needed: every run is simulated" "$tmp/simout/notes.txt" ||
    fail "a simulated report does not say why it needs no anchors: $(cat "$tmp/simout/notes.txt")"
# the same when anchors are there to be found (as beside a checkout next to shared/)
"$bin" report --tuning "$tmp/sim" --out "$tmp/simout2" --anchors "$fx/vendor-anchors.json" >/dev/null 2>&1 ||
    fail "sim report with --anchors"
cmp -s "$tmp/simout/notes.txt" "$tmp/simout2/notes.txt" ||
    fail "a simulated report depends on whether anchors were found: $(diff "$tmp/simout/notes.txt" "$tmp/simout2/notes.txt")"

# ---- the figure of one shape: legend, re-measured best ---------------------------------
key=f16_4096x8192x8192
res="$tmp/t/logs/$key/results.tsv"
# make the best drop at iteration 100, as a re-measurement of the best does
awk -F'\t' -v OFS='\t' 'NR > 2 && $1 == 100 { $11 = $11 - 5 } { print }' "$res" >"$tmp/r" && cp "$tmp/r" "$res"
out="$tmp/out"
"$bin" report --tuning "$tmp/t" --out "$out" --anchors "$fx/vendor-anchors.json" >/dev/null 2>&1 || fail "report"
gp="$out/shapes/$key/convergence.gp"
grep -q "not faster" "$gp" && fail "the legend calls every DISCARD 'not faster'"
grep -q "DISCARD above the best (gain within the noise or not confirmed)" "$gp" ||
    fail "the DISCARDs above the best are not marked (the fixture has two)"
grep -q "best measured again: the line follows the new measurement" "$gp" || fail "the drop of the best is not marked"
awk -F'\t' '$1 == 100 && $6 != "NaN" { found = 1 } END { exit !found }' "$out/shapes/$key/convergence.dat" ||
    fail "convergence.dat does not single out the drop at iteration 100"
html="$out/index.html"
grep -q "The best-so-far line drops at iteration 100 (" "$html" || fail "the page does not explain the drop"
grep -q "2 DISCARDs measured above the best so far" "$html" || fail "the page does not explain the DISCARDs above the best"

# ---- environment ----------------------------------------------------------------------
grep -q '<h2>Environment</h2>' "$html" || fail "no environment section"
for what in "<b>GPU</b>" "<b>NVIDIA driver</b>" "CUDA version the driver supports" "croqtuner commit of the runs" \
    "SM clock during timing</b>: median" "(NVML, sampled with each trial)" "<b>this report</b>: made by croqtuner"; do
    grep -qF "$what" "$html" || fail "the environment does not name '$what'"
done
commit=$("$bin" --version | sed -n 's/^commit //p')
grep -qF "commit $commit, built with CUDA" "$html" || fail "the report does not name its own commit $commit"
grep -q '<img [^>]*loading="lazy"' "$html" || fail "figures are not loaded lazily"
grep -q '<details class="shape-detail" open>' "$html" || fail "a report of 4 shapes should show their details open"

# ---- a sweep of 90 shapes: bounded speed-up figures, details closed --------------------
big="$tmp/big"
mkdir -p "$big/logs"
for i in $(seq 1 90); do cp -r "$fx/logs/e4m3_4096x8192x8192" "$big/logs/e4m3_$((i * 128))x8192x8192"; done
# without gnuplot (fast): the scripts and data are written all the same
"$bin" report --tuning "$big" --out "$big/out" --anchors "$fx/vendor-anchors.json" --gnuplot /bin/false >/dev/null 2>&1 ||
    fail "big report"
n=$(ls "$big/out/figures/" | grep -c '^speedup-e4m3-best-[0-9]*\.gp$')
[ "$n" -eq 3 ] || fail "90 shapes should make 3 parts of 30, got $n: $(ls "$big/out/figures")"
for f in "$big"/out/figures/speedup-*.dat; do
    [ $(($(wc -l <"$f") - 1)) -le 40 ] || fail "$f holds more than 40 shapes"
done
w=$(grep -ohE 'svg size [0-9]+,' "$big"/out/figures/speedup-*.gp | tr -dc '0-9\n' | sort -n | tail -n 1)
[ -n "$w" ] && [ "$w" -le 1400 ] || fail "a speed-up figure is $w px wide (the page shows its SVG)"
grep -q '<details class="shape-detail" open>' "$big/out/index.html" && fail "90 shapes' details open at load"
grep -q '<details class="shape-detail">' "$big/out/index.html" || fail "no closed details on a 90-shape page"
echo ok
