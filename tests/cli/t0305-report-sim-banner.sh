#!/usr/bin/env bash
# The simulated-data banner of a report (issue 24, item 17) names how many runs are
# simulated and a few of their keys, not every key in one paragraph: "All 8 runs say
# backend=sim ... (5 keys and 3 more)", the full list in a collapsed list under it; a
# report with fewer simulated runs than that names them all, with no list.
set -u
. "$(dirname "$0")/lib.sh"
t=$tmp/t
for m in 256 512 768 1024 1280 1536 1792 2048; do
    "$bin" tune --backend sim --quiet --dtype f16 --shape ${m}x1024x1024 --mode scratch --iters 1 --tuning "$t" ||
        fail "tune $m"
done
"$bin" report --tuning "$t" --out "$tmp/r" --gnuplot /nonexistent/gnuplot >/dev/null 2>"$tmp/err" ||
    fail "report: $(cat "$tmp/err")"
banner=$(grep -o '<p class="warn"><b>Simulated data.</b>[^<]*<code>backend=sim</code>[^<]*</p>' "$tmp/r/index.html")
[ -n "$banner" ] || fail "no simulated-data banner: $(grep -o '<p class="warn">.\{0,200\}' "$tmp/r/index.html")"
grep -qF '<b>Simulated data.</b> All 8 runs say <code>backend=sim</code>' <<<"$banner" || fail "banner: $banner"
[ "$(grep -o 'f16_[0-9]*x1024x1024_fs' <<<"$banner" | wc -l)" -eq 5 ] || fail "banner does not name 5 keys: $banner"
grep -qF ' and 3 more).</p>' <<<"$banner" || fail "banner does not count the rest: $banner"
list=$(sed -n '/<details class="sim-runs">/,/<\/details>/p' "$tmp/r/index.html")
grep -qF '<summary>All 8 simulated runs</summary>' <<<"$list" || fail "no list of the simulated runs"
[ "$(grep -c '^<li>f16_[0-9]*x1024x1024_fs</li>$' <<<"$list")" -eq 8 ] || fail "list: $list"
# three simulated runs: all named, no list
t3=$tmp/t3
for m in 256 512 768; do
    "$bin" tune --backend sim --quiet --dtype f16 --shape ${m}x1024x1024 --mode scratch --iters 1 --tuning "$t3" ||
        fail "tune $m"
done
"$bin" report --tuning "$t3" --out "$tmp/r3" --gnuplot /nonexistent/gnuplot >/dev/null 2>"$tmp/err" ||
    fail "report 3: $(cat "$tmp/err")"
grep -qF '<b>Simulated data.</b> All 3 runs say <code>backend=sim</code> in their results.tsv: their numbers were not measured on a GPU and must not be published (f16_256x1024x1024_fs, f16_512x1024x1024_fs, f16_768x1024x1024_fs).</p>' \
    "$tmp/r3/index.html" || fail "banner of 3: $(grep -o '<b>Simulated data.</b>.\{0,300\}' "$tmp/r3/index.html")"
grep -q 'class="sim-runs"' "$tmp/r3/index.html" && fail "a list under a banner that names every run"
echo ok
