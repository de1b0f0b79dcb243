#!/usr/bin/env bash
# `report --link-dygraphs` (issue 25 item 5: one copy of each vendored file): the report's
# dygraph.min.js and dygraph.css are relative symbolic links to the --dygraphs files, so a
# report committed beside results/vendor/dygraphs holds no copy of its own, and it still
# opens from disk (the links resolve from the report's directory, also after the tree
# is moved); a second run replaces the links, and without the flag the report copies as
# before. The committed reports link to the one vendored copy.
. "$(dirname "$0")/lib.sh"
fx="$CROQ_SOURCE_DIR/tests/fixtures/tuning"
vendor="$CROQ_SOURCE_DIR/results/vendor/dygraphs"
[ -s "$vendor/dygraph.min.js" ] && [ -s "$vendor/dygraph.css" ] || fail "no vendored dygraphs in $vendor"

mkdir -p "$tmp/tree/vendor" "$tmp/tree/results/r"
cp "$vendor/dygraph.min.js" "$vendor/dygraph.css" "$tmp/tree/vendor/"
rep() { "$bin" report --tuning "$fx" --anchors "$fx/vendor-anchors.json" --gnuplot "$tmp/no-gnuplot" "$@" \
        >"$tmp/out.log" 2>&1 || fail "report $*: $(tail -n 3 "$tmp/out.log")"; }
for run in 1 2; do
    rep --out "$tmp/tree/results/r" --dygraphs "$tmp/tree/vendor" --link-dygraphs
    for f in dygraph.min.js dygraph.css; do
        [ -L "$tmp/tree/results/r/$f" ] || fail "run $run: $f is not a link"
        [ "$(readlink "$tmp/tree/results/r/$f")" = "../../vendor/$f" ] ||
            fail "run $run: $f -> $(readlink "$tmp/tree/results/r/$f"), want ../../vendor/$f"
    done
done
grep -q '<script src="dygraph.min.js"></script>' "$tmp/tree/results/r/index.html" || fail "the page loads no dygraphs"
mv "$tmp/tree" "$tmp/moved"
cmp -s "$tmp/moved/results/r/dygraph.min.js" "$vendor/dygraph.min.js" || fail "the link does not resolve after a move"
ls "$tmp/moved/results/r" | grep -q '\.tmp\.' && fail "a temporary link was left"

rep --out "$tmp/copied" --dygraphs "$vendor"
[ -f "$tmp/copied/dygraph.min.js" ] && [ ! -L "$tmp/copied/dygraph.min.js" ] || fail "without the flag: not a copy"
cmp -s "$tmp/copied/dygraph.css" "$vendor/dygraph.css" || fail "the copy differs"

# the committed reports: links to the one copy, which they resolve to
for r in "$CROQ_SOURCE_DIR"/results/*/report-*/; do
    for f in dygraph.min.js dygraph.css; do
        [ -e "$r/$f" ] || continue
        [ -L "$r/$f" ] || fail "$r$f is a copy: link it to results/vendor/dygraphs ('report --link-dygraphs')"
        cmp -s "$r/$f" "$vendor/$f" || fail "$r$f does not resolve to the vendored copy"
    done
done
# in git: one regular dygraph.min.js, the others symbolic links (mode 120000)
if files=$(git -C "$CROQ_SOURCE_DIR" ls-files -s 2>/dev/null); then
    n=$(awk '$1 != "120000" && $4 ~ /(^|\/)dygraph\.min\.js$/' <<<"$files" | wc -l)
    [ "$n" -eq 1 ] || fail "$n tracked copies of dygraph.min.js, want 1: $(grep 'dygraph\.min\.js' <<<"$files")"
fi
echo ok
