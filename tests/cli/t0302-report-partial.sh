#!/usr/bin/env bash
# `croqtuner report` on partial data: no state.json, a missing idea log, a malformed
# results.tsv line, a corrupt vendor.json, the best kernel's source gone, no gnuplot and
# no dygraphs. The report is still written (exit 0) and lists each missing or skipped
# item with its path (and line); the page links nothing that was not produced.
set -u
bin="$CROQ_BIN/croqtuner"
fx="$CROQ_SOURCE_DIR/tests/fixtures/tuning"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "skip: python3 (CSV checks) not installed"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

t="$tmp/tuning"
cp -r "$fx" "$t"
rm "$t/state.json" "$t/logs/f16_1024x8192x1024/idea-log.jsonl" "$t/srcs/f16_4096x8192x8192/iter149.cu"
# line 10 of the pair's results.tsv loses its fields; the rest stays
sed -i '10s/\t.*//' "$t/logs/f16_1024x8192x1024_fs/results.tsv"
echo '{"cublas_tflops": 1,' >"$t/perf/f16_4096x8192x8192/vendor.json"
mkdir -p "$t/logs/notakey"

out="$tmp/out"
"$bin" report --tuning "$t" --out "$out" --anchors "$t/vendor-anchors.json" --gnuplot "$tmp/no-gnuplot" \
    --dygraphs "$tmp/no-dygraphs" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 0 ] || fail "partial report exited $rc: $(cat "$tmp/stderr")"
notes="$out/notes.txt"
[ -s "$out/index.html" ] && [ -s "$notes" ] || fail "no index.html / notes.txt"

expect_note() { # kind, key ('-' for the sweep), text
    grep -qF "$1	$2	$3" "$notes" || fail "notes.txt lacks '$1 $2 $3':
$(cat "$notes")"
}
expect_note missing - "state.json: status and budget of every shape unknown"
expect_note missing f16_1024x8192x1024 "logs/f16_1024x8192x1024/idea-log.jsonl (idea justifications not shown)"
expect_note skipped f16_1024x8192x1024_fs "logs/f16_1024x8192x1024_fs/results.tsv:10: 1 fields, the header has 18"
expect_note skipped f16_4096x8192x8192 "perf/f16_4096x8192x8192/vendor.json:2:"
expect_note missing f16_4096x8192x8192 "srcs/f16_4096x8192x8192/iter149.cu (source of the best kernel, iteration 149)"
expect_note skipped - "logs/notakey: not a shape key; skipped"
expect_note missing f16_4096x8192x8192 "not in state.json: status and budget unknown"
expect_note missing - "gnuplot ('$tmp/no-gnuplot') could not be started"
expect_note missing - "'$tmp/no-dygraphs/dygraph.min.js': No such file or directory (Debian package libjs-dygraphs)"
expect_note note f16_4096x8192x8192 "no usable perf/f16_4096x8192x8192/vendor.json: cuBLAS/cuSPARSELt lines are anchors (not same run)"
# the same items on stderr, and counted on stdout
grep -qF "croqtuner: report: warning: skipped: f16_1024x8192x1024_fs: logs/f16_1024x8192x1024_fs/results.tsv:10:" "$tmp/stderr" \
    || fail "stderr lacks the malformed line: $(cat "$tmp/stderr")"
grep -qE '\(4 shape run\(s\); [0-9]+ missing, 3 skipped' "$tmp/stdout" || fail "stdout summary: $(cat "$tmp/stdout")"
# a note every shape shares is one line naming the shapes (stderr, the page); notes.txt keeps each
[ "$(grep -c "not in state.json: status and budget unknown" "$tmp/stderr")" -eq 1 ] ||
    fail "the shared note is not one line on stderr: $(cat "$tmp/stderr")"
grep -qE "warning: missing: not in state.json: status and budget unknown \(x4: [a-z0-9_]+(, [a-z0-9_]+){3}\)$" "$tmp/stderr" ||
    fail "the shared note does not say x4 and its shapes: $(cat "$tmp/stderr")"
grep -q 'not in state.json: status and budget unknown (×4: <a href="#shape-' "$out/index.html" ||
    fail "the page does not group the shared note"
[ "$(grep -c "not in state.json: status and budget unknown" "$notes")" -eq 4 ] || fail "notes.txt lost notes"

# tables are still there, with the data that could be read: 59 rows of the pair's
# from-scratch run remain, and without state.json the budget column is empty
python3 - "$out" <<'EOF' || fail "summary.csv content"
import csv, sys
rows = {(r["dtype"], "%sx%sx%s" % (r["M"], r["N"], r["K"]), r["run"]): r
        for r in csv.DictReader(open(sys.argv[1] + "/tables/summary.csv"))}
fs = rows[("f16", "1024x8192x1024", "from-scratch")]
assert fs["budget"] == "" and fs["status"] == "unknown", fs
assert fs["iterations done"] == "60", fs
assert rows[("f16", "4096x8192x8192", "from-current-best")]["vendor source"] == "anchor (not same run)"
EOF
for e in gp dat; do [ -s "$out/shapes/f16_4096x8192x8192/convergence.$e" ] || fail "convergence.$e not written"; done
for e in svg pdf png; do
    [ ! -e "$out/shapes/f16_4096x8192x8192/convergence.$e" ] || fail "convergence.$e exists without gnuplot"
done

html="$out/index.html"
grep -qF 'This report is partial' "$html" || fail "page does not say it is partial"
grep -qF 'logs/f16_1024x8192x1024_fs/results.tsv:10: 1 fields, the header has 18' "$html" || fail "page lacks the skipped line"
grep -qF 'src="dygraph.min.js"' "$html" && fail "page loads dygraph.min.js that was not copied"
grep -q '<img ' "$html" && fail "page shows figures that were not rendered"
while IFS= read -r ref; do
    case "$ref" in '#'*) continue ;; esac
    [ -e "$out/${ref%%#*}" ] || fail "index.html links '$ref', which does not exist"
done < <(grep -oE '(href|src)="[^"]*"' "$html" | sed -E 's/^(href|src)="//; s/"$//')

# a mid-run shape alone (as while a sweep runs): report made, the shape marked mid-run
m="$tmp/midrun"
mkdir -p "$m/logs"
cp -r "$fx/logs/e4m3_4096x8192x8192" "$m/logs/"
python3 -c "
import json; s = json.load(open('$fx/state.json'))
s['shapes'] = {k: v for k, v in s['shapes'].items() if k.startswith('e4m3')}; del s['sweep']
json.dump(s, open('$m/state.json', 'w'))"
"$bin" report --tuning "$m" --anchors "$fx/vendor-anchors.json" >/dev/null 2>&1 || fail "mid-run report exited $?"
grep -qF "note	e4m3_4096x8192x8192	mid-run: 40 of 150 iterations (status active, phase PROFILE)" "$m/report/notes.txt" \
    || fail "mid-run not noted: $(cat "$m/report/notes.txt")"
[ -s "$m/report/index.html" ] || fail "default --out is not <tuning>/report"

# a state.json key holding a newline and a tab is noted escaped as in results.tsv: every
# notes.txt line keeps its three columns
e="$tmp/escaped"
cp -r "$fx" "$e"
python3 - "$e/state.json" <<'EOF' || fail "could not edit state.json"
import json, sys
d = json.load(open(sys.argv[1]))
d["shapes"]["bad\nkey\twith tab"] = d["shapes"]["e4m3_4096x8192x8192"]
json.dump(d, open(sys.argv[1], "w"), indent=2)
EOF
"$bin" report --tuning "$e" --anchors "$fx/vendor-anchors.json" >/dev/null 2>&1 || fail "report of the odd key exited $?"
grep -qF "skipped	-	state.json: 'bad\\nkey\\twith tab' is not a shape key; skipped" "$e/report/notes.txt" ||
    fail "the odd key is not noted escaped: $(cat "$e/report/notes.txt")"
awk -F'\t' 'NR > 1 && NF != 3 { bad = 1 } END { exit bad }' "$e/report/notes.txt" ||
    fail "a notes.txt line does not have 3 columns: $(cat "$e/report/notes.txt")"
echo ok
