#!/usr/bin/env bash
# scripts/same-behaviour.sh OLD_CROQTUNER NEW_CROQTUNER OUT_DIR — what a refactor must not
# change (issue 25's acceptance): a sim sweep of the fixture's shapes, a 150-iteration sim
# tune, status, audit and report of that directory, and replay-bench on the committed
# datasets, each run with both binaries; then one diff per output, with timestamps, pids,
# durations, the binaries' commits and the directory names normalized. Prints the diff
# summary; exit 0 when every output is identical. Run from the repository root; CPU only.
set -u
old=${1:?old croqtuner}; new=${2:?new croqtuner}; out=${3:?out dir}
rm -rf "$out"; mkdir -p "$out"
export CROQ_SHAPES=$PWD/tests/fixtures/shapes.json
run() { # BIN SIDE
    local b=$1 d=$out/$2 t
    mkdir -p "$d"; t=$d/t
    {
    "$b" sweep --backend sim --dtype all --iters 20 --tuning "$t" --quiet; echo "sweep rc=$?"
    "$b" tune --backend sim --dtype f16 --shape 2048x4096x4096 --mode scratch --iters 150 --tuning "$t" --quiet; echo "tune rc=$?"
    "$b" status --tuning "$t"; echo "status rc=$?"
    "$b" audit --tuning "$t"; echo "audit rc=$?"
    "$b" report --tuning "$t" --out "$d/report" > /dev/null; echo "report rc=$?"
    "$b" replay-bench --datasets bench/explore --seeds 3 --iters 150 --jobs 2; echo "replay-bench rc=$?"
    } > "$d/stdout.txt" 2> "$d/stderr.txt"
    ( cd "$t" && find . -type f ! -name '*.lock' ! -path './progress/*' | LC_ALL=C sort |
        while read -r f; do echo "== $f"; cat "$f"; done ) > "$d/tree.txt"
    ( cd "$d/report" && find . -type f \( -name '*.csv' -o -name '*.md' -o -name '*.txt' \) | LC_ALL=C sort |
        while read -r f; do echo "== $f"; cat "$f"; done ) > "$d/report.txt"
}
norm() { sed -E -e "s#$out/(old|new)#DIR#g" -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z/TS/g' \
    -e 's/"(pid|wall_s|elapsed_s|started_at)": [^,}]*/"\1": X/g' -e 's/commit [0-9a-f]{12}/commit C/g' \
    -e 's/[0-9]+(\.[0-9]+)? s (elapsed|in all)/N s \2/g' "$1"; }
run "$old" old; run "$new" new
bad=0
for f in stdout.txt stderr.txt tree.txt report.txt; do
    if diff <(norm "$out/old/$f") <(norm "$out/new/$f") > "$out/$f.diff"; then
        echo "$f: identical"
    else
        echo "$f: $(grep -c '^[<>]' "$out/$f.diff") lines differ ($out/$f.diff)"; bad=1
    fi
done
exit $bad
