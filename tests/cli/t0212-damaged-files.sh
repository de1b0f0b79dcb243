#!/usr/bin/env bash
# Truncated or malformed state.json, checkpoint, results.tsv, idea-log.jsonl and
# attempts.tsv: resume and status refuse with a message naming the file, and change
# nothing (every file byte-identical). Put the original back and resume finishes with
# the results of an uninterrupted run: nothing was lost.
set -u
. "$(dirname "$0")/lib.sh"
export CROQ_SIM_FAULTS="compile@2,crash@4"
tune=(tune --backend sim --seed 5 --quiet --dtype f16 --shape 2048x2048x4096 --mode scratch --iters 14)
key=f16_2048x2048x4096_fs
"$bin" "${tune[@]}" --tuning "$tmp/ref" >/dev/null || fail "reference run failed"
CROQ_CRASHPOINT=ideate.saved@8 "$bin" "${tune[@]}" --tuning "$tmp/mid" >/dev/null 2>&1
[ $? -eq 137 ] || fail "could not stop the run in the middle"

sums() { (cd "$1" && find . -type f ! -name '*.lock' | sort | xargs sha256sum); }
norm() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/TIMESTAMP/g' "$1"; }

# case NAME FILE WANT-IN-MESSAGE EDIT...: damage FILE with the command EDIT (run in the
# copy), check the refusal, undo, finish.
case_() {
    local name=$1 file=$2 want=$3; shift 3
    local d="$tmp/$name"
    cp -a "$tmp/mid" "$d"
    cp "$d/$file" "$tmp/$name.orig"
    (cd "$d" && eval "$*") || fail "$name: could not damage $file"
    cmp -s "$d/$file" "$tmp/$name.orig" && fail "$name: the damage did not change $file"
    sums "$d" >"$tmp/$name.before"
    for cmd in resume status; do
        err=$("$bin" $cmd --tuning "$d" 2>&1 >/dev/null); rc=$?
        [ $cmd = status ] && [ "${file%%/*}" != state.json ] && continue # status reads only state.json
        [ $rc -eq 1 ] || fail "$name: $cmd exited $rc, want 1 ($err)"
        grep -q "$(basename "$file")" <<<"$err" || fail "$name: $cmd message does not name $file: $err"
        grep -q -- "$want" <<<"$err" || fail "$name: $cmd message does not say '$want': $err"
    done
    sums "$d" | diff - "$tmp/$name.before" >/dev/null || fail "$name: a refused resume changed files"
    cp "$tmp/$name.orig" "$d/$file"
    "$bin" resume --tuning "$d" --quiet >/dev/null 2>"$tmp/$name.err" || fail "$name: resume after repair: $(cat "$tmp/$name.err")"
    for f in logs/$key/results.tsv logs/$key/idea-log.jsonl state.json; do
        diff <(norm "$tmp/ref/$f") <(norm "$d/$f") >/dev/null || fail "$name: $f differs from the uninterrupted run"
    done
}
res=logs/$key/results.tsv ideas=logs/$key/idea-log.jsonl att=logs/$key/attempts.tsv ck=checkpoints/$key.json
case_ state-truncated state.json "left as it is" 'truncate -s 100 state.json'
case_ state-bad-key state.json "not a shape key" 'sed -i "s|\"$key\"|\"../../$key\"|" state.json'
case_ state-schema state.json "schema 7" 'sed -i "s|\"schema\": 1|\"schema\": 7|" state.json'
case_ ck-truncated "$ck" "left as it is" "truncate -s 300 $ck"
case_ ck-missing "$ck" "restore checkpoints" "rm $ck"
case_ ck-missing-member "$ck" "best" "sed -i 's|\"best\":|\"bestx\":|' $ck"
case_ ck-other-key "$ck" "key" "sed -i 's|\"key\": \"$key\"|\"key\": \"f16_2048x2048x2048_fs\"|' $ck"
case_ res-bad-line "$res" "line 5" "sed -i '5s/\t/ /g' $res"
case_ res-lost-rows "$res" "committed" "sed -i '\$d' $res"
case_ res-torn-old-row "$res" "committed 7" "head -c -40 $res >x && mv x $res"
case_ res-bad-schema "$res" "line 1" "sed -i '1s/schema=1/schema=2/' $res"
case_ ideas-bad-json "$ideas" "line 3" "sed -i '3s/^{/[/' $ideas"
case_ ideas-truncated "$ideas" "committed 7" "head -c -10 $ideas >x && mv x $ideas"
case_ attempts-garbage "$att" "line 3" "sed -i '3s/^/garbage/' $att"
echo ok
