#!/usr/bin/env bash
# Issue 17 item 10: resume checks every committed row against its evidence with the
# audit's per-row checks (docs/engine.md, "Audit") before it continues, and refuses,
# changing nothing, when a row, its idea line, its source or its raw measurement was
# edited; status says nothing of it. Put the original back and resume finishes as an
# uninterrupted run.
set -u
. "$(dirname "$0")/lib.sh"
sums() { (cd "$1" && find . -type f ! -name '*.lock' | sort | xargs sha256sum); }
tune=(tune --backend sim --seed 3 --quiet --dtype f16 --shape 2048x2048x4096 --mode scratch --iters 10)
key=f16_2048x2048x4096_fs
"$bin" "${tune[@]}" --tuning "$tmp/ref" >/dev/null || fail "reference run failed"
CROQ_CRASHPOINT=ideate.saved@7 "$bin" "${tune[@]}" --tuning "$tmp/mid" >/dev/null 2>&1
[ $? -eq 137 ] || fail "could not stop the run in the middle"
res=logs/$key/results.tsv
[ "$(($(wc -l <"$tmp/mid/$res") - 2))" -ge 6 ] || fail "too few committed rows"
keep=$(awk -F'\t' 'NR > 2 && $10 == "KEEP" {print $1; exit}' "$tmp/mid/$res")
disc=$(awk -F'\t' 'NR > 2 && $10 == "DISCARD" {print $1; exit}' "$tmp/mid/$res")
[ -n "$keep" ] && [ -n "$disc" ] || fail "want a KEEP and a DISCARD among the committed rows"

# case NAME FILE WANT EDIT: edit FILE (in a copy), resume must refuse naming WANT
case_() {
    local name=$1 file=$2 want=$3 edit=$4 d="$tmp/$1"
    cp -a "$tmp/mid" "$d"
    cp "$d/$file" "$tmp/$name.orig"
    (cd "$d" && eval "$edit") || fail "$name: could not edit $file"
    cmp -s "$d/$file" "$tmp/$name.orig" && fail "$name: the edit did not change $file"
    sums "$d" >"$tmp/$name.before"
    err=$("$bin" resume --tuning "$d" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 1 ] || fail "$name: resume exited $rc, want 1 ($err)"
    grep -q -- "$want" <<<"$err" || fail "$name: message does not say '$want': $err"
    grep -q "croqtuner audit" <<<"$err" || fail "$name: message does not point to the audit: $err"
    sums "$d" | diff - "$tmp/$name.before" >/dev/null || fail "$name: a refused resume changed files"
    cp -a "$tmp/mid/." "$d/" # every edited file back
    "$bin" resume --tuning "$d" --quiet >/dev/null 2>"$tmp/$name.err" || fail "$name: resume after repair: $(cat "$tmp/$name.err")"
    for f in "$res" "logs/$key/idea-log.jsonl" "checkpoints/$key.json"; do
        diff <(norm "$tmp/ref/$f") <(norm "$d/$f") >/dev/null || fail "$name: $f differs from the uninterrupted run"
    done
}
row() { echo "awk -F'\t' -v OFS='\t' -v i=$1 '$2' $res >x && mv x $res"; }
# a KEEP's TFLOPS raised, in the row only
case_ tflops "$res" "iter $keep: tflops" "$(row "$keep" 'NR > 2 && $1 == i {$5 = $5 + 50} 1')"
# a DISCARD relabelled KEEP, in the row and its idea line (the replay still says DISCARD)
case_ decision "$res" "iter $disc: decision KEEP, but its evidence gives DISCARD" \
    "$(row "$disc" 'NR > 2 && $1 == i {$10 = "KEEP"} 1') && sed -i '$((disc + 1))s/\"DISCARD\"/\"KEEP\"/' logs/$key/idea-log.jsonl"
# a kept source swapped after the fact
kept=srcs/$key/iter$(printf %03d "$keep")
if [ -f "$tmp/mid/$kept.cu" ]; then
    case_ source "$kept.cu" "iter $keep: source" "echo '// edited' >>$kept.cu"
else # a KEEP replaced since: only its recipe is kept (src/artifacts/srcstore.h); its config edited
    case_ source "$kept.gen.json" "iter $keep: source" \
        "sed -i -E 's/,raster=0,/,raster=X,/; s/,raster=1,/,raster=0,/; s/,raster=X,/,raster=1,/' $kept.gen.json"
fi
# a raw measurement rewritten
case_ raw "perf/$key/iter$(printf %03d "$disc")-cand.json" "iter $disc:" \
    "sed -i 's/\"median_ms\": [0-9.]*/\"median_ms\": 0.001/' perf/$key/iter$(printf %03d "$disc")-cand.json"
echo ok
