#!/usr/bin/env bash
# `croqtuner report` on the fixture tuning directory (tests/fixtures/tuning): every
# output is written; the numbers in the CSV / Markdown / LaTeX tables are the ones
# computed here from the fixture's results.tsv; SVG / PDF / PNG are real files; the
# HTML links only files that exist and escapes the hostile idea text; the gnuplot
# scripts re-run as they are.
set -u
bin="$CROQ_BIN/croqtuner"
fx="$CROQ_SOURCE_DIR/tests/fixtures/tuning"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "skip: gnuplot not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 (CSV checks) not installed"; exit 77; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out="$tmp/out"
"$bin" report --tuning "$fx" --out "$out" --anchors "$fx/vendor-anchors.json" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 0 ] || fail "report exited $rc: $(cat "$tmp/stderr")"
grep -qF "$out/index.html" "$tmp/stdout" || fail "stdout does not name index.html: $(cat "$tmp/stdout")"

# ---- every file is there, and figures are what their names say ----------------------
keys="f16_4096x8192x8192 e4m3_4096x8192x8192 f16_1024x8192x1024 f16_1024x8192x1024_fs"
# the speed-up figure: one per dtype and run mode (parts of at most 40 shapes)
figs="figures/speedup-f16-best-1 figures/speedup-f16-scratch-1 figures/speedup-e4m3-best-1 pairs/f16_1024x8192x1024/fs-vs-fcb"
[ ! -e "$out/figures/speedup-e4m3-scratch-1.gp" ] || fail "a speed-up figure for a group without shapes"
for k in $keys; do
    figs="$figs shapes/$k/convergence shapes/$k/bottlenecks"
    for t in progression bottlenecks; do
        for e in csv md tex; do [ -s "$out/shapes/$k/$t.$e" ] || fail "missing shapes/$k/$t.$e"; done
    done
done
for t in tables/summary tables/geomean tables/fs-vs-fcb; do
    for e in csv md tex; do [ -s "$out/$t.$e" ] || fail "missing $t.$e"; done
done
for f in $figs; do
    for e in gp dat svg pdf png; do [ -s "$out/$f.$e" ] || fail "missing or empty $f.$e"; done
    grep -q '<svg' "$out/$f.svg" || fail "$f.svg is not SVG"
    [ "$(head -c 4 "$out/$f.pdf")" = "%PDF" ] || fail "$f.pdf is not PDF"
    [ "$(head -c 4 "$out/$f.png" | od -An -tx1 | tr -d ' \n')" = "89504e47" ] || fail "$f.png is not PNG"
done
for f in index.html notes.txt dygraph.min.js dygraph.css; do [ -s "$out/$f" ] || fail "missing $f"; done
leftover=$(find "$out" -name '.*tmp*' | head -3)
[ -z "$leftover" ] || fail "temporary files left: $leftover"

# ---- table numbers equal the ones computed from the fixture --------------------------
python3 - "$fx" "$out" <<'EOF' || fail "table values differ from the fixture (above)"
import calendar, csv, math, re, sys, time
fx, out = sys.argv[1], sys.argv[2]
bad = []
def check(what, got, want):
    if got != want:
        bad.append("%s: got %r, want %r" % (what, got, want))

def rows(key):
    lines = open("%s/logs/%s/results.tsv" % (fx, key)).read().split("\n")
    head = lines[1].split("\t")
    # a final line without newline is a torn append: not a row
    return [dict(zip(head, l.split("\t"))) for l in lines[2:-1] if len(l.split("\t")) == len(head)]

def busy(stamps):
    # first row to last, a pause (above max(120 s, 20 x the median gap)) counted as the median gap
    s = [calendar.timegm(time.strptime(x, "%Y-%m-%dT%H:%M:%SZ")) for x in stamps]
    gaps = [b - a for a, b in zip(s, s[1:])]
    med = sorted(gaps)[(len(gaps) - 1) // 2]
    return sum(med if g > max(120.0, 20.0 * med) else g for g in gaps)

def stats(key):
    r = rows(key)
    kept = [float(x["tflops"]) for x in r if x["decision"] in ("BASELINE", "KEEP")]
    base = float(next(x["tflops"] for x in r if x["decision"] == "BASELINE"))
    best = max(kept)
    peak = next(float(x["hw_eff_pct"]) for x in r if x["decision"] in ("BASELINE", "KEEP") and float(x["tflops"]) == best)
    return r, base, best, peak

# e4m3 is the fixture's simulated run: no vendor numbers next to it (anchors are real)
vendor = {"f16_4096x8192x8192": (655.1, 991.0), "e4m3_4096x8192x8192": None,
          "f16_1024x8192x1024": (581.0, 738.4), "f16_1024x8192x1024_fs": (581.0, 738.4)}
budget = {"f16_4096x8192x8192": 150, "e4m3_4096x8192x8192": 150, "f16_1024x8192x1024": 60,
          "f16_1024x8192x1024_fs": 60}
summary = list(csv.DictReader(open(out + "/tables/summary.csv")))
md = open(out + "/tables/summary.md").read()
tex = open(out + "/tables/summary.tex").read()
speed = {}
fmt = lambda f, v: "" if v is None else f % v
for key, vend in vendor.items():
    r, base, best, peak = stats(key)
    dtype, shape = key.split("_")[0], key.split("_")[1]
    run = "from-scratch" if key.endswith("_fs") else "from-current-best"
    m, n, k = shape.split("x")
    row = [x for x in summary if (x["M"], x["N"], x["K"]) == (m, n, k) and x["dtype"] == dtype and x["run"] == run]
    check(key + " summary rows", len(row), 1)
    row = row[0]
    # the backend has its own column: no tag inside a data column
    check(key + " backend", row["backend"], "gpu" if vend else "sim (SIMULATED)")
    cublas, sl = vend if vend else (None, None)
    xb, xc, xs = best / base, vend and best / cublas, vend and best / sl
    speed[key] = (xb, xc, xs, best)
    want = {"baseline (TFLOPS)": "%.1f" % base, "best (TFLOPS)": "%.1f" % best, "% of peak": "%.1f" % peak,
            "cuBLAS dense (TFLOPS)": fmt("%.1f", cublas), "cuSPARSELt (TFLOPS)": fmt("%.1f", sl),
            "speed-up vs baseline": "%.2f" % xb, "speed-up vs cuBLAS": fmt("%.2f", xc),
            "speed-up vs cuSPARSELt": fmt("%.2f", xs), "iterations done": str(int(r[-1]["iter"])),
            "budget": str(budget[key]), "best at SM clock (MHz)": "%.0f" % float(
                next(x["sm_clock_mhz"] for x in r if x["decision"] in ("BASELINE", "KEEP") and float(x["tflops"]) == best)),
            "95 % of best at iteration": next(x["iter"] for x in r if float(x["best_tflops"]) >= 0.95 * float(r[-1]["best_tflops"])),
            "wall (s)": "%.0f" % busy([x["timestamp"] for x in r])}
    for col, v in want.items():
        check("%s %s" % (key, col), row[col], v)
    # the same row in Markdown and LaTeX, same rounding
    mdrow = "| %s | %s | %s | %s | %s |" % (m, n, k, dtype, run)
    line = next((l for l in md.split("\n") if l.startswith(mdrow)), "")
    for v in ("%.1f" % base, "%.1f" % best, "%.2f×" % xb, fmt("%.2f×", xs)):
        check("%s markdown has %s" % (key, v), v in line, True)
    line = next((l for l in tex.split("\n") if l.startswith("%s & %s & %s & %s & %s &" % (m, n, k, dtype, run))), "")
    for v in ("%.1f" % base, "%.1f" % best, "%.2f$\\times$" % xb, fmt("%.2f$\\times$", xc)):
        check("%s latex has %s" % (key, v), v in line, True)
# the fixture's vendor.json has no "protocol": a block-timed compare, marked [b] and explained
check("vendor source f16_4096", [x["vendor source"] for x in summary if (x["M"], x["N"], x["K"]) == ("4096", "8192", "8192") and x["dtype"] == "f16"], ["measured [b]"])
check("vendor protocol legend in summary.md", "by an older compare that timed them one after the other in blocks" in md, True)
check("vendor source e4m3 (simulated)", [x["vendor source"] for x in summary if x["dtype"] == "e4m3"], [""])
check("no geomean rows among the data rows", [x["dtype"] for x in summary if not x["M"].isdigit()], [])
check("no [SIMULATED] inside a data column", [c for x in summary for c, v in x.items() if "[SIMULATED]" in v], [])

# geomean.csv: speed-up vs baseline per run mode (never mixed), vendor ratios over each
# shape once, the better of its two runs
geo = list(csv.DictReader(open(out + "/tables/geomean.csv")))
pair = max(("f16_1024x8192x1024", "f16_1024x8192x1024_fs"), key=lambda k: speed[k][3])
def gm(keys, i):
    v = [speed[k][i] for k in keys if speed[k][i]]
    return "%.2f" % math.exp(sum(math.log(x) for x in v) / len(v)) if v else ""
fcb_f16, fs_f16 = ["f16_1024x8192x1024", "f16_4096x8192x8192"], ["f16_1024x8192x1024_fs"]
want_rows = [  # dtypes in the summary's order (sorted by name)
    ("e4m3", "from-current-best", ["e4m3_4096x8192x8192"], [0, 1, 2]),
    ("e4m3", "better run per shape", ["e4m3_4096x8192x8192"], [1, 2]),
    ("f16", "from-scratch", fs_f16, [0, 1, 2]), ("f16", "from-current-best", fcb_f16, [0, 1, 2]),
    ("f16", "better run per shape", ["f16_4096x8192x8192", pair], [1, 2]),
    ("all", "from-scratch", fs_f16, [0, 1, 2]),
    ("all", "from-current-best", fcb_f16 + ["e4m3_4096x8192x8192"], [0, 1, 2]),
    ("all", "better run per shape", ["f16_4096x8192x8192", pair, "e4m3_4096x8192x8192"], [1, 2])]
check("geomean rows", [(x["dtype"], x["runs"]) for x in geo], [(d, r) for d, r, _, _ in want_rows])
for d, r, keys, cols in want_rows:
    row = [x for x in geo if (x["dtype"], x["runs"]) == (d, r)]
    if not row:
        continue
    check("%s %s shapes" % (d, r), row[0]["shapes"], str(len(keys)))
    names = ("speed-up vs baseline", "speed-up vs cuBLAS", "speed-up vs cuSPARSELt")
    for i, col in enumerate(names):
        check("%s %s %s" % (d, r, col), row[0][col], gm(keys, i) if i in cols else "")

# progression: one row per KEEP, before/after/gain from best_tflops
for key in vendor:
    r = rows(key)
    prog = list(csv.DictReader(open("%s/shapes/%s/progression.csv" % (out, key))))
    keeps = [(i, x) for i, x in enumerate(r) if x["decision"] == "KEEP"]
    check(key + " progression rows", len(prog), len(keeps))
    for p, (i, x) in zip(prog, keeps):
        before, after = float(r[i - 1]["best_tflops"]), float(x["best_tflops"])
        check("%s iter %s" % (key, x["iter"]), (p["iteration"], p["before (TFLOPS)"], p["after (TFLOPS)"], p["gain (%)"]),
              (x["iter"], "%.1f" % before, "%.1f" % after, "%.1f" % ((after / before - 1) * 100)))
        idea = x["idea"].replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
        check("%s iter %s idea" % (key, x["iter"]), p["idea"], idea)

# bottlenecks by thirds of the budget
for key in vendor:
    r, b = rows(key), budget[key]
    got = {x["phase (iterations)"].split(" ")[0]: x for x in csv.DictReader(open("%s/shapes/%s/bottlenecks.csv" % (out, key)))}
    for p, name in enumerate(("early", "middle", "late")):
        its = [x for x in r if int(x["iter"]) >= 1 and min(2, (int(x["iter"]) - 1) * 3 // b) == p]
        check("%s %s iterations" % (key, name), got[name]["iterations"], str(len(its)))
        for bn in set(x["bottleneck"] for x in its):
            check("%s %s %s" % (key, name, bn), got[name][bn], str(sum(1 for x in its if x["bottleneck"] == bn)))
check("phase label", [x["phase (iterations)"] for x in csv.DictReader(open(out + "/shapes/f16_4096x8192x8192/bottlenecks.csv"))],
      ["early (1-50)", "middle (51-100)", "late (101-150)", "all"])

# from scratch vs from current best
fs = list(csv.DictReader(open(out + "/tables/fs-vs-fcb.csv")))
check("pairs rows", len(fs), 1)
check("pair ratio", fs[0]["from-scratch vs from-current-best"],
      "%.3f" % (speed["f16_1024x8192x1024_fs"][3] / speed["f16_1024x8192x1024"][3]))
check("pair fcb best", fs[0]["from-current-best best (TFLOPS)"], "%.1f" % speed["f16_1024x8192x1024"][3])
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# ---- the hostile idea text is escaped in every format --------------------------------
html="$out/index.html"
grep -q '<script>alert' "$html" && fail "index.html contains the raw <script> of an idea"
grep -qF '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;' "$html" \
    || fail "index.html lacks the escaped idea text"
grep -qF '\u003cscript\u003ealert(\"x\")\u003c/script\u003e' "$html" || fail "chart JSON does not escape <"
n_open=$(grep -o '<script' "$html" | wc -l); n_close=$(grep -o '</script>' "$html" | wc -l)
[ "$n_open" -eq 6 ] || fail "index.html has $n_open <script> tags, want 6 (dygraphs, 4 charts, page code)"
[ "$n_close" -eq "$n_open" ] || fail "index.html: $n_open <script> but $n_close </script>"
grep -qF '&lt;script\>alert("x")&lt;/script\> &amp; '"'"'quotes'"'"' \| pipe second line after tab \\ backslash $x\_1^2% {}' \
    "$out/shapes/f16_4096x8192x8192/progression.md" || fail "progression.md escaping"
grep -qF '\textless{}script\textgreater{}alert("x")\textless{}/script\textgreater{} \& '"'"'quotes'"'"' \textbar{} pipe second line after tab \textbackslash{} backslash \$x\_1\textasciicircum{}2\% \{\}' \
    "$out/shapes/f16_4096x8192x8192/progression.tex" || fail "progression.tex escaping"

# ---- the HTML references only files that exist --------------------------------------
n=0
while IFS= read -r ref; do
    case "$ref" in '#'*|http://*|https://*) continue ;; esac
    path=$(printf '%b' "$(sed 's/&amp;/\&/g; s/%\([0-9A-Fa-f][0-9A-Fa-f]\)/\\x\1/g' <<<"${ref%%#*}")")
    [ -e "$out/$path" ] || fail "index.html links '$ref', which does not exist"
    n=$((n + 1))
done < <(grep -oE '(href|src)="[^"]*"' "$html" | sed -E 's/^(href|src)="//; s/"$//')
[ "$n" -gt 60 ] || fail "only $n links checked: the page lost its links"
grep -qE 'href="(\.\./)+[^"]*/tests/fixtures/tuning/logs/f16_4096x8192x8192/results.tsv"' "$html" \
    || fail "no relative link to the shape's results.tsv"
grep -qF 'src="shapes/f16_4096x8192x8192/convergence.svg"' "$html" || fail "convergence figure not shown"

# ---- what the page says about partial data ------------------------------------------
grep -q 'Simulated data' "$html" || fail "no simulated-data warning"
grep -qF 'results.tsv:44: last line has no newline' "$tmp/out/notes.txt" || fail "torn line not noted"
grep -qF "2 of 4 f16 shapes not started yet (f16_768x768x768, f16_2048x8192x8192)" "$out/notes.txt" \
    || fail "sweep plan gaps not listed: $(cat "$out/notes.txt")"
grep -qF "cuSPARSELt search 738.4 (anchor, not same run)" "$out/shapes/f16_1024x8192x1024/convergence.gp" \
    || fail "anchor vendor line not labelled as such"
grep -q "cuSPARSELt\|cuBLAS" "$out/shapes/e4m3_4096x8192x8192/convergence.gp" \
    && fail "a simulated run is drawn next to real vendor numbers"
grep -qF "TFLOPS of every iteration [SIMULATED]" "$out/shapes/e4m3_4096x8192x8192/convergence.gp" \
    || fail "the simulated run's figure title does not say so"
grep -qF "simulated run: no vendor comparison" "$out/notes.txt" || fail "no note on the simulated run's vendors"
grep -qF "cuSPARSELt search 991.0\"" "$out/shapes/f16_4096x8192x8192/convergence.gp" || fail "measured vendor line"
grep -qF 'set xlabel "iteration"' "$out/shapes/f16_4096x8192x8192/convergence.gp" || fail "x axis label"
grep -qF 'set ylabel "TFLOPS' "$out/shapes/f16_4096x8192x8192/convergence.gp" || fail "y axis label"

# ---- authors can re-run a script where it lies -------------------------------------
cp -r "$out/shapes/f16_4096x8192x8192" "$tmp/rerun"
rm "$tmp/rerun"/convergence.{svg,pdf,png}
(cd "$tmp/rerun" && gnuplot convergence.gp) 2>"$tmp/gp.err" || fail "gnuplot convergence.gp: $(cat "$tmp/gp.err")"
for e in svg pdf png; do [ -s "$tmp/rerun/convergence.$e" ] || fail "re-run did not write convergence.$e"; done

# ---- a second run over the same output gives the same tables -------------------------
cp "$out/tables/summary.csv" "$tmp/summary.first.csv"
"$bin" report --tuning "$fx" --out "$out" --anchors "$fx/vendor-anchors.json" >/dev/null 2>&1 || fail "second run"
cmp "$out/tables/summary.csv" "$tmp/summary.first.csv" || fail "summary.csv differs between two runs"
echo ok
